package world

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// gridOrigins are 32 m grids around junctions (centre, corners across cell
// borders), along a bridge, and at random places near and far.
func gridOrigins(t testing.TB, w World, r *rand.Rand) []Vec2 {
	var out []Vec2
	add := func(p Vec2) { out = append(out, Vec2{X: math.Floor(p.X), Z: math.Floor(p.Z)}) }
	for i := int32(-4); i < 4; i++ {
		for j := int32(-4); j < 4; j += 2 {
			if p, ok := w.Junction(Cell{I: i, J: j}); ok {
				for _, d := range [...]Vec2{{X: -16, Z: -16}, {X: -32, Z: 0}, {X: 0, Z: -32}, {X: -8, Z: -24}} {
					add(p.Add(d))
				}
			}
		}
	}
	// where cells meet (points of one grid in up to four cells)
	add(Vec2{X: 75 - 16, Z: 75 - 16})
	add(Vec2{X: -225 - 16, Z: 375 - 16})
	_, nodes := bridgeEdge(t, w)
	for k := 0; k < len(nodes); k += 6 {
		add(nodes[k].Add(Vec2{X: -16, Z: -16}))
	}
	for range 40 {
		add(Vec2{X: r.Float64()*6000 - 3000, Z: r.Float64()*6000 - 3000})
	}
	for range 8 {
		add(Vec2{X: (r.Float64()*2 - 1) * 3e7, Z: (r.Float64()*2 - 1) * 3e7})
	}
	return out
}

// RoadGrid must answer what Surface answers, point by point, bit for bit:
// the terrain generator caps the ground by it.
func TestRoadGridMatchesSurface(t *testing.T) {
	for _, seed := range []uint64{412, 7, 42} {
		w := New(seed)
		grid, point := NewSurfaceCache(w), NewSurfaceCache(w)
		const n = 32
		want := make([]bool, n*n)
		road := make([]bool, n*n)
		y := make([]float64, n*n)
		roads := 0
		for k, o := range gridOrigins(t, w, rand.New(rand.NewPCG(seed, 3))) {
			for i := range want {
				want[i] = k%3 != 0 || i%5 != 0 // some grids with holes
				road[i], y[i] = true, math.NaN()
			}
			grid.RoadGrid(o.X, o.Z, n, want, road, y)
			for j := range n {
				for i := range n {
					idx := j*n + i
					x, z := o.X+float64(i)+0.5, o.Z+float64(j)+0.5
					if !want[idx] {
						require.True(t, road[idx] && math.IsNaN(y[idx]), "left alone where not wanted")
						continue
					}
					s := point.Surface(x, z)
					require.Equal(t, s.Road, road[idx], "seed %d at (%v, %v)", seed, x, z)
					if s.Road {
						roads++
						require.Equal(t, math.Float64bits(s.Y), math.Float64bits(y[idx]), "seed %d at (%v, %v): %v vs %v", seed, x, z, s.Y, y[idx])
					}
				}
			}
		}
		require.Greater(t, roads, 5000, "the grids cover many road points")
	}
}

func BenchmarkRoadGrid(b *testing.B) {
	w := New(412)
	var p Vec2
	for i := int32(0); ; i++ {
		if q, ok := w.Junction(Cell{I: i, J: 2}); ok {
			p = q
			break
		}
	}
	const n = 32
	want := make([]bool, n*n)
	for i := range want {
		want[i] = true
	}
	road, y := make([]bool, n*n), make([]float64, n*n)
	x0, z0 := math.Floor(p.X)-16, math.Floor(p.Z)-16
	b.Run("grid", func(b *testing.B) {
		c := NewSurfaceCache(w)
		for b.Loop() {
			c.RoadGrid(x0, z0, n, want, road, y)
		}
	})
	b.Run("points", func(b *testing.B) {
		c := NewSurfaceCache(w)
		for b.Loop() {
			for j := range n {
				for i := range n {
					s := c.Surface(x0+float64(i)+0.5, z0+float64(j)+0.5)
					road[j*n+i], y[j*n+i] = s.Road, s.Y
				}
			}
		}
	})
}

// The generator asks RoadGrid only within JunctionRoadReach of a junction
// (off the roads' bands): no junction's carriageway reaches farther.
func TestJunctionRoadReachBoundsTheFan(t *testing.T) {
	w := New(412)
	c := NewSurfaceCache(w)
	n := 0
	for i := int32(-20); i < 20; i++ {
		for j := int32(-20); j < 20; j++ {
			e := c.cellRoads(Cell{I: i, J: j})
			if !c.junctionNear(&e.j, e.j.p) {
				continue
			}
			n++
			require.LessOrEqual(t, e.j.fanR2, JunctionRoadReach*JunctionRoadReach, "junction %v", e.j.cell)
		}
	}
	require.Greater(t, n, 1000)
}

// A cell's edges are filled only when a query falls in their coarse box,
// made from the junctions alone: it must hold every node grown by the
// road's reach (the box Surface tests first).
func TestEdgeCoarseBoxHoldsTheRoad(t *testing.T) {
	for _, seed := range []uint64{412, 7} {
		w := New(seed)
		c := NewSurfaceCache(w)
		n := 0
		for i := int32(-25); i < 25; i++ {
			for j := int32(-25); j < 25; j++ {
				e := c.cellRoads(Cell{I: i, J: j})
				for k := range e.edges[:e.n] {
					r := &e.edges[k]
					require.True(t, c.edgeNear(r, r.clo), "fills at the box's corner")
					require.True(t, r.clo.X <= r.lo.X && r.clo.Z <= r.lo.Z && r.chi.X >= r.hi.X && r.chi.Z >= r.hi.Z,
						"seed %d edge %v: box %v..%v, road %v..%v", seed, r.spec, r.clo, r.chi, r.lo, r.hi)
					n++
				}
			}
		}
		require.Greater(t, n, 2000)
	}
}
