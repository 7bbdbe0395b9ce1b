package walker

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

const testSeed = 412

// straightRoad finds a long avenue edge and returns the graph, the edge and
// a position in its middle with the heading towards B.
func straightRoad(t testing.TB) (*roadgraph.Graph, *roadgraph.Edge, world.Vec2, world.Vec2) {
	g := roadgraph.New(world.New(testSeed))
	j := g.JunctionNear(world.Vec2{})
	require.NotNil(t, j)
	g.EnsureJunctionArms(j)
	var best *roadgraph.Edge
	for _, e := range g.Edges() {
		if best == nil || e.Segments() > best.Segments() {
			best = e
		}
	}
	mid := best.Segments() / 2
	pos := best.Nodes[mid].Lerp(best.Nodes[mid+1], 0.5)
	return g, best, pos, best.Tangent(mid)
}

// The item caps of the game's walks: slots.DefaultSlots and
// slots.DefaultFarSlots (slots imports walker, so these tests cannot).
const (
	gameCap    = 180
	gameFarCap = 1024
)

func mustWalker(t testing.TB, p Params, maxItems int) *Walker {
	w, err := New(p, maxItems)
	require.NoError(t, err)
	return w
}

func TestCostNeverDecreasesAndKeysAreUnique(t *testing.T) {
	g, _, pos, heading := straightRoad(t)
	items := mustWalker(t, DefaultParams(), gameCap).Walk(g, pos, heading)
	require.Len(t, items, gameCap, "the game's walk fills its slots")
	keys := map[int64]bool{}
	for i, it := range items {
		if i > 0 {
			require.GreaterOrEqual(t, it.Cost, items[i-1].Cost)
		}
		require.False(t, keys[it.Key], "duplicate key %d", it.Key)
		keys[it.Key] = true
		if it.Kind == Segment {
			assert.Equal(t, roadgraph.SegmentKey(it.Edge, int(it.Seg)), it.Key)
		} else {
			assert.Equal(t, roadgraph.JunctionKey(it.Junction), it.Key)
		}
	}
	assert.Equal(t, float32(0), items[0].Cost, "the car's own segment comes first")
}

// On an open road (no junctions reached, no other roads near) the reach
// ahead over the reach behind is the ratio of the weights.
func TestReachAheadOverBehindMatchesWeights(t *testing.T) {
	g := roadgraph.New(world.New(testSeed))
	// Find a long bridge: no junctions within reach on either side.
	var e *roadgraph.Edge
	for _, j := range []*roadgraph.Junction{g.JunctionNear(world.Vec2{})} {
		g.EnsureJunctionArms(j)
	}
	for round := 0; round < 6 && e == nil; round++ {
		for _, j := range append([]*roadgraph.Junction(nil), g.Junctions()...) {
			g.EnsureJunctionArms(j)
		}
		for _, c := range g.Edges() {
			if c.Segments() > 100 {
				e = c
				break
			}
		}
	}
	require.NotNil(t, e, "a long edge")
	p := DefaultParams()
	p.NearbyRadius = 0
	mid := e.Segments() / 2
	pos := e.Nodes[mid].Lerp(e.Nodes[mid+1], 0.5)
	items := mustWalker(t, p, 60).Walk(g, pos, e.Tangent(mid)) // 60 items: well before either end of the edge
	require.Len(t, items, 60)
	ahead, behind := 0, 0
	for _, it := range items {
		require.Equal(t, Segment, it.Kind)
		require.Equal(t, e.ID, it.Edge)
		if it.Seg > int32(mid) {
			ahead++
		} else if it.Seg < int32(mid) {
			behind++
		}
	}
	ratio := float64(ahead) / float64(behind)
	assert.InDelta(t, 2.6, ratio, 0.25, "ahead %d behind %d", ahead, behind)
}

func TestItemCapStopsTheWalk(t *testing.T) {
	g, _, pos, heading := straightRoad(t)
	for _, cap := range []int{1, 7, 50} {
		assert.Len(t, mustWalker(t, DefaultParams(), cap).Walk(g, pos, heading), cap)
	}
}

func TestViewCostStopsTheWalk(t *testing.T) {
	g, _, pos, heading := straightRoad(t)
	p := DefaultParams()
	p.ViewCost = 100
	const noCap = 10000
	items := mustWalker(t, p, noCap).Walk(g, pos, heading)
	require.NotEmpty(t, items)
	assert.Less(t, len(items), 200)
	for _, it := range items {
		assert.LessOrEqual(t, float64(it.Cost), 100.0)
	}
	// A higher limit reaches further: the limit, not the cap, stopped it.
	p.ViewCost = 200
	assert.Greater(t, len(mustWalker(t, p, noCap).Walk(g, pos, heading)), len(items))
}

func TestSidewaysArmsCostSideWeight(t *testing.T) {
	g, e, _, _ := straightRoad(t)
	// Stand on the last segment before junction B, heading into it.
	last := e.Segments() - 1
	pos := e.Nodes[last].Lerp(e.Nodes[last+1], 0.5)
	p := DefaultParams()
	p.NearbyRadius = 0
	p.ViewCost = 60
	items := mustWalker(t, p, 400).Walk(g, pos, e.Tangent(last))
	j := e.B
	var jc float32 = -1
	first := map[uint64]float32{} // cheapest first segment beyond j per arm
	for _, it := range items {
		if it.Kind == Junction && it.Junction == j.ID {
			jc = it.Cost
		}
		if it.Kind == Segment && it.Edge != e.ID {
			if _, ok := first[it.Edge]; !ok {
				first[it.Edge] = it.Cost
			}
		}
	}
	require.GreaterOrEqual(t, jc, float32(0), "junction reached")
	step := float32(world.SegmentLength)
	sideways := 0
	for _, arm := range j.Arms {
		if arm == e {
			continue
		}
		c, ok := first[arm.ID]
		require.True(t, ok, "arm %d walked", arm.ID)
		straightOn := math.Abs(float64(c-(jc+step))) < 1e-3
		if !straightOn {
			assert.InDelta(t, jc+step*1.4, c, 1e-3, "sideways arm costs 1.4 per step")
			sideways++
		}
	}
	assert.Positive(t, sideways)
}

func TestSameInputsSameOutput(t *testing.T) {
	g, _, pos, heading := straightRoad(t)
	// Every road that passes near is loaded, as after the game's first
	// walks: a walk's nearby walkers start on the roads loaded, so a
	// first walk that loads a nearby road is answered differently the
	// second time.
	g.EnsureAround(pos)
	w := mustWalker(t, DefaultParams(), gameCap)
	a := append([]Item(nil), w.Walk(g, pos, heading)...)
	b := append([]Item(nil), w.Walk(g, pos, heading)...)
	c := mustWalker(t, DefaultParams(), gameCap).Walk(g, pos, heading)
	assert.Equal(t, a, b)
	assert.Equal(t, a, c)
	// A fresh graph from the same seed (grown by the walk itself) agrees.
	g2, _, _, _ := straightRoad(t)
	g2.EnsureAround(pos)
	assert.Equal(t, a, mustWalker(t, DefaultParams(), gameCap).Walk(g2, pos, heading))
}

func TestWalkGrowsTheGraph(t *testing.T) {
	g, _, pos, heading := straightRoad(t)
	before := len(g.Edges())
	mustWalker(t, DefaultParams(), gameCap).Walk(g, pos, heading)
	assert.Greater(t, len(g.Edges()), before)
}

func TestParamsValidate(t *testing.T) {
	bad := []func(*Params){
		func(p *Params) { p.ForwardWeight = -1 },
		func(p *Params) { p.BackwardWeight = 0 },
		func(p *Params) { p.SideWeight = math.NaN() },
		func(p *Params) { p.StepLength = math.Inf(1) },
		func(p *Params) { p.ViewCost = -5 },
		func(p *Params) { p.NearbyRadius = -1 },
	}
	for i, mutate := range bad {
		p := DefaultParams()
		mutate(&p)
		_, err := New(p, gameCap)
		assert.Error(t, err, "case %d", i)
	}
	_, err := New(DefaultParams(), gameCap)
	assert.NoError(t, err)
	_, err = New(DefaultParams(), 1)
	assert.NoError(t, err, "a cap of one item")
	_, err = New(DefaultParams(), 0)
	assert.ErrorContains(t, err, "item cap must be ≥ 1")
}

func BenchmarkWalk180(b *testing.B) {
	g, _, pos, heading := straightRoad(b)
	w := mustWalker(b, DefaultParams(), gameCap)
	w.Walk(g, pos, heading) // grow the graph: steady state from here
	b.ReportAllocs()
	for b.Loop() {
		if n := len(w.Walk(g, pos, heading)); n != 180 {
			b.Fatalf("%d items", n)
		}
	}
}
