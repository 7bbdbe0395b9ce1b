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
