package bots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/plan"
)

func TestJitter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		d := jitter(r, time.Second)
		assert.GreaterOrEqual(t, d, 500*time.Millisecond)
		assert.Less(t, d, 1500*time.Millisecond)
	}
	assert.Equal(t, time.Hour, jitter(r, 0), "no edits: never")
	assert.Equal(t, time.Hour, jitter(r, -time.Second))
}

func TestWriteTable(t *testing.T) {
	rep := Report{
		Duration: 2500 * time.Millisecond,
		Bots: []Bot{
			{ID: 0, InBps: 100, OutBps: 10, JoinBytes: 1000, JoinSeconds: 1, TeleportBytes: 500, TeleportSeconds: 0.5,
				EditsAcked: 3, EditsRejected: 1, LastReject: "too far"},
			{ID: 1, Err: errors.New("boom")},
			{ID: 2, InBps: 300, OutBps: 30, JoinBytes: 3000, JoinSeconds: 3, EditsAcked: 2},
			{ID: 3, Err: errors.New("second failure, not shown")},
		},
		Scraped: true, TickP50Hist: 0.0045, TickP99Hist: 0.0123, TickP99Summary: 0.002, TickCount: 250,
	}
	var b bytes.Buffer
	rep.WriteTable(&b)
	out := b.String()
	// The p50 of two bots is the lower one (the nearest rank, package
	// quantile).
	for _, want := range []string{
		"bots: 4 (2 failed), ran 2.5 s\n",
		"  bot 1 failed: boom\n",
		fmt.Sprintf("%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", "bytes/s in per player (steady)", 200.0, 100.0, 300.0, "B/s", 2),
		fmt.Sprintf("%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", "bytes/s out per player (steady)", 20.0, 10.0, 30.0, "B/s", 2),
		fmt.Sprintf("%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", "first area: bytes in", 2000.0, 1000.0, 3000.0, "B", 2),
		fmt.Sprintf("%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", "first area: seconds", 2.0, 1.0, 3.0, "s", 2),
		fmt.Sprintf("%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", "teleport burst: bytes in", 500.0, 500.0, 500.0, "B", 1),
		"edits: 5 acknowledged, 1 rejected (last reason: too far)\n",
		"server tick p50 4.50 ms, p99 12.30 ms over this run (histogram, 250 ticks); p99 2.00 ms (server's 1-minute summary)\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "second failure")

	b.Reset()
	Report{Bots: []Bot{{Err: errors.New("x")}}}.WriteTable(&b)
	out = b.String()
	assert.Contains(t, out, fmt.Sprintf("%-34s -\n", "first area: seconds"), "no figures: a dash")
	assert.Contains(t, out, "edits: 0 acknowledged, 0 rejected\n")
	assert.Contains(t, out, "server tick p99: not measured")

	// A bot that never got its whole area counts in the rates, not in the
	// join or teleport figures.
	b.Reset()
	Report{Bots: []Bot{{InBps: 5, OutBps: 6}}}.WriteTable(&b)
	out = b.String()
	assert.Contains(t, out, fmt.Sprintf("%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", "bytes/s in per player (steady)", 5.0, 5.0, 5.0, "B/s", 1))
	assert.Contains(t, out, fmt.Sprintf("%-34s -\n", "first area: bytes in"))
	assert.Contains(t, out, fmt.Sprintf("%-34s -\n", "teleport burst: bytes in"))
}

// Two bots drive against a real server for a few seconds: both join, get
// their whole area (and, after the teleport, the new one), see each
// other's car, edit, and the report carries the server's tick figures.
func TestRunAgainstAServer(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	reg := prometheus.NewRegistry()
	w := &editLog{MemoryWorld: netsync.NewMemoryWorld()}
	s := startServer(t, func(c *netsync.ServerConfig) {
		c.Registerer, c.World = reg, w
		// A bot edits a block within 8.5 m across and 3.5 m up or down of
		// its car (12.5 m); the server measures from the last car it
		// accepted, up to a few ticks behind on a loaded machine (20 m/s):
		// every edit is within this reach, one 8 m further out often not.
		c.Reach = 20
		c.MaxCarSpeed = 0 // the teleport is a 21 km jump the car rule would refuse for 3 s
	})
	metrics := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer metrics.Close()

	const speed = 20
	rep, err := Run(context.Background(), Options{
		Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42, N: 2,
		Duration: 3 * time.Second, TeleportAt: time.Second, Speed: speed, Radius: 1, Spread: 1,
		EditEvery: 100 * time.Millisecond, MetricsURL: metrics.URL, // under the server's 20 edits/s
	})
	require.NoError(t, err)
	require.Len(t, rep.Bots, 2)
	assert.GreaterOrEqual(t, rep.Duration, 3*time.Second)
	area := len(plan.Cylinder(voxel.ChunkPos{}, 1, nil))
	for i, b := range rep.Bots {
		require.NoError(t, b.Err, "bot %d", i)
		assert.Equal(t, i, b.ID)
		assert.Equal(t, int32(1), b.Radius, "bot %d: the radius it asked for, under the server's maximum", i)
		assert.Positive(t, b.JoinSeconds, "bot %d got its whole first area", i)
		assert.Positive(t, b.JoinBytes)
		assert.Positive(t, b.TeleportSeconds, "bot %d got its whole area after the teleport", i)
		assert.Positive(t, b.TeleportBytes)
		assert.GreaterOrEqual(t, b.Chunks, 2*area, "two areas")
		assert.Less(t, b.Chunks, 20*area, "its own radius, not the server's maximum")
		assert.Positive(t, b.InBps)
		assert.Positive(t, b.OutBps)
		// Every byte in is counted once: joining, steady or teleport burst.
		assert.Positive(t, b.SteadySeconds)
		assert.Less(t, b.SteadySeconds, rep.Duration.Seconds())
		steadyIn := b.InBps * b.SteadySeconds
		assert.InDelta(t, float64(b.BytesIn), float64(b.JoinBytes+b.TeleportBytes)+steadyIn, 1e-6*steadyIn, "bot %d bytes in", i)
		assert.Less(t, b.OutBps*b.SteadySeconds, float64(b.BytesOut), "bot %d: steady bytes out are some of them", i)
		assert.Equal(t, 1, b.CarsSeen, "bot %d saw the other bot's car", i)
		assert.Positive(t, b.EditsAcked, "bot %d edited", i)
		// One latency per acked edit, each within the run (no ack comes
		// before its request, none is counted twice).
		assert.Len(t, b.AckLatency, b.EditsAcked, "bot %d", i)
		for _, l := range b.AckLatency {
			assert.Positive(t, l)
			assert.Less(t, l, rep.Duration.Seconds())
		}
		assert.Zero(t, b.EditsRejected, "bot %d: every edit near its car, in a chunk it holds (last refusal: %q)", i, b.LastReject)
		// It drives from its join to the end of the run, at its speed.
		assert.Positive(t, b.DistanceM)
		assert.LessOrEqual(t, b.DistanceM, speed*rep.Duration.Seconds())
	}
	assert.True(t, rep.Scraped)
	assert.Positive(t, rep.TickCount)
	w.mu.Lock()
	defer w.mu.Unlock()
	require.NotEmpty(t, w.edits)
	for _, e := range w.edits {
		assert.True(t, e.Block.Valid(), "block %d", e.Block)
		assert.NotEqual(t, voxel.Air, e.Block, "a bot places blocks, never air")
	}
	assert.Positive(t, rep.TickP99Hist)
}

// A lone bot that neither edits nor teleports: it joins and drives, and
// reports no edits, no teleport and no other car.
func TestRunAloneQuietly(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	s := startServer(t, func(c *netsync.ServerConfig) { c.MaxRadius = 1 })
	rep, err := Run(context.Background(), Options{
		Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42, N: 1,
		Duration: time.Second, EditEvery: -1,
	})
	require.NoError(t, err)
	require.Len(t, rep.Bots, 1)
	b := rep.Bots[0]
	require.NoError(t, b.Err)
	assert.Positive(t, b.JoinSeconds, "its whole area, at the server's maximum radius")
	assert.Equal(t, int32(1), b.Radius, "radius 0 asks for the server's maximum")
	assert.GreaterOrEqual(t, b.Chunks, len(plan.Cylinder(voxel.ChunkPos{}, 1, nil)))
	assert.Zero(t, b.TeleportSeconds)
	assert.Zero(t, b.TeleportBytes)
	assert.Zero(t, b.EditsAcked+b.EditsRejected)
	assert.Zero(t, b.CarsSeen)
	assert.False(t, rep.Scraped)
}

// A bot whose area never arrives (the world never has a chunk ready)
// reports no join and zero rates, not NaN.
func TestRunWithoutItsArea(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	s := startServer(t, func(c *netsync.ServerConfig) { c.World = unready{} })
	rep, err := Run(context.Background(), Options{
		Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42, N: 1,
		Duration: 300 * time.Millisecond, Radius: 1, EditEvery: -1,
	})
	require.NoError(t, err)
	b := rep.Bots[0]
	require.NoError(t, b.Err)
	assert.Zero(t, b.Chunks)
	assert.Zero(t, b.JoinSeconds)
	assert.Zero(t, b.InBps)
	assert.Zero(t, b.OutBps)
	assert.Zero(t, b.SteadySeconds)
	assert.Positive(t, b.BytesIn, "the handshake")
}

// editLog is a memory world that keeps the edits it was given.
type editLog struct {
	*netsync.MemoryWorld
	mu    sync.Mutex
	edits []voxel.BlockEdit
}

func (w *editLog) SubmitEdit(tag uint64, e voxel.BlockEdit) error {
	w.mu.Lock()
	w.edits = append(w.edits, e)
	w.mu.Unlock()
	return w.MemoryWorld.SubmitEdit(tag, e)
}

// unready is a world with no chunk ever ready.
type unready struct{}

func (unready) UnionChanged(_, _ []voxel.ChunkPos)                  {}
func (unready) Chunk(voxel.ChunkPos) (voxel.Overlay, bool)          { return nil, false }
func (unready) SubmitEdit(uint64, voxel.BlockEdit) error            { return errors.New("read-only") }
func (unready) CommittedEdits(func(uint64, voxel.BlockEdit, error)) {}

// startServer runs a loopback server for the test's length.
func startServer(t *testing.T, mod func(*netsync.ServerConfig)) *netsync.Server {
	t.Helper()
	cfg := netsync.DefaultServerConfig()
	cfg.DataDir, cfg.Seed, cfg.Generator, cfg.World = t.TempDir(), 42, gen.Version, netsync.NewMemoryWorld()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.TickBudget = 0 // a loaded test machine must not slow the server's time
	// The bots' server (docs/networking.md): they all come from loopback
	// and start spread out, not at the spawn.
	cfg.MaxPlayersPerAddr, cfg.SpawnRadius = 10000, 0
	mod(&cfg)
	s, err := netsync.NewServer(cfg)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	t.Cleanup(func() { require.NoError(t, s.Close()); require.NoError(t, <-done) })
	return s
}

// An unreachable metrics endpoint is an error before any bot starts.
func TestRunRefusesABadMetricsURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := Run(context.Background(), Options{N: 1, Duration: time.Second, MetricsURL: srv.URL})
	assert.ErrorContains(t, err, "scraping")
}

func TestOptionsDefaults(t *testing.T) {
	var o Options
	o.defaults()
	assert.Equal(t, 30.0, o.Speed)
	assert.Equal(t, 10*time.Second, o.EditEvery)
	assert.Equal(t, 1500.0, o.Spread)
	assert.NotNil(t, o.Logger)

	neg := Options{Speed: -1, Spread: -1, EditEvery: -1}
	neg.defaults()
	assert.Equal(t, 30.0, neg.Speed)
	assert.Equal(t, 1500.0, neg.Spread)
	assert.Equal(t, -time.Duration(1), neg.EditEvery, "negative: never edit")

	set := Options{Speed: 1, Spread: 1, EditEvery: 1, Logger: slog.Default()}
	o = set
	o.defaults()
	assert.Equal(t, set, o)
}

// Bots start on a square grid centred on the origin, spread apart: each
// on a road near its grid point.
func TestStartPoseGrid(t *testing.T) {
	const spread = 20000
	g := roadgraph.New(world.New(42))
	for _, tc := range []struct {
		n    int
		want []world.Vec2
	}{
		{1, []world.Vec2{{}}},
		{4, []world.Vec2{{X: -spread / 2, Z: -spread / 2}, {X: spread / 2, Z: -spread / 2}, {X: -spread / 2, Z: spread / 2}, {X: spread / 2, Z: spread / 2}}},
		{3, []world.Vec2{{X: -spread / 2, Z: -spread / 2}, {X: spread / 2, Z: -spread / 2}, {X: -spread / 2, Z: spread / 2}}},
		{9, []world.Vec2{{X: -spread, Z: -spread}, {Z: -spread}, {X: spread, Z: -spread}, {X: -spread}, {}, {X: spread},
			{X: -spread, Z: spread}, {Z: spread}, {X: spread, Z: spread}}},
	} {
		for i, want := range tc.want {
			r, err := startPose(g, i, tc.n, spread, 42)
			require.NoError(t, err)
			p, _ := r.Pose()
			assert.Less(t, p.Sub(want).Len(), 1000.0, "bot %d of %d at %v, want near %v", i, tc.n, p, want)
		}
	}
}

func TestBusyBackoffExact(t *testing.T) {
	cases := []struct {
		attempt int
		u       float64
		want    time.Duration
	}{
		{0, 0.5, 75 * time.Millisecond},
		{3, 0.5, 600 * time.Millisecond},
		{4, 0.25, 1000 * time.Millisecond},
		{5, 0.5, 1500 * time.Millisecond}, // 3.2 s capped at 2 s
		{15, 0.5, 1500 * time.Millisecond},
		{16, 0.5, 1500 * time.Millisecond},
		{63, 0.5, 1500 * time.Millisecond}, // no shift overflow
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, busyBackoff(tc.attempt, tc.u), "attempt %d, u %v", tc.attempt, tc.u)
	}
}

// With no bots and no metrics endpoint a run just waits out its time.
func TestRunWithNothingToDo(t *testing.T) {
	rep, err := Run(context.Background(), Options{Duration: time.Millisecond})
	require.NoError(t, err)
	assert.Empty(t, rep.Bots)
	assert.False(t, rep.Scraped)
}
