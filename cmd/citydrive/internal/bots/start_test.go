package bots

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// A start point without a road: the search tries the rings around it,
// nearest first, all four directions of each, and stops at the first road.
func TestSearchNearTriesTheNearestRingFirst(t *testing.T) {
	p := world.Vec2{X: 1000, Z: -500}
	noRoad := errors.New("no road")
	for _, road := range []world.Vec2{
		p,
		p.Add(world.Vec2{X: 400}), p.Add(world.Vec2{X: -400}), p.Add(world.Vec2{Z: 400}), p.Add(world.Vec2{Z: -400}),
		p.Add(world.Vec2{X: -1200}), p.Add(world.Vec2{Z: -3200}),
	} {
		var tried []world.Vec2
		err := searchNear(p, func(q world.Vec2) error {
			tried = append(tried, q)
			if q == road || len(tried) > 100 {
				return nil
			}
			return noRoad
		})
		require.NoError(t, err, "road at %v", road)
		assert.Equal(t, road, tried[len(tried)-1], "the search ends on the road")
		assert.Equal(t, ringsUpTo(p, road), tried)
	}

	// No road within 8 rings (3.2 km): the last error after 1 + 8·4 tries.
	n := 0
	err := searchNear(p, func(q world.Vec2) error {
		if n++; n > 100 { // a broken search loops: end it here, not at the test's timeout
			return nil
		}
		return noRoad
	})
	assert.ErrorIs(t, err, noRoad)
	assert.Equal(t, 1+4*startSearchSteps, n)
	assert.Equal(t, 3200.0, startSearchSteps*startSearchStep)
}

// ringsUpTo lists the points searchNear should try around p until road:
// p, then for k = 1, 2, … the points k·400 m off along +X, −X, +Z, −Z.
func ringsUpTo(p, road world.Vec2) []world.Vec2 {
	out := []world.Vec2{p}
	if p == road {
		return out
	}
	for k := 1; k <= 8; k++ {
		d := float64(k) * 400
		for _, o := range []world.Vec2{{X: d}, {X: -d}, {Z: d}, {Z: -d}} {
			out = append(out, p.Add(o))
			if p.Add(o) == road {
				return out
			}
		}
	}
	return out
}

func TestGridPoint(t *testing.T) {
	assert.Equal(t, world.Vec2{}, gridPoint(0, 1, 1500))
	// 5 bots: a 3×3 grid, filled row by row from its −X, −Z corner.
	want := []world.Vec2{{X: -10, Z: -10}, {Z: -10}, {X: 10, Z: -10}, {X: -10}, {}}
	for i, w := range want {
		assert.Equal(t, w, gridPoint(i, 5, 10), "bot %d", i)
	}
	// 4 bots: 2×2, the centre between them.
	assert.Equal(t, world.Vec2{X: 5, Z: 5}, gridPoint(3, 4, 10))
}
