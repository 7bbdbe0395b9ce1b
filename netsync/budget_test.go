package netsync

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

func TestSubscribeGate(t *testing.T) {
	sub := func(x int32) *wire.Subscribe { return &wire.Subscribe{Centre: voxel.ChunkPos{X: x}, Radius: 4} }
	type step struct {
		offer     []int32 // centres offered this tick
		dt        float64 // seconds since the last tick (refill)
		coalesced int     // how many offers replaced a waiting one
		applied   bool
		centre    int32 // the applied centre
	}
	cases := []struct {
		name  string
		rate  float64
		steps []step
	}{
		{"one per tick is applied at once", 2, []step{
			{offer: []int32{1}, applied: true, centre: 1},
			{offer: []int32{2}, applied: true, centre: 2},
		}},
		{"a flood in one tick: one rebuild, the newest centre", 8, []step{
			{offer: []int32{1, 2, 3, 4, 5}, coalesced: 4, applied: true, centre: 5},
			{},
		}},
		{"over budget: waits, coalesced, then applied on refill", 1, []step{
			{offer: []int32{1}, applied: true, centre: 1},
			{offer: []int32{2}, dt: 0.1},
			{offer: []int32{3}, dt: 0.1, coalesced: 1},
			{dt: 0.5},
			{dt: 0.5, applied: true, centre: 3},
			{dt: 1},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newSubscribeGate(tc.rate)
			for i, s := range tc.steps {
				g.bucket.refill(s.dt)
				n := 0
				for _, x := range s.offer {
					if g.offer(sub(x)) {
						n++
					}
				}
				assert.Equal(t, s.coalesced, n, "step %d coalesced", i)
				got, ok := g.due()
				require.Equal(t, s.applied, ok, "step %d applied", i)
				if ok {
					assert.Equal(t, s.centre, got.Centre.X, "step %d centre", i)
				}
				_, again := g.due()
				assert.False(t, again, "step %d: at most one per tick", i)
			}
		})
	}
}

func TestSaturateCentre(t *testing.T) {
	const m = wire.AbsMaxRadius
	cases := []struct{ in, want voxel.ChunkPos }{
		{voxel.ChunkPos{X: 5, Y: -3, Z: 7}, voxel.ChunkPos{X: 5, Y: -3, Z: 7}},
		{voxel.ChunkPos{X: math.MaxInt32, Y: math.MinInt32, Z: math.MaxInt32 - m},
			voxel.ChunkPos{X: math.MaxInt32 - m, Y: math.MinInt32 + m, Z: math.MaxInt32 - m}},
	}
	for _, tc := range cases {
		got := saturateCentre(tc.in)
		assert.Equal(t, tc.want, got)
		// Every offset of the largest cylinder stays in range.
		for _, v := range []int32{got.X, got.Y, got.Z} {
			assert.LessOrEqual(t, int64(v)+m, int64(math.MaxInt32))
			assert.GreaterOrEqual(t, int64(v)-m, int64(math.MinInt32))
		}
	}
}

func TestTickWorkSpreadsABurst(t *testing.T) {
	var w tickWork
	w.start(4096)
	applied := 0
	// Ten first Subscribes at radius 8 (1,773 chunks each) due at once.
	for range 10 {
		if !w.open() {
			break
		}
		w.spend(1773)
		applied++
	}
	assert.Equal(t, 3, applied, "the third starts under the allowance and may pass it")
	w.start(4096)
	assert.True(t, w.open(), "a new tick opens a new allowance")
	w.start(1)
	w.spend(424_000) // one radius-64 cylinder
	assert.False(t, w.open())
	// Work used up to the unit closes the tick: the next piece waits.
	w.start(4096)
	w.spend(4095)
	assert.True(t, w.open(), "one unit left")
	w.spend(1)
	assert.False(t, w.open(), "the allowance exactly used up")
}

// A clocked bucket refills by the clock it is handed, spends what it has,
// and says how long until the next token.
func TestClockedBucket(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := newClocked(2, 2, t0)
	assert.True(t, b.take(t0))
	assert.True(t, b.take(t0))
	assert.False(t, b.take(t0), "the burst is spent")
	assert.Equal(t, 500*time.Millisecond, b.wait())
	assert.False(t, b.take(t0.Add(499*time.Millisecond)))
	assert.True(t, b.take(t0.Add(500*time.Millisecond)), "one token at 2/s after 0.5 s")
	b.spend(t0.Add(500 * time.Millisecond))
	assert.Less(t, b.n, 0.0, "a waited-for token is owed")
	assert.False(t, b.take(t0.Add(time.Second)), "and paid back before the next")
	assert.True(t, b.take(t0.Add(time.Hour)))
	assert.Equal(t, 1.0, b.n, "full again (the burst), one spent")
	assert.Zero(t, b.wait())
}
