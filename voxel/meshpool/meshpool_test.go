package meshpool

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/voxel"
	"citydrive/voxel/mesh"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type event struct {
	insert bool
	pos    voxel.ChunkPos
	token  uint64
}

// recorder is the recording fake MeshSink.
type recorder struct{ events []event }

func (r *recorder) Insert(m *mesh.Mesh)     { r.events = append(r.events, event{true, m.Pos, m.Token}) }
func (r *recorder) Remove(p voxel.ChunkPos) { r.events = append(r.events, event{false, p, 0}) }

func (r *recorder) inserts(p voxel.ChunkPos) []uint64 {
	var out []uint64
	for _, e := range r.events {
		if e.insert && e.pos == p {
			out = append(out, e.token)
		}
	}
	return out
}

// counting wraps Build and records every job it ran.
type counting struct {
	mu   sync.Mutex
	jobs []Job
	gate chan struct{} // nil: run at once
}

func (c *counting) fn(j Job) *mesh.Mesh {
	if c.gate != nil {
		<-c.gate
	}
	c.mu.Lock()
	c.jobs = append(c.jobs, j)
	c.mu.Unlock()
	return Build(j)
}

func (c *counting) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.jobs)
}

func solid() *voxel.Chunk {
	c := new(voxel.Chunk)
	c.Fill(voxel.Stone)
	return c
}

func far(i int) voxel.ChunkPos { return voxel.ChunkPos{X: int32(10 * i)} }

func TestArrivalBudgetAndUnboundedIngest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{}
		m := New(rec, 2, cnt.fn)
		defer m.Close()
		for i := range 10 {
			m.Deliver(far(i), solid())
		}
		m.Update()
		assert.Equal(t, ArrivalsPerFrame, m.Resident())
		assert.Equal(t, 10-ArrivalsPerFrame, m.Queued())
		assert.Empty(t, rec.events, "nothing is meshed yet")
		synctest.Wait()
		m.Update()
		assert.Len(t, rec.events, ArrivalsPerFrame, "every finished mesh ingested")
		assert.Equal(t, 2*ArrivalsPerFrame, m.Resident())
		for range 3 {
			synctest.Wait()
			m.Update()
		}
		assert.Equal(t, 10, m.Resident())
		assert.Len(t, rec.events, 10)
		assert.Equal(t, 0, m.InFlight())
	})
}

func TestDispatchBudgetAndDeduplication(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{}
		m := New(rec, 2, cnt.fn)
		defer m.Close()
		// four adjacent chunks arrive together: each queues itself and its
		// resident neighbours, but the pending set meshes each once
		for x := range 4 {
			m.Deliver(voxel.ChunkPos{X: int32(x)}, solid())
		}
		m.Update()
		synctest.Wait()
		assert.Equal(t, 4, cnt.count())
		m.Update()
		require.Len(t, rec.events, 4)
		// 24 isolated chunks, then an edit on each: 24 pending at once
		for i := range 24 {
			m.Deliver(far(i+1), solid())
		}
		for range 6 {
			m.Update()
			synctest.Wait()
		}
		m.Update()
		before := cnt.count()
		for i := range 24 {
			m.Edit(far(i+1), voxel.Index(5, 5, 5), voxel.Air)
		}
		m.Update()
		synctest.Wait()
		assert.Equal(t, DispatchesPerFrame, cnt.count()-before, "dispatch budget")
		assert.Equal(t, 24-DispatchesPerFrame, m.Pending())
		inserted := len(rec.events)
		m.Update() // ingests all 16 at once, dispatches the remaining 8
		assert.Equal(t, inserted+DispatchesPerFrame, len(rec.events), "ingest is unbounded")
		synctest.Wait()
		assert.Equal(t, 24, cnt.count()-before)
		assert.Equal(t, 0, m.Pending())
	})
}

func TestSupersededMeshIsDiscarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{gate: make(chan struct{})}
		m := New(rec, 1, cnt.fn)
		defer m.Close()
		a, b := voxel.ChunkPos{}, voxel.ChunkPos{X: 1}
		m.Deliver(a, solid())
		m.Update() // a dispatched with token 1, blocked in the worker
		m.Deliver(b, solid())
		m.Update() // b (token 2) re-queues a: token 3 supersedes token 1
		close(cnt.gate)
		synctest.Wait()
		m.Update()
		require.Equal(t, 3, cnt.count())
		assert.Equal(t, []uint64{3}, rec.inserts(a), "only the latest token is applied")
		assert.Equal(t, []uint64{2}, rec.inserts(b))
		// the applied mesh of a saw b as a present neighbour: its +X
		// boundary face is culled
		for _, j := range cnt.jobs {
			if j.Pos == a && j.Token == 3 {
				assert.NotNil(t, j.Neighbours[voxel.PosX])
				assert.Len(t, Build(j).Quads, 5)
			}
			if j.Pos == a && j.Token == 1 {
				assert.Nil(t, j.Neighbours[voxel.PosX], "absent neighbour at dispatch time")
			}
		}
	})
}

func TestDroppedWhileMeshingIsNeverInserted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{gate: make(chan struct{})}
		m := New(rec, 1, cnt.fn)
		defer m.Close()
		a := voxel.ChunkPos{Y: 2}
		m.Deliver(a, solid())
		m.Update()
		m.Drop(a)
		m.Update()
		close(cnt.gate)
		synctest.Wait()
		m.Update()
		assert.Equal(t, []event{{false, a, 0}}, rec.events)
		assert.Equal(t, 0, m.Resident())
		assert.Equal(t, 0, m.InFlight())
		// a drop of something never delivered is ignored
		m.Drop(voxel.ChunkPos{X: 99})
		m.Update()
		assert.Len(t, rec.events, 1)
	})
}

func TestEditRemeshesTouchedNeighboursOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec, cnt := &recorder{}, &counting{}
		m := New(rec, 1, cnt.fn)
		defer m.Close()
		a := voxel.ChunkPos{}
		ns := []voxel.ChunkPos{{X: 1}, {X: -1}, {Y: 1}}
		m.Deliver(a, solid())
		for _, n := range ns {
			m.Deliver(n, solid())
		}
		m.Update()
		synctest.Wait()
		m.Update()
		old, _ := m.Chunk(a)
		before := len(rec.events)
		m.Edit(a, voxel.Index(31, 10, 10), voxel.Air) // on the +X boundary
		m.Update()
		synctest.Wait()
		m.Update()
		var got []voxel.ChunkPos
		for _, e := range rec.events[before:] {
			got = append(got, e.pos)
		}
		assert.ElementsMatch(t, []voxel.ChunkPos{a, {X: 1}}, got)
		now, _ := m.Chunk(a)
		assert.Equal(t, voxel.Stone, old.At(31, 10, 10), "the old snapshot is untouched")
		assert.Equal(t, voxel.Air, now.At(31, 10, 10))
	})
}

func TestEditNeverOvertakesItsChunk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		m := New(rec, 1, nil)
		defer m.Close()
		for i := range ArrivalsPerFrame {
			m.Deliver(far(i), solid())
		}
		late := far(ArrivalsPerFrame)
		m.Deliver(late, solid())
		m.Edit(late, 0, voxel.Air)
		m.Update()
		_, ok := m.Chunk(late)
		assert.False(t, ok, "fifth arrival waits for the next frame")
		assert.Equal(t, 2, m.Queued(), "and the edit waits behind it")
		synctest.Wait()
		m.Update()
		c, ok := m.Chunk(late)
		require.True(t, ok)
		assert.Equal(t, voxel.Air, c.AtIndex(0))
	})
}
