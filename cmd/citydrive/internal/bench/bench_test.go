package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// The city must be real content: over the default drive (the bench's
// route at 30 m/s, the visible set every 0.25 s) the average item holds at
// least 2,300 vertices (2,500 before the network rule: the route now
// crosses causeways with water either side, and a building that would
// stand on a road is a plaza). Every item that becomes visible is built once, so
// the figure does not depend on timing.
func TestDriveAverageIsRealContent(t *testing.T) {
	for _, seed := range []uint64{412, 7} {
		w := world.New(seed)
		g := roadgraph.New(w)
		j := g.JunctionNear(world.Vec2{})
		g.EnsureJunctionArms(j)
		e := j.Arms[0]
		route, ok := autopilot.New(g, e.Nodes[e.Segments()/2], e.Tangent(e.Segments()/2), seed)
		require.True(t, ok)
		wk, err := walker.New(walker.DefaultParams(), slots.DefaultSlots)
		require.NoError(t, err)
		b := buildworkers.NewCityBuilder(w, slots.DefaultVertsPerSlot)
		seen := map[int64]bool{}
		total, items, biggest := 0, 0, 0
		for step := 0; step < 4*60; step++ { // 60 s
			pos, heading := route.Pose()
			for _, it := range wk.Walk(g, pos, heading) {
				if seen[it.Key] {
					continue
				}
				seen[it.Key] = true
				out, ok := b.Build(g, it, [3]float64{pos.X, 0, pos.Z})
				require.True(t, ok)
				total += out.Count
				biggest = max(biggest, out.Count)
				items++
			}
			route.Advance(30 * 0.25)
		}
		avg := float64(total) / float64(items)
		t.Logf("seed %d: %d items, %.0f vertices per item, largest %d", seed, items, avg, biggest)
		assert.GreaterOrEqual(t, avg, 2300.0, "seed %d", seed)
		assert.LessOrEqual(t, biggest, slots.DefaultVertsPerSlot, "nothing exceeds a slot")
	}
}

func TestRunReportsAFullDrive(t *testing.T) {
	cfg := buildworkers.DefaultConfig()
	w := world.New(412)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	rep, err := Run(Options{Seed: 412, Duration: 5 * time.Second, Speed: 30, Streaming: cfg})
	require.NoError(t, err)
	assert.Positive(t, rep.InitialWorldMS)
	assert.Greater(t, rep.Builds, 180)
	assert.Zero(t, rep.FallbackBuilds, "workers stayed healthy")
	assert.InDelta(t, 150, rep.DistanceM, 1)
	assert.Equal(t, 300, rep.Frames)
	assert.GreaterOrEqual(t, rep.FrameStreamUSP99, rep.FrameStreamUSP50)
	assert.Equal(t, slots.DefaultLayout().Bytes(), rep.BufferBytes, "near, far and dynamic regions")
	assert.Positive(t, rep.FarBuilds, "the far tier had its buffer")
}

// The bench's p50 and p99 take quantile's nearest rank, as the soak's do:
// of 1…200 in any order the 100th and the 198th, the figures game's
// TestSummaryQuantilesAreTheBenchRule pins for the same samples.
func TestBenchQuantilesAreTheSoakRule(t *testing.T) {
	v := make([]float64, 200)
	for i := range v {
		v[i] = float64(i + 1)
	}
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
	p50, p99 := p50p99(v)
	assert.Equal(t, 100.0, p50)
	assert.Equal(t, 198.0, p99)
}
