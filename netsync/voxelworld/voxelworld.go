// Package voxelworld is the server's voxel world: a netsync.World backed by
// one voxel residency (the union of every client's area, generated on a
// worker pool) and the crash-safe edit store in the server's data
// directory.
//
// # Delivery never waits for generation
//
// Clients generate terrain themselves; the server only has to say which
// chunks were never edited. It keeps an in-memory index of edited chunk
// positions (loaded from the store at open, updated on every commit), so a
// chunk nobody edited is deliverable (Chunk: ready, no edits) as soon as a
// client wants it. An edited chunk is deliverable once its committed overlay
// has been read from the store, which the loop does off the tick as soon as
// the chunk enters the union. The residency still holds the union (it is
// what edits apply to in memory), but delivery does not depend on it.
//
// # Goroutines and what the tick pays
//
// The server's tick never touches the residency, the generator or the disk:
//
//   - a loop goroutine owns the residency. The tick hands it changes to the
//     union of areas (netsync.UnionWorld) through a mutex-guarded op list;
//     the loop applies them incrementally (residency.Want / Unwant, O(1)
//     each), pumps the residency (O(finished + dispatched), never O(union))
//     and reads the overlays of edited chunks that entered the union;
//   - a commit goroutine owns writes: it takes every queued edit (up to
//     CommitBatch) and commits them with store.ApplyBatch (one bbolt
//     transaction, one fsync), then updates the edited index and the loaded
//     overlays and queues the block changes for the residency;
//   - the tick reads the index and overlays (Chunk, under a read lock),
//     validates and queues edits (SubmitEdit, non-blocking) and collects
//     finished commits (CommittedEdits). The server broadcasts and
//     acknowledges an edit only when CommittedEdits has returned it, so
//     nothing is acknowledged before it is on disk; the price is up to one
//     tick of extra latency.
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
	"citydrive/voxel/residency"
	"citydrive/voxel/store"
)

// Options tune a World. Zero values take the defaults shown.
type Options struct {
	// Workers generating chunks for the residency (max(1, NumCPU/2)).
	// Deliveries do not wait for them, so they are kept to half the cores:
	// more workers than that only take CPU from the server's tick
	// (measured before deliveries were decoupled: 16 workers on 2 cores
	// put the tick p99 at 90 ms).
	Workers int
	// PassEvery is how often the loop pumps the residency while there is
	// work (10 ms).
	PassEvery time.Duration
	// CommitQueue bounds edits waiting for their commit (1024); a full
	// queue rejects the edit ("busy").
	CommitQueue int
	// CommitBatch bounds the edits committed in one transaction (256).
	CommitBatch int
	// OverlaysPerPass bounds store reads of edited chunks' overlays per
	// loop pass (1024).
	OverlaysPerPass int
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = max(1, runtime.NumCPU()/2)
	}
	if o.PassEvery <= 0 {
		o.PassEvery = 10 * time.Millisecond
	}
	if o.CommitQueue <= 0 {
		o.CommitQueue = 1024
	}
	if o.CommitBatch <= 0 {
		o.CommitBatch = 256
	}
	if o.OverlaysPerPass <= 0 {
		o.OverlaysPerPass = 1024
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
	blocks  []netsync.EditCommit // committed edits for the residency
	wake    chan struct{}
	opsSwap []op
	blkSwap []netsync.EditCommit

	// edited is every chunk with committed edits; overlays holds the
	// committed overlay of the edited chunks in the union that the loop has
	// read so far. Overlays are immutable values (With copies).
	readyMu  sync.RWMutex
	edited   map[voxel.ChunkPos]struct{}
	overlays map[voxel.ChunkPos]voxel.Overlay

	// storeMu orders "read overlay, publish" (loop) against "commit,
	// update overlays" (committer), so an overlay is never published older
	// than a commit that finished before the publication.
	storeMu sync.Mutex

	commits chan netsync.EditCommit
	doneMu  sync.Mutex
	done    []netsync.EditCommit

	// loop-owned
	want  map[voxel.ChunkPos]struct{}
	need  map[voxel.ChunkPos]struct{} // wanted, edited, overlay not read yet
	needQ []voxel.ChunkPos

	// tick-owned
	mirror  map[voxel.ChunkPos]struct{} // for plain Reconcile
	scratch []netsync.Edit
	add     []netsync.ChunkPos
	rem     []netsync.ChunkPos

	stats struct{ resident, inFlight, ready, waiting, want, edited atomic.Int64 }

	commitSeconds prometheus.Histogram
	commitBatch   prometheus.Histogram
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
	edited := map[voxel.ChunkPos]struct{}{}
	if err := st.EditedChunks(func(p voxel.ChunkPos) { edited[p] = struct{}{} }); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("voxel world in %s: reading the edited chunks: %w", dir, err)
	}
	w := &World{
		seed: seed, log: log, opt: opt, st: st,
		wake:     make(chan struct{}, 1),
		edited:   edited,
		overlays: map[voxel.ChunkPos]voxel.Overlay{},
		commits:  make(chan netsync.EditCommit, opt.CommitQueue),
		want:     map[voxel.ChunkPos]struct{}{},
		need:     map[voxel.ChunkPos]struct{}{},
		mirror:   map[voxel.ChunkPos]struct{}{},
		stop:     make(chan struct{}),
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "citydrive_edit_commit_seconds",
			Help:    "Time to commit one batch of edits to the store (one bbolt transaction with fsync), queueing excluded.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 1},
		}),
		commitBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "citydrive_edit_commit_batch_edits",
			Help:    "Edits per store transaction (group commit).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
	}
	w.stats.edited.Store(int64(len(edited)))
	w.res = residency.New(sharedLoader(gen.New(seed).WithEdits(st)), opt.Workers)
	gauge := func(name, help string, v *atomic.Int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) })
	}
	w.collectors = []prometheus.Collector{
		w.commitSeconds, w.commitBatch,
		gauge("citydrive_voxel_resident_chunks", "Chunks resident in the server's residency.", &w.stats.resident),
		gauge("citydrive_voxel_inflight_chunks", "Chunks being generated.", &w.stats.inFlight),
		gauge("citydrive_voxel_ready_chunks", "Chunks of the union deliverable now (never edited, or overlay read).", &w.stats.ready),
		gauge("citydrive_voxel_wanted_chunks", "Chunks in the union of all clients' areas.", &w.stats.want),
		gauge("citydrive_voxel_edited_chunks", "Chunks with committed edits (the in-memory index).", &w.stats.edited),
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
	log.Info("voxel world open", "dir", dir, "seed", seed, "generator", gen.Version, "workers", opt.Workers,
		"edited_chunks", len(edited))
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

// Chunk implements netsync.World: a chunk nobody edited is ready at once
// (the client generates it); an edited one once its committed overlay has
// been read.
func (w *World) Chunk(pos netsync.ChunkPos) ([]netsync.Edit, bool) {
	p := voxel.ChunkPos(pos)
	w.readyMu.RLock()
	o, loaded := w.overlays[p]
	_, edited := w.edited[p]
	w.readyMu.RUnlock()
	if !loaded {
		return nil, !edited
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
	p := voxel.ChunkPos(pos)
	w.readyMu.RLock()
	_, loaded := w.overlays[p]
	_, edited := w.edited[p]
	w.readyMu.RUnlock()
	if edited && !loaded {
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
	es := []netsync.EditCommit{{Player: player, Pos: pos, Index: index, Block: block}}
	w.commit(es)
	return es[0].Err
}

// commit writes a batch of edits to the store in one transaction, then
// makes them visible: in the edited index and the loaded overlays
// (deliveries from now on carry them) and, through the loop, in the
// resident chunks. If the batch fails, each edit is retried on its own so
// one bad edit cannot fail the others. Err is set on each failed edit.
func (w *World) commit(es []netsync.EditCommit) {
	batch := make([]store.Edit, len(es))
	for i, e := range es {
		batch[i] = store.Edit{Pos: voxel.ChunkPos(e.Pos), Index: int(e.Index), Block: voxel.Block(e.Block)}
	}
	start := time.Now()
	w.storeMu.Lock()
	err := w.st.ApplyBatch(batch)
	if err != nil && len(es) > 1 {
		for i, e := range batch {
			es[i].Err = w.st.Apply(e.Pos, e.Index, e.Block)
		}
	} else {
		for i := range es {
			es[i].Err = err
		}
	}
	w.readyMu.Lock()
	for i, e := range es {
		if e.Err != nil {
			continue
		}
		p := batch[i].Pos
		w.edited[p] = struct{}{}
		if o, ok := w.overlays[p]; ok {
			w.overlays[p] = o.With(e.Index, batch[i].Block)
		}
	}
	n := len(w.edited)
	w.readyMu.Unlock()
	w.storeMu.Unlock()
	w.stats.edited.Store(int64(n))
	w.commitSeconds.Observe(time.Since(start).Seconds())
	w.commitBatch.Observe(float64(len(es)))
	w.opsMu.Lock()
	for i, e := range es {
		if e.Err != nil {
			w.log.Error("committing edit failed", "chunk", e.Pos, "index", e.Index, "block", e.Block, "err", e.Err)
			es[i].Err = fmt.Errorf("the server could not save that edit: %v", e.Err)
			continue
		}
		w.blocks = append(w.blocks, e)
	}
	w.opsMu.Unlock()
	w.signal()
}

// committer commits queued edits in batches: it waits for one, then takes
// whatever else is queued (up to CommitBatch) into the same transaction.
func (w *World) committer() {
	var es []netsync.EditCommit
	for {
		select {
		case <-w.stop:
			return
		case e := <-w.commits:
			es = append(es[:0], e)
		}
	more:
		for len(es) < w.opt.CommitBatch {
			select {
			case e := <-w.commits:
				es = append(es, e)
			default:
				break more
			}
		}
		w.commit(es)
		w.doneMu.Lock()
		w.done = append(w.done, es...)
		w.doneMu.Unlock()
		clear(es)
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
		w.pass()
	}
}

// pass applies queued changes to the residency (O(changes)), pumps it
// (O(finished + dispatched)) and reads the overlays of edited chunks that
// entered the union. Its cost never depends on the size of the union.
func (w *World) pass() {
	w.opsMu.Lock()
	ops, blocks := w.ops, w.blocks
	w.ops, w.blocks = w.opsSwap[:0], w.blkSwap[:0]
	w.opsMu.Unlock()
	defer func() {
		clear(blocks)
		w.opsSwap, w.blkSwap = ops[:0], blocks[:0]
	}()

	for _, e := range blocks {
		p := voxel.ChunkPos(e.Pos)
		w.res.Edit(p, int(e.Index), voxel.Block(e.Block))
		if _, ok := w.want[p]; ok {
			w.needOverlay(p) // a first edit: its overlay is not loaded yet
		}
	}
	var gone []voxel.ChunkPos
	for _, o := range ops {
		_, in := w.want[o.pos]
		switch {
		case o.add && !in:
			w.want[o.pos] = struct{}{}
			w.res.Want(o.pos)
			w.needOverlay(o.pos)
		case !o.add && in:
			delete(w.want, o.pos)
			delete(w.need, o.pos)
			w.res.Unwant(o.pos)
			gone = append(gone, o.pos)
		}
	}
	if len(gone) > 0 {
		w.readyMu.Lock()
		for _, p := range gone {
			delete(w.overlays, p)
		}
		w.readyMu.Unlock()
	}
	w.loadOverlays()
	w.res.Pump(nil)
	w.stats.resident.Store(int64(w.res.Resident()))
	w.stats.inFlight.Store(int64(w.res.InFlight()))
	w.stats.waiting.Store(int64(len(w.need)))
	w.stats.want.Store(int64(len(w.want)))
	w.stats.ready.Store(int64(len(w.want) - len(w.need)))
	if err := w.res.Err(); err != nil && w.res.InFlight() == 0 && w.res.Queued() > 0 {
		w.log.Warn("chunk loader failing; retrying", "err", err)
	}
}

// needOverlay queues p's overlay for reading if p is edited and its
// overlay is not loaded.
func (w *World) needOverlay(p voxel.ChunkPos) {
	w.readyMu.RLock()
	_, edited := w.edited[p]
	_, loaded := w.overlays[p]
	w.readyMu.RUnlock()
	if !edited || loaded {
		return
	}
	if _, ok := w.need[p]; !ok {
		w.need[p] = struct{}{}
		w.needQ = append(w.needQ, p)
	}
}

// loadOverlays reads up to OverlaysPerPass queued overlays from the store
// and publishes them.
func (w *World) loadOverlays() {
	if len(w.needQ) == 0 {
		return
	}
	w.storeMu.Lock()
	defer w.storeMu.Unlock()
	n := 0
	i := 0
	for ; i < len(w.needQ) && n < w.opt.OverlaysPerPass; i++ {
		p := w.needQ[i]
		if _, ok := w.need[p]; !ok {
			continue // no longer wanted
		}
		o, err := w.st.Overlay(p)
		if err != nil {
			w.log.Error("reading edits failed; chunk stays unready", "chunk", p, "err", err)
			break // retried next pass
		}
		n++
		w.readyMu.Lock()
		w.overlays[p] = o
		w.readyMu.Unlock()
		delete(w.need, p)
	}
	rest := copy(w.needQ, w.needQ[i:])
	clear(w.needQ[rest:])
	w.needQ = w.needQ[:rest]
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
