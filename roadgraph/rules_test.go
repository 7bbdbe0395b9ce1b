package roadgraph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

func TestItemKeys(t *testing.T) {
	assert.Equal(t, int64(5*world.MaxSegments+3), SegmentKey(5, 3), "edgeID*128+segment")
	assert.Equal(t, int64(7*world.MaxSegments), (&Edge{ID: 7}).Key(0))
	assert.Equal(t, int64(-9), JunctionKey(9), "junction keys are negative")
}

func TestLeftOfTravel(t *testing.T) {
	// Driving east (+X), left is north (-Z); driving south (+Z), left is east.
	assert.Equal(t, world.Vec2{X: 0, Z: -1}, Left(world.Vec2{X: 1}))
	assert.Equal(t, world.Vec2{X: 1, Z: 0}, Left(world.Vec2{Z: 1}))
}

// The signature is a counter that only grows: a mirror (and Edge.Born)
// compares against values it saw, so a step back could repeat one.
func TestSignatureOnlyGrows(t *testing.T) {
	g := New(world.New(testSeed))
	last := g.Signature()
	step := func(what string) {
		t.Helper()
		assert.Greater(t, g.Signature(), last, what)
		last = g.Signature()
	}
	j := g.JunctionNear(world.Vec2{})
	step("a junction loaded")
	g.EnsureJunctionArms(j)
	step("arms loaded")
	for _, e := range j.Arms {
		assert.Greater(t, e.Born, uint64(0))
		assert.LessOrEqual(t, e.Born, g.Signature())
	}
	g.JunctionNear(world.Vec2{X: 2000, Z: 2000})
	step("a far junction loaded")
	g.EvictFar(world.Vec2{X: 2000, Z: 2000}, 100)
	step("edges evicted")
}

// A fresh graph holds its working set: growing allocates nothing.
func TestGrowthAllocatesNothing(t *testing.T) {
	g := New(world.New(testSeed))
	calls := 0
	allocs := testing.AllocsPerRun(1, func() {
		calls++
		if calls == 1 {
			return // AllocsPerRun's warm-up call
		}
		j := g.JunctionNear(world.Vec2{})
		g.EnsureJunctionArms(j)
		for _, e := range j.Arms {
			g.EnsureJunctionArms(e.A)
			g.EnsureJunctionArms(e.B)
		}
	})
	require.Greater(t, len(g.Edges()), 8)
	assert.Zero(t, allocs)
}

// refFlags is the side-flag rule by brute force over every loaded edge:
// node i of f hides its left (right) side when a node of another road lies
// within half a segment plus that road's half-width along f, and across f
// beyond the two kerbs' overlap but inside f's kerb + lot band + that road's
// half-width.
func refFlags(g *Graph, f *Edge) []SideFlags {
	out := make([]SideFlags, len(f.Nodes))
	for _, o := range g.Edges() {
		// Skip only roads whose boxes are 100 m apart: well beyond any band.
		gapX := math.Max(o.Min.X-f.Max.X, f.Min.X-o.Max.X)
		gapZ := math.Max(o.Min.Z-f.Max.Z, f.Min.Z-o.Max.Z)
		if o == f || gapX > 100 || gapZ > 100 {
			continue
		}
		inner := f.HalfWidth - o.HalfWidth
		outer := f.HalfWidth + LotDepth + o.HalfWidth
		reachAlong := world.SegmentLength/2 + o.HalfWidth
		for i, p := range f.Nodes {
			a, b := max(0, i-1), min(len(f.Nodes)-1, i+1)
			tan := f.Nodes[b].Sub(f.Nodes[a]).Norm()
			left := world.Vec2{X: tan.Z, Z: -tan.X}
			for _, q := range o.Nodes {
				d := q.Sub(p)
				if math.Abs(d.Dot(tan)) > reachAlong {
					continue
				}
				across := d.Dot(left)
				if across > inner && across < outer {
					out[i] |= HideLeft
				} else if -across > inner && -across < outer {
					out[i] |= HideRight
				}
			}
		}
	}
	return out
}

func requireFlagsMatchBruteForce(t *testing.T, g *Graph) int {
	t.Helper()
	hidden := 0
	for _, e := range g.Edges() {
		want := refFlags(g, e)
		require.Equal(t, want, e.Flags, "flags of edge %d", e.ID)
		for _, f := range want {
			if f != 0 {
				hidden++
			}
		}
	}
	return hidden
}

// Side flags, maintained incrementally as edges arrive and leave, equal a
// from-scratch computation over the loaded set.
func TestSideFlagsMatchBruteForce(t *testing.T) {
	g := New(world.New(testSeed))
	grow(t, g, world.Vec2{}, 120, rand.New(rand.NewPCG(21, 22)), 0)
	assert.Positive(t, requireFlagsMatchBruteForce(t, g), "some sides hidden")
	// Evict part of it: neighbours of the evicted edges are recomputed.
	require.Positive(t, g.EvictFar(g.Junctions()[0].Pos, 400))
	assert.Positive(t, requireFlagsMatchBruteForce(t, g))
	grow(t, g, world.Vec2{X: 200, Z: 200}, 80, rand.New(rand.NewPCG(23, 24)), 17)
	assert.Positive(t, requireFlagsMatchBruteForce(t, g))
}

// applyEdge applies to a fresh mirror one change set: junctions 1 and 2
// and an edge between them with the given node count (and flags, if any).
func applyEdge(t *testing.T, nodes int, flags []byte) error {
	m := NewMirror(world.New(testSeed))
	ns := make([]world.Vec2, nodes)
	for i := range ns {
		ns[i] = world.Vec2{X: float64(i) * 4}
	}
	cs := &ChangeSet{
		Signature: 3,
		Junctions: []JunctionRecord{{ID: 1}, {ID: 2}},
		NewEdges:  []EdgeRecord{{ID: 5, A: 1, B: 2, HalfWidth: 6, Nodes: ns}},
	}
	if flags != nil {
		cs.FlagEdges, cs.Flags = []uint64{5}, flags
	}
	err := m.Apply(cs)
	if err == nil {
		require.NotNil(t, m.Edge(5))
		assert.Len(t, m.Edge(5).Nodes, nodes)
		assert.Equal(t, uint64(3), m.Signature())
	}
	return err
}

func TestApplyEdgeNodeLimits(t *testing.T) {
	assert.NoError(t, applyEdge(t, 2, nil), "one segment")
	assert.NoError(t, applyEdge(t, world.MaxSegments, nil), "127 segments")
	assert.ErrorContains(t, applyEdge(t, 1, nil), "nodes")
	assert.ErrorContains(t, applyEdge(t, world.MaxSegments+1, nil), "nodes")
}

func TestApplyRejectsTruncatedFlags(t *testing.T) {
	// Five nodes need ten bits: two bytes.
	assert.NoError(t, applyEdge(t, 5, []byte{0, 0}))
	assert.ErrorContains(t, applyEdge(t, 5, []byte{0}), "truncated")
	assert.ErrorContains(t, applyEdge(t, 5, []byte{}), "truncated")
	assert.NoError(t, applyEdge(t, 4, []byte{0xff}), "four nodes fit one byte")
}

// JunctionNear returns, of the junctions (with at least one arm) in the
// nearest ring of lattice cells around p that holds any, the one nearest
// to p: checked by brute force over random points, some on the lake where
// rings are empty.
func TestJunctionNearMatchesBruteForce(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	rng := rand.New(rand.NewPCG(31, 32))
	rings := map[int32]int{}
	for range 400 {
		p := world.Vec2{X: rng.Float64()*6000 - 3000, Z: rng.Float64()*6000 - 3000}
		c := world.CellAt(p.X, p.Z)
		// on land, nearest ring first; else the nearest on a causeway
		var want, causeway uint64
		wantD, causewayD := math.Inf(1), math.Inf(1)
		ring := int32(-1)
		for r := int32(0); r <= world.TrunkEvery/2 && want == 0; r++ {
			for di := -r; di <= r; di++ {
				for dj := -r; dj <= r; dj++ {
					cc := world.Cell{I: c.I + di, J: c.J + dj}
					pos, ok := w.Junction(cc)
					if !ok || len(w.Arms(cc, nil)) == 0 || max(di, -di, dj, -dj) != r {
						continue
					}
					d := pos.Dist2(p)
					if w.OnCauseway(pos) {
						if d < causewayD {
							causeway, causewayD = world.JunctionID(cc), d
						}
					} else if d < wantD {
						want, wantD, ring = world.JunctionID(cc), d, r
					}
				}
			}
		}
		if want == 0 {
			want = causeway
		}
		rings[ring]++
		j := g.JunctionNear(p)
		require.NotZero(t, want, "a trunk passes within %d rings of %v", world.TrunkEvery/2, p)
		require.NotNil(t, j, "junction near %v", p)
		assert.Equal(t, want, j.ID, "junction near %v (ring %d)", p, ring)
		assert.Same(t, j, g.Junction(want), "loaded")
	}
	t.Logf("rings: %v", rings)
	assert.Positive(t, rings[1], "some points need the first ring")
}

// EnsureAround loads edges reaching p from junctions up to three cells
// away: the far end of every long bridge.
func TestEnsureAroundReachesTheFarEndOfLongBridges(t *testing.T) {
	w := world.New(testSeed)
	full := New(w)
	expandAround(t, full, world.Vec2{}, world.Vec2{}, 2500)
	spans := map[int32]int{}
	for _, e := range full.Edges() {
		a, d := world.EdgeOrigin(e.ID)
		if d != world.DirX {
			continue
		}
		b := world.JunctionCell(e.B.ID)
		span := b.I - a.I
		if span < 3 { // shorter edges start at most two cells back
			continue
		}
		spans[span]++
		// Just before B, in B's cell or next to it: A is span cells back.
		p := e.Nodes[len(e.Nodes)-2]
		g := New(w)
		g.EnsureAround(p)
		require.NotNil(t, g.Edge(e.ID), "bridge %d (%d cells) under %v", e.ID, span, p)
	}
	assert.Positive(t, spans[3], "three-cell bridges")
}

// An edge's bounding box is exactly the box of its nodes.
func TestEdgeBoundsAreTheBoxOfItsNodes(t *testing.T) {
	g := New(world.New(testSeed))
	grow(t, g, world.Vec2{}, 60, rand.New(rand.NewPCG(41, 42)), 0)
	for _, e := range g.Edges() {
		lo := world.Vec2{X: math.Inf(1), Z: math.Inf(1)}
		hi := world.Vec2{X: math.Inf(-1), Z: math.Inf(-1)}
		for _, n := range e.Nodes {
			lo = world.Vec2{X: math.Min(lo.X, n.X), Z: math.Min(lo.Z, n.Z)}
			hi = world.Vec2{X: math.Max(hi.X, n.X), Z: math.Max(hi.Z, n.Z)}
		}
		require.Equal(t, lo, e.Min, "edge %d", e.ID)
		require.Equal(t, hi, e.Max, "edge %d", e.ID)
	}
}

// EvictFar drops exactly the edges whose box lies farther than keep from
// p, from any side, and the junctions left without arms; evicting nothing
// leaves the signature alone.
func TestEvictFarKeepsExactlyTheNearEdges(t *testing.T) {
	for _, p := range []world.Vec2{{X: 400, Z: 300}, {X: -500, Z: -450}, {X: 300, Z: -600}} {
		g := New(world.New(testSeed))
		expandAround(t, g, world.Vec2{}, world.Vec2{}, 1200)
		const keep = 500.0
		var kept, dropped []uint64
		for _, e := range g.Edges() {
			// The box of the nodes (TestEdgeBoundsAreTheBoxOfItsNodes).
			dx := math.Max(0, math.Max(e.Min.X-p.X, p.X-e.Max.X))
			dz := math.Max(0, math.Max(e.Min.Z-p.Z, p.Z-e.Max.Z))
			if math.Hypot(dx, dz) <= keep {
				kept = append(kept, e.ID)
			} else {
				dropped = append(dropped, e.ID)
			}
		}
		require.NotEmpty(t, kept)
		require.NotEmpty(t, dropped)
		sig := g.Signature()
		assert.Equal(t, len(dropped), g.EvictFar(p, keep))
		assert.Greater(t, g.Signature(), sig)
		for _, id := range kept {
			assert.NotNil(t, g.Edge(id), "edge %d within %g m of %v kept", id, keep, p)
		}
		for _, id := range dropped {
			assert.Nil(t, g.Edge(id), "edge %d dropped", id)
		}
		for _, j := range g.Junctions() {
			assert.NotEmpty(t, j.Arms, "junction %d without arms evicted", j.ID)
		}
		sig = g.Signature()
		assert.Zero(t, g.EvictFar(p, keep))
		assert.Equal(t, sig, g.Signature(), "nothing evicted, nothing changed")
	}
}

// Edges loaded by a call are born after the signature before it, and a
// junction whose arms were all loaded by its neighbours still moves the
// signature when it is marked expanded.
func TestBornAndExpansionMoveTheSignature(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	j := g.JunctionNear(world.Vec2{})
	before := g.Signature()
	g.EnsureJunctionArms(j)
	require.NotEmpty(t, j.Arms)
	for _, e := range j.Arms {
		assert.Greater(t, e.Born, before, "edge %d born after", e.ID)
		assert.LessOrEqual(t, e.Born, g.Signature())
	}
	// Expand every neighbour of k but not k: its arms are all loaded.
	k := g.JunctionNear(world.Vec2{X: 1000, Z: 1000})
	require.NotNil(t, k)
	specs := w.Arms(world.JunctionCell(k.ID), nil)
	require.NotEmpty(t, specs)
	for _, s := range specs {
		other := s.B
		if world.JunctionID(other) == k.ID {
			other = s.A
		}
		g.EnsureJunctionArms(g.ensureJunction(other))
	}
	require.False(t, k.Expanded)
	require.Len(t, k.Arms, len(specs), "every arm loaded by a neighbour")
	sig := g.Signature()
	g.EnsureJunctionArms(k)
	assert.True(t, k.Expanded)
	assert.Greater(t, g.Signature(), sig, "marking a junction expanded is a change")
}

// Nearest and RoadsWithin measure to the centre line between nodes, not
// just to the nodes.
func TestNearestPointLiesBetweenNodes(t *testing.T) {
	g := New(world.New(testSeed))
	g.EnsureJunctionArms(g.JunctionNear(world.Vec2{}))
	for _, e := range g.Edges() {
		k := e.Segments() / 2
		a, b := e.Nodes[k], e.Nodes[k+1]
		off := Left(b.Sub(a).Norm()).Scale(3)
		p := a.Lerp(b, 0.4).Add(off)
		h, ok := g.Nearest(p)
		require.True(t, ok)
		require.Same(t, e, h.Edge)
		assert.Equal(t, k, h.Seg)
		assert.InDelta(t, 0.4, h.T, 1e-6)
		assert.InDelta(t, 3, h.Dist, 1e-6)
		assert.InDelta(t, 0, h.Point.Sub(a.Lerp(b, 0.4)).Len(), 1e-6)
	}
}
