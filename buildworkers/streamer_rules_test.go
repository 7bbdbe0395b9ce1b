package buildworkers

import (
	"math"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/walker"
)

// The far graph is evicted on its own 2 s clock: an edge loaded 8 km away
// survives 1.97 s of frames after an eviction and is gone by 2.03 s.
func TestFarGraphEvictedEveryTwoSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, nil, nil)
		h.runUntilReady(t, 200)
		g := h.s.Graph()
		load := func() uint64 {
			j := g.JunctionNear(world.Vec2{X: 6000, Z: 6000})
			require.NotNil(t, j)
			g.EnsureJunctionArms(j)
			require.NotEmpty(t, j.Arms)
			return j.Arms[0].ID
		}
		id := load()
		for f := 0; g.Edge(id) != nil; f++ {
			require.Less(t, f, 122, "evicted within 2 s")
			h.frame()
		}
		// An eviction ran on this frame; the next one is due 2 s later.
		id = load()
		for range 118 {
			h.frame()
		}
		assert.NotNil(t, g.Edge(id), "kept until the clock fires again")
		for range 4 {
			h.frame()
		}
		assert.Nil(t, g.Edge(id), "evicted 2 s after the last eviction")
		near, ok := g.Nearest(h.car)
		require.True(t, ok, "the roads around the car stay")
		assert.Less(t, near.Dist, 1.0)
	})
}

// A new edge requeues the built items within RequeueRadius (142 m) of it:
// their lots may now be crossed by a road. Items farther away keep their
// geometry.
func TestNewEdgeRequeuesBuiltItemsWithinRadius(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, nil, func(c *Config) {
			c.Slots.Slots = 120 // a walk that reaches past junctions
		})
		h.runUntilReady(t, 300)
		s, tab := h.s, h.s.Table()
		g, w := s.Graph(), s.Graph().World()
		require.Equal(t, 142.0, s.cfg.RequeueRadius)
		type built struct {
			slot int32
			key  int64
			c    [3]float64
		}
		var bs []built
		for sl := int32(0); sl < int32(tab.Config().Slots); sl++ {
			if tab.Built(sl) {
				bs = append(bs, built{sl, tab.Key(sl), tab.Bounds(sl).Centre()})
			}
		}
		dist := func(c [3]float64, nodes []world.Vec2) float64 {
			d := math.Inf(1)
			for _, n := range nodes {
				d = math.Min(d, math.Hypot(c[0]-n.X, c[2]-n.Z))
			}
			return d
		}
		// An unexpanded junction whose missing arms pass within 100 m of
		// some built items and farther than 142 m from others.
		found := false
		for _, j := range g.Junctions() {
			if j.Expanded {
				continue
			}
			var nodes []world.Vec2
			for _, spec := range w.Arms(world.JunctionCell(j.ID), nil) {
				if g.Edge(spec.ID) == nil {
					nodes = append(nodes, w.EdgeNodes(spec, nil)...)
				}
			}
			near, far := 0, 0
			for _, b := range bs {
				if d := dist(b.c, nodes); d < 100 {
					near++
				} else if d > 150 {
					far++
				}
			}
			if near > 0 && far > 0 {
				g.EnsureJunctionArms(j)
				found = true
				break
			}
		}
		require.True(t, found, "a junction to grow")
		seen := s.bornSeen
		before := s.Stats().Requeued
		s.refreshVisible(h.car, h.head)
		var nodes []world.Vec2
		for _, e := range g.Edges() {
			if e.Born > seen {
				nodes = append(nodes, e.Nodes...)
			}
		}
		pending := map[int32]bool{}
		for _, p := range tab.Pending() {
			pending[p.Slot] = true
		}
		near, far := 0, 0
		for _, b := range bs {
			if tab.Key(b.slot) != b.key {
				continue // left the visible set
			}
			// Requeueing samples the new edge every 16 nodes (67 m), so
			// only items clearly inside or outside the radius are checked.
			switch d := dist(b.c, nodes); {
			case d < 100:
				near++
				assert.True(t, pending[b.slot], "item %d, %.0f m from the new edge, requeued", b.key, d)
			case d > 142:
				far++
				assert.False(t, pending[b.slot], "item %d, %.0f m from the new edge, kept", b.key, d)
			}
		}
		require.Positive(t, near)
		require.Positive(t, far)
		assert.GreaterOrEqual(t, s.Stats().Requeued-before, near)
		// The requeued items rebuild and the world is ready again.
		h.runUntilReady(t, 200)
	})
}

// An item whose geometry exceeds its slot is refused, not truncated: its
// slot stays empty and unbuilt, it is not retried for ever, and the world
// still becomes (and stays) ready.
func TestOverflowingItemLeavesItsSlotEmptyAndWorldReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := func(it walker.Item) bool { return it.Kind == walker.Segment && it.Seg%7 == 3 }
		h := newHarness(t, 1, func(b *fakeBuilder) {
			b.count = func(it walker.Item) int {
				if big(it) {
					return 500 // more than the 200-vertex slots
				}
				return 36
			}
		}, nil)
		h.runUntilReady(t, 200)
		tab := h.s.Table()
		check := func() {
			t.Helper()
			overflowing := 0
			for s := int32(0); s < int32(tab.Config().Slots); s++ {
				if tab.Key(s) == 0 {
					continue
				}
				if big(tab.Item(s)) {
					overflowing++
					assert.False(t, tab.Built(s), "slot %d built", s)
					assert.Zero(t, tab.Count(s))
					assert.Zero(t, h.buf.Counts[s], "nothing written to slot %d", s)
				} else {
					assert.True(t, tab.Built(s))
					assert.Equal(t, int32(36), h.buf.Counts[s])
				}
			}
			require.Positive(t, overflowing)
			assert.Equal(t, uint64(overflowing), tab.Overflows())
			assert.Equal(t, overflowing, h.s.Stats().Overflows)
			assert.True(t, h.s.Ready(), "an overflow does not hold up the start")
		}
		check()
		for range 60 { // four more walks: nothing is retried
			h.frame()
		}
		check()
	})
}

// The near walk (every 250 ms) and the graph eviction (every 2 s) run on
// the frame their clock falls due, not one later: with 1/8 s frames the
// near walk runs every second frame and the eviction every sixteenth.
func TestNearClocksFireOnTheDueFrame(t *testing.T) {
	const dt = 0.125 // exact in binary: the clocks reach exactly zero
	synctest.Test(t, func(t *testing.T) {
		// A near walk is seen by the re-base it makes after a jump of 3 km.
		h := newHarness(t, 1, nil, nil)
		step := func() { h.step(dt) }
		step() // the first walk
		require.Zero(t, h.s.Stats().Rebases)
		for jump := 1; jump <= 3; jump++ {
			h.car = h.car.Add(world.Vec2{X: 3000})
			step()
			assert.Equal(t, jump-1, h.s.Stats().Rebases, "jump %d: 125 ms after a walk", jump)
			step()
			assert.Equal(t, jump, h.s.Stats().Rebases, "jump %d: 250 ms after a walk", jump)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, nil, nil)
		step := func() { h.step(dt) }
		step() // evicts at once, then every 2 s
		g := h.s.Graph()
		j := g.JunctionNear(world.Vec2{X: 6000, Z: 6000})
		require.NotNil(t, j)
		g.EnsureJunctionArms(j)
		require.NotEmpty(t, j.Arms)
		id := j.Arms[0].ID
		for f := 2; f <= 16; f++ {
			step()
			require.NotNil(t, g.Edge(id), "frame %d, %.3f s after the eviction", f, float64(f-1)*dt)
		}
		step()
		assert.Nil(t, g.Edge(id), "evicted on the frame 2 s after the last eviction")
	})
}
