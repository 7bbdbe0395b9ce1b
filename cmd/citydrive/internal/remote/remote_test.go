package remote

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
)

func snap(seq uint32, x, heading float64) wire.CarSnapshot {
	return wire.QuantiseCar(7, seq, x, 1, 0, heading, 10)
}

func TestInterpolatesBetweenSnapshots(t *testing.T) {
	c := New()
	c.Observe(1.0, []wire.CarSnapshot{snap(1, 0, 0)})
	c.Observe(1.1, []wire.CarSnapshot{snap(2, 1, 0)})
	c.Observe(1.2, []wire.CarSnapshot{snap(3, 2, 0)})
	p := c.Poses(1.15 + Delay)
	require.Len(t, p, 1)
	assert.InDelta(t, 1.5, p[0].X, 0.01)
	assert.Equal(t, uint32(7), p[0].Player)
}

func TestLatestWinsAndOldSnapshotsIgnored(t *testing.T) {
	c := New()
	c.Observe(1.0, []wire.CarSnapshot{snap(5, 10, 0)})
	c.Observe(1.1, []wire.CarSnapshot{snap(4, 99, 0), snap(5, 99, 0)})
	p := c.Poses(2)
	require.Len(t, p, 1)
	assert.Less(t, p[0].X, 20.0, "out-of-order and repeated snapshots ignored")
}

func TestHeadingTakesShortestTurn(t *testing.T) {
	c := New()
	c.Observe(0, []wire.CarSnapshot{snap(1, 0, math.Pi-0.1)})
	c.Observe(0.1, []wire.CarSnapshot{snap(2, 0, -math.Pi+0.1)})
	p := c.Poses(0.05 + Delay)
	// Halfway between 179° and -179° is 180°, not 0°.
	assert.InDelta(t, math.Pi, math.Abs(math.Remainder(p[0].Heading, 2*math.Pi)), 0.01)
}

func TestExtrapolatesBrieflyAndForgetsSilentCars(t *testing.T) {
	c := New()
	c.Observe(0, []wire.CarSnapshot{snap(1, 0, 0)})
	c.Observe(0.1, []wire.CarSnapshot{snap(2, 1, 0)})
	p := c.Poses(0.1 + Delay + 0.1)
	assert.InDelta(t, 2, p[0].X, 0.05, "10 m/s for 0.1 s past the newest")
	p = c.Poses(0.1 + Delay + 1)
	assert.InDelta(t, 1+2.5, p[0].X, 0.05, "extrapolation is capped")
	assert.Empty(t, c.Poses(10), "silent for 3 s: forgotten")
}
