// Package authority is the server's voxel world: the in-memory index of
// edited chunks, the committed overlays of the edited chunks players want,
// and batched commits to the crash-safe edit store. It speaks only package
// voxel's types; a *World is the server's netsync.World as it is.
//
// # The server generates nothing
//
// Clients generate terrain themselves; the server only has to say which
// chunks were never edited and send the overlay of those that were. It
// keeps an in-memory index of edited chunk positions (loaded from the store
// at open, updated on every commit), so a chunk nobody edited is
// deliverable (Chunk: ready, no edits) as soon as a client wants it. An
// edited chunk is deliverable once its committed overlay has been read from
// the store, which the loop does off the tick as soon as the chunk enters
// the union of the players' areas. Edits are checked against the index and
// the overlays, never against generated blocks, so no chunk is ever
// generated here.
//
// # Goroutines and what the tick pays
//
// The server's tick never touches the disk:
//
//   - a loop goroutine reads the overlays of edited chunks that entered the
//     union. The tick hands it the union's changes (UnionChanged) through a
//     mutex-guarded op list, O(changes);
//   - a commit goroutine owns writes: it takes every queued edit (up to
//     CommitBatch) and commits them with store.ApplyBatch (one bbolt
//     transaction, one fsync), then updates the edited index and the loaded
//     overlays;
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
package authority

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/store"
)

// Options tune a World. Zero values take the defaults shown.
type Options struct {
	// PassEvery is how often the loop looks for overlays to read while
	// there is work (10 ms); a union change wakes it at once.
	PassEvery time.Duration
	// CommitQueue bounds edits waiting for their commit (1024); a full
	// queue rejects the edit ("busy").
	CommitQueue int
	// CommitBatch bounds the edits committed in one transaction (256).
	CommitBatch int
	// OverlaysPerPass bounds store reads of edited chunks' overlays per
	// loop pass (1024).
	OverlaysPerPass int
	// ServeExports makes the store serve `citydrive export` on its socket
	// while the world is open (store.ServeExports; see export.go).
	ServeExports bool
}

func (o *Options) defaults() {
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

// World is the server's voxel world. UnionChanged, Chunk, SubmitEdit and
// CommittedEdits are called from the server's tick goroutine; Stats,
// Register and Close from any goroutine.
type World struct {
	seed uint64
	log  *slog.Logger
	opt  Options
	st   *store.Store

	exports *store.ExportServer // nil unless Options.ServeExports (and it could listen)

	// tick and committer → loop
	opsMu   sync.Mutex
	ops     []op
	wake    chan struct{}
	opsSwap []op

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

	commits chan commit
	done    voxel.Commits

	diskFull bool // committer-owned: the last commit failed for space

	// loop-owned
	want  map[voxel.ChunkPos]struct{}
	need  map[voxel.ChunkPos]struct{} // wanted, edited, overlay not read yet
	needQ []voxel.ChunkPos

	stats struct{ ready, waiting, want, edited atomic.Int64 }

	commitSeconds prometheus.Histogram
	commitBatch   prometheus.Histogram
	collectors    []prometheus.Collector

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// commit is one submitted edit on its way through the store.
type commit struct {
	tag    uint64 // the caller's, handed back
	player uint64 // with seq, names the request (0: anonymous)
	seq    uint32
	e      voxel.BlockEdit
	err    error
}

// op is a change for the loop: a chunk entered or left the union, or
// (edited) was committed without its overlay loaded, so a wanted one needs
// its overlay read.
type op struct {
	pos    voxel.ChunkPos
	add    bool
	edited bool
}

// Open opens the edit store in dir (creating it on first start) for the
// world of seed with default Options.
func Open(dir string, seed uint64, log *slog.Logger) (*World, error) {
	return OpenWith(dir, seed, log, Options{})
}

// OpenWith is Open with explicit Options.
func OpenWith(dir string, seed uint64, log *slog.Logger, opt Options) (*World, error) {
	w, err := open(dir, seed, log, opt)
	if err != nil {
		return nil, err
	}
	if opt.ServeExports {
		w.serveExports()
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
	return w, nil
}

// open opens the store and builds the world without starting its
// goroutines (tests drive pass and commitQueued themselves).
func open(dir string, seed uint64, log *slog.Logger, opt Options) (*World, error) {
	if log == nil {
		log = slog.Default()
	}
	opt.defaults()
	st, err := store.Open(dir, seed, gen.Version, gen.Compatible...)
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
		commits:  make(chan commit, opt.CommitQueue),
		want:     map[voxel.ChunkPos]struct{}{},
		need:     map[voxel.ChunkPos]struct{}{},
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
	gauge := func(name, help string, v *atomic.Int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) })
	}
	w.collectors = []prometheus.Collector{
		w.commitSeconds, w.commitBatch,
		gauge("citydrive_voxel_ready_chunks", "Chunks of the union deliverable now (never edited, or overlay read).", &w.stats.ready),
		gauge("citydrive_voxel_wanted_chunks", "Chunks in the union of all clients' areas.", &w.stats.want),
		gauge("citydrive_voxel_edited_chunks", "Chunks with committed edits (the in-memory index).", &w.stats.edited),
	}
	log.Info("voxel world open", "dir", dir, "seed", seed, "generator", gen.Version, "edited_chunks", len(edited))
	return w, nil
}

// Register adds the world's metrics (commit latency, union gauges) to r.
func (w *World) Register(r prometheus.Registerer) error {
	for _, c := range w.collectors {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Seed is the world seed.
func (w *World) Seed() uint64 { return w.seed }

// Generator is the terrain generator version clients must match.
func (w *World) Generator() uint32 { return gen.Version }

func (w *World) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// UnionChanged records a change of the union of all players' areas for
// the loop goroutine.
func (w *World) UnionChanged(added, removed []voxel.ChunkPos) {
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	w.opsMu.Lock()
	for _, p := range removed {
		w.ops = append(w.ops, op{pos: p})
	}
	for _, p := range added {
		w.ops = append(w.ops, op{pos: p, add: true})
	}
	w.opsMu.Unlock()
	w.signal()
}

// Chunk reports whether pos is deliverable and its committed overlay: a
// chunk nobody edited is ready at once (the client generates it); an edited
// one once its committed overlay has been read. The overlay is immutable.
func (w *World) Chunk(pos voxel.ChunkPos) (voxel.Overlay, bool) {
	w.readyMu.RLock()
	o, loaded := w.overlays[pos]
	_, edited := w.edited[pos]
	w.readyMu.RUnlock()
	if !loaded {
		return nil, !edited
	}
	return o, true
}

// ErrDiskFull is shown to a player whose edit the full disk refused; the
// other refusals are voxel's (voxel.ErrLoading and its kin), shared with
// the cluster.
var ErrDiskFull = errors.New("the server's disk is full, so your edit was not saved; try again later")

// loading refuses an edit of an edited chunk whose overlay is not read
// yet: it would be applied to blocks the server cannot see.
func (w *World) loading(pos voxel.ChunkPos) error {
	w.readyMu.RLock()
	_, loaded := w.overlays[pos]
	_, edited := w.edited[pos]
	w.readyMu.RUnlock()
	if edited && !loaded {
		return voxel.ErrLoading
	}
	return nil
}

// SubmitEdit validates e now and queues its commit on the commit
// goroutine; a non-nil error is a rejection shown to the player. tag comes
// back with the edit from CommittedEdits.
func (w *World) SubmitEdit(tag uint64, e voxel.BlockEdit) error {
	return w.SubmitEditOnce(tag, 0, 0, e)
}

// SubmitEditOnce is SubmitEdit for the request player (the client's key)
// and seq name: the store applies it at most once (its per-chunk stamps
// are written in the edit's transaction), so a replay or a resend after a
// reconnect or restart comes back from CommittedEdits with an error that
// is voxel.ErrAlreadyApplied: acknowledged, not applied or broadcast again.
func (w *World) SubmitEditOnce(tag uint64, player uint64, seq uint32, e voxel.BlockEdit) error {
	// The refusals in the cluster's order (check, closed, loading, busy),
	// so a player hears the same one from either.
	if err := e.Check(); err != nil {
		return err
	}
	select {
	case <-w.stop:
		return voxel.ErrClosed
	default:
	}
	if err := w.loading(e.Pos); err != nil {
		return err
	}
	select {
	case w.commits <- commit{tag: tag, player: player, seq: seq, e: e}:
		return nil
	default:
		return voxel.ErrBusy
	}
}

// CommittedEdits calls done, in commit order, for every submitted edit
// whose commit has finished since the last call (err set if it failed).
func (w *World) CommittedEdits(done func(tag uint64, e voxel.BlockEdit, err error)) {
	w.done.Drain(done)
}

// commit writes a batch of edits to the store in one transaction,
// then makes them visible in the edited index and the loaded overlays
// (deliveries from now on carry them). If the batch fails, each edit is
// retried on its own so one bad edit cannot fail the others. err is set on
// each failed edit.
func (w *World) commit(cs []commit) {
	batch := make([]store.Edit, len(cs))
	for i, c := range cs {
		batch[i] = store.Edit{BlockEdit: c.e, Player: c.player, Seq: c.seq}
	}
	start := time.Now()
	w.storeMu.Lock()
	dup, err := w.st.ApplyEdits(batch)
	if err != nil && len(cs) > 1 {
		for i, e := range batch {
			var d []bool
			if d, cs[i].err = w.st.ApplyEdits([]store.Edit{e}); cs[i].err == nil && d[0] {
				cs[i].err = voxel.ErrAlreadyApplied
			}
		}
	} else {
		for i := range cs {
			if cs[i].err = err; err == nil && dup[i] {
				cs[i].err = voxel.ErrAlreadyApplied
			}
		}
	}
	var unloaded []voxel.ChunkPos
	w.readyMu.Lock()
	for _, c := range cs {
		if c.err != nil {
			continue
		}
		w.edited[c.e.Pos] = struct{}{}
		if o, ok := w.overlays[c.e.Pos]; ok {
			w.overlays[c.e.Pos] = o.With(c.e.Index, c.e.Block)
		} else {
			unloaded = append(unloaded, c.e.Pos)
		}
	}
	n := len(w.edited)
	w.readyMu.Unlock()
	w.storeMu.Unlock()
	w.stats.edited.Store(int64(n))
	w.commitSeconds.Observe(time.Since(start).Seconds())
	w.commitBatch.Observe(float64(len(cs)))
	full, saved := false, false
	for i, c := range cs {
		switch {
		case c.err == nil:
			saved = true
		case errors.Is(c.err, voxel.ErrAlreadyApplied):
		case errors.Is(c.err, store.ErrDiskFull):
			if !full && !w.diskFull {
				// Once, not per edit: the store's error names the file
				// and what to do.
				w.log.Error("the disk is full: edits are refused until there is space; reads and cars go on", "err", c.err)
			}
			full = true
			cs[i].err = ErrDiskFull
		default:
			w.log.Error("committing edit failed", "chunk", c.e.Pos, "index", c.e.Index, "block", c.e.Block, "err", c.err)
			cs[i].err = fmt.Errorf("%w: %v", voxel.ErrNotSaved, c.err)
		}
	}
	switch {
	case full:
		w.diskFull = true
	case w.diskFull && saved:
		w.log.Info("the disk has space again: edits are saved")
		w.diskFull = false
	}
	if len(unloaded) > 0 {
		// A first edit of a chunk: if it is wanted, its overlay must be
		// read before it is deliverable again.
		w.opsMu.Lock()
		for _, p := range unloaded {
			w.ops = append(w.ops, op{pos: p, edited: true})
		}
		w.opsMu.Unlock()
		w.signal()
	}
}

// committer commits queued edits in batches: it waits for one, then
// commits it with whatever else is queued.
func (w *World) committer() {
	var cs []commit
	for {
		select {
		case <-w.stop:
			return
		case c := <-w.commits:
			cs = w.commitQueued(append(cs[:0], c))
		}
	}
}

// commitQueued adds whatever else is queued (up to CommitBatch) to cs,
// commits them in one transaction and hands them to CommittedEdits.
func (w *World) commitQueued(cs []commit) []commit {
more:
	for len(cs) < w.opt.CommitBatch {
		select {
		case c := <-w.commits:
			cs = append(cs, c)
		default:
			break more
		}
	}
	w.commit(cs)
	for _, c := range cs {
		w.done.Add(voxel.Committed{Tag: c.tag, Edit: c.e, Err: c.err})
	}
	clear(cs)
	return cs[:0]
}

// loop reads overlays of wanted edited chunks.
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

// pass applies queued union changes (O(changes)) and reads the overlays of
// edited chunks that entered the union or were edited for the first time.
// Its cost never depends on the size of the union.
func (w *World) pass() {
	w.opsMu.Lock()
	ops := w.ops
	w.ops = w.opsSwap[:0]
	w.opsMu.Unlock()
	defer func() { w.opsSwap = ops[:0] }()

	var gone []voxel.ChunkPos
	for _, o := range ops {
		_, in := w.want[o.pos]
		switch {
		case o.edited:
			if in {
				w.needOverlay(o.pos)
			}
		case o.add && !in:
			w.want[o.pos] = struct{}{}
			w.needOverlay(o.pos)
		case !o.add && in:
			delete(w.want, o.pos)
			delete(w.need, o.pos)
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
	w.stats.waiting.Store(int64(len(w.need)))
	w.stats.want.Store(int64(len(w.want)))
	w.stats.ready.Store(int64(len(w.want) - len(w.need)))
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

// Stats is a snapshot of the union as the world sees it.
type Stats struct {
	Wanted  int // chunks in the union of all areas
	Ready   int // chunks deliverable now
	Waiting int // wanted, edited, overlay not read yet
	Edited  int // chunks with committed edits
}

// Stats returns the latest counts (updated after every pass).
func (w *World) Stats() Stats {
	return Stats{
		Wanted: int(w.stats.want.Load()), Ready: int(w.stats.ready.Load()),
		Waiting: int(w.stats.waiting.Load()), Edited: int(w.stats.edited.Load()),
	}
}

// Close stops the loop and the committer (an edit being committed finishes;
// queued ones are dropped unacknowledged) and closes the store. Call it
// after the server has stopped ticking.
func (w *World) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		w.wg.Wait()
		w.closeErr = errors.Join(w.closeExports(), w.st.Close())
	})
	return w.closeErr
}
