package buildworkers

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// The config's buffer layout is its tiers' slot sizes: the defaults are
// the slots package's, and a change to either tier shows in it.
func TestConfigLayout(t *testing.T) {
	c := DefaultConfig()
	assert.Equal(t, slots.DefaultLayout(), c.Layout())
	c.Slots.Slots, c.Far.Slots, c.Far.VertsPerSlot = 100, 10, 500
	l := c.Layout()
	assert.Equal(t, slots.Config{Slots: 100, VertsPerSlot: slots.DefaultVertsPerSlot, DynamicVerts: slots.DefaultDynamicVerts}, l.Near)
	assert.Equal(t, slots.Config{Slots: 10, VertsPerSlot: 500}, l.Far)
	c.Far.Slots = 0
	assert.Equal(t, c.Slots.TotalVerts(), c.Layout().TotalVerts(), "no far tier: no far region")
}

func TestConfigLimits(t *testing.T) {
	ok := DefaultConfig()
	ok.NewBuilder = func() Builder { return &fakeBuilder{} }
	require.NoError(t, ok.Validate())
	valid := map[string]func(*Config){
		"no workers":       func(c *Config) { c.Workers = 0 },
		"256 workers":      func(c *Config) { c.Workers = 256 },
		"1 in flight":      func(c *Config) { c.MaxInFlight = 1 },
		"64 in flight":     func(c *Config) { c.MaxInFlight = 64 },
		"1 build":          func(c *Config) { c.MainBuildsPerFrame = 1 },
		"1000 builds":      func(c *Config) { c.MainBuildsPerFrame = 1000 },
		"1 byte":           func(c *Config) { c.UploadBytesPerFrame = 1 },
		"no requeue":       func(c *Config) { c.RequeueRadius = 0 },
		"keep beyond 380m": func(c *Config) { c.Walk.ForwardWeight = 2; c.EvictKeep = 400 },
	}
	for name, mutate := range valid {
		c := ok
		mutate(&c)
		assert.NoError(t, c.Validate(), name)
	}
	invalid := map[string]func(*Config){
		"257 workers":      func(c *Config) { c.Workers = 257 },
		"65 in flight":     func(c *Config) { c.MaxInFlight = 65 },
		"1001 builds":      func(c *Config) { c.MainBuildsPerFrame = 1001 },
		"0 bytes":          func(c *Config) { c.UploadBytesPerFrame = 0 },
		"walk clock":       func(c *Config) { c.VisibleEvery = 0 },
		"evict clock":      func(c *Config) { c.EvictEvery = 0 },
		"keep = reach":     func(c *Config) { c.EvictKeep = 760 },
		"keep < reach":     func(c *Config) { c.Walk.ForwardWeight = 0.5; c.EvictKeep = 1200 },
		"negative requeue": func(c *Config) { c.RequeueRadius = -1 },
		"NaN requeue":      func(c *Config) { c.RequeueRadius = math.NaN() },
		"no rebase":        func(c *Config) { c.RebaseDistance = 0 },
	}
	for name, mutate := range invalid {
		c := ok
		mutate(&c)
		assert.Error(t, c.Validate(), name)
	}
	// The eviction radius's error names the reach it must exceed.
	c := ok
	c.Walk.ForwardWeight, c.EvictKeep = 0.5, 1200
	assert.ErrorContains(t, c.Validate(), "eviction radius 1200 m must exceed the walk's reach 1520 m")
	pc := PoolConfig{Workers: 256, MaxInFlight: 64, NewBuilder: ok.NewBuilder}
	assert.NoError(t, pc.validate())
	pc.Workers, pc.MaxInFlight = 1, 1
	assert.NoError(t, pc.validate())
	pc.Workers, pc.MaxInFlight = 0, 3
	assert.Error(t, pc.validate())
	pc.Workers, pc.MaxInFlight = 257, 3
	assert.Error(t, pc.validate())
	pc.Workers, pc.MaxInFlight = 1, 65
	assert.Error(t, pc.validate())
	pc.MaxInFlight = 0
	assert.Error(t, pc.validate())
}

func TestFirstLine(t *testing.T) {
	assert.Equal(t, "worker 1 panicked", firstLine("worker 1 panicked\ngoroutine 7\n"))
	assert.Equal(t, "one line", firstLine("one line"))
	assert.Equal(t, "", firstLine("\nrest"))
}

// While builds are in flight the counters say so, and the world is not
// ready; each landed result moves Progress by one slot.
func TestStatsAndProgressWhileBuilding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		defer close(gate)
		h := newHarness(t, 1, func(b *fakeBuilder) { b.gate = gate }, nil)
		synctest.Wait()
		assert.False(t, h.s.Ready(), "not walked yet")
		assert.Zero(t, h.s.Progress(), "no slots used")
		h.frame() // the walk (the worker's ready message is read next frame)
		assert.Zero(t, h.s.Stats().InFlight)
		assert.Equal(t, 40, h.s.Stats().Pending)
		h.frame() // dispatch
		st := h.s.Stats()
		assert.Equal(t, 40, st.Used)
		assert.Equal(t, 40, st.Total)
		assert.Equal(t, DefaultMaxInFlight, st.InFlight)
		assert.Equal(t, 40-DefaultMaxInFlight, st.Pending)
		assert.Empty(t, st.Fallback)
		assert.False(t, h.s.Ready())
		assert.Zero(t, h.s.Progress())
		for i := 1; i <= 4; i++ {
			gate <- struct{}{}
			synctest.Wait()
			h.frame()
			assert.InDelta(t, float64(i)/40, h.s.Progress(), 1e-12, "after %d results", i)
			assert.Equal(t, i, h.s.Stats().WorkerBuilds)
			assert.Equal(t, DefaultMaxInFlight, h.s.Stats().InFlight, "topped up")
		}
	})
}

// Each slot keeps its own item's trees, and the vertex counters add up.
func TestTreesPerSlotAndVertexCounters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		count := func(it walker.Item) int { return 36 + int(it.Seg%5) }
		trees := func(it walker.Item) []slots.Tree {
			out := make([]slots.Tree, 1+int(it.Seg%3))
			for i := range out {
				out[i] = slots.Tree{Pos: [3]float32{float32(it.Seg), float32(i), float32(it.Edge % 1000)}}
			}
			return out
		}
		h := newHarness(t, 2, func(b *fakeBuilder) { b.count, b.trees = count, trees }, nil)
		h.runUntilReady(t, 200)
		tab := h.s.Table()
		var verts int64
		most := 0
		for s := int32(0); s < int32(tab.Config().Slots); s++ {
			it := tab.Item(s)
			require.Equal(t, trees(it), h.s.Trees(s), "slot %d", s)
			verts += int64(count(it))
			most = max(most, count(it))
		}
		st := h.s.Stats()
		assert.Equal(t, verts, st.VertsBuilt)
		assert.Equal(t, most, st.MaxVertsInItem)
		assert.Equal(t, 40, st.Builds)
	})
}

// An item that overflows again is named in the log once: the logger
// forgets the keys it named only after overflowLogKeys of them.
func TestAnOverflowingItemIsLoggedOnce(t *testing.T) {
	const msg = "item exceeded its slot; built with simplified detail"
	logs := &captured{msgs: map[string]int{}}
	s := &Streamer{log: slog.New(logs), overflowLog: make(chan int64, 8), loggerDone: make(chan struct{})}
	for _, k := range []int64{7, 7, 9, 7, 9, 11} {
		s.overflowLog <- k
	}
	close(s.overflowLog)
	s.runLogger()
	assert.Equal(t, 3, logs.n(msg), "keys 7, 9 and 11, once each")
}

// captured counts log records by message; while hold is open, Handle
// waits for it to close.
type captured struct {
	mu   sync.Mutex
	msgs map[string]int
	hold chan struct{}
}

func (c *captured) Enabled(context.Context, slog.Level) bool { return true }
func (c *captured) Handle(_ context.Context, r slog.Record) error {
	if c.hold != nil {
		<-c.hold
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs[r.Message]++
	return nil
}
func (c *captured) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *captured) WithGroup(string) slog.Handler      { return c }
func (c *captured) n(msg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msgs[msg]
}

// Overflow lines go through the configured logger on the log goroutine;
// while it is held up, 64 wait and the rest are dropped and counted. The
// overflow counter itself stays exact.
func TestOverflowLogLinesQueueThenDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const msg = "item exceeded its slot; built with simplified detail"
		logs := &captured{msgs: map[string]int{}, hold: make(chan struct{})}
		h := newHarness(t, 0, func(b *fakeBuilder) { b.simple = true }, func(c *Config) {
			c.Slots.Slots = 100
			c.Log = slog.New(logs) // the log goroutine waits in it
		})
		h.runUntilReady(t, 100)
		st := h.s.Stats()
		require.Equal(t, 100, st.Overflows)
		assert.Equal(t, "no workers configured", st.Fallback)
		assert.Equal(t, 100-overflowLogQueue-1, st.LogLinesDropped, "one line held by the logger, 64 queued")
		assert.Zero(t, logs.n(msg))
		close(logs.hold)
		synctest.Wait()
		assert.Equal(t, overflowLogQueue+1, logs.n(msg))
	})
}

// A failing worker pool hands back exactly the requests it had not
// answered; the main goroutine builds them, warns once, and says why.
func TestFailedPoolReturnsUnansweredRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, gate := readyGraph(), make(chan struct{})
		defer close(gate)
		p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: 3, World: g.World(), NewBuilder: func() Builder {
			return &fakeBuilder{gate: gate, panicAt: func(_, n int) bool { return n == 2 }}
		}}, time.Now())
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		p.Poll()
		for id := uint64(1); id <= 3; id++ {
			require.True(t, p.Dispatch(g, segReq(g, id)))
		}
		gate <- struct{}{} // build 1 completes
		synctest.Wait()
		r, ok := p.Poll()
		require.True(t, ok)
		assert.Equal(t, uint64(1), r.ID)
		gate <- struct{}{} // build 2 panics
		synctest.Wait()
		_, ok = p.Poll()
		assert.False(t, ok)
		assert.False(t, p.Healthy())
		assert.Contains(t, p.Failure(), "exploded on build 2")
		var ids []uint64
		for _, r := range p.TakeReturned() {
			ids = append(ids, r.ID)
		}
		assert.Equal(t, []uint64{2, 3}, ids)
		assert.Empty(t, p.TakeReturned(), "handed over once")
		assert.Zero(t, p.InFlight())
		assert.False(t, p.Dispatch(g, segReq(g, 4)), "a failed pool takes nothing")
	})
	synctest.Test(t, func(t *testing.T) {
		logs := &captured{msgs: map[string]int{}}
		h := newHarness(t, 1, func(b *fakeBuilder) {
			b.panicAt = func(id, n int) bool { return id == 1 && n == 2 }
		}, func(c *Config) { c.Log = slog.New(logs) })
		h.runUntilReady(t, 300)
		st := h.s.Stats()
		assert.Contains(t, st.Fallback, "exploded on build 2")
		assert.Equal(t, 1, logs.n("build workers failed; the main goroutine builds from now on"))
		assert.Equal(t, 40, st.Builds)
		assert.Equal(t, 1, st.WorkerBuilds)
		assert.Equal(t, 39, st.MainBuilds, "including the two handed back")
	})
}

// Every answer of a full pool is waiting when the main goroutine polls:
// workers never block on it.
func TestPollCollectsEveryAnswerOfAFullPool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := readyPool(t, 3, 3)
		for id := uint64(1); id <= 9; id++ {
			require.True(t, p.Dispatch(g, segReq(g, id)))
		}
		synctest.Wait()
		n := 0
		for {
			r, ok := p.Poll()
			if !ok {
				break
			}
			assert.False(t, r.Missing)
			assert.NotEmpty(t, r.Verts)
			p.Recycle(&r)
			assert.Nil(t, r.Verts, "recycled memory is no longer the caller's")
			n++
		}
		assert.Equal(t, 9, n)
		assert.Zero(t, p.InFlight())
	})
}

// The origin snaps to the 256 m grid nearest the car, and moves again only
// when the car strays more than RebaseDistance from it, in any direction.
func TestRebaseSnapsAndMeasuresFromTheCurrentOrigin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 1, nil, nil)
		h.runUntilReady(t, 200)
		walkAt := func(p world.Vec2) {
			t.Helper()
			h.car = p
			h.s.refreshVisible(h.car, h.head)
		}
		walkAt(world.Vec2{X: 3000, Z: -2100})
		require.Equal(t, 1, h.s.Stats().Rebases)
		assert.Equal(t, [3]float64{3072, 0, -2048}, h.s.Origin())
		walkAt(world.Vec2{X: 3072 + 2000, Z: -2048})
		walkAt(world.Vec2{X: 3072, Z: -2048 - 2000})
		walkAt(world.Vec2{X: 3072 - 1400, Z: -2048 + 1400})
		walkAt(world.Vec2{X: 3072, Z: -2048 + 2048})
		assert.Equal(t, 1, h.s.Stats().Rebases, "within 2048 m of the new origin, or exactly 2048 m")
		walkAt(world.Vec2{X: 3072, Z: -2048 + 2100})
		assert.Equal(t, 2, h.s.Stats().Rebases, "2100 m along z")
		assert.Equal(t, [3]float64{3072, 0, 0}, h.s.Origin())
	})
}

// A walk frame applies no results: the walk is that frame's big job.
func TestNoResultsLandOnAWalkFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		defer close(gate)
		h := newHarness(t, 1, func(b *fakeBuilder) { b.gate = gate }, nil)
		h.frame() // walk
		h.frame() // dispatch
		require.Equal(t, DefaultMaxInFlight, h.s.Stats().InFlight)
		for h.s.visibleT-1.0/60 > 0 { // up to the frame before the next walk
			h.frame()
		}
		for range DefaultMaxInFlight {
			gate <- struct{}{}
		}
		synctest.Wait() // three results wait
		h.frame()       // the walk frame
		assert.Zero(t, h.s.Stats().WorkerBuilds, "nothing landed on the walk frame")
		h.frame()
		assert.Equal(t, DefaultMaxInFlight, h.s.Stats().WorkerBuilds, "they land on the next")
	})
}

// Without workers the main goroutine builds exactly MainBuildsPerFrame
// items a frame; items handed back as missing are built at most that many
// a frame too.
func TestMainBuildsPerFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 0, nil, nil)
		for f := 1; f <= 4; f++ {
			h.frame()
			assert.Equal(t, 5*f, h.s.Stats().MainBuilds, "frame %d", f)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 2, func(b *fakeBuilder) {
			b.missing = func(id int, _ walker.Item) bool { return id <= 2 } // every worker's build
		}, nil)
		prev, most, queued := 0, 0, false
		for f := 0; f < 200 && !h.s.Ready(); f++ {
			h.frame()
			n := h.s.Stats().MainBuilds - prev
			prev = h.s.Stats().MainBuilds
			require.LessOrEqual(t, n, 5, "frame %d", f)
			most = max(most, n)
			// Pending counts what waits in the table and in the main queue.
			queued = queued || len(h.s.mainQ) > 0
			assert.Equal(t, len(h.s.Table().Pending())+len(h.s.mainQ), h.s.Stats().Pending)
		}
		require.True(t, h.s.Ready())
		assert.True(t, queued, "missing items waited in the main queue")
		assert.Equal(t, 5, most)
		assert.Equal(t, 40, h.s.Stats().MainBuilds)
		assert.Equal(t, 40, h.s.Stats().Missing)
	})
}

// Dispatch never blocks the main goroutine, even when a worker is stuck and
// every request needs a change set before it.
func TestDispatchNeverBlocksOnAStuckWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		g := readyGraph()
		const maxInFlight = 5
		p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: maxInFlight, World: g.World(),
			NewBuilder: func() Builder { return &fakeBuilder{gate: gate} }}, time.Now())
		require.NoError(t, err)
		defer p.Close()
		defer close(gate) // before Close: the worker must finish
		synctest.Wait()
		p.Poll()
		j := g.Junctions()[0]
		for id := uint64(1); id <= maxInFlight; id++ {
			for _, e := range j.Arms { // grow: the next request needs a change set
				g.EnsureJunctionArms(e.A)
				g.EnsureJunctionArms(e.B)
			}
			j = j.Arms[0].B
			require.True(t, p.Dispatch(g, segReq(g, id)), "request %d", id)
		}
		assert.False(t, p.Dispatch(g, segReq(g, maxInFlight+1)), "at the cap")
	})
}
