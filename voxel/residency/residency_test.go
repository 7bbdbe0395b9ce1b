package residency

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// marked returns a chunk whose block 0 encodes nothing but being made by
// the fake loader.
func fakeLoad(p voxel.ChunkPos) (*voxel.Chunk, error) {
	c := new(voxel.Chunk)
	c.SetIndex(0, voxel.Stone)
	return c, nil
}

func TestReconcileConvergesOverPasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := New(fakeLoad, 2)
		defer r.Close()
		d := plan.Union(plan.Anchor{Centre: voxel.ChunkPos{}, Radius: 3})
		r.Reconcile(d)
		assert.Equal(t, 0, r.Resident(), "first pass only dispatches")
		assert.Positive(t, r.InFlight())
		assert.False(t, r.Idle())
		for pass := 0; pass < 100 && !(r.Idle() && r.Resident() == d.Len()); pass++ {
			synctest.Wait() // workers finished everything they can
			r.Reconcile(d)
			assert.LessOrEqual(t, r.Resident()+r.InFlight(), d.Len())
		}
		assert.Equal(t, d.Len(), r.Resident())
		assert.True(t, r.Idle())
		assert.Equal(t, 1.0, r.Progress())
		for _, p := range d.Order() {
			_, ok := r.Chunk(p)
			assert.True(t, ok, "%v resident", p)
		}
		// moving the anchor evicts what left the set
		d2 := plan.Union(plan.Anchor{Centre: voxel.ChunkPos{X: 100}, Radius: 1})
		r.Reconcile(d2)
		_, ok := r.Chunk(voxel.ChunkPos{})
		assert.False(t, ok)
		assert.Equal(t, 0, r.Resident())
	})
}

func TestEvictedWhileInFlightIsDroppedOnArrival(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
			<-gate
			return fakeLoad(p)
		}, 1)
		defer r.Close()
		p := voxel.ChunkPos{X: 1}
		r.Reconcile(plan.Of(p))
		require.Equal(t, 1, r.InFlight())
		assert.Equal(t, 0.0, r.Progress())
		r.Reconcile(plan.Of()) // no longer wanted while generating
		assert.Equal(t, 1, r.InFlight(), "in flight until it returns")
		close(gate)
		synctest.Wait()
		r.Reconcile(plan.Of())
		_, ok := r.Chunk(p)
		assert.False(t, ok, "a late arrival must not resurrect an evicted chunk")
		assert.Equal(t, 0, r.Resident())
		assert.True(t, r.Idle())
	})
}

func TestEditWhileInFlightRegenerates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		loads := 0
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
			<-gate
			mu.Lock()
			loads++
			mu.Unlock()
			return fakeLoad(p)
		}, 1)
		defer r.Close()
		p := voxel.ChunkPos{}
		d := plan.Of(p)
		r.Reconcile(d)
		assert.False(t, r.Edit(p, 7, voxel.Sand), "not resident yet")
		close(gate)
		synctest.Wait()
		r.Reconcile(d) // stale result dropped, dispatched again
		assert.Equal(t, 0, r.Resident())
		synctest.Wait()
		r.Reconcile(d)
		assert.Equal(t, 1, r.Resident())
		mu.Lock()
		assert.Equal(t, 2, loads)
		mu.Unlock()
		before, _ := r.Chunk(p)
		require.True(t, r.Edit(p, 7, voxel.Sand))
		after, _ := r.Chunk(p)
		assert.Equal(t, voxel.Air, before.AtIndex(7), "snapshots handed out stay unchanged")
		assert.Equal(t, voxel.Sand, after.AtIndex(7))
	})
}

func TestLoaderErrorIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		fail := true
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
			mu.Lock()
			defer mu.Unlock()
			if fail {
				fail = false
				return nil, errors.New("disk on fire")
			}
			return fakeLoad(p)
		}, 1)
		defer r.Close()
		d := plan.Of(voxel.ChunkPos{})
		for range 3 {
			r.Reconcile(d)
			synctest.Wait()
		}
		r.Reconcile(d)
		assert.EqualError(t, r.Err(), "disk on fire")
		assert.Equal(t, 1, r.Resident())
	})
}

func TestQueueFullDefersDispatchWithoutBlocking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, 1)
		defer r.Close()
		d := plan.Union(plan.Anchor{Radius: 6})
		r.Reconcile(d) // must return although far more is desired than fits
		assert.Less(t, r.InFlight(), d.Len())
		assert.Positive(t, r.InFlight())
		close(gate)
		for range 200 {
			synctest.Wait()
			r.Reconcile(d)
		}
		assert.Equal(t, d.Len(), r.Resident())
	})
}

// Progress is the resident share of the wanted chunks: one of two loaded
// (the other held in its loader) is half way.
func TestProgressIsTheResidentShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := voxel.ChunkPos{X: 2}
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
			if p == slow {
				<-gate
			}
			return fakeLoad(p)
		}, 2)
		defer r.Close()
		want := plan.Of(voxel.ChunkPos{X: 1}, slow)
		r.Reconcile(want)
		synctest.Wait() // the fast one is back, the slow one still loading
		r.Reconcile(want)
		require.Equal(t, 1, r.Resident())
		require.Equal(t, 1, r.InFlight())
		assert.Equal(t, 0.5, r.Progress())
		close(gate)
		synctest.Wait()
		r.Reconcile(want)
		assert.Equal(t, 1.0, r.Progress())
	})
}
