package roadgraph

import (
	"testing"

	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// Every seed starts: the start search alone, for seeds 1–10,000 from the
// origin (where 22 of seeds 1–2000 found no road before the network rule)
// and, every hundredth seed, from a point 1,000 km out. The junction it
// finds has two arms or more, and its graph grows from there: the network
// rule puts every kept junction on the endless network (world's property
// tests search 10 km from random starts).
func TestEverySeedStarts(t *testing.T) {
	for seed := uint64(1); seed <= 10_000; seed++ {
		starts := []world.Vec2{{}}
		if seed%100 == 0 {
			starts = append(starts, world.Vec2{X: 1e6 + float64(seed), Z: -1e6})
		}
		for _, p := range starts {
			g := New(world.New(seed))
			j := g.JunctionNear(p)
			require.NotNil(t, j, "seed %d from %v", seed, p)
			g.EnsureJunctionArms(j)
			require.GreaterOrEqual(t, len(j.Arms), 2, "seed %d: the start %v has a way on either side", seed, j.Pos)
		}
	}
}
