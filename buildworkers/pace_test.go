package buildworkers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/walker"
)

func pacedPool(t *testing.T) *Pool {
	t.Helper()
	p, err := NewPool(PoolConfig{Workers: 1, MaxInFlight: 3, World: world.New(1),
		NewBuilder: func() Builder {
			return BuilderFunc(func(*roadgraph.Graph, walker.Item, [3]float64) (Output, bool) { return Output{}, true })
		}}, time.Now())
	require.NoError(t, err)
	t.Cleanup(p.Close)
	p.Pace()
	p.hold(<-p.out) // the worker's ready message
	require.True(t, p.workers[0].ready)
	return p
}

// A worker is a queue in game time: each result is due when the builds
// before it on that worker and its own build time are over, and until then
// it stays in flight.
func TestPacedResultsAreHandedOverWhenAPlayersWorkerWouldFinish(t *testing.T) {
	p := pacedPool(t)
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	w := p.workers[0]
	for i, r := range []struct {
		sent time.Duration
		took time.Duration
	}{{0, 4 * ms}, {0, 4 * ms}, {5 * ms, 1 * ms}} {
		req := Request{ID: uint64(i + 1), Sent: t0.Add(r.sent)}
		w.inFlight = append(w.inFlight, req)
		p.out <- message{res: Result{Request: req, Took: r.took}}
	}
	poll := func(at time.Duration) []uint64 {
		p.setNow(t0.Add(at))
		var ids []uint64
		for {
			r, ok := p.Poll()
			if !ok {
				return ids
			}
			ids = append(ids, r.ID)
		}
	}
	assert.Empty(t, poll(3*ms), "the first build is not done yet")
	assert.Equal(t, 3, p.InFlight(), "held results still count as in flight")
	assert.Equal(t, []uint64{1}, poll(4*ms))
	assert.Empty(t, poll(7*ms), "the second waited for the first: due at 8 ms")
	assert.Equal(t, []uint64{2}, poll(8*ms))
	assert.Empty(t, poll(8*ms+ms/2), "the third was sent at 5 ms but queued behind the second")
	assert.Equal(t, []uint64{3}, poll(9*ms))
	assert.Zero(t, p.InFlight())
}

func TestAwaitCollectsEveryAnswerWithoutHandingItOverEarly(t *testing.T) {
	p := pacedPool(t)
	g := roadgraph.New(world.New(1))
	t0 := time.Unix(2000, 0)
	p.setNow(t0)
	for i := 1; i <= 3; i++ {
		require.True(t, p.Dispatch(g, Request{ID: uint64(i), Item: walker.Item{Key: int64(i)}}))
	}
	require.False(t, p.Dispatch(g, Request{ID: 4}), "the in-flight cap holds while paced")
	p.Await()
	require.Len(t, p.pace.held, 3, "every answer is in")
	_, ok := p.Poll()
	assert.False(t, ok, "nothing is due at the moment it was sent")
	p.setNow(t0.Add(time.Minute))
	for i := 1; i <= 3; i++ {
		r, ok := p.Poll()
		require.True(t, ok)
		assert.Equal(t, uint64(i), r.ID, "in order")
		assert.Equal(t, t0, r.Sent, "stamped with the game time of its dispatch")
	}
	p.Await() // nothing in flight: returns at once
}
