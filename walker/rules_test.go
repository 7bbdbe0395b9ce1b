package walker

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// These tests pin the walk's rules to exact costs. They use dyadic weights
// (step 1, forward 1, backward 2, sideways ×1.5) so every cost is exact in
// float32 and a rule that is off by one step or one factor shows.

// dyadicCap is a cap these walks never reach: the cost limit ends them.
const dyadicCap = 10000

func dyadic(viewCost float64) Params {
	return Params{StepLength: 1, ForwardWeight: 1, BackwardWeight: 2, SideWeight: 1.5, NearbyRadius: 0, ViewCost: viewCost}
}

func costs(items []Item) map[int64]float32 {
	m := make(map[int64]float32, len(items))
	for _, it := range items {
		m[it.Key] = it.Cost
	}
	return m
}

// grownGraph loads a few rings of junctions around the origin.
func grownGraph(t *testing.T) *roadgraph.Graph {
	g := roadgraph.New(world.New(testSeed))
	j := g.JunctionNear(world.Vec2{})
	require.NotNil(t, j)
	g.EnsureJunctionArms(j)
	for range 3 {
		for _, j := range append([]*roadgraph.Junction(nil), g.Junctions()...) {
			g.EnsureJunctionArms(j)
		}
	}
	return g
}

func longEdge(t *testing.T, g *roadgraph.Graph, minSegs int) *roadgraph.Edge {
	for _, e := range g.Edges() {
		if e.Segments() > minSegs {
			return e
		}
	}
	require.FailNow(t, "no edge longer than", "%d segments", minSegs)
	return nil
}

func TestKindString(t *testing.T) {
	assert.Equal(t, "segment", Segment.String())
	assert.Equal(t, "junction", Junction.String())
}

// On an open road every segment ahead costs one forward step more than the
// one before, every segment behind one backward step more, and the view
// cost is inclusive. A zero heading means "towards B".
func TestOpenRoadCostsAreExact(t *testing.T) {
	g := grownGraph(t)
	e := longEdge(t, g, 40)
	mid := e.Segments() / 2
	pos := e.Nodes[mid].Lerp(e.Nodes[mid+1], 0.5)
	tan := e.Tangent(mid)
	w := mustWalker(t, dyadic(10), dyadicCap)

	expect := func(dir int) map[int64]float32 {
		m := map[int64]float32{e.Key(mid): 0}
		for k := 1; k <= 10; k++ {
			m[e.Key(mid+dir*k)] = float32(k)
		}
		for k := 1; k <= 5; k++ {
			m[e.Key(mid-dir*k)] = float32(2 * k)
		}
		return m
	}
	assert.Equal(t, expect(1), costs(w.Walk(g, pos, tan)), "heading towards B")
	assert.Equal(t, expect(-1), costs(w.Walk(g, pos, tan.Scale(-1))), "heading towards A")
	assert.Equal(t, expect(1), costs(w.Walk(g, pos, world.Vec2{})), "no heading: towards B")
}

// approach is arriving at junction j along edge e.
type approach struct {
	e   *roadgraph.Edge
	atB bool // j is e.B
	j   *roadgraph.Junction
}

// carSeg is e's segment next to j, and the heading that drives into j.
func (a approach) carSeg() (int, world.Vec2) {
	if a.atB {
		s := a.e.Segments() - 1
		return s, a.e.Tangent(s)
	}
	return 0, a.e.Tangent(0).Scale(-1)
}

// armSeg is the k-th segment of arm away from j.
func armSeg(arm *roadgraph.Edge, j *roadgraph.Junction, k int) int {
	if arm.A == j {
		return k
	}
	return arm.Segments() - 1 - k
}

// straightArm is the arm within 45° of the arrival direction that best
// continues it, or nil; computed from the nodes, independently of the
// walker's helpers.
func (a approach) straightArm() *roadgraph.Edge {
	n := a.e.Nodes
	var in world.Vec2
	if a.atB {
		in = n[len(n)-1].Sub(n[len(n)-2]).Norm()
	} else {
		in = n[0].Sub(n[1]).Norm()
	}
	var best *roadgraph.Edge
	bestDot := math.Sqrt2 / 2
	for _, arm := range a.j.Arms {
		if arm == a.e {
			continue
		}
		m := arm.Nodes
		out := m[1].Sub(m[0]).Norm()
		if arm.B == a.j {
			out = m[len(m)-2].Sub(m[len(m)-1]).Norm()
		}
		if d := in.Dot(out); d > bestDot {
			best, bestDot = arm, d
		}
	}
	return best
}

func approaches(g *roadgraph.Graph) []approach {
	var out []approach
	for _, e := range g.Edges() {
		if e.Segments() < 12 {
			continue
		}
		for _, atB := range []bool{false, true} {
			j := e.JunctionAt(atB)
			if !j.Expanded || len(j.Arms) < 3 {
				continue
			}
			short := false
			for _, arm := range j.Arms {
				short = short || arm.Segments() < 12
			}
			if !short {
				out = append(out, approach{e, atB, j})
			}
		}
	}
	return out
}

// checkArms asserts the first segments of every arm of a.j beyond the
// arrival edge: each costs jc + (k+1)·w, w the walker's weight on the
// straight arm and the weight × side weight on the others, and nothing
// beyond the view cost is walked.
func checkArms(t *testing.T, a approach, items []Item, jc, weight float32, p Params) {
	t.Helper()
	c := costs(items)
	got, ok := c[roadgraph.JunctionKey(a.j.ID)]
	require.True(t, ok, "junction %d walked", a.j.ID)
	require.Equal(t, jc, got, "junction cost")
	straight := a.straightArm()
	for _, arm := range a.j.Arms {
		if arm == a.e {
			continue
		}
		w := weight * float32(p.SideWeight)
		if arm == straight {
			w = weight
		}
		for k := 0; k < 10; k++ {
			want := jc + float32(k+1)*w
			cost, walked := c[arm.Key(armSeg(arm, a.j, k))]
			if float64(want) > p.ViewCost {
				assert.False(t, walked, "arm %d seg %d beyond the view cost", arm.ID, k)
				continue
			}
			if assert.True(t, walked, "arm %d (straight %v) seg %d walked", arm.ID, arm == straight, k) {
				assert.Equal(t, want, cost, "arm %d (straight %v) seg %d", arm.ID, arm == straight, k)
			}
		}
	}
}

// Driving into a junction: the arm that continues straight keeps the
// walker's weight, the others cost the side weight more per step.
func TestJunctionStraightArmKeepsWeight(t *testing.T) {
	g := grownGraph(t)
	var a *approach
	for _, c := range approaches(g) {
		if c.straightArm() != nil {
			a = &c
			break
		}
	}
	require.NotNil(t, a, "a junction with a straight continuation")
	seg, heading := a.carSeg()
	pos := a.e.Nodes[seg].Lerp(a.e.Nodes[seg+1], 0.5)
	p := dyadic(1 + 1.5*4)
	checkArms(t, *a, mustWalker(t, p, dyadicCap).Walk(g, pos, heading), 1, 1, p)
}

// Side weights compound: the backward walker (weight 2) turning sideways
// walks at 2 × 1.5 = 3 per step, not at a fixed 1.5.
func TestSideWeightCompounds(t *testing.T) {
	g := grownGraph(t)
	var a *approach
	for _, c := range approaches(g) {
		if c.straightArm() != nil {
			a = &c
			break
		}
	}
	require.NotNil(t, a)
	seg, heading := a.carSeg()
	pos := a.e.Nodes[seg].Lerp(a.e.Nodes[seg+1], 0.5)
	p := dyadic(2 + 3*3)
	// Heading away from the junction: it is behind the car.
	checkArms(t, *a, mustWalker(t, p, dyadicCap).Walk(g, pos, heading.Scale(-1)), 2, 2, p)
}

// Arriving where no arm continues within 45° (a T from its stem, a corner),
// every arm is sideways.
func TestNoStraightArmAllSideways(t *testing.T) {
	g := grownGraph(t)
	var a *approach
	for _, c := range approaches(g) {
		// Arms[1] is not the arrival edge, so a walker that defaulted to
		// an arm index would show.
		if c.straightArm() == nil && c.j.Arms[1] != c.e {
			a = &c
			break
		}
	}
	require.NotNil(t, a, "a junction without a straight continuation")
	seg, heading := a.carSeg()
	pos := a.e.Nodes[seg].Lerp(a.e.Nodes[seg+1], 0.5)
	p := dyadic(1 + 1.5*4)
	checkArms(t, *a, mustWalker(t, p, dyadicCap).Walk(g, pos, heading), 1, 1, p)
}

// Roads within the nearby radius get walkers of their own, starting at
// their nearest point at distance × side weight, going both ways. With road
// travel made expensive, the graph route to them is never cheaper.
func TestNearbyRoadsGetTheirOwnWalkers(t *testing.T) {
	g := grownGraph(t)
	p := DefaultParams()
	var car *roadgraph.Edge
	var pos world.Vec2
	for _, e := range g.Edges() {
		mid := e.Segments() / 2
		pos = e.Nodes[mid].Lerp(e.Nodes[mid+1], 0.5)
		if e.Segments() > 20 && len(g.RoadsWithin(pos, p.NearbyRadius, nil)) >= 3 {
			car = e
			break
		}
	}
	require.NotNil(t, car, "a street with other roads near its middle")
	heading := car.Tangent(car.Segments() / 2)
	p.ForwardWeight, p.BackwardWeight = 10, 10
	const noCap = 100000
	w := mustWalker(t, p, noCap)
	w.Walk(g, pos, heading) // grow the graph around the car
	hits := g.RoadsWithin(pos, p.NearbyRadius, nil)
	items := costs(w.Walk(g, pos, heading))

	p.NearbyRadius = 0
	without := costs(mustWalker(t, p, noCap).Walk(g, pos, heading))

	others := 0
	for _, h := range hits {
		if h.Edge == car {
			continue
		}
		others++
		want := float32(h.Dist * p.SideWeight)
		c, ok := items[h.Edge.Key(h.Seg)]
		require.True(t, ok, "nearest segment of edge %d (%.0f m away) walked", h.Edge.ID, h.Dist)
		assert.InDelta(t, want, c, 1e-3, "edge %d nearest segment", h.Edge.ID)
		if h.Seg > 0 {
			c, ok := items[h.Edge.Key(h.Seg-1)]
			require.True(t, ok)
			assert.InDelta(t, want, c, 1e-3, "edge %d: the segment before the nearest one starts the backward walker", h.Edge.ID)
		}
		if h.Seg+1 < h.Edge.Segments() {
			c, ok := items[h.Edge.Key(h.Seg+1)]
			require.True(t, ok)
			assert.InDelta(t, want+float32(world.SegmentLength*p.SideWeight), c, 1e-3, "edge %d: one side step further", h.Edge.ID)
		}
		wc, walked := without[h.Edge.Key(h.Seg)]
		assert.True(t, !walked || wc > want+1, "without nearby walkers edge %d is reached only later", h.Edge.ID)
	}
	require.Positive(t, others, "other roads near the car")
}

// A car far from every loaded road (a start, a teleport) makes the walk load
// the roads around it first; a car on a loaded road does not.
func TestWalkLoadsAroundAnOffRoadCar(t *testing.T) {
	p := dyadic(1)

	far := roadgraph.New(world.New(testSeed))
	guess := world.Vec2{X: 2000, Z: -1500}
	far.EnsureAround(guess)
	there, ok := far.Nearest(guess)
	require.True(t, ok)

	g := roadgraph.New(world.New(testSeed))
	j := g.JunctionNear(world.Vec2{})
	g.EnsureJunctionArms(j)
	items := mustWalker(t, p, 1).Walk(g, there.Point, world.Vec2{})
	require.Len(t, items, 1)
	assert.Equal(t, there.Edge.ID, items[0].Edge, "the walk starts on the road under the car")

	g = roadgraph.New(world.New(testSeed))
	j = g.JunctionNear(world.Vec2{})
	g.EnsureJunctionArms(j)
	edges := len(g.Edges())
	e := j.Arms[0]
	pos := e.Nodes[1].Lerp(e.Nodes[2], 0.5)
	items = mustWalker(t, p, 1).Walk(g, pos, world.Vec2{})
	require.Len(t, items, 1)
	assert.Equal(t, e.Key(1), items[0].Key)
	assert.Equal(t, edges, len(g.Edges()), "on a loaded road nothing more is loaded")
}

// Walking off the end of an edge reaches its junction only after its last
// segment: segment 0 (and the last one) are items like any other.
func TestEndSegmentsThenTheJunction(t *testing.T) {
	g := grownGraph(t)
	e := longEdge(t, g, 40)
	w := mustWalker(t, dyadic(5), dyadicCap)
	pos := e.Nodes[1].Lerp(e.Nodes[2], 0.5)
	want := map[int64]float32{e.Key(1): 0, e.Key(0): 2, roadgraph.JunctionKey(e.A.ID): 4}
	for k := 1; k <= 5; k++ {
		want[e.Key(1+k)] = float32(k)
	}
	assert.Equal(t, want, costs(w.Walk(g, pos, e.Tangent(1))), "near A, heading to B")
	last := e.Segments() - 1
	pos = e.Nodes[last-1].Lerp(e.Nodes[last], 0.5)
	want = map[int64]float32{e.Key(last - 1): 0, e.Key(last): 2, roadgraph.JunctionKey(e.B.ID): 4}
	for k := 1; k <= 5; k++ {
		want[e.Key(last-1-k)] = float32(k)
	}
	assert.Equal(t, want, costs(w.Walk(g, pos, e.Tangent(last-1).Scale(-1))), "near B, heading to A")
}
