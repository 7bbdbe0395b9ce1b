package roadgraph

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// requireSameGraph asserts that mirror m holds exactly what g holds.
func requireSameGraph(t *testing.T, g, m *Graph) {
	t.Helper()
	require.Equal(t, g.Signature(), m.Signature())
	require.Len(t, m.Edges(), len(g.Edges()))
	require.Len(t, m.Junctions(), len(g.Junctions()))
	for i, e := range g.Edges() {
		me := m.Edges()[i]
		require.Equal(t, e.ID, me.ID)
		require.Equal(t, e.Nodes, me.Nodes)
		require.Equal(t, e.Flags, me.Flags, "flags of edge %d", e.ID)
		require.Equal(t, e.HalfWidth, me.HalfWidth)
		require.Equal(t, e.A.ID, me.A.ID)
		require.Equal(t, e.B.ID, me.B.ID)
		require.Same(t, m.Junction(e.A.ID), me.A, "references rebuilt from ids")
		require.Equal(t, e.Min, me.Min)
		require.Equal(t, e.Max, me.Max)
	}
	for i, j := range g.Junctions() {
		mj := m.Junctions()[i]
		require.Equal(t, j.ID, mj.ID)
		require.Equal(t, j.Pos, mj.Pos)
		require.Equal(t, j.Expanded, mj.Expanded)
		require.Len(t, mj.Arms, len(j.Arms))
		for k := range j.Arms {
			require.Equal(t, j.Arms[k].ID, mj.Arms[k].ID)
			require.Same(t, m.Edge(j.Arms[k].ID), mj.Arms[k])
		}
	}
}

func TestMirrorFollowsGrowthAndEviction(t *testing.T) {
	w := world.New(testSeed)
	g, m := New(w), NewMirror(w)
	cur := NewCursor()
	rng := rand.New(rand.NewPCG(11, 12))
	j := g.JunctionNear(world.Vec2{})
	sets, removed := 0, 0
	for step := 0; step < 400; step++ {
		g.EnsureJunctionArms(j)
		e := j.Arms[rng.IntN(len(j.Arms))]
		if e.A == j {
			j = e.B
		} else {
			j = e.A
		}
		if step%17 == 16 {
			g.EvictFar(j.Pos, 500)
		}
		if step%3 == 0 { // mirrors do not see every intermediate state
			cs, ok := g.Changes(cur)
			if ok {
				sets++
				removed += len(cs.Removed)
				require.NoError(t, m.Apply(cs))
			}
			requireSameGraph(t, g, m)
		}
	}
	assert.Greater(t, sets, 20)
	assert.Positive(t, removed, "eviction reached the mirror")
	g.Changes(cur) // catch up, whether or not the last steps moved anything
	cs, ok := g.Changes(cur)
	assert.False(t, ok, "no change set when the signature has not moved")
	assert.Nil(t, cs)
	// Any growth moves it again; a reset cursor gets everything in full.
	g.EnsureAround(world.Vec2{X: 3000, Z: 3000})
	cs, ok = g.Changes(cur)
	require.True(t, ok, "growth makes a change set")
	require.NoError(t, m.Apply(cs))
	requireSameGraph(t, g, m)
	cur.Reset()
	cs, ok = g.Changes(cur)
	require.True(t, ok, "a reset cursor syncs again without the graph moving")
	assert.Len(t, cs.NewEdges, len(g.Edges()), "everything in full")
}

func TestChangeSetSendsOnlyUnknownEdgesInFull(t *testing.T) {
	w := world.New(testSeed)
	g := New(w)
	cur := NewCursor()
	j := g.JunctionNear(world.Vec2{})
	g.EnsureJunctionArms(j)
	cs, ok := g.Changes(cur)
	require.True(t, ok)
	assert.Len(t, cs.NewEdges, len(g.Edges()))
	other := j.Arms[0].B
	if other == j {
		other = j.Arms[0].A
	}
	before := len(g.Edges())
	g.EnsureJunctionArms(other)
	cs, ok = g.Changes(cur)
	require.True(t, ok)
	assert.Len(t, cs.NewEdges, len(g.Edges())-before)
	assert.Len(t, cs.Junctions, len(g.Junctions()), "junctions in full")
	assert.Len(t, cs.FlagEdges, len(g.Edges()), "flags in full")
	nodes := 0
	for _, e := range g.Edges() {
		nodes += len(e.Nodes)
	}
	assert.Len(t, cs.Flags, (nodes+3)/4, "two bits per node")
}

func TestApplyRejectsInconsistentChangeSets(t *testing.T) {
	w := world.New(testSeed)
	m := NewMirror(w)
	err := m.Apply(&ChangeSet{NewEdges: []EdgeRecord{{ID: 5, A: 1, B: 2, Nodes: make([]world.Vec2, 3)}}})
	assert.ErrorContains(t, err, "unknown junction")
	err = m.Apply(&ChangeSet{FlagEdges: []uint64{77}})
	assert.ErrorContains(t, err, "unknown edge")
	err = m.Apply(&ChangeSet{Junctions: []JunctionRecord{{ID: 1, Arms: 2}}, ArmIDs: []uint64{1}})
	assert.ErrorContains(t, err, "arms out of range")
	err = m.Apply(&ChangeSet{Junctions: []JunctionRecord{{ID: 1}, {ID: 2}}, NewEdges: []EdgeRecord{{ID: 5, A: 1, B: 2, Nodes: make([]world.Vec2, 1)}}})
	assert.ErrorContains(t, err, "nodes")
}

// BenchmarkChangeSet measures encoding and applying a change set, reported
// per new edge: a fresh mirror receives a whole neighbourhood.
func BenchmarkChangeSet(b *testing.B) {
	w := world.New(testSeed)
	g := New(w)
	for _, j := range append([]*Junction(nil), g.JunctionNear(world.Vec2{})) {
		g.EnsureJunctionArms(j)
	}
	for range 3 {
		for _, j := range append([]*Junction(nil), g.Junctions()...) {
			g.EnsureJunctionArms(j)
		}
	}
	edges := len(g.Edges())
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			_, _ = g.Changes(NewCursor())
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(edges), "ns/edge")
	})
	b.Run("encode-recycled", func(b *testing.B) {
		cur, cs := NewCursor(), &ChangeSet{}
		b.ReportAllocs()
		for b.Loop() {
			cur.Reset()
			g.FillChanges(cur, cs)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(edges), "ns/edge")
	})
	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			cs, _ := g.Changes(NewCursor())
			m := NewMirror(w)
			b.StartTimer()
			if err := m.Apply(cs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(edges), "ns/edge")
	})
}
