package game

import (
	"context"
	"io"
	"log/slog"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/netsync"
)

// The client's world clock follows a server that slows to half its rate:
// fed the server's samples (world time at half pace after the change),
// it reads the server's time at every instant, where an unwarped clock
// would drift half a second a second and jump forward.
func TestWorldTimeFollowsTheServersRate(t *testing.T) {
	w := newWorldTime(false)
	epoch := w.epoch
	server := func(t float64) float64 { // world seconds at local t: half pace from t = 10
		if t < 10 {
			return 1000 + t
		}
		return 1010 + 0.5*(t-10)
	}
	at := func(t float64) time.Time { return epoch.Add(time.Duration(t * float64(time.Second))) }
	sample := func(t float64) { // a ping with a 2 ms round trip
		w.est.Add(w.warped(at(t-0.001)), server(t), w.warped(at(t+0.001)))
	}
	for tt := 0.0; tt < 10; tt++ {
		sample(tt)
		assert.InDelta(t, server(tt), w.at(0, at(tt)), 2e-3, "t %g", tt)
	}
	w.follow(0.5, at(10)) // the TickRate arrives
	for tt := 10.0; tt <= 30; tt += 0.5 {
		if tt == math.Floor(tt) {
			sample(tt)
		}
		assert.InDelta(t, server(tt), w.at(0, at(tt)), 2e-3, "t %g", tt)
	}
	w.follow(1, at(30))
	assert.InDelta(t, server(30)+5, w.at(0, at(35)), 2e-3, "full pace again")

	// A FixedStep clock runs on the game clock whatever the server does.
	f := newWorldTime(true)
	f.est.Add(0, 1000.2, 0)
	assert.Equal(t, 1000.0, f.at(3, f.epoch), "the world time at the first reading, to the second")
	f.follow(0.5, f.epoch)
	assert.Equal(t, 1010.0, f.at(13, f.epoch.Add(time.Second)), "ten game seconds later: ten world seconds")
}

// A warp keeps its last pieces; a sample older than all of them is
// extrapolated from the oldest, not read as unwarped time.
func TestWarpPieces(t *testing.T) {
	var w warp
	assert.Equal(t, 7.0, w.at(7), "no change: the time itself")
	w.set(10, 0.5)
	assert.Equal(t, 5.0, w.at(5), "before the change")
	assert.Equal(t, 15.0, w.at(20))
	for i := range 10 {
		w.set(float64(20+i), 1)
	}
	assert.Equal(t, 15.0, w.at(20))
	assert.Equal(t, 35.0, w.at(40))
	assert.True(t, w.dropped)
	assert.InDelta(t, w.at(22)-1, w.at(21), 1e-9, "extrapolated at the oldest piece's rate")
}

// The acceptance test: a solo-style server slowed to 15 Hz (its ticks
// always over budget, its floor 15 of 30). The client hears the rate, its
// world clock and its traffic run at half the real pace in step with the
// server's clock samples, and the notice says so.
func TestClientFollowsASlowedServer(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tuning := netsync.DefaultServerConfig().Tuning
	tuning.TickBudget, tuning.TickFloorHz = time.Nanosecond, 15
	require.Equal(t, 30, tuning.TickHz)
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: 412, Logger: log, Tuning: tuning})
	require.NoError(t, err)
	defer h.Close()
	cc := h.ClientConfig()
	cc.Radius, cc.Logger, cc.ClockInterval = 1, log, 20*time.Millisecond
	c, err := netsync.Dial(ctx, cc)
	require.NoError(t, err)
	s, _ := smallSession(t, Options{Net: c, Traffic: true})

	// frames runs real-time frames until cond holds.
	last := time.Now()
	frames := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); {
			require.True(t, time.Now().Before(deadline), "timed out waiting for %s", what)
			now := time.Now()
			require.NoError(t, s.Frame(now.Sub(last).Seconds()))
			last = now
			require.NoError(t, s.link.check())
			runtime.Gosched()
		}
	}
	frames("the server to slow to 15 Hz", func() bool { return s.link.hz == 15 })
	frames("the clock to follow", func() bool { return s.world.rate == 0.5 })
	assert.Equal(t, uint32(30), s.link.fullHz)
	assert.True(t, hudHas(s, "SERVER SLOWED TO 15 HZ: THE CITY RUNS AT 50% SPEED"), "%q", s.frame.HUD)

	off0, _, ok := s.world.est.Estimate()
	require.True(t, ok)
	w0, tt0 := time.Now(), s.TrafficTime()
	frames("a second and a half", func() bool { return time.Since(w0) > 1500*time.Millisecond })
	off1, _, _ := s.world.est.Estimate()
	wall, world := time.Since(w0).Seconds(), s.TrafficTime()-tt0
	t.Logf("over %.2f s of wall time the traffic moved %.2f s; the clock offset moved %.1f ms", wall, world, (off1-off0)*1000)
	assert.InDelta(t, 0.5, world/wall, 0.06, "the traffic runs at half pace")
	assert.InDelta(t, 0, off1-off0, 0.05, "the server's samples agree: its clock runs at the same pace")
}
