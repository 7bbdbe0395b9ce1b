package world

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bridgeEdge finds an edge of the lattice whose middle node is over the
// lake, searching outwards from the origin.
func bridgeEdge(t testing.TB, w World) (EdgeSpec, []Vec2) {
	for r := int32(0); r < 60; r++ {
		for i := -r; i <= r; i++ {
			for j := -r; j <= r; j++ {
				if max(i, -i, j, -j) != r {
					continue
				}
				e, ok := w.Edge(EdgeID(Cell{I: i, J: j}, DirX))
				if !ok {
					continue
				}
				nodes := w.EdgeNodes(e, nil)
				if m := nodes[len(nodes)/2]; w.IsWater(m.X, m.Z) {
					return e, nodes
				}
			}
		}
	}
	t.Fatal("no bridge within 60 cells")
	return EdgeSpec{}, nil
}

func TestBridgeDeckRisesOverTheLakeAndMeetsTheTerrain(t *testing.T) {
	for _, seed := range []uint64{412, 7} {
		w := New(seed)
		e, nodes := bridgeEdge(t, w)
		sc := NewSurfaceCache(w)
		m := nodes[len(nodes)/2]
		s := sc.Surface(m.X, m.Z)
		assert.True(t, s.Road && s.Bridge && !s.Water, "seed %d mid-span %+v", seed, s)
		assert.InDelta(t, WaterLevel+DeckClear, s.Y, 1e-9, "seed %d: the deck over open water", seed)
		// Beside the deck, past its sidewalk, is open water.
		side := nodes[len(nodes)/2+1].Sub(m).Norm().Perp()
		off := m.Add(side.Scale(e.HalfWidth() + WalkWidth + 0.5))
		assert.Equal(t, Surface{Y: WaterLevel, Water: true}, sc.Surface(off.X, off.Z), "seed %d", seed)
		// On the sidewalk the surface is a kerb higher.
		walk := m.Add(side.Scale(e.HalfWidth() + WalkWidth/2))
		assert.InDelta(t, s.Y+KerbHeight, sc.Surface(walk.X, walk.Z).Y, 1e-9)
		// The ends are at the terrain: junctions sit on the ground.
		for _, end := range []Vec2{nodes[0], nodes[len(nodes)-1]} {
			assert.InDelta(t, w.Height(end.X, end.Z), sc.Surface(end.X, end.Z).Y, 1e-9)
		}
		// Along the centre line the surface has no step a car could not
		// climb: the steepest the rule makes is where a lifted ramp meets
		// its junction's level surface at the junction radius.
		prev := sc.Surface(nodes[0].X, nodes[0].Z).Y
		for k := 1; k < len(nodes); k++ {
			for f := 0.25; f <= 1; f += 0.25 {
				p := nodes[k-1].Lerp(nodes[k], f)
				y := sc.Surface(p.X, p.Z).Y
				require.LessOrEqual(t, math.Abs(y-prev), 0.5, "seed %d node %d", seed, k)
				prev = y
			}
		}
	}
}

func TestOpenLakeIsWaterAndLandIsTerrain(t *testing.T) {
	w := New(412)
	sc := NewSurfaceCache(w)
	var water, terrain, walk int
	for z := -2000.0; z < 2000; z += 23 {
		for x := -2000.0; x < 2000; x += 19 {
			s := sc.Surface(x, z)
			h := w.Height(x, z)
			switch {
			case s.Road || s.Bridge:
			case s.Water:
				require.Less(t, h, WaterLevel)
				require.Equal(t, Surface{Y: WaterLevel, Water: true}, s)
				water++
			case s.Y == h:
				require.GreaterOrEqual(t, h, WaterLevel)
				terrain++
			default:
				// a sidewalk: a kerb above a road that drapes the terrain
				require.InDelta(t, h, s.Y, 1.5, "(%v, %v)", x, z)
				walk++
			}
		}
	}
	assert.Positive(t, water)
	assert.Positive(t, walk)
	assert.Greater(t, terrain, 10*walk, "most of the world is off the road")
}

func TestCacheAgreesWithTheUncachedRule(t *testing.T) {
	w := New(7)
	sc := NewSurfaceCache(w)
	// Visit points in a scattered order so entries are evicted and refilled.
	for i := 0; i < 600; i++ {
		x := float64((i*7919)%6000) - 3000
		z := float64((i*104729)%6000) - 3000
		require.Equal(t, w.Surface(x, z), sc.Surface(x, z), "(%v, %v)", x, z)
	}
}

// driveLine queries the surface the way a car does: four wheels every
// step metres along a straight line.
func driveLine(sc *SurfaceCache, from Vec2, dir Vec2, metres, step float64) float64 {
	sum := 0.0
	for d := 0.0; d < metres; d += step {
		p := from.Add(dir.Scale(d))
		for _, o := range [4]Vec2{{X: 1.3}, {X: -1.3}, {Z: 0.8}, {Z: -0.8}} {
			sum += sc.Surface(p.X+o.X, p.Z+o.Z).Y
		}
	}
	return sum
}

func TestSurfaceCacheDoesNotAllocateOnceWarm(t *testing.T) {
	w := New(412)
	sc := NewSurfaceCache(w)
	driveLine(sc, Vec2{X: -9000, Z: 10}, Vec2{X: 1}, 9000, 2) // fill and recycle every entry
	allocs := testing.AllocsPerRun(2, func() {
		driveLine(sc, Vec2{X: 3000, Z: 1500}, Vec2{X: 0.6, Z: 0.8}, 3000, 0.5)
	})
	assert.Zero(t, allocs)
}

func BenchmarkSurfaceCache(b *testing.B) {
	w := New(412)
	_, nodes := bridgeEdge(b, w)
	sc := NewSurfaceCache(w)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// along a bridge edge and back, a point every 10 cm: the cells stay
		// cached, as they do under a car
		k := i % (2 * 10 * len(nodes))
		if k >= 10*len(nodes) {
			k = 2*10*len(nodes) - 1 - k
		}
		p := nodes[k/10].Add(Vec2{X: float64(k%10) * 0.42, Z: 3})
		sc.Surface(p.X, p.Z)
		i++
	}
}

func BenchmarkSurfaceUncached(b *testing.B) {
	w := New(412)
	for b.Loop() {
		w.Surface(1234, 567)
	}
}
