package residency

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// pumpUntilIdle pumps until nothing is in flight or queued, collecting what
// became resident.
func pumpUntilIdle(t *testing.T, r *Residency) []voxel.ChunkPos {
	t.Helper()
	var got []voxel.ChunkPos
	for pass := 0; pass < 1000; pass++ {
		got = r.Pump(got)
		if r.Idle() && r.Queued() == 0 {
			return got
		}
		synctest.Wait()
	}
	t.Fatal("residency did not settle")
	return nil
}

func TestIncrementalWantPumpUnwant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Workers hold their jobs until the bound below is checked: under
		// the race detector they run in parallel with Pump and would
		// otherwise make room in the queue while it dispatches.
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, 2)
		defer r.Close()
		area := plan.Cylinder(voxel.ChunkPos{}, 3, nil)
		for _, p := range area {
			r.Want(p)
			r.Want(p) // twice is a no-op
		}
		assert.Equal(t, len(area), r.Wanted())
		assert.Equal(t, len(area), r.Queued())
		got := r.Pump(nil)
		assert.Empty(t, got, "the first pass only dispatches")
		assert.Positive(t, r.InFlight())
		assert.LessOrEqual(t, r.InFlight(), 2*(queuePerWorker+1), "dispatch is bounded by the job queue")
		close(gate)
		got = append(got, pumpUntilIdle(t, r)...)
		assert.ElementsMatch(t, area, got, "each chunk reported once, when it became resident")
		assert.Equal(t, len(area), r.Resident())

		// Moving: unwant the old area, want a new one. Resident chunks go
		// at once; nothing else is touched.
		for _, p := range area[:10] {
			r.Unwant(p)
			_, ok := r.Chunk(p)
			assert.False(t, ok)
		}
		r.Unwant(voxel.ChunkPos{X: 999}) // never wanted: no-op
		assert.Equal(t, len(area)-10, r.Resident())
		assert.Equal(t, len(area)-10, r.Wanted())
		far := voxel.ChunkPos{X: 100}
		r.Want(far)
		assert.Equal(t, []voxel.ChunkPos{far}, pumpUntilIdle(t, r))
	})
}

func TestIncrementalUnwantInFlightDroppedOnArrival(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, 1)
		defer r.Close()
		p, q := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: 2}
		r.Want(p)
		r.Want(q)
		r.Pump(nil)
		require.Equal(t, 2, r.InFlight())
		r.Unwant(p) // gone while generating
		r.Unwant(q)
		r.Want(q) // and back: its result counts
		close(gate)
		got := pumpUntilIdle(t, r)
		assert.Equal(t, []voxel.ChunkPos{q}, got)
		_, ok := r.Chunk(p)
		assert.False(t, ok, "a late arrival must not resurrect an unwanted chunk")
		assert.Equal(t, 1, r.Resident())
	})
}

func TestIncrementalEditWhileInFlightRegenerates(t *testing.T) {
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
		r.Want(p)
		r.Pump(nil)
		assert.False(t, r.Edit(p, 7, voxel.Sand), "in flight, not resident")
		close(gate)
		synctest.Wait()
		assert.Empty(t, r.Pump(nil), "stale result dropped and requeued")
		assert.Equal(t, []voxel.ChunkPos{p}, pumpUntilIdle(t, r))
		mu.Lock()
		assert.Equal(t, 2, loads)
		mu.Unlock()
	})
}

func TestIncrementalLoaderErrorIsRetried(t *testing.T) {
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
		r.Want(voxel.ChunkPos{})
		assert.Equal(t, []voxel.ChunkPos{{}}, pumpUntilIdle(t, r))
		assert.EqualError(t, r.Err(), "disk on fire")
	})
}

// TestIncrementalChurnStaysBounded: a desired set that keeps moving faster
// than the workers generate (a server with many fast players) never lets
// the dispatch queue grow past a constant factor of the wanted set.
func TestIncrementalChurnStaysBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := New(func(p voxel.ChunkPos) (*voxel.Chunk, error) { <-gate; return fakeLoad(p) }, 1)
		defer r.Close()
		var prev []voxel.ChunkPos
		for step := range int32(200) {
			cur := plan.Cylinder(voxel.ChunkPos{X: step * 10}, 4, nil)
			for _, p := range prev {
				r.Unwant(p)
			}
			for _, p := range cur {
				r.Want(p)
			}
			r.Pump(nil)
			assert.LessOrEqual(t, r.Queued(), 3*len(cur)+64)
			prev = cur
		}
		assert.Equal(t, len(prev), r.Wanted())
		close(gate)
		got := pumpUntilIdle(t, r)
		assert.Subset(t, prev, got)
		assert.Equal(t, len(prev), r.Resident())
	})
}
