package buildworkers

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// Far from the world origin float32 world coordinates lose centimetres; an
// item built relative to an origin near the car keeps every vertex exact to
// well under a millimetre, wherever the car is.
func TestFarStartGeometryIsExactRelativeToOrigin(t *testing.T) {
	for _, far := range []float64{0, 2e5, 2e8} { // 0, 200 km, 200,000 km out
		w := world.New(testSeed)
		g := roadgraph.New(w)
		j := g.JunctionNear(world.Vec2{X: far, Z: -far / 2})
		require.NotNil(t, j, "a road near %g", far)
		g.EnsureJunctionArms(j)
		e := j.Arms[0]
		it := walker.Item{Key: e.Key(1), Kind: walker.Segment, Edge: e.ID, Seg: 1}
		b1 := NewCityBuilder(w, slots.DefaultVertsPerSlot)
		b2 := NewCityBuilder(w, slots.DefaultVertsPerSlot)
		near := [3]float64{math.Round(j.Pos.X/256) * 256, 0, math.Round(j.Pos.Z/256) * 256}
		other := [3]float64{near[0] + 1024, 0, near[2] - 512}
		o1, ok := b1.Build(g, it, near)
		require.True(t, ok)
		o2, ok := b2.Build(g, it, other)
		require.True(t, ok)
		require.Equal(t, o1.Count, o2.Count)
		maxErr := 0.0
		for i := 0; i < o1.Count; i++ {
			v1 := slots.Decode(o1.Verts[i*slots.WordsPerVertex:]).Pos
			v2 := slots.Decode(o2.Verts[i*slots.WordsPerVertex:]).Pos
			for a := 0; a < 3; a++ {
				// Relative coordinates stay small: inside the quantised range.
				require.Less(t, math.Abs(float64(v1[a])), 3000.0)
				w1 := near[a] + float64(v1[a])
				w2 := other[a] + float64(v2[a])
				maxErr = math.Max(maxErr, math.Abs(w1-w2))
			}
		}
		// Each is within slots.PosMaxErrorMM of the true position.
		assert.LessOrEqual(t, maxErr, 2*slots.PosMaxErrorMM/1000+1e-6, "world positions agree to 2 quantisation errors %g m out", far)
	}
}

// The bytes a worker builds from its mirror equal the bytes the main
// goroutine builds from its own graph, for every item of a walk.
func TestWorkerBytesEqualMainBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := world.New(testSeed)
		g := roadgraph.New(w)
		j := g.JunctionNear(world.Vec2{})
		g.EnsureJunctionArms(j)
		e := j.Arms[0]
		wk, err := walker.New(walker.DefaultParams(), slots.DefaultSlots)
		require.NoError(t, err)
		items := append([]walker.Item(nil), wk.Walk(g, e.Nodes[e.Segments()/2], e.Tangent(e.Segments()/2))...)
		p, err := NewPool(PoolConfig{Workers: 2, MaxInFlight: 3, World: w, NewBuilder: func() Builder {
			return NewCityBuilder(w, slots.DefaultVertsPerSlot)
		}}, time.Now())
		require.NoError(t, err)
		defer p.Close()
		main := NewCityBuilder(w, slots.DefaultVertsPerSlot)
		origin := [3]float64{256, 0, -256}
		synctest.Wait()
		next, compared := 0, 0
		for round := 0; compared < len(items); round++ {
			require.True(t, p.Healthy(), p.Failure())
			require.Less(t, round, 10*len(items), "results stopped coming")
			for next < len(items) && p.Dispatch(g, Request{ID: uint64(next + 1), Item: items[next], Origin: origin}) {
				next++
			}
			synctest.Wait()
			for {
				r, ok := p.Poll()
				if !ok {
					break
				}
				require.False(t, r.Missing)
				want, ok := main.Build(g, r.Item, origin)
				require.True(t, ok)
				require.Equal(t, want.Count, r.Count, "item %d", r.Item.Key)
				require.Equal(t, want.Verts[:want.Count*slots.WordsPerVertex], r.Verts, "item %d", r.Item.Key)
				require.Equal(t, want.Bounds, r.Bounds)
				require.Equal(t, len(want.Trees), len(r.Trees))
				p.Recycle(&r)
				compared++
			}
		}
		assert.Equal(t, len(items), compared)
	})
}
