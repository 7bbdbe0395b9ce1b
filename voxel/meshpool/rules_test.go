package meshpool

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// A job carries a snapshot of every resident neighbour, all six faces.
func TestJobCarriesAllSixNeighbours(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{}
		m := New(rec, 1, cnt.fn)
		defer m.Close()
		a := voxel.ChunkPos{X: 3, Y: -1, Z: 7}
		for f := voxel.Face(0); f < voxel.NumFaces; f++ {
			m.Deliver(a.Neighbour(f), solid())
		}
		for range 3 {
			m.Update()
			synctest.Wait()
		}
		m.Deliver(a, solid())
		m.Update()
		synctest.Wait()
		var job *Job
		cnt.mu.Lock()
		for i := range cnt.jobs {
			if cnt.jobs[i].Pos == a {
				job = &cnt.jobs[i]
			}
		}
		cnt.mu.Unlock()
		require.NotNil(t, job)
		for f := voxel.Face(0); f < voxel.NumFaces; f++ {
			want, _ := m.Chunk(a.Neighbour(f))
			assert.Same(t, want, job.Neighbours[f], "face %d", f)
		}
		m.Update()
		assert.Empty(t, Build(*job).Quads, "a solid chunk inside solid neighbours has no faces")
	})
}

// Edits outside the chunk's block range are ignored; the first and last
// block are edits like any other.
func TestEditIndexRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{}
		m := New(rec, 1, cnt.fn)
		defer m.Close()
		a := voxel.ChunkPos{Z: 40}
		m.Deliver(a, solid())
		m.Update()
		synctest.Wait()
		m.Update()
		before := cnt.count()
		snap, _ := m.Chunk(a)
		m.Edit(a, -1, voxel.Air)
		m.Edit(a, voxel.ChunkVolume, voxel.Air)
		m.Update()
		synctest.Wait()
		now, _ := m.Chunk(a)
		assert.Same(t, snap, now, "nothing edited")
		assert.Equal(t, before, cnt.count(), "nothing re-meshed")
		m.Edit(a, 0, voxel.Air)
		m.Edit(a, voxel.ChunkVolume-1, voxel.Air)
		m.Update()
		synctest.Wait()
		now, _ = m.Chunk(a)
		assert.Equal(t, voxel.Air, now.AtIndex(0))
		assert.Equal(t, voxel.Air, now.AtIndex(voxel.ChunkVolume-1))
		assert.Equal(t, before+1, cnt.count(), "re-meshed once")
	})
}

// Finished meshes never wait in a worker: with every worker and the whole
// job queue busy, one Update ingests every result.
func TestOneUpdateIngestsAFullPipeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const workers = 2
		rec, cnt := &recorder{}, &counting{gate: make(chan struct{})}
		m := New(rec, workers, cnt.fn)
		defer m.Close()
		n := jobQueue + workers + 6
		for i := range n {
			m.Deliver(far(i), solid())
		}
		for range n/ArrivalsPerFrame + 2 {
			m.Update()
			synctest.Wait()
		}
		require.Equal(t, jobQueue+workers, m.InFlight(), "workers and queue full")
		assert.Equal(t, n-jobQueue-workers, m.Pending(), "the rest waits")
		close(cnt.gate)
		synctest.Wait()
		m.Update()
		assert.Len(t, rec.events, jobQueue+workers, "all finished meshes ingested at once")
		for range 3 {
			synctest.Wait()
			m.Update()
		}
		assert.Len(t, rec.events, n, "nothing lost while the queue was full")
		assert.Equal(t, 0, m.Pending())
	})
}

func TestBudgets(t *testing.T) {
	assert.Equal(t, 4, ArrivalsPerFrame)
	assert.Equal(t, 16, DispatchesPerFrame)
	assert.Equal(t, 32, jobQueue)
}
