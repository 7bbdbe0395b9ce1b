// Package voxelworld is the server's voxel world: a netsync.World backed by
// one voxel residency (the union of every client's area, generated on a
// worker pool) and the crash-safe edit store in the server's data
// directory.
//
// # Goroutines and what the tick pays
//
// The server's tick never touches the residency, the generator or the disk:
//
//   - a loop goroutine owns the residency. The tick hands it changes to the
//     union of areas (netsync.UnionWorld) through a mutex-guarded op list;
//     the loop applies them, runs residency.Reconcile passes (drain, evict,
//     dispatch) and publishes each chunk that became resident, with its
//     committed overlay read from the store, into the ready map;
//   - a commit goroutine owns writes: it commits each submitted edit with
//     store.Apply (one bbolt transaction, fsynced), then updates the ready
//     map and queues the block change for the residency;
//   - the tick reads the ready map (Chunk, under a read lock), validates and
//     queues edits (SubmitEdit, non-blocking) and collects finished commits
//     (CommittedEdits). The server broadcasts and acknowledges an edit only
//     when CommittedEdits has returned it, so nothing is acknowledged before
//     it is on disk; the price is up to one tick of extra latency.
//
// Chunks are delivered with their committed overlay only: an edit that is
// still being committed is never shown to anyone, and a chunk delivered
// before the commit finishes receives the edit as a broadcast afterwards.
package voxelworld

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"citydrive/netsync"
	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/plan"
	"citydrive/voxel/residency"
	"citydrive/voxel/store"
)

// Options tune a World. Zero values take the defaults shown.
type Options struct {
	// Workers generating chunks (max(4, NumCPU)). The residency queues 4
	// jobs per worker per pass. More workers than cores buys dispatch
	// throughput but starves the server's tick of CPU (measured: 16 workers
	// on 2 cores put the tick p99 at 90 ms).
	Workers int
	// PassEvery is how often the loop runs a reconcile pass while there is
	// work (10 ms).
	PassEvery time.Duration
	// RebuildEvery bounds how often the desired set is rebuilt after the
	// union changed (50 ms): a rebuild costs O(union).
	RebuildEvery time.Duration
	// CommitQueue bounds edits waiting for their commit (1024); a full
	// queue rejects the edit ("busy").
	CommitQueue int
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = max(4, runtime.NumCPU())
	}
	if o.PassEvery <= 0 {
		o.PassEvery = 10 * time.Millisecond
	}
	if o.RebuildEvery <= 0 {
		o.RebuildEvery = 50 * time.Millisecond
	}
	if o.CommitQueue <= 0 {
		o.CommitQueue = 1024
	}
}

// World implements netsync.World, netsync.UnionWorld and
// netsync.AsyncEditWorld. Reconcile, UnionChanged, Chunk, ApplyEdit,
// SubmitEdit and CommittedEdits are called from the server's tick
// goroutine; Stats, Register and Close from any goroutine.
type World struct {
	seed uint64
	log  *slog.Logger
	opt  Options
	st   *store.Store
	res  *residency.Residency // owned by loop

	// tick → loop
	opsMu   sync.Mutex
	ops     []op
	blocks  []netsync.EditCommit // committed edits for the resident chunks
	wake    chan struct{}
	opsSwap []op
	blkSwap []netsync.EditCommit

	// The ready set: desired, resident chunks and their committed overlay
	// (nil: never edited). Overlays are immutable values (With copies).
	readyMu sync.RWMutex
	ready   map[voxel.ChunkPos]voxel.Overlay

	// storeMu orders "read overlay, publish ready" (loop) against "commit,
	// update ready" (committer), so a chunk is never published with an
	// overlay older than a commit that finished before the publication.
	storeMu sync.Mutex

	commits chan netsync.EditCommit
	doneMu  sync.Mutex
	done    []netsync.EditCommit

	// loop-owned
	want        map[voxel.ChunkPos]struct{}
	list        []voxel.ChunkPos // wanted chunks in the order they were asked for (plus stale ones until a rebuild)
	waiting     map[voxel.ChunkPos]struct{}
	desired     plan.Desired
	dirty       bool
	lastRebuild time.Time
	newly       []voxel.ChunkPos
	check       []voxel.ChunkPos // loaded or already resident, maybe not yet published

	// workers → loop: positions whose load finished
	loadedMu sync.Mutex
	loaded   []voxel.ChunkPos
	newlyO   []voxel.Overlay

	// tick-owned
	mirror  map[voxel.ChunkPos]struct{} // for plain Reconcile
	scratch []netsync.Edit
	add     []netsync.ChunkPos
	rem     []netsync.ChunkPos

	stats struct{ resident, inFlight, ready, waiting, want atomic.Int64 }

	commitSeconds prometheus.Histogram
	collectors    []prometheus.Collector

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

type op struct {
	pos voxel.ChunkPos
	add bool
}

// Open opens the edit store in dir (creating it on first start) for the
// world of seed and starts the residency with default Options.
func Open(dir string, seed uint64, log *slog.Logger) (*World, error) {
	return OpenWith(dir, seed, log, Options{})
}

// OpenWith is Open with explicit Options.
func OpenWith(dir string, seed uint64, log *slog.Logger, opt Options) (*World, error) {
	if log == nil {
		log = slog.Default()
	}
	opt.defaults()
	st, err := store.Open(dir, seed, gen.Version)
	if err != nil {
		return nil, fmt.Errorf("voxel world in %s: %w", dir, err)
	}
	w := &World{
		seed: seed, log: log, opt: opt, st: st,
		wake:    make(chan struct{}, 1),
		ready:   map[voxel.ChunkPos]voxel.Overlay{},
		commits: make(chan netsync.EditCommit, opt.CommitQueue),
		want:    map[voxel.ChunkPos]struct{}{},
		waiting: map[voxel.ChunkPos]struct{}{},
		desired: plan.Of(),
		mirror:  map[voxel.ChunkPos]struct{}{},
		stop:    make(chan struct{}),
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "citydrive_edit_commit_seconds",
			Help:    "Time to commit one edit to the store (bbolt transaction with fsync), queueing excluded.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 1},
		}),
	}
	load := sharedLoader(gen.New(seed).WithEdits(st))
	w.res = residency.New(func(p voxel.ChunkPos) (*voxel.Chunk, error) {
		c, err := load(p)
		if err == nil {
			w.loadedMu.Lock()
			w.loaded = append(w.loaded, p)
			w.loadedMu.Unlock()
		}
		return c, err
	}, opt.Workers)
	gauge := func(name, help string, v *atomic.Int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) })
	}
	w.collectors = []prometheus.Collector{
		w.commitSeconds,
		gauge("citydrive_voxel_resident_chunks", "Chunks resident in the server's residency.", &w.stats.resident),
		gauge("citydrive_voxel_inflight_chunks", "Chunks being generated.", &w.stats.inFlight),
		gauge("citydrive_voxel_ready_chunks", "Chunks ready to be delivered.", &w.stats.ready),
		gauge("citydrive_voxel_wanted_chunks", "Chunks in the union of all clients' areas.", &w.stats.want),
	}
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		w.loop()
	}()
	go func() {
		defer w.wg.Done()
		w.committer()
	}()
	log.Info("voxel world open", "dir", dir, "seed", seed, "generator", gen.Version, "workers", opt.Workers)
	return w, nil
}

// Register adds the world's metrics (commit latency, residency gauges) to r.
func (w *World) Register(r prometheus.Registerer) error {
	for _, c := range w.collectors {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// sharedLoader wraps a loader so that chunks of one kind throughout (sky,
// deep rock) share one immutable instance: most of a cylinder is such
// chunks, and the residency copies on write, so sharing is safe and keeps
// the server's memory to the chunks that hold a surface.
func sharedLoader(load residency.Loader) residency.Loader {
	var uniform [voxel.NumBlocks]*voxel.Chunk
	uniform[voxel.Air] = new(voxel.Chunk)
	for b := voxel.Block(1); b < voxel.NumBlocks; b++ {
		c := new(voxel.Chunk)
		c.Fill(b)
		uniform[b] = c
	}
	return func(p voxel.ChunkPos) (*voxel.Chunk, error) {
		c, err := load(p)
		if err != nil || c == nil {
			return c, err
		}
		if c.Empty() {
			return uniform[voxel.Air], nil
		}
		if b, ok := c.Uniform(); ok && c.Full() && b < voxel.NumBlocks {
			return uniform[b], nil
		}
		return c, nil
	}
}

// Seed is the world seed.
func (w *World) Seed() uint64 { return w.seed }

// Generator is the terrain generator version clients must match.
func (w *World) Generator() uint32 { return gen.Version }

// MaxBlock is the largest valid block id.
func (w *World) MaxBlock() uint8 { return uint8(voxel.NumBlocks - 1) }

func (w *World) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// UnionChanged implements netsync.UnionWorld: it only records the change
// for the loop goroutine.
func (w *World) UnionChanged(added, removed []netsync.ChunkPos) {
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	w.opsMu.Lock()
	for _, p := range removed {
		w.ops = append(w.ops, op{pos: voxel.ChunkPos(p)})
	}
	for _, p := range added {
		w.ops = append(w.ops, op{pos: voxel.ChunkPos(p), add: true})
	}
	w.opsMu.Unlock()
	w.signal()
}

// Reconcile implements netsync.World for servers that report the whole
// union; it turns it into changes (O(union)).
func (w *World) Reconcile(desired map[netsync.ChunkPos]struct{}) {
	w.add, w.rem = w.add[:0], w.rem[:0]
	for p := range w.mirror {
		if _, ok := desired[netsync.ChunkPos(p)]; !ok {
			w.rem = append(w.rem, netsync.ChunkPos(p))
			delete(w.mirror, p)
		}
	}
	for p := range desired {
		if _, ok := w.mirror[voxel.ChunkPos(p)]; !ok {
			w.add = append(w.add, p)
			w.mirror[voxel.ChunkPos(p)] = struct{}{}
		}
	}
	w.UnionChanged(w.add, w.rem)
}

// Chunk implements netsync.World: ready once the chunk is resident, with
// its committed sparse edits.
func (w *World) Chunk(pos netsync.ChunkPos) ([]netsync.Edit, bool) {
	w.readyMu.RLock()
	o, ok := w.ready[voxel.ChunkPos(pos)]
	w.readyMu.RUnlock()
	if !ok {
		return nil, false
	}
	w.scratch = w.scratch[:0]
	for _, e := range o {
		w.scratch = append(w.scratch, netsync.Edit{Index: e.Index, Block: uint8(e.Block)})
	}
	return w.scratch, true
}

// Errors shown to players (wrapped with details).
var (
	ErrBadBlock = errors.New("unknown block")
	ErrLoading  = errors.New("that chunk is not loaded on the server yet; try again in a moment")
	ErrBusy     = errors.New("the server is busy saving edits; try again in a moment")
	ErrClosed   = errors.New("the server is shutting down")
)

func (w *World) validate(pos netsync.ChunkPos, index uint16, block uint8) error {
	if int(index) >= voxel.ChunkVolume {
		return fmt.Errorf("block index %d out of range", index)
	}
	if !voxel.Block(block).Valid() {
		return fmt.Errorf("%w %d: valid blocks are 0..%d", ErrBadBlock, block, voxel.NumBlocks-1)
	}
	w.readyMu.RLock()
	_, ok := w.ready[voxel.ChunkPos(pos)]
	w.readyMu.RUnlock()
	if !ok {
		return ErrLoading
	}
	return nil
}

// SubmitEdit implements netsync.AsyncEditWorld: validate now, commit on
// the commit goroutine.
func (w *World) SubmitEdit(e netsync.EditCommit) error {
	if err := w.validate(e.Pos, e.Index, e.Block); err != nil {
		return err
	}
	select {
	case <-w.stop:
		return ErrClosed
	default:
	}
	select {
	case w.commits <- e:
		return nil
	default:
		return ErrBusy
	}
}

// CommittedEdits implements netsync.AsyncEditWorld.
func (w *World) CommittedEdits(dst []netsync.EditCommit) []netsync.EditCommit {
	w.doneMu.Lock()
	dst = append(dst, w.done...)
	clear(w.done)
	w.done = w.done[:0]
	w.doneMu.Unlock()
	return dst
}

// ApplyEdit implements netsync.World synchronously (the server prefers
// SubmitEdit): it returns after the commit.
func (w *World) ApplyEdit(player uint32, pos netsync.ChunkPos, index uint16, block uint8) error {
	if err := w.validate(pos, index, block); err != nil {
		return err
	}
	return w.commit(netsync.EditCommit{Player: player, Pos: pos, Index: index, Block: block})
}

// commit writes one edit to the store, then makes it visible: in the
// ready overlay (deliveries from now on carry it) and, through the loop,
// in the resident chunk.
func (w *World) commit(e netsync.EditCommit) error {
	p, idx, b := voxel.ChunkPos(e.Pos), int(e.Index), voxel.Block(e.Block)
	start := time.Now()
	w.storeMu.Lock()
	err := w.st.Apply(p, idx, b)
	if err == nil {
		w.readyMu.Lock()
		if o, ok := w.ready[p]; ok {
			w.ready[p] = o.With(e.Index, b)
		}
		w.readyMu.Unlock()
	}
	w.storeMu.Unlock()
	w.commitSeconds.Observe(time.Since(start).Seconds())
	if err != nil {
		w.log.Error("committing edit failed", "chunk", p, "index", idx, "block", b, "err", err)
		return fmt.Errorf("the server could not save that edit: %v", err)
	}
	w.opsMu.Lock()
	w.blocks = append(w.blocks, e)
	w.opsMu.Unlock()
	w.signal()
	return nil
}

func (w *World) committer() {
	for {
		select {
		case <-w.stop:
			return
		case e := <-w.commits:
			e.Err = w.commit(e)
			w.doneMu.Lock()
			w.done = append(w.done, e)
			w.doneMu.Unlock()
		}
	}
}

// loop owns the residency.
func (w *World) loop() {
	t := time.NewTicker(w.opt.PassEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		case <-t.C:
		}
		w.pass(time.Now())
	}
}

// pass applies queued changes, runs one reconcile pass and publishes what
// became resident. Cheap when there is nothing to do.
func (w *World) pass(now time.Time) {
	w.opsMu.Lock()
	ops, blocks := w.ops, w.blocks
	w.ops, w.blocks = w.opsSwap[:0], w.blkSwap[:0]
	w.opsMu.Unlock()
	defer func() {
		clear(blocks)
		w.opsSwap, w.blkSwap = ops[:0], blocks[:0]
	}()

	for _, e := range blocks {
		w.res.Edit(voxel.ChunkPos(e.Pos), int(e.Index), voxel.Block(e.Block))
	}
	var gone []voxel.ChunkPos
	for _, o := range ops {
		_, in := w.want[o.pos]
		switch {
		case o.add && !in:
			w.want[o.pos] = struct{}{}
			w.waiting[o.pos] = struct{}{}
			w.list = append(w.list, o.pos)
			w.dirty = true
			if _, ok := w.res.Chunk(o.pos); ok { // not evicted yet: no new load will announce it
				w.check = append(w.check, o.pos)
			}
		case !o.add && in:
			delete(w.want, o.pos)
			delete(w.waiting, o.pos)
			gone = append(gone, o.pos)
			w.dirty = true
		}
	}
	if len(gone) > 0 {
		w.readyMu.Lock()
		for _, p := range gone {
			delete(w.ready, p)
		}
		w.stats.ready.Store(int64(len(w.ready)))
		w.readyMu.Unlock()
	}
	rebuilt := false
	if w.dirty && now.Sub(w.lastRebuild) >= w.opt.RebuildEvery {
		w.rebuild(now)
		rebuilt = true
	}
	if rebuilt || len(blocks) > 0 || len(w.waiting) > 0 || w.res.InFlight() > 0 {
		w.res.Reconcile(w.desired)
		w.publish()
	}
	w.stats.resident.Store(int64(w.res.Resident()))
	w.stats.inFlight.Store(int64(w.res.InFlight()))
	w.stats.waiting.Store(int64(len(w.waiting)))
	w.stats.want.Store(int64(len(w.want)))
	if err := w.res.Err(); err != nil && w.res.InFlight() == 0 && len(w.waiting) > 0 {
		w.log.Warn("chunk loader failing; retrying", "err", err)
	}
}

// rebuild makes the residency's desired set from the wanted chunks, in the
// order they were asked for (each client's area near-first), dropping
// chunks no longer wanted from the list.
func (w *World) rebuild(now time.Time) {
	keep := w.list[:0]
	for _, p := range w.list {
		if _, ok := w.want[p]; ok {
			keep = append(keep, p)
		}
	}
	w.list = keep
	w.desired = plan.Of(keep...)
	w.dirty = false
	w.lastRebuild = now
}

// publish moves waiting chunks that are now resident into the ready map,
// each with its committed overlay. It looks only at chunks whose load
// finished since (O(loads), not O(wanted)).
func (w *World) publish() {
	w.loadedMu.Lock()
	w.check = append(w.check, w.loaded...)
	w.loaded = w.loaded[:0]
	w.loadedMu.Unlock()
	w.newly = w.newly[:0]
	keepCheck := w.check[:0]
	for _, p := range w.check {
		if _, ok := w.waiting[p]; !ok {
			continue // published already, or no longer wanted
		}
		if _, ok := w.res.Chunk(p); ok {
			w.newly = append(w.newly, p)
		} else {
			keepCheck = append(keepCheck, p) // loaded, not drained yet (or stale: reloaded later)
		}
	}
	w.check = keepCheck
	if len(w.newly) == 0 {
		return
	}
	w.storeMu.Lock()
	defer w.storeMu.Unlock()
	w.newlyO = w.newlyO[:0]
	keep := w.newly[:0]
	for _, p := range w.newly {
		o, err := w.st.Overlay(p)
		if err != nil {
			w.log.Error("reading edits failed; chunk stays unready", "chunk", p, "err", err)
			w.check = append(w.check, p) // retried next pass
			continue
		}
		keep = append(keep, p)
		w.newlyO = append(w.newlyO, o)
	}
	w.newly = keep
	w.readyMu.Lock()
	for i, p := range w.newly {
		w.ready[p] = w.newlyO[i]
		delete(w.waiting, p)
	}
	n := len(w.ready)
	w.readyMu.Unlock()
	w.stats.ready.Store(int64(n))
}

// Stats is a snapshot of the world's residency.
type Stats struct {
	Wanted   int // chunks in the union of all areas
	Resident int // chunks the residency holds
	InFlight int // chunks being generated
	Ready    int // chunks deliverable now
	Waiting  int // wanted, not yet ready
}

// Stats returns the latest counts (updated after every pass).
func (w *World) Stats() Stats {
	return Stats{
		Wanted: int(w.stats.want.Load()), Resident: int(w.stats.resident.Load()),
		InFlight: int(w.stats.inFlight.Load()), Ready: int(w.stats.ready.Load()),
		Waiting: int(w.stats.waiting.Load()),
	}
}

// Close stops the loop and the committer (an edit being committed finishes;
// queued ones are dropped unacknowledged), the residency workers, and
// closes the store. Call it after the server has stopped ticking.
func (w *World) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		w.wg.Wait()
		w.res.Close()
		w.closeErr = w.st.Close()
	})
	return w.closeErr
}
