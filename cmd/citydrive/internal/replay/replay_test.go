package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/slots"
)

var testHeader = Header{
	Seed: 412, Protocol: 9, Generator: 3, Build: "devel abc123",
	Sim:   Sim{StepHz: 120, TrafficEvery: 2, CheckEvery: 120, RemoteEvery: 12},
	Start: [2]float64{10.5, -3.25}, Dir: [2]float64{0.6, 0.8}, TimeOfDay: 17.5, Weather: 1,
	Traffic: true, Autopilot: true, Recorded: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(),
}

// step is one recorded step and the boundary before it, as the test
// expects the player to give them back.
type step struct {
	places  []Place
	clock   *Clock
	remote  []Car
	hasCars bool
	in      Input
	obst    []Obstacle
	blocks  [][2]int64
	// after the step
	incidents []Kind
	check     *[2]uint32
}

// drive is a random drive: controls held for a while (a player's keys),
// then changing every step (the autopilot's), now and then a reset, a
// new clock base, a sample of other cars, a scrape along something, a
// built block, an incident, and a checksum every CheckEvery steps.
func drive(rng *rand.Rand, n int) []step {
	steps := make([]step, n)
	in := Input{}
	var obst []Obstacle
	var blocks [][2]int64
	for i := range steps {
		s := &steps[i]
		if i%3000 < 1500 {
			if rng.IntN(60) == 0 {
				in = Input{Throttle: int16(rng.IntN(2)) * Quantum, Steer: int16(rng.IntN(3)-1) * Quantum, Waiting: rng.IntN(4) == 0}
			}
		} else {
			in = QuantiseInput(rng.Float64(), rng.Float64()*0.3, rng.Float64()*2-1, in.Waiting != (rng.IntN(100) == 0))
		}
		s.in = in
		if rng.IntN(2000) == 0 {
			s.places = append(s.places, Place{Pos: [2]float64{rng.NormFloat64(), rng.NormFloat64()}, Dir: [2]float64{1, 0}, Reset: rng.IntN(2) == 0})
		}
		if rng.IntN(3000) == 0 {
			s.clock = &Clock{World: rng.Float64() * 1e6, Rate: 1 - rng.Float64()*0.5}
		}
		if i%12 == 0 && rng.IntN(3) == 0 {
			s.hasCars = true
			for range rng.IntN(4) {
				s.remote = append(s.remote, Car{Player: uint32(rng.IntN(9)), X: rng.Int32(), Y: -rng.Int32(), Z: rng.Int32N(1000),
					Heading: uint16(rng.IntN(65536)), Speed: int16(rng.IntN(6000) - 3000)})
			}
		}
		switch rng.IntN(200) {
		case 0: // a scrape begins
			obst = []Obstacle{slots.BoxObstacle([2]float64{rng.Float64(), 3}, 0.3, 1, 2, 0, 3, slots.ObstacleParkedCar)}
		case 1:
			obst = nil
		case 2:
			blocks = [][2]int64{{rng.Int64N(100) - 50, -7}, {3, 4}}
		case 3:
			blocks = nil
		}
		s.obst, s.blocks = obst, blocks
		if rng.IntN(1500) == 0 {
			s.incidents = append(s.incidents, Kind(1+rng.IntN(2)))
		}
		if (i+1)%120 == 0 {
			s.check = &[2]uint32{rng.Uint32(), rng.Uint32()}
		}
	}
	return steps
}

func record(steps []step) *Recorder {
	r := NewRecorder(testHeader)
	recordInto(r, steps)
	return r
}

// recordInto records steps as the game does, cutting where cuts are due.
func recordInto(r *Recorder, steps []step) {
	for i, s := range steps {
		for _, p := range s.places {
			r.Place(p)
		}
		if s.clock != nil {
			r.Clock(*s.clock)
		}
		if s.hasCars {
			r.Remote(s.remote)
		}
		r.Step(s.in, s.obst, s.blocks)
		for _, k := range s.incidents {
			r.Incident(k)
		}
		if s.check != nil {
			r.Check(s.check[0], s.check[1])
		}
		if r.CutDue() {
			steps[i].check = &[2]uint32{uint32(i), 0}
			r.Check(uint32(i), 0)
			r.Cut()
		}
	}
}

// play reads rp back into the steps it holds.
func play(t *testing.T, rp *Replay) []step {
	t.Helper()
	var got []step
	p := rp.Player()
	for {
		b, in, more := p.Next()
		if n := len(got); n > 0 {
			last := &got[n-1]
			last.incidents = append([]Kind(nil), b.Incidents...)
			if b.HasCheck {
				last.check = &[2]uint32{b.Car, b.Traffic}
			}
		} else {
			require.False(t, b.HasCheck)
		}
		if !more {
			break
		}
		s := step{in: in, places: append([]Place(nil), b.Places...), hasCars: b.HasRemote}
		if b.HasClock {
			c := b.Clock
			s.clock = &c
		}
		if b.HasRemote {
			s.remote = append([]Car(nil), b.Remote...)
		}
		o, bl := p.Touched()
		s.obst, s.blocks = append([]Obstacle(nil), o...), append([][2]int64(nil), bl...)
		got = append(got, s)
	}
	require.NoError(t, p.Err())
	return got
}

// normal makes empty slices nil, as play gives them back.
func normal(steps []step) []step {
	out := make([]step, len(steps))
	for i, s := range steps {
		if len(s.places) == 0 {
			s.places = nil
		}
		if len(s.remote) == 0 {
			s.remote = nil
		}
		if len(s.obst) == 0 {
			s.obst = nil
		}
		if len(s.blocks) == 0 {
			s.blocks = nil
		}
		if len(s.incidents) == 0 {
			s.incidents = nil
		}
		out[i] = s
	}
	return out
}

// Everything recorded comes back, step by step, and the header whole.
func TestAReplayReadsBackWhatWasRecorded(t *testing.T) {
	steps := drive(rand.New(rand.NewPCG(7, 8)), 120*60*3)
	r := record(steps)
	file := r.File()
	rp, err := Parse(file)
	require.NoError(t, err)
	want := testHeader
	want.Steps = uint64(len(steps))
	want.Remote = true // the drive has other cars
	assert.Equal(t, want, rp.Header)
	assert.Equal(t, len(steps)/120, rp.Checks)
	assert.NotEmpty(t, rp.Incidents)
	assert.Equal(t, r.Incidents(), rp.Incidents)
	assert.Equal(t, normal(steps), normal(play(t, rp)))
	// Read takes the same from a reader.
	rp2, err := Read(bytes.NewReader(file))
	require.NoError(t, err)
	assert.Equal(t, rp.Header, rp2.Header)
}

// Ten minutes of a player's keys (held for half a second or more, as
// fingers do) is a few kilobytes, checksums included; the same drive
// with the controls changing every step (the autopilot's) is bigger but
// still small.
func TestATenMinuteDriveIsAFewKilobytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const steps = 10 * 60 * 120
	keys := NewRecorder(testHeader)
	var in Input
	for i := range steps {
		if rng.IntN(60) == 0 {
			in = Input{Throttle: int16(rng.IntN(2)) * Quantum, Brake: int16(rng.IntN(5)/4) * Quantum, Steer: int16(rng.IntN(3)-1) * Quantum}
		}
		keys.Step(in, nil, nil)
		if (i+1)%120 == 0 {
			keys.Check(rng.Uint32(), rng.Uint32())
		}
	}
	kb := float64(len(keys.File())) / 1024
	t.Logf("10 minutes of keys: %.1f KiB", kb)
	assert.Less(t, kb, 16.0)
}

// A cut ends shortly after its incident and is a replay of its own: the
// drive from the start to there, the incident in it.
func TestACutIsTheDriveUpToShortlyAfterItsIncident(t *testing.T) {
	steps := drive(rand.New(rand.NewPCG(1, 1)), 120*60)
	for i := range steps {
		steps[i].incidents = nil
	}
	steps[1000].incidents = []Kind{Contact}
	steps[5000].incidents = []Kind{Stuck}
	steps[5100].incidents = []Kind{Contact}
	r := NewRecorder(testHeader)
	r.CutAfter(360, 2)
	recordInto(r, steps)
	cuts := r.Cuts()
	require.Len(t, cuts, 2, "at most 2")
	assert.Equal(t, Incident{Kind: Contact, Step: 1001}, cuts[0].Incident)
	assert.Equal(t, uint64(1361), cuts[0].At)
	assert.Equal(t, Incident{Kind: Stuck, Step: 5001}, cuts[1].Incident)
	for _, c := range cuts {
		rp, err := Parse(r.CutFile(c))
		require.NoError(t, err)
		assert.Equal(t, c.At, rp.Steps)
		assert.Contains(t, rp.Incidents, c.Incident)
		assert.Equal(t, c.Incident.Step+360, rp.Steps, "and its aftermath")
		got := play(t, rp)
		require.Len(t, got, int(c.At))
		assert.Equal(t, normal(steps[:c.At-1]), normal(got[:c.At-1]))
		assert.Equal(t, normal(steps[c.At-1:c.At]), normal(got[c.At-1:]), "its last state is checked")
	}
}

// A recording stops at its limits and stays a whole file.
func TestARecordingStopsWholeAtItsLimit(t *testing.T) {
	r := NewRecorder(testHeader)
	r.limit = 100 << 10 // MaxBody's 32 MiB takes long to fill
	in := Input{Throttle: 1}
	for i := 0; !r.Full(); i++ {
		in.Steer = int16(i % 2)
		r.Step(in, nil, nil)
		require.Less(t, i, MaxSteps+1)
	}
	rp, err := Parse(r.File())
	require.NoError(t, err)
	assert.Equal(t, r.Steps(), rp.Steps)
	assert.InDelta(t, 100<<10, len(rp.body), 100)
	n := r.Steps()
	r.Step(in, nil, nil)
	assert.Equal(t, n, r.Steps(), "nothing more is recorded")
}

// Files that are not whole replays of this format are refused, each with
// a reason a person can act on.
func TestBadFilesAreRefusedClearly(t *testing.T) {
	good := record(drive(rand.New(rand.NewPCG(5, 5)), 2000)).File()
	// reseal recomputes the checksum of a changed file, so the change
	// itself is what is refused.
	reseal := func(b []byte) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
		return b
	}
	withHeader := func(edit func(h *Header)) []byte {
		r := record(drive(rand.New(rand.NewPCG(5, 5)), 2000))
		edit(&r.h)
		return r.File()
	}
	cases := []struct {
		name string
		file []byte
		is   error
		says string
	}{
		{"empty", nil, ErrNotReplay, "not a citydrive replay"},
		{"a PNG", []byte("\x89PNG\r\n\x1a\n...."), ErrNotReplay, "not a citydrive replay"},
		{"a newer format", reseal(append(append([]byte{}, good[:8]...), append([]byte{2, 0}, good[10:]...)...)), ErrVersion, "the file is version 2, this build reads 1"},
		{"cut short", good[:len(good)/2], ErrDamaged, "checksum"},
		{"a bit flipped", func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 4; return b }(), ErrDamaged, "checksum"},
		{"a huge header", reseal(func() []byte { b := bytes.Clone(good); binary.LittleEndian.PutUint32(b[10:], 1<<30); return b }()), ErrDamaged, "header of 1073741824 bytes"},
		{"a body of the wrong length", reseal(func() []byte {
			b := bytes.Clone(good)
			hl := binary.LittleEndian.Uint32(b[10:])
			binary.LittleEndian.PutUint32(b[14+hl:], 7)
			return b
		}()), ErrDamaged, "body of 7 bytes"},
		{"more steps in the header", reseal(func() []byte { b := bytes.Clone(good); b[14+76]++; return b }()), ErrDamaged, "the header says 2001 steps, the body holds 2000"},
		{"a time of day of 25 h", withHeader(func(h *Header) { h.TimeOfDay = 25 }), ErrDamaged, "time of day"},
		{"no rates", withHeader(func(h *Header) { h.Sim = Sim{} }), ErrDamaged, "a zero rate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.file)
			require.Error(t, err)
			assert.ErrorIs(t, err, c.is)
			assert.Contains(t, err.Error(), c.says)
		})
	}
	_, err := Read(bytes.NewReader(make([]byte, MaxFile+1)))
	assert.ErrorIs(t, err, ErrTooLarge, "a file past the limit is not read whole")
}

// Bodies that break a rule of the format are refused at the record that
// breaks it.
func TestBadBodiesAreRefusedAtTheBadRecord(t *testing.T) {
	h := testHeader
	run := func(n uint64, mask byte, deltas ...int64) []byte {
		b := []byte{runBit | mask}
		if n != 1 {
			b = binary.AppendUvarint([]byte{runBit | runCounted | mask}, n)
		}
		for _, d := range deltas {
			b = binary.AppendVarint(b, d)
		}
		return b
	}
	cases := []struct {
		name string
		body []byte
		says string
	}{
		{"no end", run(3, 0), "without its end record"},
		{"bytes after the end", append(run(3, 0), opEnd, 1), "after the end record"},
		{"a counted run of one step", append(run(0, 0), opEnd), "a counted run of 0 steps"},
		{"a run past the limit", append(run(MaxSteps+1, 0), opEnd), "a run of"},
		{"a throttle past full", append(run(1, fieldThrottle, Quantum+1), opEnd), "a control of 1025/1024"},
		{"a negative brake", append(run(1, fieldBrake, -1), opEnd), "a control of -1/1024"},
		{"unknown fields", append(run(1, 0x20), opEnd), "fields 0x20"},
		{"unknown record", []byte{99, opEnd}, "unknown record 99"},
		{"too many obstacles", append(binary.AppendUvarint([]byte{opObstacles}, 1<<40), opEnd), "obstacles touched at once"},
		{"an obstacle of traffic", append(append(binary.AppendUvarint([]byte{opObstacles}, 1), make([]byte, 64)...), byte(slots.ObstacleTraffic), opEnd), "an obstacle out of range"},
		{"too many cars", append(binary.AppendUvarint([]byte{opRemote}, MaxRemote+1), opEnd), "cars in a sample"},
		{"a NaN clock", append(appendFloats([]byte{opClock}, math.NaN(), 1), opEnd), "a world clock at NaN"},
		{"a clock running backwards", append(appendFloats([]byte{opClock}, 5, -1), opEnd), "running at -1"},
		{"an incident of no kind", []byte{opIncident, 9, opEnd}, "kind 9"},
		{"two checksums", append(append([]byte{opCheck}, make([]byte, 8)...), append([]byte{opCheck}, make([]byte, 8)...)...), "two checksums"},
		{"a record cut short", []byte{opCheck, 1, 2}, "cut short"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.Steps = 0
			_, err := parseBody(h, c.body)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrDamaged)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

func TestQuantise(t *testing.T) {
	in := QuantiseInput(0.5, 2, -0.0001, true)
	assert.Equal(t, Input{Throttle: 512, Brake: 1024, Steer: 0, Waiting: true}, in)
	assert.Equal(t, int16(-1024), Quantise(-3, -1, 1))
	assert.Equal(t, int16(0), Quantise(math.NaN(), -1, 1))
	th, br, st := QuantiseInput(1.0/3, 0, -0.7, false).Values()
	assert.Equal(t, 341.0/1024, th, "exact: the quantum is a power of two")
	assert.Zero(t, br)
	assert.Equal(t, -717.0/1024, st)
}

// The data directory keeps the newest Keep of its drives and nothing
// that Save did not write.
func TestTheDataDirectoryKeepsTheNewestReplays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replays")
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var paths []string
	for i := range 25 {
		p, err := Save(dir, Name(t0.Add(time.Duration(i)*time.Minute), 412), []byte{byte(i)}, Keep)
		require.NoError(t, err)
		paths = append(paths, p)
		if i == 0 {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.replay"), nil, 0o644))
		}
	}
	names, err := List(dir)
	require.NoError(t, err)
	require.Len(t, names, Keep)
	assert.Equal(t, filepath.Base(paths[24]), names[0], "newest first")
	assert.Equal(t, filepath.Base(paths[5]), names[Keep-1])
	assert.NoFileExists(t, paths[4])
	assert.FileExists(t, filepath.Join(dir, "mine.replay"), "a file Save did not write stays")
	b, err := os.ReadFile(paths[24])
	require.NoError(t, err)
	assert.Equal(t, []byte{24}, b)
	names, err = List(filepath.Join(dir, "missing"))
	assert.NoError(t, err)
	assert.Empty(t, names)
}

func TestHashSeesEveryBit(t *testing.T) {
	h1, h2 := NewHash(), NewHash()
	h1.Float(1)
	h2.Float(math.Nextafter(1, 2))
	assert.NotEqual(t, h1.Sum32(), h2.Sum32())
	assert.True(t, errors.Is(ErrDamaged, ErrDamaged))
}
