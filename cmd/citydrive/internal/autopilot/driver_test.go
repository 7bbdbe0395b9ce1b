package autopilot

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

const step = 1.0 / 120

func newDriver(t *testing.T, seed uint64) (*roadgraph.Graph, *Driver, *car.Car) {
	g, r := start(t, seed)
	pos, dir := r.Pose()
	d, ok := NewDriver(g, pos, dir, seed, 30)
	require.True(t, ok)
	c := car.New(pos, dir, openRoads{world.NewSurfaceCache(world.New(seed))})
	return g, d, c
}

// openRoads is the world's road surface with nothing on it to hit.
type openRoads struct{ s *world.SurfaceCache }

func (o openRoads) Surface(x, z float64) world.Surface { return o.s.Surface(x, z) }
func (openRoads) AppendObstacles(dst []slots.Obstacle, _, _, _ float64) []slots.Obstacle {
	return dst
}
func (openRoads) Solid(_, _, _ int64) bool { return false }

// On open roads (no obstacles) the driver keeps to its lane, slows for
// turns, and averages a good speed.
func TestDriverKeepsItsLaneAndMakesGoodTime(t *testing.T) {
	for _, seed := range []uint64{412, 7, 99} {
		g, d, c := newDriver(t, seed)
		env := openRoads{world.NewSurfaceCache(world.New(seed))}
		lo, hi, dist, loAt, hiAt := math.Inf(1), math.Inf(-1), 0.0, "", ""
		turns := d.Route().Turns
		for i := 0; i < 120*120; i++ {
			in := d.Drive(c, env, step)
			from := c.Pos
			c.Step(step, in, env)
			dist += c.Pos.Sub(from).Len()
			// Away from junctions the car keeps right of the centre line
			// and clear of the parked cars.
			h, ok := g.Nearest(c.Pos)
			require.True(t, ok)
			ja, jb := h.Edge.Nodes[0], h.Edge.Nodes[len(h.Edge.Nodes)-1]
			if c.Pos.Sub(ja).Len() > 25 && c.Pos.Sub(jb).Len() > 25 {
				tan := h.Edge.Tangent(h.Seg)
				centre := h.Edge.Nodes[h.Seg].Lerp(h.Edge.Nodes[h.Seg+1], h.T)
				right := -roadgraph.Left(tan).Dot(c.Pos.Sub(centre))
				if c.Forward().Dot(tan) < 0 {
					right = -right
				}
				at := fmt.Sprintf("t=%.2f at (%.1f, %.1f), %.1f m/s", float64(i)*step, c.Pos.X, c.Pos.Z, c.Speed())
				if right < lo {
					lo, loAt = right, at
				}
				if right > hi {
					hi, hiAt = right, at
				}
			}
		}
		t.Logf("seed %d: %.2f km in 120 s (%.1f m/s), %d junctions, right of the centre line from %.2f m (%s) to %.2f m (%s), %d recoveries",
			seed, dist/1000, dist/120, d.Route().Turns-turns, lo, loAt, hi, hiAt, d.Recoveries)
		t.Logf("reroutes %d", d.reroutes)
		// A car 1.8 m wide, parked cars from 3.95 m out on a street.
		assert.Less(t, hi, laneOffset+0.8, "seed %d: clear of the parked cars", seed)
		assert.Positive(t, lo, "seed %d: right of the centre line", seed)
		assert.Zero(t, d.Recoveries, "seed %d: never stuck on an open road", seed)
		assert.Greater(t, dist, 2400.0, "seed %d: 12 km per 10 minutes", seed)
	}
}

// A car that cannot move gets the driver to back out after 2 s, to drive
// on once it has tried for backOutTime, and to back out again when it
// still makes no progress: the watchdog is not a one-shot.
func TestDriverBacksOutWhenItMakesNoProgress(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := openRoads{world.NewSurfaceCache(world.New(412))}
	var in car.Input
	n := 0
	for ; n < 10*120 && in.Brake == 0; n++ {
		in = d.Drive(c, env, step) // the car never moves
	}
	assert.InDelta(t, stuckWindow, float64(n)*step, 2*step, "recovery starts after the stuck window")
	assert.Equal(t, 1, d.Recoveries)
	assert.Equal(t, 1.0, in.Brake, "brake held at rest is reverse")
	assert.Zero(t, in.Throttle)
	for range int(backOutTime*120) + 1 {
		in = d.Drive(c, env, step)
	}
	assert.Zero(t, in.Brake, "after backing out it drives again")
	assert.Positive(t, in.Throttle)
	for n = 0; n < 10*120 && in.Brake == 0; n++ {
		in = d.Drive(c, env, step)
	}
	assert.InDelta(t, stuckWindow, float64(n)*step, 2*step, "and backs out again after another stuck window")
	assert.Equal(t, 2, d.Recoveries)
}
