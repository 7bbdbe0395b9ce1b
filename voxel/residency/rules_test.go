package residency

import (
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
}
