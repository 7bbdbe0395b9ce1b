package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
)

// The body's records: a byte saying which, then its fields. Every record
// but a run belongs to the boundary before the next step: a boundary's
// records come before the run that holds its step, and the steps of a run
// have none between them. A run's byte is runBit | the changed fields
// (the mask below) | runCounted when a uvarint count ≥ 2 follows (else it
// is one step); then the zigzag deltas of the changed controls.
const (
	opEnd       = iota // the end of the body
	opPlace            // 4 float64 (pos x z, dir x z), a flags byte (1: a reset)
	opClock            // 2 float64: the world clock from here on (its time here, its rate)
	opObstacles        // uvarint n ≤ MaxTouched, n obstacles: the touched set from this step on
	opBlocks           // uvarint n ≤ MaxTouched, n zigzag (x, z): the touched block columns from this step on
	opRemote           // uvarint n ≤ MaxRemote, n cars: the other players' cars sampled here
	opCheck            // uint32 car, uint32 traffic: checksums of the state after this many steps
	opIncident         // a Kind byte: the step before this boundary began it
)

// A run's byte: the changed fields, and whether a count follows.
const (
	fieldThrottle = 1 << iota
	fieldBrake
	fieldSteer
	fieldWaiting // the waiting flag turns over
	fieldsAll    = fieldThrottle | fieldBrake | fieldSteer | fieldWaiting

	runCounted = 0x40
	runBit     = 0x80
)

var magic = [8]byte{'C', 'D', 'R', 'E', 'P', 'L', 'A', 'Y'}

// Recorder records a drive as it goes. Calls follow the steps: the
// boundary's records (Place, Clock, Remote), then Step, then what the step
// did (Incident, Check). It allocates only as its body grows, and stops
// growing at the limits (Full), the file still whole up to there.
type Recorder struct {
	h      Header
	body   []byte
	steps  uint64
	run    Input  // the controls of the run being counted
	runN   uint64 // its steps so far (0: none)
	last   Input  // the controls of the last run written: deltas are from it
	obst   []Obstacle
	blocks [][2]int64
	full   bool
	limit  int // body bytes past which the recording stops

	tail      uint64 // steps a cut runs on past an incident (0: no cuts)
	maxCuts   int
	cuts      []Cut
	due       []int // indices of cuts not yet made, in order of At
	incidents []Incident
	checkedAt uint64
	checked   bool
}

// Cut is a replay of the drive's start up to shortly after an incident,
// made as the drive passed that point (Recorder.CutFile).
type Cut struct {
	Incident Incident
	At       uint64 // the steps it holds
	offset   int    // body bytes
	made     bool
}

// NewRecorder starts recording a drive from h (its Steps is counted).
func NewRecorder(h Header) *Recorder {
	if len(h.Build) > maxBuild {
		h.Build = h.Build[:maxBuild]
	}
	// Room for the records of a few more steps past the limit.
	return &Recorder{h: h, body: make([]byte, 0, 4096), limit: MaxBody - 64<<10}
}

// CutAfter has every incident (up to max of them) cut into a replay of
// its own that runs tail steps past it.
func (r *Recorder) CutAfter(tail uint64, max int) { r.tail, r.maxCuts = tail, max }

// Header is the drive's header (Steps so far).
func (r *Recorder) Header() Header {
	h := r.h
	h.Steps = r.steps
	return h
}

// Steps is how many steps were recorded.
func (r *Recorder) Steps() uint64 { return r.steps }

// Full reports whether the recording stopped at a limit.
func (r *Recorder) Full() bool { return r.full }

// Incidents is what happened in the drive so far.
func (r *Recorder) Incidents() []Incident { return r.incidents }

// Place records the car put at p before the next step.
func (r *Recorder) Place(p Place) {
	if r.full {
		return
	}
	r.flush()
	r.body = append(r.body, opPlace)
	r.body = appendFloats(r.body, p.Pos[0], p.Pos[1], p.Dir[0], p.Dir[1])
	r.body = append(r.body, boolByte(p.Reset))
}

// Clock records the world clock from the next step on.
func (r *Recorder) Clock(c Clock) {
	if r.full {
		return
	}
	r.flush()
	r.body = append(r.body, opClock)
	r.body = appendFloats(r.body, c.World, c.Rate)
}

// Remote records the other players' cars sampled before the next step
// (at most MaxRemote: the first ones).
func (r *Recorder) Remote(cars []Car) {
	if r.full {
		return
	}
	r.flush()
	cars = cars[:min(len(cars), MaxRemote)]
	if len(cars) > 0 {
		r.h.Remote = true
	}
	r.body = append(r.body, opRemote)
	r.body = binary.AppendUvarint(r.body, uint64(len(cars)))
	for _, c := range cars {
		r.body = binary.AppendUvarint(r.body, uint64(c.Player))
		r.body = binary.AppendVarint(r.body, int64(c.X))
		r.body = binary.AppendVarint(r.body, int64(c.Y))
		r.body = binary.AppendVarint(r.body, int64(c.Z))
		r.body = binary.LittleEndian.AppendUint16(r.body, c.Heading)
		r.body = binary.AppendVarint(r.body, int64(c.Speed))
	}
}

// Step records one step: its controls, and the obstacles and block
// columns it touched (car.Car.Touched, without the traffic), at most
// MaxTouched of each.
func (r *Recorder) Step(in Input, touched []Obstacle, blocks [][2]int64) {
	if r.full {
		return
	}
	touched = touched[:min(len(touched), MaxTouched)]
	blocks = blocks[:min(len(blocks), MaxTouched)]
	if !slices.Equal(touched, r.obst) {
		r.flush()
		r.obst = append(r.obst[:0], touched...)
		r.body = append(r.body, opObstacles)
		r.body = binary.AppendUvarint(r.body, uint64(len(touched)))
		for _, o := range touched {
			r.body = appendFloats(r.body, o.Centre[0], o.Centre[1], o.Axis[0], o.Axis[1], o.Half[0], o.Half[1], o.Y0, o.Y1)
			r.body = append(r.body, byte(o.Kind))
		}
	}
	if !slices.Equal(blocks, r.blocks) {
		r.flush()
		r.blocks = append(r.blocks[:0], blocks...)
		r.body = append(r.body, opBlocks)
		r.body = binary.AppendUvarint(r.body, uint64(len(blocks)))
		for _, b := range blocks {
			r.body = binary.AppendVarint(r.body, b[0])
			r.body = binary.AppendVarint(r.body, b[1])
		}
	}
	if r.runN > 0 && in != r.run {
		r.flush()
	}
	r.run = in
	r.runN++
	r.steps++
	// Past a limit the recording ends here, whole.
	if r.steps >= MaxSteps || len(r.body) > r.limit {
		r.flush()
		r.full = true
	}
}

// Incident records that the last step began k, and schedules its cut.
func (r *Recorder) Incident(k Kind) {
	if r.full {
		return
	}
	r.flush()
	r.body = append(r.body, opIncident, byte(k))
	in := Incident{Kind: k, Step: r.steps}
	r.incidents = append(r.incidents, in)
	if r.tail > 0 && len(r.cuts) < r.maxCuts {
		r.due = append(r.due, len(r.cuts))
		r.cuts = append(r.cuts, Cut{Incident: in, At: r.steps + r.tail})
	}
}

// Check records the checksums of the car and the traffic after the steps
// so far (once per boundary).
func (r *Recorder) Check(car, traffic uint32) {
	if r.full || (r.checked && r.checkedAt == r.steps) {
		return
	}
	r.flush()
	r.checked, r.checkedAt = true, r.steps
	r.body = append(r.body, opCheck)
	r.body = binary.LittleEndian.AppendUint32(r.body, car)
	r.body = binary.LittleEndian.AppendUint32(r.body, traffic)
}

// CutDue reports whether a cut ends at this boundary: the caller then
// records a Check and calls Cut.
func (r *Recorder) CutDue() bool {
	return len(r.due) > 0 && r.cuts[r.due[0]].At <= r.steps
}

// Cut makes the cuts due at this boundary.
func (r *Recorder) Cut() {
	r.flush()
	for len(r.due) > 0 && r.cuts[r.due[0]].At <= r.steps {
		c := &r.cuts[r.due[0]]
		c.At, c.offset, c.made = r.steps, len(r.body), true
		r.due = r.due[1:]
	}
}

// Cuts is the incidents' cuts, in order; those not yet made end where
// the recording is now (CutFile).
func (r *Recorder) Cuts() []Cut { return r.cuts }

// File is the whole recording so far as a replay file.
func (r *Recorder) File() []byte {
	r.flush()
	return r.file(r.body, r.steps)
}

// CutFile is cut c as a replay file: the drive up to c.At, or the whole
// recording so far if the drive has not got there.
func (r *Recorder) CutFile(c Cut) []byte {
	if !c.made {
		return r.File()
	}
	return r.file(r.body[:c.offset], c.At)
}

// flush writes the run being counted.
func (r *Recorder) flush() {
	if r.runN == 0 {
		return
	}
	mask := byte(0)
	if r.run.Throttle != r.last.Throttle {
		mask |= fieldThrottle
	}
	if r.run.Brake != r.last.Brake {
		mask |= fieldBrake
	}
	if r.run.Steer != r.last.Steer {
		mask |= fieldSteer
	}
	if r.run.Waiting != r.last.Waiting {
		mask |= fieldWaiting
	}
	if r.runN > 1 {
		r.body = append(r.body, runBit|runCounted|mask)
		r.body = binary.AppendUvarint(r.body, r.runN)
	} else {
		r.body = append(r.body, runBit|mask)
	}
	if mask&fieldThrottle != 0 {
		r.body = binary.AppendVarint(r.body, int64(r.run.Throttle)-int64(r.last.Throttle))
	}
	if mask&fieldBrake != 0 {
		r.body = binary.AppendVarint(r.body, int64(r.run.Brake)-int64(r.last.Brake))
	}
	if mask&fieldSteer != 0 {
		r.body = binary.AppendVarint(r.body, int64(r.run.Steer)-int64(r.last.Steer))
	}
	r.last, r.runN = r.run, 0
}

// file is a replay file of body holding steps steps.
func (r *Recorder) file(body []byte, steps uint64) []byte {
	h := r.h
	h.Steps = steps
	hdr := appendHeader(nil, h)
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression) // the level is valid
	_, _ = fw.Write(body)                               // a bytes.Buffer takes everything
	_, _ = fw.Write([]byte{opEnd})
	_ = fw.Close()
	out := make([]byte, 0, len(magic)+2+4+len(hdr)+4+z.Len()+4)
	out = append(out, magic[:]...)
	out = binary.LittleEndian.AppendUint16(out, FormatVersion)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hdr)))
	out = append(out, hdr...)
	out = binary.LittleEndian.AppendUint32(out, uint32(z.Len()))
	out = append(out, z.Bytes()...)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// header flags
const (
	flagTraffic = 1 << iota
	flagAutopilot
	flagFixedStep
	flagRemote
	flagsKnown = flagTraffic | flagAutopilot | flagFixedStep | flagRemote
)

func appendHeader(b []byte, h Header) []byte {
	b = binary.LittleEndian.AppendUint64(b, h.Seed)
	b = binary.LittleEndian.AppendUint32(b, h.Protocol)
	b = binary.LittleEndian.AppendUint32(b, h.Generator)
	b = binary.LittleEndian.AppendUint16(b, Quantum)
	for _, v := range [...]uint16{h.Sim.StepHz, h.Sim.TrafficEvery, h.Sim.CheckEvery, h.Sim.RemoteEvery} {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	b = appendFloats(b, h.Start[0], h.Start[1], h.Dir[0], h.Dir[1], h.TimeOfDay)
	flags := byte(0)
	for i, on := range [...]bool{h.Traffic, h.Autopilot, h.FixedStep, h.Remote} {
		if on {
			flags |= 1 << i
		}
	}
	b = append(b, h.Weather, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Recorded))
	b = binary.LittleEndian.AppendUint64(b, h.Steps)
	b = append(b, byte(len(h.Build)))
	return append(b, h.Build...)
}

func appendFloats(b []byte, fs ...float64) []byte {
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
