package slots

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/walker"
)

func TestFormatConstants(t *testing.T) {
	assert.Equal(t, 24, BytesPerVertex, "six 32-bit words")
	assert.Equal(t, float32(-1), PaletteRed(PaletteRoad))
	assert.Equal(t, float32(-4), PaletteRed(PaletteWater))
}

func TestConfigLimitsAreInclusive(t *testing.T) {
	ok := []Config{
		{Slots: 1, VertsPerSlot: MinVertsPerSlot},
		{Slots: MaxSlots, VertsPerSlot: MaxVertsPerSlot, DynamicVerts: MaxVertsPerSlot},
		{Slots: 3, VertsPerSlot: 36, DynamicVerts: 0},
	}
	for _, c := range ok {
		assert.NoError(t, c.Validate(), "%+v", c)
	}
	bad := []Config{
		{Slots: MaxSlots + 1, VertsPerSlot: 36},
		{Slots: 1, VertsPerSlot: MaxVertsPerSlot + 1},
		{Slots: 1, VertsPerSlot: MinVertsPerSlot - 1},
		{Slots: 1, VertsPerSlot: 36, DynamicVerts: MaxVertsPerSlot + 1},
	}
	for _, c := range bad {
		assert.Error(t, c.Validate(), "%+v", c)
	}
	c := Config{Slots: 3, VertsPerSlot: 40, DynamicVerts: 7}
	assert.Equal(t, 120, c.SlotVerts())
	assert.Equal(t, 127, c.TotalVerts())
}

func TestBoundsCentre(t *testing.T) {
	b := Bounds{Min: [3]float64{-2, 4, 10}, Max: [3]float64{6, 8, 11}}
	assert.Equal(t, [3]float64{2, 6, 10.5}, b.Centre())
}

func TestBoundsOf(t *testing.T) {
	v := make([]uint32, 4*WordsPerVertex)
	pos := [][3]float64{{1, -2, 3}, {-4, 5, 0.5}, {2, 0, -6}, {100, 100, 100}} // the last is beyond count
	for i, p := range pos {
		v[i*WordsPerVertex], v[i*WordsPerVertex+1] = PackPos(p[0], p[1], p[2])
		v[i*WordsPerVertex+2] = 0xffffffff // not a position
	}
	origin := [3]float64{1000, -10, 1e6}
	b := BoundsOf(v, 3, origin)
	assert.Equal(t, [3]float64{1000 - 4, -10 - 2, 1e6 - 6}, b.Min)
	assert.Equal(t, [3]float64{1000 + 2, -10 + 5, 1e6 + 3}, b.Max)
	assert.Equal(t, Bounds{Min: origin, Max: origin}, BoundsOf(v, 0, origin), "no vertices: the origin")
	one := BoundsOf(v, 1, [3]float64{})
	assert.Equal(t, [3]float64{1, -2, 3}, one.Min)
	assert.Equal(t, one.Min, one.Max)
}

func TestCPUBufferLayout(t *testing.T) {
	cfg := Config{Slots: 3, VertsPerSlot: 40, DynamicVerts: 7}
	b, err := NewCPUBuffer(cfg)
	require.NoError(t, err)
	require.Len(t, b.Words, 127*WordsPerVertex)
	assert.Len(t, b.Dynamic(), 7*WordsPerVertex)
	fill := func(n int, x uint32) []uint32 {
		v := make([]uint32, n*WordsPerVertex)
		for i := range v {
			v[i] = x + uint32(i)
		}
		return v
	}
	require.NoError(t, b.Upload(1, fill(5, 100), 5))
	require.NoError(t, b.Upload(2, fill(40, 500), 40))
	require.NoError(t, b.Upload(0, nil, 0), "an empty upload")
	assert.Equal(t, 3, b.Writes)
	assert.Equal(t, []int32{0, 5, 40}, b.Counts)
	assert.Equal(t, fill(5, 100), b.Slot(1))
	assert.Equal(t, fill(40, 500), b.Slot(2))
	assert.Empty(t, b.Slot(0))
	// Slot 1 starts VertsPerSlot vertices in; slot 2 ends where dynamic starts.
	assert.Equal(t, uint32(100), b.Words[40*WordsPerVertex])
	assert.Equal(t, fill(40, 500)[40*WordsPerVertex-1], b.Words[120*WordsPerVertex-1])
	b.Dynamic()[0] = 7
	assert.Equal(t, uint32(7), b.Words[120*WordsPerVertex])

	assert.Error(t, b.Upload(3, nil, 0), "slot out of range")
	assert.Error(t, b.Upload(-1, nil, 0))
	assert.Error(t, b.Upload(0, fill(41, 0), 41), "more than a slot")
	assert.Error(t, b.Upload(0, fill(2, 0), 3), "fewer words than vertices")
	assert.Error(t, b.Upload(0, nil, -1))
	assert.Equal(t, 3, b.Writes, "refused uploads write nothing")
	b.Clear(2)
	assert.Zero(t, b.Counts[2])
}

// A buffer of exactly a whole number of pages (1,024 vertices of 6 words
// is 6 pages of 1,024 words).
func TestCPUBufferWholePages(t *testing.T) {
	b, err := NewCPUBuffer(Config{Slots: 1, VertsPerSlot: 1024})
	require.NoError(t, err)
	assert.Len(t, b.Words, 6*1024)
}

func buildAll(t *testing.T, tab *Table, at map[int64][3]float64) {
	t.Helper()
	for {
		p, ok := tab.TakePending()
		if !ok {
			return
		}
		c := at[p.Item.Key]
		require.NoError(t, tab.Upload(p.Slot, p.Item.Key, verts(3, 0, 0), 3, Bounds{Min: c, Max: c}))
	}
}

func TestReadyAndBuiltCount(t *testing.T) {
	tab, _ := newTable(t, 4, 36)
	assert.False(t, tab.Ready(), "nothing visible yet")
	assert.Zero(t, tab.BuiltCount())
	tab.Sync([]walker.Item{item(128, 0), item(256, 1)})
	assert.False(t, tab.Ready(), "pending builds")
	p, _ := tab.TakePending()
	require.NoError(t, tab.Upload(p.Slot, p.Item.Key, verts(3, 0, 0), 3, box(0, 0)))
	assert.Equal(t, 1, tab.BuiltCount())
	assert.False(t, tab.Ready())
	tab.TakePending()
	assert.True(t, tab.Ready(), "taken is not pending: in-flight work is the caller's to add")
	tab.Sync(nil)
	assert.False(t, tab.Ready(), "no slots used")
	assert.Zero(t, tab.BuiltCount())
}

func TestReadyWhenAllBuilt(t *testing.T) {
	tab, _ := newTable(t, 4, 36)
	tab.Sync([]walker.Item{item(128, 0), item(256, 1), item(384, 2)})
	buildAll(t, tab, nil)
	assert.True(t, tab.Ready())
	assert.Equal(t, 3, tab.BuiltCount())
	assert.Equal(t, 3, tab.Used())
}

// Equal costs keep pending in slot order; otherwise cheapest first.
func TestPendingOrderMatchesASortByCostThenSlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 20; round++ {
		tab, _ := newTable(t, 32, 36)
		var vis []walker.Item
		for k := 1; k <= 32; k++ {
			vis = append(vis, item(int64(k)*128, float32(rng.IntN(6)))) // many ties
		}
		rng.Shuffle(len(vis), func(i, j int) { vis[i], vis[j] = vis[j], vis[i] })
		tab.Sync(vis)
		want := slices.Clone(tab.Pending())
		sort.SliceStable(want, func(i, j int) bool {
			if want[i].Item.Cost != want[j].Item.Cost {
				return want[i].Item.Cost < want[j].Item.Cost
			}
			return want[i].Slot < want[j].Slot
		})
		require.Equal(t, want, tab.Pending())
	}
}

func TestRequeue(t *testing.T) {
	tab, _ := newTable(t, 4, 36)
	tab.Sync([]walker.Item{item(128, 3), item(256, 1), item(384, 2)})
	buildAll(t, tab, nil)
	s128, _ := tab.SlotOf(128)
	s256, _ := tab.SlotOf(256)
	tab.Requeue(s128)
	tab.Requeue(s256)
	assert.Equal(t, []int64{256, 128}, pendingKeys(tab), "cheapest first")
	tab.Requeue(s128)
	assert.Equal(t, []int64{256, 128}, pendingKeys(tab), "already pending: once")
	free := int32(0)
	for ; tab.Key(free) != 0; free++ {
	}
	tab.Requeue(free)
	assert.Len(t, tab.Pending(), 2, "a free slot is not requeued")

	// Equal costs: slot order, whatever order they were queued in.
	tab, _ = newTable(t, 4, 36)
	tab.Sync([]walker.Item{item(128, 1), item(256, 1), item(384, 1)})
	first, _ := tab.TakePending()
	buildAll(t, tab, nil)
	last := tab.Pending()
	require.Empty(t, last)
	for _, k := range []int64{384, 256} {
		s, _ := tab.SlotOf(k)
		tab.Requeue(s)
	}
	tab.Requeue(first.Slot)
	var slotsInOrder []int32
	for _, p := range tab.Pending() {
		slotsInOrder = append(slotsInOrder, p.Slot)
	}
	assert.True(t, slices.IsSorted(slotsInOrder), "ties in slot order: %v", slotsInOrder)
	assert.Len(t, slotsInOrder, 3)
}

func TestRequeueNearMeasuresFromEachCentreInclusive(t *testing.T) {
	tab, _ := newTable(t, 6, 36)
	at := map[int64][3]float64{
		128: {200, 5, -50},  // the query point itself
		256: {260, -9, 10},  // 84.9 m away
		384: {200, 0, 50},   // exactly 100 m (z)
		512: {300, 0, -50},  // exactly 100 m (x)
		640: {-200, 0, -50}, // far on x, near if x were negated
		768: {200, 0, 60},   // 110 m
	}
	var vis []walker.Item
	for k := range at {
		vis = append(vis, item(k, float32(6-k/128)))
	}
	tab.Sync(vis)
	buildAll(t, tab, at)
	assert.Equal(t, 4, tab.RequeueNear(200, -50, 100))
	assert.Equal(t, []int64{512, 384, 256, 128}, pendingKeys(tab), "requeued and sorted by cost")
	assert.Zero(t, tab.RequeueNear(200, -50, 100), "already pending")
	assert.Equal(t, 1, tab.RequeueNear(-200, -50, 0), "radius 0: the item right there")
}

func TestHoldsOutOfRange(t *testing.T) {
	tab, _ := newTable(t, 2, 36)
	tab.Sync([]walker.Item{item(128, 0)})
	s, _ := tab.SlotOf(128)
	assert.True(t, tab.Holds(s, 128, tab.Claim(s)))
	assert.False(t, tab.Holds(2, 128, 1))
	assert.False(t, tab.Holds(-1, 128, 1))
	assert.False(t, tab.Holds(s, 256, tab.Claim(s)))
}

func TestUploadChecksCounts(t *testing.T) {
	tab, buf := newTable(t, 2, 36)
	tab.Sync([]walker.Item{item(128, 0)})
	s, _ := tab.SlotOf(128)
	v0 := tab.Version()
	require.NoError(t, tab.Upload(s, 128, nil, 0, box(0, 0)), "an item may have no geometry")
	assert.True(t, tab.Built(s))
	assert.Greater(t, tab.Version(), v0)
	assert.Error(t, tab.Upload(s, 128, verts(2, 0, 0), 3, box(0, 0)), "fewer floats than vertices")
	assert.Error(t, tab.Upload(s, 128, nil, -1, box(0, 0)))
	require.NoError(t, tab.Upload(s, 128, verts(36, 0, 0), 36, box(0, 0)), "exactly a slot")
	assert.Equal(t, int32(36), tab.Count(s))
	assert.Equal(t, int32(36), buf.Counts[s])
	assert.Zero(t, tab.Overflows())
}

// Draw order is nearest bounds centre first in three dimensions, ties in
// slot order, and recomputed once the camera moves more than 4 m in any
// direction.
func TestDrawOrderIn3D(t *testing.T) {
	tab, _ := newTable(t, 5, 36)
	cam := [3]float64{100, 50, -70}
	off := map[int64][3]float64{
		128: {0, 0, 30},  // 30 along z
		256: {0, 20, 0},  // 20 up
		384: {0, 0, -10}, // 10 along -z
		512: {0, -20, 0}, // 20 down: ties with 256
		640: {25, 0, 0},
	}
	at := map[int64][3]float64{}
	var vis []walker.Item
	for k, o := range off {
		at[k] = [3]float64{cam[0] + o[0], cam[1] + o[1], cam[2] + o[2]}
		vis = append(vis, item(k, 0))
	}
	tab.Sync(vis)
	buildAll(t, tab, at)
	var keys []int64
	for _, s := range tab.DrawOrder(cam) {
		keys = append(keys, tab.Key(s))
	}
	s256, _ := tab.SlotOf(256)
	s512, _ := tab.SlotOf(512)
	tie := []int64{256, 512}
	if s512 < s256 {
		tie = []int64{512, 256}
	}
	assert.Equal(t, []int64{384, tie[0], tie[1], 640, 128}, keys)
	n := tab.OrderRecomputes()
	move := func(dx, dy, dz float64) [3]float64 { return [3]float64{cam[0] + dx, cam[1] + dy, cam[2] + dz} }
	tab.DrawOrder(move(3.9, 0, 0))
	tab.DrawOrder(move(0, 3.9, 0))
	tab.DrawOrder(move(0, 0, -3.9))
	assert.Equal(t, n, tab.OrderRecomputes(), "moves under 4 m keep the order")
	tab.DrawOrder(move(0, 4.1, 0))
	assert.Equal(t, n+1, tab.OrderRecomputes(), "4.1 m up")
	tab.DrawOrder(move(0, 4.1, 4.2))
	assert.Equal(t, n+2, tab.OrderRecomputes(), "4.2 m along z")
}

// Slots at equal distance are drawn in slot order (a stable picture).
func TestDrawOrderTiesInSlotOrder(t *testing.T) {
	// Integer points at exactly 10 m and 20 m: (10,0,0) and (6,8,0) in
	// every arrangement and sign, and twice that.
	var ring [][3]float64
	for _, base := range [][3]float64{{10, 0, 0}, {6, 8, 0}} {
		for _, p := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
			for sgn := 0; sgn < 8; sgn++ {
				var v [3]float64
				for a := range 3 {
					v[a] = base[p[a]]
					if sgn>>a&1 == 1 {
						v[a] = -v[a]
					}
				}
				if !slices.Contains(ring, v) {
					ring = append(ring, v)
				}
			}
		}
	}
	require.Len(t, ring, 30)
	n := 2 * len(ring)
	tab, _ := newTable(t, n, 36)
	at := map[int64][3]float64{}
	var vis []walker.Item
	for i := range n {
		k := int64(i+1) * 128
		v := ring[i/2]
		if i%2 == 1 { // interleave the far ring
			v = [3]float64{2 * v[0], 2 * v[1], 2 * v[2]}
		}
		at[k] = v
		vis = append(vis, item(k, float32(i)))
	}
	tab.Sync(vis)
	buildAll(t, tab, at)
	order := tab.DrawOrder([3]float64{})
	require.Len(t, order, n)
	near, far := order[:n/2], order[n/2:]
	for _, s := range near {
		require.Equal(t, 100.0, dist2(tab.Bounds(s).Centre(), [3]float64{}))
	}
	assert.True(t, slices.IsSorted(near), "near ring in slot order: %v", near)
	assert.True(t, slices.IsSorted(far), "far ring in slot order: %v", far)
}

// countingSink accepts anything, so only the table's own checks stand
// between a bad upload and the buffer.
type countingSink struct{ uploads, clears int }

func (s *countingSink) Upload(int, []uint32, int) error { s.uploads++; return nil }
func (s *countingSink) Clear(int)                       { s.clears++ }

func TestTableChecksUploadsBeforeTheSink(t *testing.T) {
	sink := &countingSink{}
	tab, err := New(Config{Slots: 2, VertsPerSlot: 36}, sink)
	require.NoError(t, err)
	tab.Sync([]walker.Item{item(128, 0)})
	s, _ := tab.SlotOf(128)
	assert.Error(t, tab.Upload(s, 128, verts(2, 0, 0), 3, box(0, 0)), "fewer floats than vertices")
	assert.Error(t, tab.Upload(s, 128, verts(37, 0, 0), 37, box(0, 0)), "more than a slot")
	assert.ErrorIs(t, tab.Upload(s, 256, verts(3, 0, 0), 3, box(0, 0)), ErrStale)
	assert.Zero(t, sink.uploads, "nothing reached the sink")
	require.NoError(t, tab.Upload(s, 128, verts(3, 0, 0), 3, box(0, 0)))
	assert.Equal(t, 1, sink.uploads)
	tab.Sync(nil)
	assert.Equal(t, 1, sink.clears, "release clears the slot in the sink")
}
