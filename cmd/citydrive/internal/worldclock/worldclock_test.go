package worldclock

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server whose world clock is 5000 s ahead, pings with asymmetric random
// delays: the estimate is within the best sample's half round trip, and
// the clock read every frame never runs backwards.
func TestClockEstimatesTheServerClockAndNeverRunsBackwards(t *testing.T) {
	const ahead = 5000.0
	rng := rand.New(rand.NewPCG(1, 2))
	var c Clock
	assert.Equal(t, 3.0, c.Now(3), "no estimate yet: local time")
	local := 10.0
	prev := 0.0
	for i := 0; i < 600; i++ {
		if i%60 == 0 {
			up, down := 0.002+0.03*rng.Float64(), 0.002+0.01*rng.Float64()
			c.Add(local, local+up+ahead, local+up+down)
		}
		now := c.Now(local)
		if i > 0 {
			require.GreaterOrEqual(t, now, prev, "frame %d", i)
		}
		prev = now
		local += 1.0 / 60
	}
	off, bound, ok := c.Estimate()
	require.True(t, ok)
	assert.InDelta(t, ahead, off, bound+1e-9)
	assert.Less(t, bound, 0.025)
	assert.InDelta(t, local-1.0/60+ahead, prev, 0.025)
}

// A late better estimate is slewed in, at most maxSlew per second; a far
// forward one is made at once.
func TestClockSlewsSmallCorrectionsAndJumpsLargeOnes(t *testing.T) {
	var c Clock
	c.Add(0, 100, 0.2) // offset 99.9, ±0.1
	assert.InDelta(t, 100.9, c.Now(1), 1e-9)
	c.Add(1, 101.5, 1.02) // offset 100.49, ±0.01: better
	got := c.Now(2)
	assert.InDelta(t, 2+99.9+maxSlew*1, got, 1e-9, "slewed by maxSlew over the second")
	for l := 2.0; l < 30; l += 0.5 {
		got = c.Now(l)
	}
	assert.InDelta(t, 29.5+100.49, got, 1e-9, "converged")
	c.Add(30, 200, 30) // the server jumped ahead 70 s
	assert.InDelta(t, 31+170, c.Now(31), 1e-9)
}

// Over a link with 100 ms of jitter (each way's delay 10 ms plus a
// uniform 0–100 ms, independently), pinging every 2 s as the client does:
// after a minute the clock read every frame is within the best sample's
// half round trip of the truth, which the minimum-round-trip choice keeps
// far below the jitter. The link is simulated on a fake clock.
func TestClockOverAJitteryLink(t *testing.T) {
	const (
		ahead    = 1.78e9 // the server's world clock: Unix seconds
		interval = 2.0
		base     = 0.010
		jitter   = 0.100
	)
	rng := rand.New(rand.NewPCG(3, 4))
	var c Clock
	worst := 0.0
	local := 0.0
	nextPing := 0.0
	type flight struct{ sent, answered, arrives float64 }
	var inFlight []flight
	for frame := 0; frame < 60*60; frame++ {
		if local >= nextPing {
			up := base + jitter*rng.Float64()
			down := base + jitter*rng.Float64()
			inFlight = append(inFlight, flight{sent: local, answered: local + up, arrives: local + up + down})
			nextPing += interval
		}
		for i := 0; i < len(inFlight); {
			if f := inFlight[i]; f.arrives <= local {
				c.Add(f.sent, f.answered+ahead, local)
				inFlight = append(inFlight[:i], inFlight[i+1:]...)
				continue
			}
			i++
		}
		now := c.Now(local)
		if local > 30 {
			_, bound, ok := c.Estimate()
			require.True(t, ok)
			err := now - (local + ahead)
			require.LessOrEqual(t, abs(err), bound+maxSlew*interval+1e-6, "frame %d", frame)
			worst = max(worst, abs(err))
		}
		local += 1.0 / 60
	}
	_, bound, _ := c.Estimate()
	t.Logf("after 60 s: bound ±%.1f ms, worst error over the last 30 s %.1f ms (jitter %v ms)", bound*1000, worst*1000, jitter*1000)
	assert.Less(t, worst, 0.030, "well inside the jitter")
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
