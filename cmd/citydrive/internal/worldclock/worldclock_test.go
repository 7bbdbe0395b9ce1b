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
