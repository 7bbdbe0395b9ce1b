package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"citydrive/slots"
)

// Replay is a replay file, read and checked whole.
type Replay struct {
	Header
	Checks    int        // checksums in the body
	Incidents []Incident // what happened, in order
	Places    int        // times the car was put somewhere
	Samples   int        // samples of the other players' cars
	body      []byte     // inflated, checked
}

// Read reads and checks a replay file (at most MaxFile bytes).
func Read(r io.Reader) (*Replay, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%w: over %d MiB", ErrTooLarge, MaxFile>>20)
	}
	return Parse(data)
}

// Parse checks a whole replay file and reads its header; the body is
// read through to its end once, so a Player of it meets no error.
func Parse(data []byte) (*Replay, error) {
	const fixed = len(magic) + 2 + 4
	if len(data) < fixed || !bytes.Equal(data[:len(magic)], magic[:]) {
		return nil, ErrNotReplay
	}
	if v := binary.LittleEndian.Uint16(data[len(magic):]); v != FormatVersion {
		return nil, fmt.Errorf("%w: the file is version %d, this build reads %d", ErrVersion, v, FormatVersion)
	}
	if len(data) < fixed+4 {
		return nil, fmt.Errorf("%w: cut short", ErrDamaged)
	}
	if sum, want := binary.LittleEndian.Uint32(data[len(data)-4:]), crc32.ChecksumIEEE(data[:len(data)-4]); sum != want {
		return nil, fmt.Errorf("%w: its checksum does not match (cut short or changed)", ErrDamaged)
	}
	data = data[:len(data)-4]
	d := decoder{b: data[len(magic)+2:]}
	hlen := d.u32()
	if hlen > maxHeader || int(hlen) > len(d.b) {
		return nil, fmt.Errorf("%w: header of %d bytes", ErrDamaged, hlen)
	}
	h, err := parseHeader(d.take(int(hlen)))
	if err != nil {
		return nil, err
	}
	zlen := d.u32()
	if d.err != nil || int(zlen) != len(d.b) {
		return nil, fmt.Errorf("%w: body of %d bytes where %d remain", ErrDamaged, zlen, len(d.b))
	}
	body, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(d.b)), MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: body: %v", ErrDamaged, err)
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("%w: body over %d MiB", ErrTooLarge, MaxBody>>20)
	}
	rp := &Replay{Header: h, body: body}
	if err := rp.scan(); err != nil {
		return nil, err
	}
	return rp, nil
}

// parseBody checks a body on its own (the fuzz test's entry).
func parseBody(h Header, body []byte) (*Replay, error) {
	rp := &Replay{Header: h, body: body}
	return rp, rp.scan()
}

// scan reads the body through, checking every record, and counts.
func (rp *Replay) scan() error {
	p := rp.Player()
	for {
		b, _, more := p.Next()
		if p.err != nil {
			return p.err
		}
		if b.HasCheck {
			rp.Checks++
		}
		for _, k := range b.Incidents {
			rp.Incidents = append(rp.Incidents, Incident{Kind: k, Step: b.N})
		}
		rp.Places += len(b.Places)
		if b.HasRemote {
			rp.Samples++
		}
		if !more {
			break
		}
	}
	if p.n != rp.Steps {
		return fmt.Errorf("%w: the header says %d steps, the body holds %d", ErrDamaged, rp.Steps, p.n)
	}
	return nil
}

func parseHeader(b []byte) (Header, error) {
	d := decoder{b: b}
	var h Header
	h.Seed = d.u64()
	h.Protocol = d.u32()
	h.Generator = d.u32()
	if q := d.u16(); d.err == nil && q != Quantum {
		return h, fmt.Errorf("%w: controls in 1/%d, this build records 1/%d", ErrVersion, q, Quantum)
	}
	h.Sim = Sim{StepHz: d.u16(), TrafficEvery: d.u16(), CheckEvery: d.u16(), RemoteEvery: d.u16()}
	h.Start = [2]float64{d.f64(), d.f64()}
	h.Dir = [2]float64{d.f64(), d.f64()}
	h.TimeOfDay = d.f64()
	h.Weather = d.byte()
	flags := d.byte()
	h.Traffic, h.Autopilot = flags&flagTraffic != 0, flags&flagAutopilot != 0
	h.FixedStep, h.Remote = flags&flagFixedStep != 0, flags&flagRemote != 0
	h.Recorded = int64(d.u64())
	h.Steps = d.u64()
	n := int(d.byte())
	h.Build = string(d.take(n))
	switch {
	case d.err != nil:
		return h, fmt.Errorf("%w: header cut short", ErrDamaged)
	case len(d.b) != 0:
		return h, fmt.Errorf("%w: %d bytes after the header", ErrDamaged, len(d.b))
	case flags&^flagsKnown != 0:
		return h, fmt.Errorf("%w: unknown header flags %#x", ErrDamaged, flags)
	case h.Steps > MaxSteps:
		return h, fmt.Errorf("%w: %d steps (at most %d)", ErrTooLarge, h.Steps, MaxSteps)
	case h.Sim.StepHz == 0 || h.Sim.TrafficEvery == 0 || h.Sim.CheckEvery == 0 || h.Sim.RemoteEvery == 0:
		return h, fmt.Errorf("%w: a zero rate in %+v", ErrDamaged, h.Sim)
	case !finite(h.Start[0], h.Start[1], h.Dir[0], h.Dir[1], h.TimeOfDay) || h.TimeOfDay < 0 || h.TimeOfDay >= 24:
		return h, fmt.Errorf("%w: start or time of day out of range", ErrDamaged)
	}
	return h, nil
}

// Boundary is what a replay holds between two steps: what the step before
// did (its checksum and incidents), then what comes before the next one.
type Boundary struct {
	N         uint64 // steps before it
	HasCheck  bool
	Car       uint32 // checksums of the state after N steps
	Traffic   uint32
	Incidents []Kind  // begun by step N-1
	Places    []Place // the car put somewhere, in order (the last one stands)
	HasClock  bool
	Clock     Clock // the world clock from step N on
	HasRemote bool
	Remote    []Car // the other cars sampled here
}

// Player reads a replay step by step.
type Player struct {
	rp     *Replay
	d      decoder
	n      uint64 // steps read
	left   uint64 // steps of the current run still to come
	in     Input
	b      Boundary
	obst   []Obstacle
	blocks [][2]int64
	done   bool
	err    error
}

// Player reads rp from its start.
func (rp *Replay) Player() *Player {
	return &Player{rp: rp, d: decoder{b: rp.body}}
}

// Next is the next boundary and, when more, the step after it: its
// controls (Touched has what it touched). Without more the boundary is
// the last, after the last step. The boundary is valid until the next
// call.
func (p *Player) Next() (b *Boundary, in Input, more bool) {
	p.b = Boundary{N: p.n, Incidents: p.b.Incidents[:0], Places: p.b.Places[:0], Remote: p.b.Remote[:0]}
	if p.done || p.err != nil {
		return &p.b, Input{}, false
	}
	if p.left > 0 {
		p.left--
		p.n++
		return &p.b, p.in, true
	}
	for p.err == nil {
		op := p.d.byte()
		if p.d.err != nil {
			p.fail("the body ends without its end record")
			break
		}
		if op&runBit != 0 {
			if p.readRun(op) {
				p.n++
				return &p.b, p.in, true
			}
			continue
		}
		switch op {
		case opEnd:
			if len(p.d.b) != 0 {
				p.fail("%d bytes after the end record", len(p.d.b))
				break
			}
			p.done = true
			return &p.b, Input{}, false
		case opPlace:
			pl := Place{Pos: [2]float64{p.d.f64(), p.d.f64()}, Dir: [2]float64{p.d.f64(), p.d.f64()}}
			fl := p.d.byte()
			pl.Reset = fl&1 != 0
			switch {
			case fl&^1 != 0:
				p.fail("a place with flags %#x", fl)
			case !finite(pl.Pos[0], pl.Pos[1], pl.Dir[0], pl.Dir[1]) || pl.Dir == [2]float64{}:
				p.fail("a place out of range")
			case len(p.b.Places) == MaxTouched:
				p.fail("over %d places at one step", MaxTouched)
			default:
				p.b.Places = append(p.b.Places, pl)
			}
		case opClock:
			p.b.HasClock, p.b.Clock = true, Clock{World: p.d.f64(), Rate: p.d.f64()}
			if c := p.b.Clock; !finite(c.World) || !(c.Rate > 0 && c.Rate <= 1) {
				p.fail("a world clock at %v running at %v", c.World, c.Rate)
			}
		case opObstacles:
			p.readObstacles()
		case opBlocks:
			p.readBlocks()
		case opRemote:
			p.readRemote()
		case opCheck:
			if p.b.HasCheck {
				p.fail("two checksums at step %d", p.n)
			}
			p.b.HasCheck, p.b.Car, p.b.Traffic = true, p.d.u32(), p.d.u32()
		case opIncident:
			k := Kind(p.d.byte())
			switch {
			case k != Contact && k != Stuck:
				p.fail("an incident of kind %d", k)
			case len(p.b.Incidents) == MaxTouched:
				p.fail("over %d incidents at one step", MaxTouched)
			default:
				p.b.Incidents = append(p.b.Incidents, k)
			}
		default:
			p.fail("unknown record %d", op)
		}
		if p.d.err != nil && p.err == nil {
			p.fail("a record cut short")
		}
	}
	return &p.b, Input{}, false
}

// Touched is what the step Next returned touched: the obstacles (without
// the traffic) and the block columns, in the order the car met them.
// Valid until the next call.
func (p *Player) Touched() ([]Obstacle, [][2]int64) { return p.obst, p.blocks }

// Err is why the player stopped early (nil for a checked Replay's).
func (p *Player) Err() error { return p.err }

func (p *Player) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%w: at step %d: %s", ErrDamaged, p.n, fmt.Sprintf(format, args...))
	}
}

func (p *Player) readRun(op byte) bool {
	n := uint64(1)
	if op&runCounted != 0 {
		if n = p.d.uvarint(); n < 2 && p.d.err == nil {
			p.fail("a counted run of %d steps", n)
			return false
		}
	}
	mask := op &^ (runBit | runCounted)
	in := p.in
	in.Throttle = p.field(mask, fieldThrottle, in.Throttle, 0)
	in.Brake = p.field(mask, fieldBrake, in.Brake, 0)
	in.Steer = p.field(mask, fieldSteer, in.Steer, -Quantum)
	if mask&fieldWaiting != 0 {
		in.Waiting = !in.Waiting
	}
	switch {
	case p.d.err != nil:
		return false
	case mask&^fieldsAll != 0:
		p.fail("a run with fields %#x", mask)
	case n > maxRunSteps || p.n+n > MaxSteps:
		p.fail("a run of %d steps", n)
	}
	if p.err != nil {
		return false
	}
	p.in, p.left = in, n-1
	return true
}

// field applies a run's delta to one control, which must stay in [lo,
// Quantum].
func (p *Player) field(mask, bit byte, v int16, lo int64) int16 {
	if mask&bit == 0 {
		return v
	}
	nv := int64(v) + p.d.varint()
	if nv < lo || nv > Quantum {
		p.fail("a control of %d/%d", nv, Quantum)
		return v
	}
	return int16(nv)
}

func (p *Player) readObstacles() {
	n := p.d.uvarint()
	if n > MaxTouched {
		p.fail("%d obstacles touched at once", n)
		return
	}
	p.obst = p.obst[:0]
	for range n {
		o := Obstacle{Centre: [2]float64{p.d.f64(), p.d.f64()}, Axis: [2]float64{p.d.f64(), p.d.f64()},
			Half: [2]float64{p.d.f64(), p.d.f64()}, Y0: p.d.f64(), Y1: p.d.f64(), Kind: slots.ObstacleKind(p.d.byte())}
		if p.d.err != nil {
			return
		}
		if !finite(o.Centre[0], o.Centre[1], o.Axis[0], o.Axis[1], o.Half[0], o.Half[1], o.Y0, o.Y1) ||
			o.Kind == slots.ObstacleNone || o.Kind >= slots.ObstacleTraffic {
			p.fail("an obstacle out of range")
			return
		}
		p.obst = append(p.obst, o)
	}
}

func (p *Player) readBlocks() {
	n := p.d.uvarint()
	if n > MaxTouched {
		p.fail("%d blocks touched at once", n)
		return
	}
	p.blocks = p.blocks[:0]
	for range n {
		p.blocks = append(p.blocks, [2]int64{p.d.varint(), p.d.varint()})
	}
}

func (p *Player) readRemote() {
	n := p.d.uvarint()
	if n > MaxRemote {
		p.fail("%d cars in a sample", n)
		return
	}
	if p.b.HasRemote {
		p.fail("two samples of the cars at step %d", p.n)
		return
	}
	p.b.HasRemote = true
	for range n {
		player := p.d.uvarint()
		x, y, z := p.d.varint(), p.d.varint(), p.d.varint()
		h := p.d.u16()
		speed := p.d.varint()
		if player > math.MaxUint32 || !in32(x) || !in32(y) || !in32(z) || speed < math.MinInt16 || speed > math.MaxInt16 {
			p.fail("a car out of range")
			return
		}
		p.b.Remote = append(p.b.Remote, Car{Player: uint32(player), X: int32(x), Y: int32(y), Z: int32(z), Heading: h, Speed: int16(speed)})
	}
}

func in32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// decoder reads little-endian numbers and varints; past the end it
// reads zeros and remembers the error.
type decoder struct {
	b   []byte
	err error
}

var errShort = io.ErrUnexpectedEOF

func (d *decoder) take(n int) []byte {
	if d.err != nil || n > len(d.b) || n < 0 {
		d.err = errShort
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if b := d.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}
