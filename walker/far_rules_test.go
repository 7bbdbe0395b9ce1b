package walker

import (
	"container/heap"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// The far walk's rules, each pinned by a test that fails when the rule is
// broken (see docs/testing.md, issue 13).

// oracleState and oracleHeap are a plain container/heap Dijkstra queue.
type oracleState struct {
	cell world.Cell
	cost float64
}

type oracleHeap []oracleState

func (h oracleHeap) Len() int           { return len(h) }
func (h oracleHeap) Less(i, j int) bool { return h[i].cost < h[j].cost }
func (h oracleHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *oracleHeap) Push(x any)        { *h = append(*h, x.(oracleState)) }
func (h *oracleHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

// farOracle is the far walk's cost model written out independently:
// Dijkstra over the lattice junctions, seeded with every junction of the
// 5×5 cells around the car at its straight-line distance, each step
// costing its road metres (roadCurve × the chord) times the weight of its
// direction: forward within 60° of the heading, backward within 60° of
// its reverse, side otherwise. It returns, for every edge the walk must
// emit, its cost: that of the cheaper of its two ends.
func farOracle(w world.World, p FarParams, car, heading world.Vec2) map[uint64]float64 {
	h := world.Vec2{Z: 1}
	if heading.Len() > 0 {
		h = heading.Scale(1 / heading.Len())
	}
	weight := func(d world.Vec2) float64 {
		if d.Len() == 0 {
			return p.ForwardWeight
		}
		ang := math.Acos(math.Max(-1, math.Min(1, d.Dot(h)/d.Len())))
		switch {
		case ang < math.Pi/3:
			return p.ForwardWeight
		case ang > 2*math.Pi/3:
			return p.BackwardWeight
		}
		return p.SideWeight
	}
	dist := map[world.Cell]float64{}
	q := &oracleHeap{}
	c0 := world.CellAt(car.X, car.Z)
	for i := c0.I - 2; i <= c0.I+2; i++ {
		for j := c0.J - 2; j <= c0.J+2; j++ {
			c := world.Cell{I: i, J: j}
			if pos, ok := w.Junction(c); ok {
				heap.Push(q, oracleState{c, pos.Sub(car).Len() * weight(pos.Sub(car))})
			}
		}
	}
	settled := map[world.Cell]float64{}
	for q.Len() > 0 {
		s := heap.Pop(q).(oracleState)
		if s.cost > p.Cost {
			break
		}
		if _, done := settled[s.cell]; done {
			continue
		}
		settled[s.cell] = s.cost
		pa, _ := w.Junction(s.cell)
		for _, e := range w.Arms(s.cell, nil) {
			other := e.A
			if other == s.cell {
				other = e.B
			}
			pb, _ := w.Junction(other)
			c := s.cost + roadCurve*pb.Sub(pa).Len()*weight(pb.Sub(pa))
			if d, ok := dist[other]; !ok || c < d {
				dist[other] = c
				heap.Push(q, oracleState{other, c})
			}
		}
	}
	edges := map[uint64]float64{}
	for c, cost := range settled {
		for _, e := range w.Arms(c, nil) {
			if old, ok := edges[e.ID]; !ok || cost < old {
				edges[e.ID] = cost
			}
		}
	}
	return edges
}

// farNoCap is a cap these walks never reach: the cost limit ends them.
const farNoCap = 1 << 14

// Every far item costs the cheapest way there, and the walk emits exactly
// the edges within the cost limit: the weights by direction, the seeds,
// the road lengths and the shortest-path relaxation all show in the costs.
func TestFarWalkCostsAreShortestPaths(t *testing.T) {
	skewed := FarParams{ForwardWeight: 1, BackwardWeight: 3, SideWeight: 1.7, Cost: 1500}
	wide := DefaultFarParams()
	for _, tc := range []struct {
		name    string
		seed    uint64
		p       FarParams
		offset  world.Vec2 // car from the start junction
		heading world.Vec2
	}{
		{"default +X", 412, wide, world.Vec2{X: 40, Z: 10}, world.Vec2{X: 1}},
		{"default diagonal", 7, wide, world.Vec2{X: -60, Z: 35}, world.Vec2{X: 3, Z: -4}},
		{"skewed -Z", 412, skewed, world.Vec2{X: 70, Z: -20}, world.Vec2{Z: -1}},
		{"skewed diagonal", 7, skewed, world.Vec2{X: 15, Z: 80}, world.Vec2{X: -2, Z: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := world.New(tc.seed)
			car := farStart(t, w).Add(tc.offset)
			fw, err := NewFar(w, tc.p, farNoCap)
			require.NoError(t, err)
			items := fw.Walk(car, tc.heading)
			want := farOracle(w, tc.p, car, tc.heading)
			t.Logf("%d far items", len(items))
			require.Len(t, items, len(want), "exactly the edges within the cost limit")
			for _, it := range items {
				c, ok := want[it.Edge]
				require.True(t, ok, "edge %d is past the cost limit", it.Edge)
				require.InDelta(t, c, float64(it.Cost), 1e-3*math.Max(1, c), "edge %d", it.Edge)
			}
		})
	}
}

// Scaling every weight and the cost limit by the same factor keeps the
// walk and scales its costs: costs are metres times weight, seeds and
// road steps alike.
func TestFarCostsScaleWithTheWeights(t *testing.T) {
	w := world.New(412)
	car := farStart(t, w).Add(world.Vec2{X: 30, Z: -45})
	heading := world.Vec2{X: 1, Z: 1}
	p := FarParams{ForwardWeight: 1, BackwardWeight: 2.5, SideWeight: 1.5, Cost: 1200}
	fw, err := NewFar(w, p, farNoCap)
	require.NoError(t, err)
	base := append([]Item(nil), fw.Walk(car, heading)...)
	require.NotEmpty(t, base)

	const k = 2 // a power of two: the scaled costs are exact
	p.ForwardWeight *= k
	p.BackwardWeight *= k
	p.SideWeight *= k
	p.Cost *= k
	scaled, err := NewFar(w, p, farNoCap)
	require.NoError(t, err)
	got := scaled.Walk(car, heading)
	require.Len(t, got, len(base))
	for i := range base {
		assert.Equal(t, base[i].Key, got[i].Key)
		assert.Equal(t, k*base[i].Cost, got[i].Cost, "item %d", i)
	}
}

// Reach is the furthest edge midpoint ahead of, behind and beside the car,
// measured along the heading, whatever its length; no heading means +Z.
func TestFarReachIsTheFurthestMidpoints(t *testing.T) {
	w := world.New(7)
	car := farStart(t, w).Add(world.Vec2{X: 20, Z: 55})
	fw, err := NewFar(w, DefaultFarParams(), gameFarCap)
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		heading world.Vec2
		unit    world.Vec2
	}{
		{"diagonal", world.Vec2{X: 0.6, Z: -0.8}, world.Vec2{X: 0.6, Z: -0.8}},
		{"long heading", world.Vec2{X: -35, Z: 84}, world.Vec2{X: -5.0 / 13, Z: 12.0 / 13}},
		{"short heading", world.Vec2{X: 0.01}, world.Vec2{X: 1}},
		{"no heading", world.Vec2{}, world.Vec2{Z: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := fw.Walk(car, tc.heading)
			require.NotEmpty(t, items)
			var want FarReach
			for _, it := range items {
				e, ok := w.Edge(it.Edge)
				require.True(t, ok)
				pa, _ := w.Junction(e.A)
				pb, _ := w.Junction(e.B)
				d := pa.Lerp(pb, 0.5).Sub(car)
				along := d.Dot(tc.unit)
				// Pythagoras, not the walker's cross product.
				across := math.Sqrt(math.Max(0, d.Dot(d)-along*along))
				want.Ahead = math.Max(want.Ahead, along)
				want.Behind = math.Max(want.Behind, -along)
				want.Side = math.Max(want.Side, across)
			}
			got := fw.Reach()
			assert.InDelta(t, want.Ahead, got.Ahead, 1e-6)
			assert.InDelta(t, want.Behind, got.Behind, 1e-6)
			assert.InDelta(t, want.Side, got.Side, 1e-6)
			// The same walk as along the unit heading.
			again := append([]Item(nil), items...)
			other, err := NewFar(w, DefaultFarParams(), gameFarCap)
			require.NoError(t, err)
			assert.Equal(t, again, other.Walk(car, tc.unit))
			assert.Equal(t, got, other.Reach())
		})
	}
	// The weights show in the reach: the default backward weight (2.6)
	// keeps the walk much closer behind than ahead.
	fw.Walk(car, world.Vec2{X: 1})
	r := fw.Reach()
	assert.Less(t, r.Behind, 0.6*r.Ahead, "reach %+v", r)
}

// The cost limit is inclusive: a limit of exactly the distance to the
// nearest junction (unit weights) yields that junction's roads and no
// other; a hair less yields nothing.
func TestFarCostLimitIsInclusive(t *testing.T) {
	w := world.New(412)
	car := farStart(t, w).Add(world.Vec2{X: 17, Z: -9})
	c0 := world.CellAt(car.X, car.Z)
	nearest, nd := world.Cell{}, math.Inf(1)
	for i := c0.I - 2; i <= c0.I+2; i++ {
		for j := c0.J - 2; j <= c0.J+2; j++ {
			if pos, ok := w.Junction(world.Cell{I: i, J: j}); ok && pos.Sub(car).Len() < nd {
				nearest, nd = world.Cell{I: i, J: j}, pos.Sub(car).Len()
			}
		}
	}
	require.False(t, math.IsInf(nd, 1))
	p := FarParams{ForwardWeight: 1, BackwardWeight: 1, SideWeight: 1, Cost: nd}
	fw, err := NewFar(w, p, 100)
	require.NoError(t, err)
	var want []int64
	for _, e := range w.Arms(nearest, nil) {
		want = append(want, int64(e.ID))
	}
	var got []int64
	for _, it := range fw.Walk(car, world.Vec2{X: 1}) {
		got = append(got, it.Key)
		assert.Equal(t, float32(nd), it.Cost)
	}
	assert.ElementsMatch(t, want, got)

	p.Cost = math.Nextafter(nd, 0)
	fw, err = NewFar(w, p, 100)
	require.NoError(t, err)
	assert.Empty(t, fw.Walk(car, world.Vec2{X: 1}))
}

func TestFarParamsValidateTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*FarParams)
		cap  int
		bad  string // in the error; "" for valid
	}{
		{"defaults", func(*FarParams) {}, gameFarCap, ""},
		{"one item", func(*FarParams) {}, 1, ""},
		{"tiny weights", func(p *FarParams) { p.SideWeight, p.Cost = 1e-9, 1e-9 }, gameFarCap, ""},
		{"no items", func(*FarParams) {}, 0, "far item cap"},
		{"negative items", func(*FarParams) {}, -3, "far item cap"},
		{"zero forward", func(p *FarParams) { p.ForwardWeight = 0 }, gameFarCap, "forward weight"},
		{"negative backward", func(p *FarParams) { p.BackwardWeight = -1 }, gameFarCap, "backward weight"},
		{"NaN side", func(p *FarParams) { p.SideWeight = math.NaN() }, gameFarCap, "side weight"},
		{"infinite cost", func(p *FarParams) { p.Cost = math.Inf(1) }, gameFarCap, "far cost"},
		{"negative infinite cost", func(p *FarParams) { p.Cost = math.Inf(-1) }, gameFarCap, "far cost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultFarParams()
			tc.edit(&p)
			fw, err := NewFar(world.New(412), p, tc.cap)
			if tc.bad != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.bad)
				assert.Nil(t, fw)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, p, fw.Params())
		})
	}
	// A cap of one is honoured: the single cheapest item.
	w := world.New(412)
	fw, err := NewFar(w, DefaultFarParams(), 1)
	require.NoError(t, err)
	car := farStart(t, w)
	one := append([]Item(nil), fw.Walk(car, world.Vec2{X: 1})...)
	require.Len(t, one, 1)
	all, err := NewFar(w, DefaultFarParams(), gameFarCap)
	require.NoError(t, err)
	assert.Equal(t, all.Walk(car, world.Vec2{X: 1})[0], one[0])
}
