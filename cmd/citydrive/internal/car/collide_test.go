package car

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/roadgraph/world"
)

func TestPenetrationIsTheShortestWayOut(t *testing.T) {
	unit := func(x, z float64) Box { return Box{C: world.Vec2{X: x, Z: z}, U: world.Vec2{X: 1}, HU: 1, HV: 1} }
	turned := func(x, z, deg float64) Box {
		a := deg * math.Pi / 180
		return Box{C: world.Vec2{X: x, Z: z}, U: world.Vec2{X: math.Cos(a), Z: math.Sin(a)}, HU: 1, HV: 1}
	}
	cases := []struct {
		name  string
		a, o  Box
		hit   bool
		n     world.Vec2
		depth float64
	}{
		{"apart", unit(0, 0), unit(2.5, 0), false, world.Vec2{}, 0},
		{"touching is not overlapping", unit(0, 0), unit(2, 0), false, world.Vec2{}, 0},
		{"overlap from the left", unit(0, 0), unit(1.5, 0.2), true, world.Vec2{X: -1}, 0.5},
		{"overlap from below", unit(0.1, 0), unit(0, -1.7), true, world.Vec2{Z: 1}, 0.3},
		// A box turned 45° reaches √2 along X: 2.41 with the other box.
		{"diamond apart", turned(0, 0, 45), unit(2.5, 0), false, world.Vec2{}, 0},
		{"diamond corner in", turned(0, 0, 45), unit(2.3, 0), true, world.Vec2{X: -1}, 1 + math.Sqrt2 - 2.3},
	}
	for _, tc := range cases {
		n, d, ok := penetration(tc.a, tc.o)
		assert.Equal(t, tc.hit, ok, tc.name)
		if tc.hit {
			assert.InDelta(t, tc.n.X, n.X, 1e-9, tc.name)
			assert.InDelta(t, tc.n.Z, n.Z, 1e-9, tc.name)
			assert.InDelta(t, tc.depth, d, 1e-9, tc.name)
		}
	}
}
