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

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/netsync"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// Two clients joined to one server (solo's path: a host over loopback
// QUIC) compute every vehicle of a shared busy area at the same moment to
// within 10 cm, each from its own schedule and its own estimate of the
// server's world clock: nothing but the clock was sent.
func TestTwoClientsSeeTheSameTraffic(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const seed = 412
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: seed, Logger: log})
	require.NoError(t, err)
	defer h.Close()

	type client struct {
		c     *netsync.Client
		clock *worldTime
		s     *traffic.Schedule
	}
	var cs [2]client
	for i := range cs {
		cfg := h.ClientConfig()
		cfg.Radius, cfg.Logger, cfg.ClockInterval = 1, log, 10*time.Millisecond
		c, err := netsync.Dial(ctx, cfg)
		require.NoError(t, err)
		defer c.Close()
		cs[i] = client{c: c, clock: newWorldTime(false), s: traffic.NewSchedule(world.New(seed), 17.5)}
	}
	// Each waits for a sample with a short round trip: its error bound.
	const bound = 2e-3 // seconds: 2 ms at most 18 m/s is 3.6 cm
	for i := range cs {
		c := &cs[i]
		deadline := time.After(10 * time.Second)
		for {
			c.clock.observe(c.c)
			if _, b, ok := c.clock.est.Estimate(); ok && b <= bound {
				break
			}
			select {
			case <-c.c.ClockNotify():
			case <-deadline:
				require.FailNow(t, "no clock sample with a short round trip")
			}
		}
	}
	area, radius := world.Vec2{X: 1200, Z: 1200}, 300.0
	var tw [2]float64
	var vs [2][]traffic.Vehicle
	instant := time.Now() // the same moment for both
	for i := range cs {
		tw[i] = cs[i].clock.at(0, instant)
		vs[i] = cs[i].s.Vehicles(tw[i], area, radius, nil)
	}
	t.Logf("world times differ by %.3f ms; %d and %d vehicles", (tw[1]-tw[0])*1000, len(vs[0]), len(vs[1]))
	require.Greater(t, tw[0], 1e9, "the server's world clock: Unix seconds")
	require.Greater(t, len(vs[0]), 100, "a busy area")

	// Every vehicle one sees, the other has within 10 cm; one only it sees
	// is just crossing the edge of the area or of the road (the other's
	// moment is a millisecond off).
	worst, edge := 0.0, 0
	for i := range 2 {
		other := cs[1-i].s
		for _, v := range vs[i] {
			o, ok := other.At(v.Key, tw[1-i], 0)
			if !ok {
				edge++
				continue
			}
			d := o.Pos.Sub(v.Pos).Len()
			worst = math.Max(worst, d)
			assert.LessOrEqual(t, d, 0.10, "vehicle %+v", v.Key)
		}
	}
	t.Logf("largest difference %.1f mm; %d seen by one only (entering or leaving the road)", worst*1000, edge)
	assert.LessOrEqual(t, edge, 4)
}
