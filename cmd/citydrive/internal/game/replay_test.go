package game

import (
	"context"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/render/input"
	"citydrive/roadgraph/world"
)

// carState is what the test compares of the car after a step.
type carState struct {
	Pos, Vel             world.Vec2
	Y, Heading, Steer    float64
	Contacts             car.Contact
	Impact               float64
	SurfaceY             float64
	Road, Bridge, OnLake bool
}

func stateOf(c *car.Car) carState {
	return carState{Pos: c.Pos, Vel: c.Vel, Y: c.Y, Heading: c.Heading, Steer: c.Steer, Contacts: c.Contacts, Impact: c.Impact,
		SurfaceY: c.Surface.Y, Road: c.Surface.Road, Bridge: c.Surface.Bridge, OnLake: c.Surface.Water}
}

// replayStreaming is a small streaming budget for the tests' sessions.
func replayStreaming(w world.World) buildworkers.Config {
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots, cfg.Workers = 96, 1
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	return cfg
}

// recordedDrive is a two-minute drive through rush-hour traffic on the
// solo server, recorded, with everything a replay must give back: the
// autopilot's controls, the player's keys (driving off the road into
// whatever stands there), a reset, the server's world clock, and another
// player's car driving ahead that the traffic brakes for.
type recordedDrive struct {
	file   []byte
	states []carState // after every step
	drive  DriveStats
	remote int // steps with another car sampled
}

var twoMinutes recordedDrive

func recordTwoMinutes(t *testing.T) recordedDrive {
	t.Helper()
	if twoMinutes.file != nil {
		return twoMinutes
	}
	if testing.Short() {
		t.Skip("-short: a two-minute drive")
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const seed = 412
	tuning := netsync.DefaultServerConfig().Tuning
	tuning.MaxCarSpeed = 0 // the drive runs faster than the wall clock
	began := time.Now()
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: seed, Logger: log, Tuning: tuning,
		WorldClock: func() time.Duration { return 1_000_000*time.Second + time.Since(began) }})
	require.NoError(t, err)
	defer h.Close()
	cc := h.ClientConfig()
	cc.Radius, cc.Logger = 1, log
	c, err := netsync.Dial(ctx, cc)
	require.NoError(t, err)
	friend, err := netsync.Dial(ctx, cc)
	require.NoError(t, err)
	defer friend.Close()

	w := world.New(seed)
	d := &scriptedDisplay{Headless: NewHeadless(), keys: fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}}}
	s, err := New(Options{Streaming: replayStreaming(w), World: w, Display: d, TerrainRadius: 1, Net: c,
		Traffic: true, TimeOfDay: 17.5, Autopilot: true, FixedStep: true, Record: true, Log: log, Out: io.Discard})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())
	var rd recordedDrive
	s.rp.each = func(n uint64, c *car.Car) {
		require.Equal(t, uint64(len(rd.states)+1), n)
		rd.states = append(rd.states, stateOf(c))
		if len(s.rp.remote) > 0 {
			rd.remote++
		}
	}
	start, dir := s.car.Pos, s.car.Forward()
	const frame = 1.0 / 60
	for f := range 120 * 60 {
		at := float64(f) * frame
		switch {
		case f == 50*60: // the player takes the wheel
			d.press(input.KeyP)
			d.keys.down[input.KeyW] = true
			d.keys.down[input.KeyA] = true
		case f == 50*60+40:
			d.keys.down[input.KeyA] = false
		case f == 60*60:
			d.keys.down[input.KeyW] = false
			d.press(input.KeyBackspace) // back on the road
		case f == 61*60:
			d.press(input.KeyP) // and the autopilot drives on
		}
		// The friend drives ahead along the start's direction for a while.
		if at < 40 {
			p := start.Add(dir.Scale(30 + 6*at))
			friend.SendCar(wire.QuantiseCar(0, 0, p.X, s.car.Y, p.Z, car.HeadingOf(dir), 6))
		}
		require.NoError(t, s.Frame(frame))
		require.NoError(t, s.link.check())
	}
	rec := s.Recording()
	require.NotNil(t, rec)
	rd.file, rd.drive = rec.File(), s.drive.DriveStats
	require.Len(t, rd.states, 120*PhysicsHz)
	t.Logf("recorded %d steps: %d bytes, %d contacts (%v), %d resets, %d steps with another car near",
		len(rd.states), len(rd.file), rd.drive.Contacts, rd.drive.ContactsByKind, rd.drive.Resets, rd.remote)
	require.Greater(t, s.TrafficStats().MaxVehicles, 10, "rush-hour traffic around the car")
	twoMinutes = rd
	return rd
}

// The acceptance test of replays: a two-minute drive recorded, then
// played back headless, is the recording's at every step to the bit, its
// checksums and incidents all as recorded.
func TestATwoMinuteDriveReplaysIdenticallyAtEveryStep(t *testing.T) {
	rd := recordTwoMinutes(t)
	assert.Positive(t, rd.drive.Contacts, "the player drove into something")
	assert.Equal(t, 1, rd.drive.Resets)
	assert.Positive(t, rd.remote, "another car was sampled")
	rp, err := replay.Parse(rd.file)
	require.NoError(t, err)
	assert.True(t, rp.Remote)
	assert.Equal(t, uint64(len(rd.states)), rp.Steps)
	assert.Equal(t, 120, rp.Checks)

	w := world.New(rp.Seed)
	var got []carState
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(Options{Streaming: replayStreaming(w), World: w, Display: NewHeadless(), Replay: rp, FixedStep: true, Log: log, Out: io.Discard})
	require.NoError(t, err)
	defer s.Close()
	s.rp.each = func(n uint64, c *car.Car) { got = append(got, stateOf(c)) }
	res := s.PlayThrough()
	require.Len(t, got, len(rd.states))
	for i := range got {
		require.Equal(t, rd.states[i], got[i], "step %d", i+1)
	}
	assert.Nil(t, res.Diverged)
	assert.Equal(t, 120, res.Checks)
	assert.Equal(t, rp.Incidents, res.Incidents)
	assert.Equal(t, rd.drive, res.Drive, "the drive's figures to the bit")
}

// Played in a window (headless here) at any frame rate, with pauses and
// seeks back and forth, every step is still the recording's.
func TestAReplayInTheWindowIsTheRecordingAtAnyFrameRateAndAfterSeeks(t *testing.T) {
	rd := recordTwoMinutes(t)
	rp, err := replay.Parse(rd.file)
	require.NoError(t, err)
	w := world.New(rp.Seed)
	d := &scriptedDisplay{Headless: NewHeadless(), keys: fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(Options{Streaming: replayStreaming(w), World: w, Display: d, Replay: rp, TerrainRadius: 1, Log: log, Out: io.Discard})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())
	mismatch := 0
	s.rp.each = func(n uint64, c *car.Car) {
		if stateOf(c) != rd.states[n-1] {
			mismatch++
		}
	}
	frames := []float64{1.0 / 144, 1.0 / 30, 1.0 / 60, 0.25, 1.0 / 75}
	for i := 0; i < 400; i++ {
		switch i {
		case 100:
			d.press(input.KeySpace) // pause
		case 110:
			n := s.rp.n
			require.NoError(t, s.Frame(frames[i%len(frames)]))
			assert.Equal(t, n, s.rp.n, "paused: no step")
			d.press(input.KeySpace)
		case 150:
			d.press(input.KeyUp) // twice the speed
		case 200:
			d.press(input.KeyLeft) // back 10 s: from the start again
		case 250:
			d.press(input.KeyRight)
		}
		require.NoError(t, s.Frame(frames[i%len(frames)]))
	}
	assert.Zero(t, mismatch, "steps not as recorded")
	assert.Greater(t, s.rp.n, uint64(20*PhysicsHz), "a good part of it played")
	s.SeekReplay(math.MaxInt64)
	res, ok := s.ReplayResult()
	require.True(t, ok)
	assert.Equal(t, rp.Steps, res.Steps, "to the end")
	assert.Nil(t, res.Diverged)
	assert.Zero(t, mismatch)
	assert.Contains(t, s.frame.HUD[len(s.frame.HUD)-1], "REPLAY")
}

// A replay of a changed recording says where it first went another way.
func TestAChangedReplaySaysWhereItFirstDiffers(t *testing.T) {
	rd := recordTwoMinutes(t)
	rp, err := replay.Parse(rd.file)
	require.NoError(t, err)
	// The same drive, started a millimetre to the side.
	h := rp.Header
	h.Start[0] += 0.001
	rec := replay.NewRecorder(h)
	p := rp.Player()
	for {
		b, in, more := p.Next()
		for _, pl := range b.Places {
			rec.Place(pl)
		}
		if b.HasClock {
			rec.Clock(b.Clock)
		}
		if b.HasRemote {
			rec.Remote(b.Remote)
		}
		for _, k := range b.Incidents {
			rec.Incident(k)
		}
		if b.HasCheck {
			rec.Check(b.Car, b.Traffic)
		}
		if !more {
			break
		}
		o, bl := p.Touched()
		rec.Step(in, o, bl)
	}
	changed, err := replay.Parse(rec.File())
	require.NoError(t, err)
	w := world.New(rp.Seed)
	res, err := CheckReplay(changed, Options{Streaming: replayStreaming(w), World: w, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard})
	require.NoError(t, err)
	require.NotNil(t, res.Diverged)
	assert.Equal(t, uint64(PhysicsHz), res.Diverged.Step, "at the first checksum")
	assert.Equal(t, "the car", res.Diverged.What)
	assert.Zero(t, res.Diverged.Since)
}
