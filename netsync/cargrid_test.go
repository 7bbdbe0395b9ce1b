package netsync

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// The grid finds exactly the cars an all-pairs scan would, around the
// origin (negative and positive cells) and far out.
func TestCarGridMatchesAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, base := range []float64{0, -1e6, 3e7} {
		var cars []wire.CarSnapshot
		for i := range 300 {
			x := base + (rng.Float64()-0.5)*4000
			z := base + (rng.Float64()-0.5)*4000
			y := (rng.Float64() - 0.5) * 300
			cars = append(cars, wire.QuantiseCar(uint32(i+1), 1, x, y, z, 0, 0))
		}
		var g carGrid
		g.reset()
		for _, c := range cars {
			g.add(c)
		}
		g.build()
		found := 0
		for _, to := range cars[:100] {
			a := newArea()
			var ch areaChange
			a.subscribe(voxel.ChunkAt(to.Position()), 8, 8, &ch)
			var want []wire.CarSnapshot
			for _, c := range cars {
				if c.Player != to.Player && a.covers(voxel.ChunkAt(c.Position())) {
					want = append(want, c)
				}
			}
			got := g.appendCovered(a, to.Player, nil)
			require.ElementsMatch(t, want, got, "base %g, car %d", base, to.Player)
			found += len(got)
		}
		require.Greater(t, found, 100, "the cars are dense enough to meet")
	}
}

func TestCarGridUnsubscribedSeesNothing(t *testing.T) {
	var g carGrid
	g.add(wire.QuantiseCar(1, 1, 0, 0, 0, 0, 0))
	g.build()
	require.Empty(t, g.appendCovered(newArea(), 2, nil))
}

// appendIn without skipping keeps the receiver's own player too (a
// handover's car shown by another server is relayed to its spare).
func TestCarGridAppendInSkipsOnlyWhenAsked(t *testing.T) {
	var g carGrid
	g.add(wire.QuantiseCar(1, 1, 0, 0, 0, 0, 0))
	g.add(wire.QuantiseCar(2, 1, 10, 0, 0, 0, 0))
	g.build()
	a := newArea()
	var ch areaChange
	a.subscribe(voxel.ChunkPos{}, 4, 4, &ch)
	require.Len(t, g.appendIn(a, 1, false, nil), 2)
	got := g.appendIn(a, 1, true, nil)
	require.Len(t, got, 1)
	require.Equal(t, uint32(2), got[0].Player)
}
