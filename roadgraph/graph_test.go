package roadgraph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

const testSeed = 412

// grow expands junctions reachable from the one nearest start, visiting
// them in an order chosen by rng, evicting far graph every evictEvery steps.
func grow(t *testing.T, g *Graph, start world.Vec2, steps int, rng *rand.Rand, evictEvery int) {
	t.Helper()
	j := g.JunctionNear(start)
	require.NotNil(t, j)
	for i := 0; i < steps; i++ {
		g.EnsureJunctionArms(j)
		if len(j.Arms) == 0 {
			j = g.JunctionNear(start)
			continue
		}
		e := j.Arms[rng.IntN(len(j.Arms))]
		if e.A == j {
			j = e.B
		} else {
			j = e.A
		}
		if evictEvery > 0 && i%evictEvery == evictEvery-1 {
			g.EvictFar(j.Pos, 600)
			require.NotNil(t, g.Junction(j.ID), "eviction must keep the junction we stand on")
		}
	}
}

// expandAround expands, breadth first from the junction nearest start,
// every junction within radius of centre.
func expandAround(t *testing.T, g *Graph, start, centre world.Vec2, radius float64) {
	t.Helper()
	queue := []*Junction{g.JunctionNear(start)}
	require.NotNil(t, queue[0])
	seen := map[uint64]bool{}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		if seen[j.ID] || j.Pos.Sub(centre).Len() > radius {
			continue
		}
		seen[j.ID] = true
		g.EnsureJunctionArms(j)
		for _, e := range j.Arms {
			queue = append(queue, e.A, e.B)
		}
	}
}

func TestGraphIsPureFunctionOfSeed(t *testing.T) {
	w := world.New(testSeed)
	a, b := New(w), New(w)
	expandAround(t, a, world.Vec2{}, world.Vec2{}, 1200)
	// b explores elsewhere with evictions, then reaches the same area from
	// another side.
	grow(t, b, world.Vec2{X: 900, Z: -600}, 150, rand.New(rand.NewPCG(7, 9)), 10)
	grow(t, b, world.Vec2{X: 300, Z: 300}, 150, rand.New(rand.NewPCG(3, 4)), 25)
	expandAround(t, b, world.Vec2{X: 500, Z: 400}, world.Vec2{X: 300, Z: 300}, 700)

	shared := 0
	for _, ea := range a.Edges() {
		eb := b.Edge(ea.ID)
		if eb == nil {
			continue
		}
		shared++
		assert.Equal(t, ea.Nodes, eb.Nodes, "edge %d nodes", ea.ID)
		assert.Equal(t, ea.A.ID, eb.A.ID)
		assert.Equal(t, ea.B.ID, eb.B.ID)
		assert.Equal(t, ea.HalfWidth, eb.HalfWidth)
	}
	sharedJ := 0
	for _, ja := range a.Junctions() {
		if jb := b.Junction(ja.ID); jb != nil {
			sharedJ++
			assert.Equal(t, ja.Pos, jb.Pos)
		}
	}
	assert.Greater(t, shared, 20, "routes should overlap")
	assert.Greater(t, sharedJ, 20)
}

func TestEvictedGraphRegrowsIdentically(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	grow(t, g, world.Vec2{}, 60, rand.New(rand.NewPCG(5, 5)), 0)
	before := map[uint64][]world.Vec2{}
	for _, e := range g.Edges() {
		before[e.ID] = append([]world.Vec2(nil), e.Nodes...)
	}
	far := world.Vec2{X: 1e5, Z: 1e5}
	assert.Equal(t, len(before), g.EvictFar(far, 100))
	assert.Empty(t, g.Edges())
	assert.Empty(t, g.Junctions())
	// Regrow the area in another order (breadth first, from elsewhere):
	// every edge comes back with the same id and nodes.
	expandAround(t, g, world.Vec2{X: 400, Z: 300}, world.Vec2{}, 3000)
	for id, nodes := range before {
		e := g.Edge(id)
		require.NotNil(t, e, "edge %d regrown", id)
		assert.Equal(t, nodes, e.Nodes)
	}
}

func TestEdgesHaveFewerThan128SegmentsAndUniqueKeys(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	grow(t, g, world.Vec2{}, 400, rand.New(rand.NewPCG(8, 8)), 0)
	keys := map[int64]bool{}
	for _, e := range g.Edges() {
		require.Less(t, e.Segments(), world.MaxSegments)
		require.GreaterOrEqual(t, e.Segments(), 1)
		for i := 0; i < e.Segments(); i++ {
			require.False(t, keys[e.Key(i)])
			keys[e.Key(i)] = true
			assert.LessOrEqual(t, e.Nodes[i].Sub(e.Nodes[i+1]).Len(), world.SegmentLength+0.01)
		}
	}
	for _, j := range g.Junctions() {
		require.False(t, keys[JunctionKey(j.ID)])
		keys[JunctionKey(j.ID)] = true
	}
}

func TestVariety(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	grow(t, g, world.Vec2{}, 600, rand.New(rand.NewPCG(2, 2)), 0)
	arms := map[int]int{}
	for _, j := range g.Junctions() {
		if j.Expanded {
			arms[len(j.Arms)]++
		}
	}
	assert.Positive(t, arms[3], "T junctions")
	assert.Positive(t, arms[4], "crossings")
	straight, curved, overWater := 0, 0, 0
	for _, e := range g.Edges() {
		dev := 0.0
		a, b := e.Nodes[0], e.Nodes[len(e.Nodes)-1]
		dir := b.Sub(a).Norm()
		for _, p := range e.Nodes {
			dev = math.Max(dev, math.Abs(p.Sub(a).Dot(dir.Perp())))
		}
		if dev < 0.01 {
			straight++
		} else if dev > 5 {
			curved++
		}
		water := 0
		for _, p := range e.Nodes {
			if w.IsWater(p.X, p.Z) {
				water++
			}
		}
		if float64(water)*world.SegmentLength > 100 {
			overWater++
		}
	}
	assert.Positive(t, straight, "avenues")
	assert.Positive(t, curved, "curving streets")
	assert.Positive(t, overWater, "bridges of 100 m or more")
}

func TestRoadsWithinFindsNearestPoint(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	grow(t, g, world.Vec2{}, 40, rand.New(rand.NewPCG(1, 1)), 0)
	e := g.Edges()[0]
	mid := e.Nodes[len(e.Nodes)/2]
	off := mid.Add(Left(e.Tangent(len(e.Nodes) / 2)).Scale(30))
	hits := g.RoadsWithin(off, 31, nil)
	var found *Hit
	for i := range hits {
		if hits[i].Edge == e {
			found = &hits[i]
		}
		assert.LessOrEqual(t, hits[i].Dist, 31.0)
	}
	require.NotNil(t, found)
	assert.InDelta(t, 30, found.Dist, 0.5)
	for _, h := range g.RoadsWithin(off, 29, nil) {
		assert.NotEqual(t, e, h.Edge)
	}
	// Brute force agrees on which edges are within 140 m.
	p := world.Vec2{X: 37, Z: -12}
	want := map[uint64]bool{}
	for _, e := range g.Edges() {
		for i := 0; i+1 < len(e.Nodes); i++ {
			for s := 0.0; s <= 1; s += 0.001 {
				if e.Nodes[i].Lerp(e.Nodes[i+1], s).Sub(p).Len() <= 139.9 {
					want[e.ID] = true
				}
			}
		}
	}
	got := map[uint64]bool{}
	for _, h := range g.RoadsWithin(p, 140, nil) {
		got[h.Edge.ID] = true
	}
	for id := range want {
		assert.True(t, got[id], "edge %d within 140 m", id)
	}
}

func TestSideFlagsHideLotsOnCrossRoad(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	grow(t, g, world.Vec2{}, 200, rand.New(rand.NewPCG(4, 4)), 0)
	hidden, open := 0, 0
	for _, j := range g.Junctions() {
		if len(j.Arms) < 3 {
			continue
		}
		for _, e := range j.Arms {
			i := 0
			if e.B == j {
				i = len(e.Nodes) - 1
			}
			// Near a junction with three or more arms, some lot on one
			// side must be a road.
			if e.Flags[i] != 0 {
				hidden++
			}
		}
	}
	for _, e := range g.Edges() {
		if e.Flags[len(e.Nodes)/2] == 0 {
			open++
		}
	}
	assert.Positive(t, hidden)
	assert.Greater(t, open, len(g.Edges())/2, "mid-edge lots are mostly free")
}

func TestSideFlagsDependOnlyOnLoadedSet(t *testing.T) {
	w := world.New(testSeed)
	a, b := New(w), New(w)
	grow(t, a, world.Vec2{}, 80, rand.New(rand.NewPCG(1, 9)), 0)
	// b loads the same edges in reverse id order.
	ids := a.Edges()
	for i := len(ids) - 1; i >= 0; i-- {
		spec, ok := w.Edge(ids[i].ID)
		require.True(t, ok)
		b.addEdge(spec)
	}
	for _, e := range a.Edges() {
		assert.Equal(t, e.Flags, b.Edge(e.ID).Flags)
	}
}

func TestEnsureAroundLoadsTheRoadUnderAnyPoint(t *testing.T) {
	w := world.New(testSeed)
	full := New(w)
	expandAround(t, full, world.Vec2{}, world.Vec2{}, 1500)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 50; i++ {
		// A point on some road of the fully grown graph...
		e := full.Edges()[rng.IntN(len(full.Edges()))]
		k := rng.IntN(e.Segments())
		p := e.Nodes[k].Lerp(e.Nodes[k+1], 0.5)
		// ...is on a loaded road of a fresh graph after EnsureAround.
		g := New(w)
		g.EnsureAround(p)
		require.NotNil(t, g.Edge(e.ID), "edge %d under %v", e.ID, p)
	}
}

func TestExpandedJunctionsHoldEveryLatticeArm(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	expandAround(t, g, world.Vec2{}, world.Vec2{}, 1500)
	n := 0
	for _, j := range g.Junctions() {
		if !j.Expanded {
			continue
		}
		specs := w.Arms(world.JunctionCell(j.ID), nil)
		require.Len(t, j.Arms, len(specs), "junction %d", j.ID)
		for i, s := range specs {
			require.Equal(t, s.ID, j.Arms[i].ID)
		}
		n++
	}
	assert.Greater(t, n, 50)
}
