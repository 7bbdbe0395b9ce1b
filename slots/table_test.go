package slots

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/walker"
)

func item(key int64, cost float32) walker.Item {
	return walker.Item{Key: key, Cost: cost, Edge: uint64(key / 128), Seg: int32(key % 128)}
}

func newTable(t testing.TB, slots, verts int) (*Table, *CPUBuffer) {
	cfg := Config{Slots: slots, VertsPerSlot: verts, DynamicVerts: 10}
	buf, err := NewCPUBuffer(cfg)
	require.NoError(t, err)
	tab, err := New(cfg, buf)
	require.NoError(t, err)
	return tab, buf
}

// tri returns count vertices whose positions all sit at (x, 0, z).
func verts(count int, x, z float32) []uint32 {
	v := make([]uint32, count*WordsPerVertex)
	for i := 0; i < count; i++ {
		v[i*WordsPerVertex], v[i*WordsPerVertex+1] = PackPos(float64(x), 0, float64(z))
	}
	return v
}

func box(x, z float64) Bounds {
	return Bounds{Min: [3]float64{x - 1, 0, z - 1}, Max: [3]float64{x + 1, 2, z + 1}}
}

func TestSyncClaimsReleasesAndKeeps(t *testing.T) {
	tab, buf := newTable(t, 4, 64)
	tab.Sync([]walker.Item{item(128, 0), item(256, 1), item(-5, 2)})
	assert.Equal(t, 3, tab.Used())
	require.Len(t, tab.Pending(), 3)
	s128, _ := tab.SlotOf(128)
	for _, p := range slices.Clone(tab.Pending()) {
		_, ok := tab.TakePending()
		require.True(t, ok)
		require.NoError(t, tab.Upload(p.Slot, p.Item.Key, verts(6, 1, 1), 6, box(1, 1)))
	}
	writes := buf.Writes
	// 128 stays (new cost), 256 leaves, 384 arrives.
	tab.Sync([]walker.Item{item(384, 0.5), item(128, 3)})
	s, ok := tab.SlotOf(128)
	require.True(t, ok)
	assert.Equal(t, s128, s, "kept items keep their slot")
	assert.True(t, tab.Built(s), "kept items are not rebuilt")
	_, ok = tab.SlotOf(256)
	assert.False(t, ok)
	require.Len(t, tab.Pending(), 1)
	assert.Equal(t, int64(384), tab.Pending()[0].Item.Key)
	assert.Equal(t, writes, buf.Writes, "release writes nothing to the buffer")
	for sl := int32(0); sl < 4; sl++ {
		if tab.Key(sl) == 0 {
			assert.Zero(t, tab.Count(sl))
			assert.Zero(t, buf.Counts[sl])
		}
	}
}

func TestPendingDropsReleasedAndSortsByCost(t *testing.T) {
	tab, _ := newTable(t, 8, 64)
	tab.Sync([]walker.Item{item(128, 5), item(256, 1), item(384, 3)})
	assert.Equal(t, []int64{256, 384, 128}, pendingKeys(tab))
	tab.Sync([]walker.Item{item(128, 0.5), item(384, 3)})
	assert.Equal(t, []int64{128, 384}, pendingKeys(tab), "costs follow the car; released items leave pending")
}

func pendingKeys(tab *Table) []int64 {
	var k []int64
	for _, p := range tab.Pending() {
		k = append(k, p.Item.Key)
	}
	return k
}

func TestUploadOverflowIsCountedNotTruncated(t *testing.T) {
	tab, buf := newTable(t, 2, 36)
	tab.Sync([]walker.Item{item(128, 0)})
	p, _ := tab.TakePending()
	err := tab.Upload(p.Slot, p.Item.Key, verts(37, 0, 0), 37, box(0, 0))
	require.ErrorIs(t, err, ErrOverflow)
	assert.ErrorContains(t, err, "item 128")
	assert.Equal(t, uint64(1), tab.Overflows())
	assert.Zero(t, buf.Writes, "nothing half-written")
	assert.False(t, tab.Built(p.Slot))
}

func TestUploadToMovedOnSlotIsStale(t *testing.T) {
	tab, _ := newTable(t, 1, 36)
	tab.Sync([]walker.Item{item(128, 0)})
	p, _ := tab.TakePending()
	claim := tab.Claim(p.Slot)
	tab.Sync([]walker.Item{item(256, 0)})
	assert.False(t, tab.Holds(p.Slot, 128, claim))
	assert.ErrorIs(t, tab.Upload(p.Slot, 128, verts(3, 0, 0), 3, box(0, 0)), ErrStale)
	// Released and reclaimed by the same key: the claim generation differs.
	tab.Sync([]walker.Item{item(128, 0)})
	assert.False(t, tab.Holds(p.Slot, 128, claim))
	assert.True(t, tab.Holds(p.Slot, 128, tab.Claim(p.Slot)))
}

func TestRequeueNear(t *testing.T) {
	tab, _ := newTable(t, 3, 36)
	tab.Sync([]walker.Item{item(128, 0), item(256, 1), item(384, 2)})
	pos := map[int64]float64{128: 0, 256: 100, 384: 300}
	for range 3 {
		p, _ := tab.TakePending()
		require.NoError(t, tab.Upload(p.Slot, p.Item.Key, verts(3, 0, 0), 3, box(pos[p.Item.Key], 0)))
	}
	assert.Equal(t, 2, tab.RequeueNear(10, 0, 142))
	assert.Equal(t, []int64{128, 256}, pendingKeys(tab))
	assert.Equal(t, 0, tab.RequeueNear(10, 0, 142), "already pending")
}

func TestDrawOrderNearestFirstAndCached(t *testing.T) {
	tab, _ := newTable(t, 3, 36)
	tab.Sync([]walker.Item{item(128, 0), item(256, 1), item(384, 2)})
	pos := map[int64]float64{128: 50, 256: 10, 384: 30}
	for range 3 {
		p, _ := tab.TakePending()
		require.NoError(t, tab.Upload(p.Slot, p.Item.Key, verts(3, 0, 0), 3, box(pos[p.Item.Key], 0)))
	}
	keysOf := func(order []int32) []int64 {
		var k []int64
		for _, s := range order {
			k = append(k, tab.Key(s))
		}
		return k
	}
	assert.Equal(t, []int64{256, 384, 128}, keysOf(tab.DrawOrder([3]float64{0, 0, 0})))
	n := tab.OrderRecomputes()
	// Moving 3.9 m towards the far end keeps the cached order...
	assert.Equal(t, []int64{256, 384, 128}, keysOf(tab.DrawOrder([3]float64{3.9, 0, 0})))
	assert.Equal(t, n, tab.OrderRecomputes())
	// ...moving past 4 m recomputes it.
	assert.Equal(t, []int64{128, 384, 256}, keysOf(tab.DrawOrder([3]float64{60, 0, 0})))
	assert.Equal(t, n+1, tab.OrderRecomputes())
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{
		{Slots: 0, VertsPerSlot: 7200},
		{Slots: -3, VertsPerSlot: 7200},
		{Slots: 180, VertsPerSlot: 2},
		{Slots: 180, VertsPerSlot: 7200, DynamicVerts: -1},
		{Slots: MaxSlots + 1, VertsPerSlot: 7200},
	} {
		_, err := New(c, &CPUBuffer{})
		assert.Error(t, err, "%+v", c)
		_, err = NewCPUBuffer(c)
		assert.Error(t, err)
	}
	_, err := New(DefaultConfig(), nil)
	assert.Error(t, err)
	c := DefaultConfig()
	assert.Equal(t, 180*7200+16200, c.TotalVerts())
}

// TestTableProperties drives the table with long random sequences of
// visible sets, builds and camera moves and checks its invariants against a
// plain model.
func TestTableProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nSlots := rapid.IntRange(1, 12).Draw(rt, "slots")
		tab, buf := newTable(t, nSlots, 40)
		universe := rapid.IntRange(1, 30).Draw(rt, "universe")
		prevSlot := map[int64]int32{}
		contentChanged := true
		lastCam := [3]float64{}
		computedOnce := false
		for step := 0; step < 60; step++ {
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0: // a new visible set
				n := rapid.IntRange(0, nSlots).Draw(rt, "n")
				keys := rapid.SliceOfNDistinct(rapid.IntRange(1, universe), n, n, rapid.ID[int]).Draw(rt, "keys")
				vis := make([]walker.Item, n)
				for i, k := range keys {
					vis[i] = item(int64(k)*128, float32(i)+rapid.Float32Range(0, 0.5).Draw(rt, "c"))
				}
				wasBuilt := map[int64]bool{}
				for s := int32(0); s < int32(nSlots); s++ {
					if tab.Key(s) != 0 && tab.Count(s) > 0 {
						wasBuilt[tab.Key(s)] = true
					}
				}
				tab.Sync(vis)
				visible := map[int64]bool{}
				for _, it := range vis {
					visible[it.Key] = true
				}
				for k := range wasBuilt {
					if !visible[k] {
						contentChanged = true
					}
				}
				for k, s := range prevSlot {
					if visible[k] {
						now, ok := tab.SlotOf(k)
						require.True(rt, ok)
						require.Equal(rt, s, now, "kept item %d changed slot", k)
					}
				}
				for _, it := range vis {
					_, ok := tab.SlotOf(it.Key)
					require.True(rt, ok, "visible item %d has a slot", it.Key)
				}
				for _, p := range tab.Pending() {
					require.True(rt, visible[p.Item.Key], "pending %d not visible", p.Item.Key)
				}
			case 1: // build the cheapest pending item
				if p, ok := tab.TakePending(); ok {
					c := rapid.IntRange(1, 40).Draw(rt, "count")
					x := rapid.Float64Range(-100, 100).Draw(rt, "x")
					require.NoError(rt, tab.Upload(p.Slot, p.Item.Key, verts(c, float32(x), 0), c, box(x, 0)))
					contentChanged = true
				}
			case 2: // draw from a moved camera
				cam := [3]float64{lastCam[0] + rapid.Float64Range(-6, 6).Draw(rt, "dx"), 0, 0}
				before := tab.OrderRecomputes()
				order := tab.DrawOrder(cam)
				recomputed := tab.OrderRecomputes() != before
				moved := dist2(cam, lastCam) > drawOrderMove*drawOrderMove
				require.Equal(rt, !computedOnce || contentChanged || moved, recomputed, "cache invalidation")
				if recomputed {
					lastCam, contentChanged, computedOnce = cam, false, true
					for i := 1; i < len(order); i++ {
						require.LessOrEqual(rt, dist2(tab.Bounds(order[i-1]).Centre(), cam), dist2(tab.Bounds(order[i]).Centre(), cam))
					}
				}
				for _, s := range order {
					require.Positive(rt, tab.Count(s))
				}
			}
			// Invariants after every step.
			seen := map[int64]bool{}
			prevSlot = map[int64]int32{}
			for s := int32(0); s < int32(nSlots); s++ {
				k := tab.Key(s)
				if k == 0 {
					require.Zero(rt, tab.Count(s), "released slot %d has count 0", s)
					require.Zero(rt, buf.Counts[s])
					continue
				}
				require.False(rt, seen[k], "key %d in two slots", k)
				seen[k] = true
				got, ok := tab.SlotOf(k)
				require.True(rt, ok)
				require.Equal(rt, s, got)
				prevSlot[k] = s
			}
			pend := tab.Pending()
			for i, p := range pend {
				require.False(rt, tab.Built(p.Slot), "pending holds only unbuilt items")
				require.Equal(rt, tab.Key(p.Slot), p.Item.Key)
				if i > 0 {
					require.LessOrEqual(rt, pend[i-1].Item.Cost, p.Item.Cost, "pending sorted by cost")
				}
			}
		}
	})
}

func BenchmarkSync180(b *testing.B) {
	tab, _ := newTable(b, 180, 36)
	a := make([]walker.Item, 180)
	c := make([]walker.Item, 180)
	for i := range a {
		a[i] = item(int64(i+1)*128, float32(i))
		c[i] = item(int64(i+21)*128, float32(i)) // 20 leave, 20 arrive
	}
	tab.Sync(a)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			tab.Sync(c)
		} else {
			tab.Sync(a)
		}
	}
}

func TestObstaclesDroppedOnRelease(t *testing.T) {
	tab, _ := newTable(t, 2, 36)
	tab.Sync([]walker.Item{item(128, 0)})
	s, _ := tab.SlotOf(128)
	car := BoxObstacle([2]float64{1, 1}, 0.3, 2.1, 0.9, 0, 1.5, ObstacleParkedCar)
	tab.SetObstacles(s, 128, []Obstacle{car, BoxObstacle([2]float64{2, 2}, 0, 1, 1, 0, 9, ObstacleBuilding)})
	tab.SetObstacles(s, 999, []Obstacle{car}) // not this slot's item: ignored
	require.Len(t, tab.Obstacles(s), 2)
	assert.Equal(t, car, tab.Obstacles(s)[0], "copied as given")
	tab.Sync(nil)
	assert.Empty(t, tab.Obstacles(s))
}

func TestSetObstaclesDoesNotAllocate(t *testing.T) {
	tab, _ := newTable(t, 2, 36)
	tab.Sync([]walker.Item{item(128, 0)})
	s, _ := tab.SlotOf(128)
	obst := make([]Obstacle, 40)
	assert.Zero(t, testing.AllocsPerRun(10, func() { tab.SetObstacles(s, 128, obst) }), "preallocated per-slot storage")
}

func TestObstacleExtentFollowsItsHeading(t *testing.T) {
	// A 4.2 × 1.8 m car along a street 10° off the X axis.
	heading := 10 * math.Pi / 180
	o := BoxObstacle([2]float64{0, 0}, heading, 2.1, 0.9, 0, 1.5, ObstacleParkedCar)
	across := [2]float64{-math.Sin(heading), math.Cos(heading)}
	assert.InDelta(t, 0.9, o.Extent(across), 1e-9, "across its street it is as wide as drawn")
	assert.InDelta(t, 2.1, o.Extent(o.Axis), 1e-9)
	// Along the world's Z axis it reaches further: the old axis-aligned box.
	assert.InDelta(t, 2.1*math.Sin(heading)+0.9*math.Cos(heading), o.Extent([2]float64{0, 1}), 1e-9)
	assert.InDelta(t, math.Hypot(2.1, 0.9), o.Radius(), 1e-9)
	assert.Equal(t, "parked car", o.Kind.String())
}
