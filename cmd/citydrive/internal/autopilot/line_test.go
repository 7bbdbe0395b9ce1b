package autopilot

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// The car can follow the tightest line the driver draws at the slowest
// speed it plans for a curve.
func TestTheTightestLineIsOneTheCarCanTurn(t *testing.T) {
	assert.GreaterOrEqual(t, car.SpeedForCurvature(maxLineCurve), minCurveSpeed)
}

// tightest is the sharpest bend of the driver's line (1/m) and where.
func tightest(d *Driver) (float64, world.Vec2) {
	const m = int(curveBase / pathStep)
	worst, at := 0.0, world.Vec2{}
	for k := m; k < len(d.ahead)-m; k++ {
		if c := math.Abs(d.curvature(k)); c > worst {
			worst, at = c, d.ahead[k]
		}
	}
	return worst, at
}

// Over random worlds, along 2 km of route, the line never bends tighter
// than the car can turn where it drives on (a turn-back at a dead end is
// a manoeuvre of its own). Seed 335 at rush hour swung 4.6 m wide into a
// waiting car on a 112° right turn whose averaged line bent at 3 m.
func TestTheLineIsNeverTighterThanTheCarCanTurn(t *testing.T) {
	check := func(t require.TestingT, seed uint64) {
		g := roadgraph.New(world.New(seed))
		j := g.JunctionNear(world.Vec2{})
		if j == nil {
			return
		}
		g.EnsureJunctionArms(j)
		e := j.Arms[0]
		d, ok := NewDriver(g, e.Nodes[1], e.Tangent(1), seed, 30)
		require.True(t, ok)
		for range 400 {
			d.route.Advance(5)
			if !math.IsInf(d.route.TurnsBack(pathPoints*pathStep), 1) {
				continue
			}
			d.path()
			worst, at := tightest(d)
			require.LessOrEqual(t, worst, maxLineCurve*1.01, "seed %d: the line bends at a %.1f m radius at (%.0f, %.0f)", seed, 1/worst, at.X, at.Z)
		}
	}
	check(t, 335)
	rapid.Check(t, func(t *rapid.T) { check(t, rapid.Uint64Range(1, 1<<40).Draw(t, "seed")) })
}
