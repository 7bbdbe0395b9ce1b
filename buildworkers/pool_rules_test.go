package buildworkers

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/walker"
)

// readyPool starts a pool of fake builders and consumes the workers' ready
// messages.
func readyPool(t *testing.T, workers, maxInFlight int) (*Pool, *roadgraph.Graph) {
	g := roadgraph.New(world.New(testSeed))
	g.EnsureJunctionArms(g.JunctionNear(world.Vec2{}))
	p, err := NewPool(PoolConfig{Workers: workers, MaxInFlight: maxInFlight, World: g.World(),
		NewBuilder: func() Builder { return &fakeBuilder{} }}, time.Now())
	require.NoError(t, err)
	t.Cleanup(p.Close)
	synctest.Wait()
	_, ok := p.Poll()
	require.False(t, ok, "only ready messages so far")
	return p, g
}

func inFlightPerWorker(p *Pool) []int {
	n := make([]int, len(p.workers))
	for i, w := range p.workers {
		n[i] = len(w.inFlight)
	}
	return n
}

func segReq(g *roadgraph.Graph, id uint64) Request {
	e := g.Edges()[0]
	return Request{ID: id, Item: walker.Item{Key: e.Key(0), Kind: walker.Segment, Edge: e.ID}}
}

// Each request goes to the worker with the fewest in flight, and no worker
// holds more than its cap: with three workers of three, nine go out and the
// tenth waits.
func TestDispatchLeastBusyUpToTheCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, g := readyPool(t, 3, 3)
		id := uint64(0)
		for round := 1; round <= 3; round++ {
			for range 3 {
				id++
				require.True(t, p.Dispatch(g, segReq(g, id)))
			}
			assert.Equal(t, []int{round, round, round}, inFlightPerWorker(p), "spread evenly")
		}
		assert.False(t, p.Dispatch(g, segReq(g, 10)), "every worker at its cap")
		assert.Equal(t, 9, p.InFlight())

		// Answers free the worker that gave them; the next request goes there.
		synctest.Wait()
		r, ok := p.Poll()
		require.True(t, ok)
		counts := inFlightPerWorker(p)
		assert.Equal(t, 8, p.InFlight())
		assert.Equal(t, 2, counts[r.Worker], "the answering worker has one fewer")
		require.True(t, p.Dispatch(g, segReq(g, 11)))
		assert.Equal(t, []int{3, 3, 3}, inFlightPerWorker(p), "the freed worker took it")
	})
}

// The default cap is three requests per worker.
func TestDefaultInFlightCapIsThree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		require.Equal(t, 3, DefaultConfig().MaxInFlight)
		p, g := readyPool(t, 1, DefaultConfig().MaxInFlight)
		for i := uint64(1); i <= 3; i++ {
			require.True(t, p.Dispatch(g, segReq(g, i)), "request %d", i)
		}
		assert.False(t, p.Dispatch(g, segReq(g, 4)))
	})
}

// A worker that has not reported ready gets nothing.
func TestDispatchWaitsForReadyWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := roadgraph.New(world.New(testSeed))
		g.EnsureJunctionArms(g.JunctionNear(world.Vec2{}))
		block := make(chan struct{})
		p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: 3, World: g.World(),
			NewBuilder: func() Builder { <-block; return &fakeBuilder{} }}, time.Now())
		require.NoError(t, err)
		defer p.Close()
		synctest.Wait()
		p.Poll()
		assert.False(t, p.Dispatch(g, segReq(g, 1)), "not ready yet")
		close(block)
		synctest.Wait()
		p.Poll()
		assert.True(t, p.Dispatch(g, segReq(g, 1)))
	})
}

// The pool gives up on its workers exactly 10 s after it started when none
// reported ready; a ready worker keeps it healthy for ever.
func TestReadyTimeoutIsTenSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		start := time.Now()
		p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: 3, World: world.New(testSeed),
			NewBuilder: func() Builder { <-block; return &fakeBuilder{} }}, start)
		require.NoError(t, err)
		defer func() { close(block); p.Close() }()
		p.CheckReady(start.Add(9999 * time.Millisecond))
		assert.True(t, p.Healthy(), "still waiting at 9.999 s")
		p.CheckReady(start.Add(10 * time.Second))
		assert.False(t, p.Healthy(), "given up at 10 s")
		assert.Contains(t, p.Failure(), "no build worker ready within 10s")
	})
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		p, _ := readyPool(t, 1, 3)
		p.CheckReady(start.Add(time.Hour))
		assert.True(t, p.Healthy(), "a worker reported ready")
	})
}

func readyGraph() *roadgraph.Graph {
	g := roadgraph.New(world.New(testSeed))
	g.EnsureJunctionArms(g.JunctionNear(world.Vec2{}))
	return g
}
