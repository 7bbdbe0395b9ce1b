package residency

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// Workers never block on a result while the owner is between passes: every
// job dispatched in one pass has arrived by the next.
func TestOnePassDrainsEverythingDispatchedBefore(t *testing.T) {
	for _, workers := range []int{1, 3} {
		synctest.Test(t, func(t *testing.T) {
			gate := make(chan struct{})
			r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, workers)
			defer r.Close()
			synctest.Wait() // the workers wait for jobs
			d := plan.Union(plan.Anchor{Radius: 6})
			r.Reconcile(d)
			synctest.Wait()
			r.Reconcile(d) // tops the queue up behind the jobs the workers hold
			sent := r.InFlight()
			require.Equal(t, workers*(queuePerWorker+1), sent, "one job in each worker, the queue full")
			close(gate)
			synctest.Wait() // workers finish all of it
			r.Reconcile(d)
			assert.Equal(t, sent, r.Resident(), "%d workers: all %d results drained in one pass", workers, sent)
		})
	}
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, 2)
		defer r.Close()
		synctest.Wait()
		for _, p := range plan.Cylinder(voxel.ChunkPos{}, 6, nil) {
			r.Want(p)
		}
		r.Pump(nil)
		synctest.Wait()
		r.Pump(nil)
		sent := r.InFlight()
		require.Equal(t, 2*(queuePerWorker+1), sent)
		close(gate)
		synctest.Wait()
		assert.Len(t, r.Pump(nil), sent, "incremental: all results drained in one pass")
	})
}

func TestProgressAndQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var mu sync.Mutex
		open := map[voxel.ChunkPos]bool{}
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
			for {
				mu.Lock()
				ok := open[p]
				mu.Unlock()
				if ok {
					return fakeLoad(p)
				}
				if _, more := <-gate; !more {
					return fakeLoad(p) // closed: the test is over
				}
			}
		}, 1)
		defer func() { close(gate); r.Close() }()
		assert.Equal(t, 1.0, r.Progress(), "nothing to do is done")
		var ps []voxel.ChunkPos
		for x := range int32(20) {
			p := voxel.ChunkPos{X: x}
			ps = append(ps, p)
			r.Want(p)
		}
		assert.Equal(t, 20, r.Queued())
		r.Pump(nil)
		inFlight := r.InFlight()
		require.Positive(t, inFlight)
		require.Less(t, inFlight, 20)
		assert.Equal(t, 20-inFlight, r.Queued(), "dispatched entries leave the queue")
		// Let exactly two of the dispatched chunks finish, one at a time.
		mu.Lock()
		open[ps[0]] = true
		mu.Unlock()
		gate <- struct{}{} // the worker holds ps[0]
		synctest.Wait()
		got := r.Pump(nil)
		require.Equal(t, []voxel.ChunkPos{ps[0]}, got)
		mu.Lock()
		open[ps[1]] = true
		mu.Unlock()
		gate <- struct{}{} // now it holds ps[1]
		synctest.Wait()
		got = r.Pump(nil)
		require.Equal(t, []voxel.ChunkPos{ps[1]}, got)
		assert.Equal(t, 2, r.Resident())
		assert.InDelta(t, 2.0/float64(2+r.InFlight()), r.Progress(), 1e-12)
		assert.Less(t, r.Progress(), 1.0)
	})
}

// Unwanting compacts the dispatch queue only once stale entries outnumber
// the live ones (by more than 64), and then keeps only wanted entries that
// still wait.
func TestUnwantCompactsOnlyPastTheThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, 1)
		defer func() { close(gate); r.Close() }()
		var ps []voxel.ChunkPos
		for x := range int32(200) {
			p := voxel.ChunkPos{X: x}
			ps = append(ps, p)
			r.Want(p)
		}
		r.Pump(nil)
		dispatched := r.InFlight()
		require.Positive(t, dispatched)
		queued := r.Queued()
		require.Equal(t, 200-dispatched, queued)
		compactions := 0
		for i := len(ps) - 1; i >= dispatched; i-- {
			r.Unwant(ps[i])
			live := r.Wanted()
			if queued > 2*live+64 {
				compactions++
				queued = live - dispatched // the dispatched ones left the queue
			}
			require.Equal(t, queued, r.Queued(), "after unwanting %d, %d wanted", ps[i].X, live)
		}
		assert.Equal(t, 1, compactions)
		r.Want(ps[199])
		assert.Equal(t, queued+1, r.Queued(), "wanted again: queued behind the rest")
	})
}

// A chunk unwanted and wanted again while in flight is loaded once: its
// result counts, and its second queue entry is skipped once it is resident.
func TestWantedAgainWhileInFlightLoadsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		loads := map[voxel.ChunkPos]int{}
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
			<-gate
			mu.Lock()
			loads[p]++
			mu.Unlock()
			return fakeLoad(p)
		}, 1)
		defer r.Close()
		p := voxel.ChunkPos{Y: 3}
		r.Want(p)
		r.Pump(nil)
		require.Equal(t, 1, r.InFlight())
		r.Unwant(p)
		r.Want(p) // queued again while its first load runs
		assert.Equal(t, 1, r.Queued())
		close(gate)
		synctest.Wait()
		assert.Equal(t, []voxel.ChunkPos{p}, r.Pump(nil))
		assert.Equal(t, 0, r.Queued())
		synctest.Wait()
		r.Pump(nil)
		mu.Lock()
		assert.Equal(t, 1, loads[p])
		mu.Unlock()
		assert.True(t, r.Idle())
	})
}
