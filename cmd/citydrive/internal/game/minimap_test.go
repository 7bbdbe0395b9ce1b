package game

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// edge is a straight road along x at z, nodes every 4 m.
func edge(x0, x1, z float64) *roadgraph.Edge {
	e := &roadgraph.Edge{}
	for x := x0; x <= x1; x += 4 {
		e.Nodes = append(e.Nodes, world.Vec2{X: x, Z: z})
	}
	e.Min, e.Max = e.Nodes[0], e.Nodes[len(e.Nodes)-1]
	return e
}

func TestMinimapRoads(t *testing.T) {
	at := world.Vec2{X: 1000, Z: 2000}
	near := edge(1000, 1100, 2010) // 26 nodes, 100 m
	far := edge(5000, 5100, 2000)
	got := appendRoads(nil, []*roadgraph.Edge{near, far}, at, 300, 12, 100)
	require.NotEmpty(t, got)
	require.Zero(t, len(got)%4)
	// Joined end to end, from the edge's start to its end.
	assert.Equal(t, []float64{1000, 2010}, got[0:2])
	assert.Equal(t, []float64{1100, 2010}, got[len(got)-2:])
	for i := 4; i < len(got); i += 4 {
		assert.Equal(t, got[i-2:i], got[i:i+2], "segments join")
	}
	// Decimated: 12 m steps (4 m nodes: every third), not 25 segments.
	assert.Len(t, got, 4*9)
	// The limit holds.
	assert.Len(t, appendRoads(nil, []*roadgraph.Edge{near}, at, 300, 1, 5), 4*5)
	// The part of a long edge outside reach is not drawn.
	long := edge(0, 4000, 2000)
	seg := appendRoads(nil, []*roadgraph.Edge{long}, at, 50, 12, 1000)
	for i := 0; i < len(seg); i += 2 {
		assert.InDelta(t, at.X, seg[i], 50+12)
	}
}

func TestMinimapFillAllocatesNothing(t *testing.T) {
	g := roadgraph.New(world.New(412))
	at := world.Vec2{}
	g.EnsureAround(at)
	m := newMinimap(world.New(412))
	others := []remote.Pose{{X: 30, Z: -40}}
	view := m.fill(g, at, 0.3, others)
	require.NotEmpty(t, view.Roads)
	assert.Equal(t, []float32{30, -40}, view.Others)
	assert.InDelta(t, 0.3, view.Heading, 1e-12)
	// Relative to the car: the same roads seen from 10 m east are 10 m west.
	first := [2]float32{view.Roads[0], view.Roads[1]}
	moved := m.fill(g, world.Vec2{X: 10}, 0.3, others)
	assert.InDelta(t, first[0]-10, moved.Roads[0], 1e-3)
	assert.InDelta(t, first[1], moved.Roads[1], 1e-3)
	// Far away, the roads are gathered again there.
	away := world.Vec2{X: 3000, Z: 3000}
	g.EnsureAround(away)
	for _, r := range m.fill(g, away, 0, nil).Roads {
		assert.Less(t, math.Abs(float64(r)), 4*minimapRange)
	}
	assert.Zero(t, testing.AllocsPerRun(20, func() { m.fill(g, at, 0.3, others) }))
	m.headingUp = true
	assert.True(t, m.fill(g, at, 0.3, others).HeadingUp)
}

func TestMinimapWater(t *testing.T) {
	calls := 0
	// The lake is everything west of x = -40.
	g := waterGrid{height: func(x, _ float64) float64 {
		calls++
		if x < -40 {
			return world.WaterLevel - 1
		}
		return world.WaterLevel + 1
	}}
	at := world.Vec2{X: 3, Z: -5}
	g.update(at, 10)
	assert.Equal(t, 10, calls, "the budget holds")
	g.update(at, waterN*waterN)
	assert.Equal(t, waterN*waterN, calls, "every cell once")
	g.update(at, waterN*waterN)
	assert.Equal(t, waterN*waterN, calls, "nothing twice")

	runs := g.appendRuns(nil, at)
	require.Len(t, runs, 4*waterN, "one run per row")
	i0, j0 := g.window(at)
	for r := 0; r < waterN; r++ {
		x0, z0, x1, z1 := runs[4*r], runs[4*r+1], runs[4*r+2], runs[4*r+3]
		assert.InDelta(t, float64(i0)*waterCell-at.X, x0, 1e-3, "from the window's west edge")
		assert.InDelta(t, -48-at.X, x1, 1e-3, "to the last wet cell (centre -56 m; -40 m is dry)")
		assert.InDelta(t, float64(int(j0)+r)*waterCell-at.Z, z0, 1e-3)
		assert.InDelta(t, waterCell, z1-z0, 1e-3)
	}

	// One cell east: one new column, nothing else.
	g.update(world.Vec2{X: at.X + waterCell, Z: at.Z}, waterN*waterN)
	assert.Equal(t, waterN*waterN+waterN, calls)
	// Negative cells work the same as positive ones.
	far := world.Vec2{X: -5000, Z: -7000}
	g.update(far, waterN*waterN)
	assert.Len(t, g.appendRuns(nil, far), 4*waterN, "all wet: one run per row")
	assert.Zero(t, testing.AllocsPerRun(10, func() {
		g.update(far, waterPerFrame)
		_ = g.appendRuns(runs[:0], far)
	}))
}

// BenchmarkMinimapFill is the minimap's main-goroutine cost per frame in a
// grown graph, the car driving along.
func BenchmarkMinimapFill(b *testing.B) {
	w := world.New(412)
	g := roadgraph.New(w)
	for x := -1500.0; x <= 1500; x += 250 {
		for z := -1500.0; z <= 1500; z += 250 {
			g.EnsureAround(world.Vec2{X: x, Z: z})
		}
	}
	m := newMinimap(w)
	at := world.Vec2{}
	m.water.update(at, waterN*waterN)
	i := 0
	for b.Loop() {
		// 30 m/s at 60 fps, back and forth over 600 m.
		at.X = 0.5*float64(i%1200) - 300
		i++
		m.fill(g, at, 0, nil)
	}
	b.ReportMetric(float64(len(g.Edges())), "edges")
	b.ReportMetric(float64(len(m.roads)/4), "segments")
	b.ReportMetric(float64(len(m.wet)/4), "water-runs")
}
