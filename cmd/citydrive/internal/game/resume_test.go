package game

import (
	"context"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/netsync"
	"citydrive/render/input"
	"citydrive/roadgraph/world"
)

// offlineSession is a headless session of seed's world on 48 slots, its
// ground within a chunk, with workers build workers (0: the main
// goroutine builds, so a run repeats exactly); opt's Display is kept
// (NewHeadless if nil), its log discarded unless given.
func offlineSession(t *testing.T, seed uint64, workers int, opt Options) *Session {
	t.Helper()
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots, cfg.Workers = 48, workers
	w := world.New(seed)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	opt.Streaming, opt.World, opt.TerrainRadius = cfg, w, 1
	if opt.Display == nil {
		opt.Display = NewHeadless()
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	opt.Out = io.Discard
	s, err := New(opt)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func smallSession(t *testing.T, opt Options) (*Session, *scriptedDisplay) {
	t.Helper()
	d := &scriptedDisplay{Headless: NewHeadless(), keys: fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}}}
	opt.Display = d
	s := offlineSession(t, 412, 1, opt)
	require.NoError(t, s.Load())
	return s, d
}

// drivenPlace drives a session off the road's middle for two seconds,
// turning, with the top camera, and returns where it was left, through
// the resume file as a quit and a start would.
func drivenPlace(t *testing.T) settings.Place {
	s, d := smallSession(t, Options{})
	d.keys.down[input.KeyW], d.keys.down[input.KeyA] = true, true
	for range 120 {
		require.NoError(t, s.Frame(1.0/60))
	}
	s.SetTopView(true)
	p := s.Place()
	p.Server, p.Seed, p.Saved = settings.Solo, 412, time.Now().UTC()
	require.Greater(t, math.Hypot(p.X-s.opt.Start.X, p.Z-s.opt.Start.Z), 5.0, "it drove somewhere")
	path := filepath.Join(t.TempDir(), settings.ResumeFileName)
	var r settings.Resume
	r.Put(p)
	require.NoError(t, settings.SaveResume(path, r))
	r, err := settings.LoadResume(path)
	require.NoError(t, err)
	got, ok := r.Find(settings.Solo, 412)
	require.True(t, ok)
	return got
}

func assertAt(t *testing.T, s *Session, p settings.Place) {
	t.Helper()
	assert.LessOrEqual(t, math.Hypot(s.car.Pos.X-p.X, s.car.Pos.Z-p.Z), 0.01, "within 1 cm")
	assert.InDelta(t, 0, math.Remainder(s.car.Heading-p.Heading, 2*math.Pi), 1e-3, "the heading")
	assert.Equal(t, p.Camera == settings.Top, s.topView, "the camera")
}

// The place a drive was left is where the next one starts: the pose
// within 1 cm, the heading and the camera (offline, and in solo play,
// where the command spawns the car there).
func TestResumeRestoresThePose(t *testing.T) {
	p := drivenPlace(t)
	s, _ := smallSession(t, Options{Start: world.Vec2{X: p.X, Z: p.Z}, Resume: &p})
	assertAt(t, s, p)
	require.NoError(t, s.Frame(1.0/60))
	assertAt(t, s, p)
}

// On a server that spawns cars elsewhere, the resumed place is asked for
// with a Reset once the world is loaded, and the server's answer puts the
// car there.
func TestResumeAsksAServer(t *testing.T) {
	p := drivenPlace(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: 412, Logger: log}) // spawn at 0, 0
	require.NoError(t, err)
	defer h.Close()
	cc := h.ClientConfig()
	cc.Radius, cc.Logger = 1, log
	c, err := netsync.Dial(ctx, cc)
	require.NoError(t, err)
	s, _ := smallSession(t, Options{Net: c, Resume: &p})
	require.True(t, s.link.resetSeq != 0, "asked once loaded")
	require.Greater(t, math.Hypot(s.car.Pos.X-p.X, s.car.Pos.Z-p.Z), 1.0, "not there before the server says so")
	deadline := time.Now().Add(10 * time.Second)
	for math.Hypot(s.car.Pos.X-p.X, s.car.Pos.Z-p.Z) > 0.01 {
		require.True(t, time.Now().Before(deadline), "the server never placed the car: %s", s.link.status)
		require.NoError(t, s.Frame(1.0/60))
		require.NoError(t, s.link.check())
	}
	assertAt(t, s, p)
}
