// Package residency keeps the chunks of a desired set resident, generating
// them on a goroutine pool fed by channels. Reconcile never blocks: it
// drains finished work, evicts what is no longer desired and dispatches
// what is neither resident nor in flight. in_flight is the single source of
// truth for dispatched work; a chunk that stops being desired while in
// flight is dropped when it arrives.
package residency

import (
	"sync"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// Loader produces a chunk: generation plus its edit overlay
// (gen.Generator.WithEdits). It runs on worker goroutines.
type Loader func(voxel.ChunkPos) (*voxel.Chunk, error)

// queuePerWorker sizes the job and result channels: enough to keep workers
// busy between reconcile passes, small enough that a plan change is not
// stuck behind a long queue of stale jobs.
const queuePerWorker = 4

type result struct {
	pos voxel.ChunkPos
	c   *voxel.Chunk
	err error
}

// Residency owns resident chunks and the worker pool: the client's ground
// (voxel/ground) generating one player's area. All methods except Close
// must be called from one goroutine (the frame loop). A Reconcile pass is
// O(desired), fine for one area.
type Residency struct {
	resident map[voxel.ChunkPos]*voxel.Chunk
	// inFlight: dispatched, not yet drained. The value is true when an edit
	// hit the chunk while it was in flight: its result is stale and is
	// dropped on arrival (and dispatched again).
	inFlight map[voxel.ChunkPos]bool
	jobs     chan voxel.ChunkPos
	results  chan result
	done     chan struct{}
	wg       sync.WaitGroup
	closed   bool
	err      error
}

// New starts workers goroutines running load.
func New(load Loader, workers int) *Residency {
	workers = max(workers, 1)
	r := &Residency{
		resident: map[voxel.ChunkPos]*voxel.Chunk{},
		inFlight: map[voxel.ChunkPos]bool{},
		jobs:     make(chan voxel.ChunkPos, workers*queuePerWorker),
		// room for every queued and running job, so workers never block
		// on a result while the owner is between passes
		results: make(chan result, workers*(queuePerWorker+1)),
		done:    make(chan struct{}),
	}
	for range workers {
		r.wg.Go(func() { r.work(load) })
	}
	return r
}

func (r *Residency) work(load Loader) {
	for {
		select {
		case <-r.done:
			return
		case p := <-r.jobs:
			c, err := load(p)
			select {
			case r.results <- result{p, c, err}:
			case <-r.done:
				return
			}
		}
	}
}

// Reconcile runs one non-blocking pass towards desired.
func (r *Residency) Reconcile(desired plan.Desired) {
	// 1. drain: insert only if still desired and not made stale by an edit
	for {
		select {
		case res := <-r.results:
			stale := r.inFlight[res.pos]
			delete(r.inFlight, res.pos)
			switch {
			case res.err != nil:
				r.err = res.err // retried by the dispatch phase
			case !stale && desired.Contains(res.pos):
				r.resident[res.pos] = res.c
			}
			continue
		default:
		}
		break
	}
	// 2. evict
	for p := range r.resident {
		if !desired.Contains(p) {
			delete(r.resident, p)
		}
	}
	// 3. dispatch, near-first, while the job queue has room
	for _, p := range desired.Order() {
		if _, ok := r.resident[p]; ok {
			continue
		}
		if _, ok := r.inFlight[p]; ok {
			continue
		}
		select {
		case r.jobs <- p:
			r.inFlight[p] = false
		default:
			return // queue full: the rest waits for the next pass
		}
	}
}

// Chunk returns a resident chunk. It is an immutable snapshot: never
// modify it (use Edit).
func (r *Residency) Chunk(p voxel.ChunkPos) (*voxel.Chunk, bool) {
	c, ok := r.resident[p]
	return c, ok
}

// Edit sets block idx of chunk p in memory (copy-on-write, so snapshots
// already handed out stay valid). Persist the edit first (voxel/store). If
// the chunk is in flight its result is dropped on arrival and regenerated
// with the new overlay. It reports whether p was resident.
func (r *Residency) Edit(p voxel.ChunkPos, idx int, b voxel.Block) bool {
	if _, ok := r.inFlight[p]; ok {
		r.inFlight[p] = true
	}
	c, ok := r.resident[p]
	if !ok {
		return false
	}
	c = c.Clone()
	c.SetIndex(idx, b)
	r.resident[p] = c
	return true
}

// Resident is the number of resident chunks.
func (r *Residency) Resident() int { return len(r.resident) }

// InFlight is the number of dispatched, undrained chunks.
func (r *Residency) InFlight() int { return len(r.inFlight) }

// Idle reports whether no work is in flight (the loading gate).
func (r *Residency) Idle() bool { return len(r.inFlight) == 0 }

// Progress is resident / (resident + in flight), 1 when both are zero.
func (r *Residency) Progress() float64 {
	n := len(r.resident) + len(r.inFlight)
	if n == 0 {
		return 1
	}
	return float64(len(r.resident)) / float64(n)
}

// Err returns the last loader error seen (the chunk is retried).
func (r *Residency) Err() error { return r.err }

// Close stops the workers and waits for them.
func (r *Residency) Close() {
	if r.closed {
		return
	}
	r.closed = true
	close(r.done)
	r.wg.Wait()
}
