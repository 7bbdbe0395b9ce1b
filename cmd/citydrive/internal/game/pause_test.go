package game

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/cmd/citydrive/internal/sound"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/render/input"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

func TestPauseMenu(t *testing.T) {
	type step struct {
		in       Controls
		open     bool
		page     menuPage
		sel      pauseItem
		event    menuEvent
		scenario string
	}
	esc, enter, q := Controls{Pause: true}, Controls{Confirm: true}, Controls{Leave: true, Build: true}
	down, up, back := Controls{MenuDown: true}, Controls{MenuUp: true}, Controls{Back: true}
	const main, quit, opts = pageMain, pageQuit, pageOptions
	cases := []struct {
		name  string
		steps []step
	}{
		{"driving keys do not open it", []step{{in: Controls{Confirm: true, MenuDown: true, Build: false}}}},
		{"Esc opens on resume, Esc again resumes", []step{{in: esc, open: true}, {in: Controls{}, open: true}, {in: esc}}},
		{"Enter on resume resumes", []step{{in: esc, open: true}, {in: enter}}},
		{"Quit asks; Enter on the preselected No goes back", []step{{in: esc, open: true}, {in: down, open: true, sel: itemOptions},
			{in: down, open: true, sel: itemQuit}, {in: enter, open: true, page: quit, sel: itemQuit},
			{in: enter, open: true, page: main, sel: itemQuit}}},
		{"Quit, then Yes, quits", []step{{in: esc, open: true}, {in: down, open: true, sel: itemOptions}, {in: down, open: true, sel: itemQuit},
			{in: enter, open: true, page: quit, sel: itemQuit}, {in: down, open: true, page: quit, sel: itemQuit},
			{in: enter, open: true, page: quit, sel: itemQuit, event: menuQuit}}},
		{"Q asks, it does not quit; Q again does not either", []step{{in: esc, open: true}, {in: q, open: true, page: quit},
			{in: q, open: true, page: quit}, {in: esc, open: true, page: main, sel: itemQuit}}},
		{"B backs out of the question", []step{{in: esc, open: true}, {in: q, open: true, page: quit}, {in: back, open: true, sel: itemQuit}}},
		{"Q while driving builds, it does not quit", []step{{in: q}}},
		{"the selection stops at the ends", []step{{in: esc, open: true}, {in: up, open: true}, {in: down, open: true, sel: itemOptions},
			{in: down, open: true, sel: itemQuit}, {in: down, open: true, sel: itemQuit}, {in: up, open: true, sel: itemOptions}}},
		{"B resumes", []step{{in: esc, open: true}, {in: back}}},
		{"it opens on resume again", []step{{in: esc, open: true}, {in: down, open: true, sel: itemOptions}, {in: esc, sel: itemOptions}, {in: esc, open: true, sel: itemResume}}},
		{"Options opens the options screen, Esc leaves it for the main page", []step{{in: esc, open: true}, {in: down, open: true, sel: itemOptions},
			{in: enter, open: true, page: opts, sel: itemOptions, event: menuOptionsOpened},
			{in: esc, open: true, page: main, sel: itemOptions, event: menuOptionsLeft}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m pauseMenu
			for i, s := range c.steps {
				ev := m.step(s.in)
				assert.Equal(t, s.event, ev, "step %d", i)
				assert.Equal(t, s.open, m.open, "step %d", i)
				if s.open {
					assert.Equal(t, s.page, m.page, "step %d", i)
				}
				assert.Equal(t, s.sel, m.sel, "step %d", i)
			}
		})
	}
}

// scriptedDisplay is a headless display whose keys the test presses.
type scriptedDisplay struct {
	*Headless
	keys fakeKeys
}

func (d *scriptedDisplay) Down(k input.Key) bool          { return d.keys.Down(k) }
func (d *scriptedDisplay) Pressed(k input.Key) bool       { return d.keys.Pressed(k) }
func (d *scriptedDisplay) Gamepad() (input.Gamepad, bool) { return d.keys.Gamepad() }

func (d *scriptedDisplay) Present() { clear(d.keys.pressed) }

func (d *scriptedDisplay) press(k input.Key) { d.keys.pressed[k] = true }

type recordSound struct{ last sound.Params }

func (r *recordSound) Set(p sound.Params) { r.last = p }

// A real session, headless and offline: while paused, however much wall
// time passes, neither the game clock nor the car moves, and the first
// frame after resuming advances only by its own time.
func TestPauseStopsTheSimulationWithoutCatchingUp(t *testing.T) {
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots = 48
	cfg.Workers = 1
	w := world.New(412)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	d := &scriptedDisplay{Headless: NewHeadless(), keys: fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}}}
	snd := &recordSound{}
	s, err := New(Options{
		Streaming: cfg, World: w, Display: d, TerrainRadius: 1, Sound: snd,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())

	const frame = 1.0 / 60
	d.keys.down[input.KeyW] = true // full throttle
	for range 60 {
		require.NoError(t, s.Frame(frame))
	}
	require.Greater(t, s.car.Speed(), 3.0)
	assert.Greater(t, snd.last.Volume, 0.0, "the engine is heard while driving")
	assert.Equal(t, 1.0, snd.last.Throttle)
	assert.Zero(t, testing.AllocsPerRun(20, func() { s.feedSound(false) }), "feeding the sound allocates nothing")

	d.press(input.KeyEscape)
	require.NoError(t, s.Frame(frame))
	require.True(t, s.Paused())
	clock, pos, acc := s.clock, s.car.Pos, s.steps.acc
	for range 100 {
		require.NoError(t, s.Frame(0.1)) // ten seconds of wall time
	}
	assert.Equal(t, clock, s.clock, "the game clock stands still")
	assert.Equal(t, pos, s.car.Pos, "the car stands still")
	assert.Equal(t, acc, s.steps.acc, "the step clock was given no time")
	assert.Zero(t, snd.last.Volume, "silent while paused")
	require.NotNil(t, s.frame.Menu, "the menu is drawn")
	assert.Equal(t, []string{"RESUME", "OPTIONS", "QUIT"}, s.frame.Menu.Items)

	d.press(input.KeyEscape)
	require.NoError(t, s.Frame(frame))
	require.False(t, s.Paused())
	assert.Nil(t, s.frame.Menu)
	assert.InDelta(t, clock+frame, s.clock, 1e-9, "resuming catches up nothing")
	moved := s.car.Pos.Sub(pos).Len()
	assert.Greater(t, moved, 0.0)
	assert.Less(t, moved, 2*frame*s.car.Speed()+0.1, "one frame's travel")

	// Quit from the menu: Esc, down to Quit, Enter asks; Q there does
	// not answer; down to Yes, Enter quits.
	for _, k := range []input.Key{input.KeyEscape, input.KeyDown, input.KeyDown, input.KeyEnter, input.KeyQ} {
		d.press(k)
		require.NoError(t, s.Frame(frame))
		assert.False(t, s.quit, "after %s", settings.KeyName(k))
	}
	require.NotNil(t, s.frame.Menu)
	assert.Equal(t, "QUIT CITYDRIVE?", s.frame.Menu.Title)
	assert.Equal(t, []string{"NO, KEEP DRIVING", "YES, QUIT"}, s.frame.Menu.Items)
	assert.Equal(t, quitNo, s.frame.Menu.Selected, "No is preselected")
	d.press(input.KeyDown)
	require.NoError(t, s.Frame(frame))
	d.press(input.KeyEnter)
	require.NoError(t, s.Frame(frame))
	assert.True(t, s.quit)
}

// While paused the game still talks to the server: another player keeps
// receiving this car's snapshots (newer sequence numbers) and the
// connection stays up, while the game clock stands still.
func TestPauseKeepsTheNetworkRunning(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const seed = 412
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: seed, Logger: log})
	require.NoError(t, err)
	defer h.Close()
	cc := h.ClientConfig()
	cc.Radius, cc.Logger = 1, log
	c1, err := netsync.Dial(ctx, cc)
	require.NoError(t, err)
	watcher, err := netsync.Dial(ctx, cc)
	require.NoError(t, err)
	defer watcher.Close()

	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots, cfg.Workers = 48, 1
	w := world.New(seed)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	d := &scriptedDisplay{Headless: NewHeadless(), keys: fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}}}
	s, err := New(Options{Streaming: cfg, World: w, Display: d, TerrainRadius: 1, Net: c1, Log: log, Out: io.Discard})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())
	require.NoError(t, watcher.Subscribe(voxel.ChunkAt(s.car.Pos.X, s.car.Y, s.car.Pos.Z), 1))

	d.press(input.KeyEscape)
	require.NoError(t, s.Frame(1.0/60))
	require.True(t, s.Paused())
	clock := s.clock
	var buf []wire.CarSnapshot
	seq := func() (uint32, bool) {
		for _, c := range watcher.Cars(buf[:0]) {
			if c.Player == c1.Player() {
				return c.Seq, true
			}
		}
		return 0, false
	}
	// pausedUntil runs paused frames until cond holds (bounded in wall time).
	pausedUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); {
			require.True(t, time.Now().Before(deadline), "timed out waiting for %s", what)
			require.NoError(t, s.Frame(1.0/60))
			require.NoError(t, s.link.check())
			runtime.Gosched()
		}
	}
	var first uint32
	pausedUntil("the watcher to see the car", func() bool {
		var ok bool
		first, ok = seq()
		return ok
	})
	pausedUntil("a newer snapshot", func() bool {
		now, _ := seq()
		return wire.SeqNewer(now, first)
	})
	assert.True(t, s.Paused())
	assert.Equal(t, clock, s.clock, "the game clock stood still all along")
}
