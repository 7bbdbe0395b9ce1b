package netsync

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// These tests hold the server to its policies end to end: the rules are
// unit-tested in their own files, and each test here fails when the
// server stops applying one (see docs/testing.md).

// tickWorld is a World whose chunks are all ready. It counts the server's
// Chunk looks per tick (CommittedEdits is called once per tick, before the
// deliveries) and keeps the union the server reports, checking that every
// change is a real one.
type tickWorld struct {
	edits  voxel.Overlay // every chunk's overlay (nil: never edited)
	onLook func()        // called on every Chunk, on the server's tick goroutine

	mu       sync.Mutex
	looks    int // this tick's
	maxLooks int // the most in one tick
	union    map[voxel.ChunkPos]bool
	broken   error                 // the first change that was not one
	unions   chan []voxel.ChunkPos // the union after every change, sorted
}

func newTickWorld(edits voxel.Overlay) *tickWorld {
	return &tickWorld{edits: edits, union: map[voxel.ChunkPos]bool{}, unions: make(chan []voxel.ChunkPos, 64)}
}

func (w *tickWorld) UnionChanged(added, removed []voxel.ChunkPos) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range added {
		if w.union[p] && w.broken == nil {
			w.broken = fmt.Errorf("%v added twice", p)
		}
		w.union[p] = true
	}
	for _, p := range removed {
		if !w.union[p] && w.broken == nil {
			w.broken = fmt.Errorf("%v removed but not in the union", p)
		}
		delete(w.union, p)
	}
	select {
	case w.unions <- sortedKeys(w.union):
	default: // the test fails on the missing snapshot; the tick never blocks
	}
}

func (w *tickWorld) Chunk(voxel.ChunkPos) (voxel.Overlay, bool) {
	if w.onLook != nil {
		w.onLook()
	}
	w.mu.Lock()
	w.looks++
	w.mu.Unlock()
	return w.edits, true
}

func (w *tickWorld) CommittedEdits(func(uint64, voxel.BlockEdit, error)) {
	w.mu.Lock()
	w.maxLooks = max(w.maxLooks, w.looks)
	w.looks = 0
	w.mu.Unlock()
}

func (w *tickWorld) SubmitEdit(uint64, voxel.BlockEdit) error { return fmt.Errorf("read-only") }

func (w *tickWorld) mostPerTick() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return max(w.maxLooks, w.looks)
}

// nextUnion is the union after the server's next change to it.
func (w *tickWorld) nextUnion(t *testing.T) []voxel.ChunkPos {
	t.Helper()
	select {
	case u := <-w.unions:
		w.mu.Lock()
		defer w.mu.Unlock()
		require.NoError(t, w.broken)
		return u
	case <-time.After(testTimeout):
		t.Fatal("the union did not change")
	}
	return nil
}

func sortedKeys(m map[voxel.ChunkPos]bool) []voxel.ChunkPos {
	out := make([]voxel.ChunkPos, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b voxel.ChunkPos) int { return plan.Compare(voxel.ChunkPos{}, a, b) })
	return out
}

func sorted(ps ...[]voxel.ChunkPos) []voxel.ChunkPos {
	m := map[voxel.ChunkPos]bool{}
	for _, s := range ps {
		for _, p := range s {
			m[p] = true
		}
	}
	return sortedKeys(m)
}

// receiveAll reads c's messages until every chunk of want has arrived.
func receiveAll(t *testing.T, c *Client, want []voxel.ChunkPos) {
	t.Helper()
	got := map[voxel.ChunkPos]bool{}
	for len(got) < len(want) {
		switch m := next(t, c).(type) {
		case *wire.ChunkDefaults:
			for _, p := range m.Pos {
				got[p] = true
			}
		case *wire.ChunkEdits:
			got[m.Pos] = true
		}
	}
	assert.Equal(t, sorted(want), sortedKeys(got))
}

// A client is served at most DefaultsPerTick never-edited and at most
// DeliveriesPerTick edited chunks per tick, and still gets all of them.
func TestServerBoundsDeliveriesPerTick(t *testing.T) {
	const radius = 4
	area := plan.Cylinder(voxel.ChunkPos{}, radius, nil)
	cases := []struct {
		name  string
		edits voxel.Overlay
		mod   func(*ServerConfig)
		bound int
	}{
		{name: "never edited", mod: func(c *ServerConfig) { c.DefaultsPerTick = 7 }, bound: 7},
		{name: "edited", edits: voxel.Overlay{{Index: 1, Block: 1}},
			mod: func(c *ServerConfig) { c.DeliveriesPerTick = 3 }, bound: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newTickWorld(tc.edits)
			s := startServer(t, func(c *ServerConfig) {
				c.World, c.DeliveryBudget = w, 0
				tc.mod(c)
			})
			cfg := s.clientConfig()
			cfg.Radius = radius
			receiveAll(t, dial(t, cfg), area)
			require.Greater(t, len(area), 2*tc.bound)
			assert.Equal(t, tc.bound, w.mostPerTick(), "chunks looked at in one tick")
		})
	}
}

// The tick's delivery time is bounded: with every look taking 1 ms of the
// server's (fake) clock and a 10 ms budget, a tick stops at the first
// clock check past the deadline; the rest comes in later ticks.
func TestServerBoundsDeliveryTimePerTick(t *testing.T) {
	const radius = 4
	area := plan.Cylinder(voxel.ChunkPos{}, radius, nil)
	clk := &fakeClock{} // read and advanced on the tick goroutine only
	w := newTickWorld(nil)
	w.onLook = func() { clk.t = clk.t.Add(time.Millisecond) }
	s := startServerHook(t, func(c *ServerConfig) { c.World, c.DeliveryBudget = w, 10*time.Millisecond },
		func(s *Server) { s.pace.now = clk.now })
	cfg := s.clientConfig()
	cfg.Radius = radius
	receiveAll(t, dial(t, cfg), area)
	require.Greater(t, len(area), 2*timeCheckEvery)
	assert.Equal(t, timeCheckEvery, w.mostPerTick(), "looks in one tick: 16 in 16 ms, then the clock check stops it")
	assert.Positive(t, count(t, s.metrics.budgetExhausted))
}

// The union the world hears about counts clients: a chunk two clients
// want stays while one of them does.
func TestServerUnionIsRefCounted(t *testing.T) {
	w := newTickWorld(nil)
	s := startServer(t, func(c *ServerConfig) { c.World = w })
	at := func(x int32) voxel.ChunkPos { return voxel.ChunkPos{X: x} }
	cfg := s.clientConfig() // radius 1: five chunks in a plus
	a := dial(t, cfg)
	assert.Equal(t, sorted(cyl(at(0), 1)), w.nextUnion(t))
	cfg.Centre = at(1)
	b := dial(t, cfg)
	assert.Equal(t, sorted(cyl(at(0), 1), cyl(at(1), 1)), w.nextUnion(t), "the shared chunks are listed once")

	require.NoError(t, a.Close())
	assert.Equal(t, sorted(cyl(at(1), 1)), w.nextUnion(t), "b still wants the chunks it shared with a")

	require.NoError(t, b.Subscribe(at(100), 1))
	assert.Equal(t, sorted(cyl(at(100), 1)), w.nextUnion(t))
}
