package buildworkers

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testSeed = 412

// fakeBuilder builds a small box per item from the graph it is given, so
// its output depends on the graph exactly as a real builder's does.
type fakeBuilder struct {
	id      int
	scratch []uint32
	// hooks
	missing func(id int, it walker.Item) bool
	panicAt func(id int, n int) bool
	gate    chan struct{} // when set, each Build waits for a token
	count   func(it walker.Item) int
	trees   func(it walker.Item) []slots.Tree // nil: one tree at (1, 2, 3)
	seen    *sync.Map                         // records "mirror held the item" per build
	simple  bool
	n       int
}

func (b *fakeBuilder) Build(g *roadgraph.Graph, it walker.Item, origin [3]float64) (Output, bool) {
	b.n++
	if b.gate != nil {
		<-b.gate
	}
	if b.panicAt != nil && b.panicAt(b.id, b.n) {
		panic(fmt.Sprintf("builder %d exploded on build %d", b.id, b.n))
	}
	var p world.Vec2
	switch it.Kind {
	case walker.Segment:
		e := g.Edge(it.Edge)
		if e == nil || int(it.Seg) >= e.Segments() {
			return Output{}, false
		}
		p = e.Nodes[it.Seg]
	case walker.Junction:
		j := g.Junction(it.Junction)
		if j == nil {
			return Output{}, false
		}
		p = j.Pos
	}
	if b.seen != nil {
		b.seen.Store(it.Key, true)
	}
	if b.missing != nil && b.missing(b.id, it) {
		return Output{}, false
	}
	n := 36
	if b.count != nil {
		n = b.count(it)
	}
	b.scratch = b.scratch[:0]
	for i := 0; i < n; i++ {
		var v [slots.WordsPerVertex]uint32
		v[0], v[1] = slots.PackPos(p.X-origin[0], float64(i), p.Z-origin[2])
		v[3] = slots.PackMaterial(0, 0, float32(b.id)/256)
		b.scratch = append(b.scratch, v[:]...)
	}
	bounds := slots.Bounds{Min: [3]float64{p.X, 0, p.Z}, Max: [3]float64{p.X, float64(n), p.Z}}
	trees := []slots.Tree{{Pos: [3]float32{1, 2, 3}}}
	if b.trees != nil {
		trees = b.trees(it)
	}
	return Output{Verts: b.scratch, Count: n, Bounds: bounds, Simplified: b.simple,
		Trees: trees, Obstacles: []slots.Obstacle{slots.BoxObstacle([2]float64{p.X, p.Z}, 0, 1, 1, 0, float64(n), slots.ObstacleBuilding)}}, true
}

type harness struct {
	s    *Streamer
	buf  *slots.CPUBuffer
	car  world.Vec2
	head world.Vec2
	now  time.Time
	made atomic.Int32
}

func newHarness(t *testing.T, workers int, tweak func(*fakeBuilder), cfgTweak func(*Config)) *harness {
	h := &harness{now: time.Now()}
	cfg := DefaultConfig()
	cfg.Slots = slots.Config{Slots: 40, VertsPerSlot: 200, DynamicVerts: 0}
	cfg.Workers = workers
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.NewBuilder = func() Builder {
		b := &fakeBuilder{id: int(h.made.Add(1))}
		if tweak != nil {
			tweak(b)
		}
		return b
	}
	if cfgTweak != nil {
		cfgTweak(&cfg)
	}
	buf, err := slots.NewCPUBuffer(cfg.Slots)
	require.NoError(t, err)
	w := world.New(testSeed)
	s, err := NewStreamer(cfg, w, buf, h.now)
	require.NoError(t, err)
	h.s, h.buf = s, buf
	g := s.Graph()
	j := g.JunctionNear(world.Vec2{})
	g.EnsureJunctionArms(j)
	e := j.Arms[0]
	h.car, h.head = e.Nodes[e.Segments()/2], e.Tangent(e.Segments()/2)
	t.Cleanup(s.Close)
	return h
}

// frame runs one 60 Hz frame and lets the workers finish what they can.
func (h *harness) frame() { h.step(1.0 / 60) }

// step runs one frame of dt seconds and lets the workers finish what they
// can.
func (h *harness) step(dt float64) {
	h.now = h.now.Add(time.Duration(dt * float64(time.Second)))
	h.s.Update(dt, h.car, h.head, h.now)
	synctest.Wait()
}

func (h *harness) runUntilReady(t *testing.T, maxFrames int) int {
	for f := 0; f < maxFrames; f++ {
		h.frame()
		if h.s.Ready() {
			return f
		}
	}
	require.FailNow(t, "world never became ready", "%+v", h.s.Stats())
	return 0
}

func TestWorkersBuildTheInitialWorld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, nil, nil)
		assert.False(t, h.s.Ready())
		h.runUntilReady(t, 200)
		st := h.s.Stats()
		assert.Len(t, h.s.Visible(), 40, "the walk stops at the slot count")
		assert.Equal(t, 40, st.Used)
		assert.Equal(t, 40, st.WorkerBuilds)
		assert.Zero(t, st.MainBuilds)
		assert.Empty(t, st.Fallback)
		assert.InDelta(t, 1.0, h.s.Progress(), 1e-9)
		// Every used slot holds the bytes built for its item.
		for s := int32(0); s < 40; s++ {
			require.True(t, h.s.Table().Built(s))
			require.Equal(t, int32(36), h.buf.Counts[s])
			require.Len(t, h.s.Trees(s), 1)
			require.Len(t, h.s.Table().Obstacles(s), 1)
		}
	})
}

// A change set always precedes the build that needs it: with no eviction,
// no worker's mirror may ever lack an item it is asked to build.
func TestChangeSetPrecedesEveryBuild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen sync.Map
		h := newHarness(t, 2, func(b *fakeBuilder) { b.seen = &seen }, func(c *Config) { c.EvictEvery = time.Hour })
		h.runUntilReady(t, 200)
		// Drive on: the walk grows the graph, new requests need new edges.
		for f := 0; f < 600; f++ {
			h.car = h.car.Add(h.head.Scale(0.5))
			h.frame()
		}
		st := h.s.Stats()
		assert.Zero(t, st.Missing, "a mirror lacked an item")
		assert.Greater(t, st.WorkerBuilds, 40)
		n := 0
		seen.Range(func(_, _ any) bool { n++; return true })
		assert.Greater(t, n, 40)
	})
}

// The pool's ordered channel carries the change set first: a request sent
// right after the graph grew is built against a mirror that has the edge.
func TestDispatchSendsChangesBeforeRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := roadgraph.New(world.New(testSeed))
		var builds []string
		var mu sync.Mutex
		p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: 3, World: g.World(), NewBuilder: func() Builder {
			return BuilderFunc(func(m *roadgraph.Graph, it walker.Item, _ [3]float64) (Output, bool) {
				mu.Lock()
				defer mu.Unlock()
				builds = append(builds, fmt.Sprintf("%d:%v", it.Edge, m.Edge(it.Edge) != nil))
				return Output{}, m.Edge(it.Edge) != nil
			})
		}}, time.Now())
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		_, _ = p.Poll() // ready
		j := g.JunctionNear(world.Vec2{})
		for round := 0; round < 3; round++ {
			g.EnsureJunctionArms(j) // grows the graph: the signature moves
			e := j.Arms[len(j.Arms)-1]
			require.True(t, p.Dispatch(g, Request{ID: uint64(round + 1), Item: walker.Item{Kind: walker.Segment, Edge: e.ID}}))
			next := e.B
			if next == j {
				next = e.A
			}
			j = next
		}
		synctest.Wait()
		for {
			r, ok := p.Poll()
			if !ok {
				break
			}
			assert.False(t, r.Missing, "request %d built before its change set", r.ID)
		}
		mu.Lock()
		defer mu.Unlock()
		assert.Len(t, builds, 3)
	})
}

func TestResultForReleasedAndReclaimedSlotIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newHarness(t, 1, func(b *fakeBuilder) { b.gate = gate }, nil)
		s := h.s
		s.walked = true
		g := s.Graph()
		e := g.Edges()[0]
		x := walker.Item{Key: e.Key(0), Kind: walker.Segment, Edge: e.ID, Seg: 0}
		y := walker.Item{Key: e.Key(1), Kind: walker.Segment, Edge: e.ID, Seg: 1}
		synctest.Wait() // worker ready
		s.table.Sync([]walker.Item{x})
		s.drain(math.MaxInt)
		s.push()
		slot, _ := s.table.SlotOf(x.Key)
		require.Equal(t, 1, s.inFlight())
		// While x is in flight, it leaves and y takes the same slot.
		s.table.Sync(nil)
		s.table.Sync([]walker.Item{y})
		ys, _ := s.table.SlotOf(y.Key)
		require.Equal(t, slot, ys, "the freed slot is reclaimed")
		gate <- struct{}{} // x's build completes
		synctest.Wait()
		s.drain(math.MaxInt)
		assert.Equal(t, 1, s.Stats().StaleDropped)
		assert.False(t, s.table.Built(slot), "x's bytes never land in y's slot")
		assert.Zero(t, h.buf.Writes)
		// y's own request (sent by the push inside drain's frame) applies.
		s.push()
		gate <- struct{}{}
		synctest.Wait()
		s.drain(math.MaxInt)
		assert.True(t, s.table.Built(slot))
		assert.Equal(t, 1, h.buf.Writes)
	})
}

func TestRequeuedItemOnlyNewestResultApplies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newHarness(t, 1, func(b *fakeBuilder) { b.gate = gate }, nil)
		s := h.s
		s.walked = true
		e := s.Graph().Edges()[0]
		x := walker.Item{Key: e.Key(0), Kind: walker.Segment, Edge: e.ID}
		synctest.Wait()
		s.table.Sync([]walker.Item{x})
		s.drain(math.MaxInt)
		s.push()
		slot, _ := s.table.SlotOf(x.Key)
		s.table.Requeue(slot) // e.g. a new road appeared nearby
		s.push()
		require.Equal(t, 2, s.inFlight())
		gate <- struct{}{}
		gate <- struct{}{}
		synctest.Wait()
		s.drain(math.MaxInt)
		assert.Equal(t, 1, s.Stats().StaleDropped, "the older request is superseded")
		assert.Equal(t, 1, s.Stats().WorkerBuilds)
	})
}

func TestMissingFallsBackToMainGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mainBuilds atomic.Int32
		h := newHarness(t, 1, func(b *fakeBuilder) {
			b.missing = func(id int, it walker.Item) bool {
				if id == 1 { // the worker's builder
					return it.Seg%3 == 0
				}
				mainBuilds.Add(1)
				return false
			}
		}, nil)
		h.runUntilReady(t, 300)
		st := h.s.Stats()
		assert.Positive(t, st.Missing)
		assert.Equal(t, st.Missing, st.MainBuilds, "each missing item is built by the main goroutine")
		assert.Equal(t, int32(st.MainBuilds), mainBuilds.Load())
		for s := int32(0); s < int32(st.Used); s++ {
			assert.True(t, h.s.Table().Built(s))
		}
	})
}

func TestPanickingBuilderSwitchesToMainAndWorldCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, func(b *fakeBuilder) {
			b.panicAt = func(id, n int) bool { return id <= 2 && n == 5 }
		}, nil)
		frames := h.runUntilReady(t, 300)
		st := h.s.Stats()
		assert.Contains(t, st.Fallback, "exploded")
		assert.Positive(t, st.MainBuilds)
		assert.Equal(t, 40, st.Used)
		for s := int32(0); s < 40; s++ {
			assert.True(t, h.s.Table().Built(s))
		}
		// Main builds at most 5 per frame once workers are gone.
		assert.GreaterOrEqual(t, frames, st.MainBuilds/5-1)
	})
}

func TestNoWorkerReadyWithinTimeoutFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		h := newHarness(t, 1, nil, nil)
		// Replace the pool with one whose builder never finishes starting.
		h.s.pool.Close()
		p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: 3, World: world.New(testSeed), NewBuilder: func() Builder {
			<-block
			return &fakeBuilder{}
		}}, h.now)
		require.NoError(t, err)
		h.s.pool = p
		h.frame()
		assert.True(t, p.Healthy(), "still waiting")
		h.now = h.now.Add(ReadyTimeout)
		h.runUntilReady(t, 100)
		assert.Contains(t, h.s.Stats().Fallback, "no build worker ready")
		close(block)
	})
}

func TestOverflowIsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, func(b *fakeBuilder) {
			b.count = func(it walker.Item) int {
				if it.Seg%5 == 0 {
					return 500 // more than the 200-vertex slots
				}
				return 36
			}
		}, nil)
		for f := 0; f < 100; f++ {
			h.frame()
		}
		st := h.s.Stats()
		assert.Positive(t, st.Overflows)
		assert.Equal(t, uint64(st.Overflows), h.s.Table().Overflows())
	})
}

func TestSimplifiedBuildCountsAsOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, func(b *fakeBuilder) { b.simple = true }, nil)
		h.runUntilReady(t, 200)
		assert.Equal(t, h.s.Stats().Builds, h.s.Stats().Overflows)
	})
}

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	ok.NewBuilder = func() Builder { return &fakeBuilder{} }
	require.NoError(t, ok.Validate())
	for name, mutate := range map[string]func(*Config){
		"workers":     func(c *Config) { c.Workers = -1 },
		"inflight":    func(c *Config) { c.MaxInFlight = 0 },
		"builds":      func(c *Config) { c.MainBuildsPerFrame = 0 },
		"slots":       func(c *Config) { c.Slots.Slots = 0 },
		"verts":       func(c *Config) { c.Slots.VertsPerSlot = 1 },
		"weights":     func(c *Config) { c.Walk.ForwardWeight = -1 },
		"no builder":  func(c *Config) { c.NewBuilder = nil },
		"evict<reach": func(c *Config) { c.EvictKeep = 100 },
	} {
		c := ok
		mutate(&c)
		assert.Error(t, c.Validate(), name)
	}
}

func TestRebaseMovesOriginAndRebuildsEverySlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, nil, nil)
		h.runUntilReady(t, 200)
		require.Equal(t, [3]float64{}, h.s.Origin())
		// Teleport 3 km along the lattice: the origin must follow.
		g := h.s.Graph()
		j := g.JunctionNear(world.Vec2{X: 3000, Z: 0})
		require.NotNil(t, j)
		g.EnsureJunctionArms(j)
		e := j.Arms[0]
		h.car, h.head = e.Nodes[e.Segments()/2], e.Tangent(e.Segments()/2)
		// The re-base happens on the next walk, whenever its 0.25 s clock
		// fires after the initial build.
		for f := 0; h.s.Stats().Rebases == 0; f++ {
			require.LessOrEqual(t, f, int(h.s.cfg.VisibleEvery.Seconds()*60)+1, "the next walk re-bases")
			h.frame()
		}
		assert.False(t, h.s.Ready(), "everything is rebuilt")
		h.runUntilReady(t, 400)
		st := h.s.Stats()
		assert.Equal(t, 1, st.Rebases)
		o := h.s.Origin()
		assert.Less(t, math.Hypot(o[0]-h.car.X, o[2]-h.car.Z), 256.0)
		for s := int32(0); s < int32(st.Used); s++ {
			require.Equal(t, o, h.s.SlotOrigin(s), "slot %d rebuilt relative to the new origin", s)
		}
	})
}

func TestUploadBudgetBoundsWorkPerFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		itemBytes := 36 * slots.BytesPerVertex
		h := newHarness(t, 2, nil, func(c *Config) { c.UploadBytesPerFrame = 2*itemBytes + 1 })
		s := h.s
		prev := 0
		for f := 0; f < 200 && !s.Ready(); f++ {
			h.frame()
			got := s.Stats().WorkerBuilds - prev
			prev = s.Stats().WorkerBuilds
			require.LessOrEqual(t, got, 3, "frame %d applied %d results", f, got)
		}
		require.True(t, s.Ready(), "the world still completes")
	})
}
