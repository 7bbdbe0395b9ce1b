package cluster

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// World is the server's voxel world when edits live in a JetStream
// key-value bucket shared by every server of the cluster (a
// netsync.OnceWorld). One key per edited chunk holds its overlay; an edit
// is a compare-and-set on the key's revision (retried on conflict), so
// concurrent edits of one chunk through different servers serialise. It is
// acknowledged once JetStream has stored it (quorum) and this server's
// watch has seen that revision, so its broadcast goes first.
//
// The server watches exactly the regions its players' areas touch: a
// region's watch delivers its current values (a region is deliverable once
// they are all in), then every change, from whichever server. A change is
// compared with the value before it and the changed blocks come back from
// CommittedEdits, as this server's own commits or as netsync.RemoteEdit.
type World struct {
	kv  jetstream.KeyValue
	log *slog.Logger
	lim wire.Limits
	opt WorldOptions

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// tick-owned
	regions       *regions
	entered, left []Region
	follow        func(entered, left []Region) // cars follow the same regions

	mu      sync.Mutex
	watched map[Region]*watch
	parked  map[voxel.ChunkPos][]parkedCommit
	done    voxel.Commits

	shards []chan request
	seed   maphash.Seed

	commitSeconds prometheus.Histogram
	casRetries    prometheus.Counter
	watchedGauge  prometheus.GaugeFunc
}

// WorldOptions tune a World; zero values take the defaults shown.
type WorldOptions struct {
	Committers  int           // commit goroutines, chunks hashed over them (4)
	CommitQueue int           // edits waiting per committer before "busy" (256)
	OpTimeout   time.Duration // one KV call (2 s)
	CommitFor   time.Duration // retrying one edit through NATS outages before rejecting it (10 s)
	ParkFor     time.Duration // an ack waits this long at most for its own revision on the watch (3 s)
}

func (o *WorldOptions) defaults() {
	if o.Committers <= 0 {
		o.Committers = 4
	}
	if o.CommitQueue <= 0 {
		o.CommitQueue = 256
	}
	if o.OpTimeout <= 0 {
		o.OpTimeout = 2 * time.Second
	}
	if o.CommitFor <= 0 {
		o.CommitFor = 10 * time.Second
	}
	if o.ParkFor <= 0 {
		o.ParkFor = 3 * time.Second
	}
}

// watch is one region's KV watch and the values it has delivered.
type watch struct {
	r      Region
	ready  bool // initial values all in
	chunks map[voxel.ChunkPos]known
	stop   context.CancelFunc
}

type known struct {
	v   chunkValue
	rev uint64
}

type request struct {
	tag    uint64
	player uint64
	seq    uint32
	e      voxel.BlockEdit
}

type parkedCommit struct {
	tag uint64
	e   voxel.BlockEdit
	rev uint64
	at  time.Time
}

var _ netsync.OnceWorld = (*World)(nil)

func newWorld(kv jetstream.KeyValue, log *slog.Logger, opt WorldOptions) *World {
	opt.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	w := &World{
		kv: kv, log: log, lim: wire.DefaultLimits, opt: opt, ctx: ctx, cancel: cancel,
		regions: newRegions(),
		watched: map[Region]*watch{},
		parked:  map[voxel.ChunkPos][]parkedCommit{},
		seed:    maphash.MakeSeed(),
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "citydrive_cluster_edit_commit_seconds",
			Help:    "Time from an edit leaving the queue to JetStream storing it (compare-and-set retries included).",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1, 4},
		}),
		casRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "citydrive_cluster_cas_retries_total",
			Help: "Edit writes retried because another server changed the chunk first (or the write failed).",
		}),
	}
	w.watchedGauge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "citydrive_cluster_watched_regions", Help: "Regions whose edits this server watches.",
	}, func() float64 {
		w.mu.Lock()
		defer w.mu.Unlock()
		return float64(len(w.watched))
	})
	for range opt.Committers {
		ch := make(chan request, opt.CommitQueue)
		w.shards = append(w.shards, ch)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.committer(ch)
		}()
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.reaper()
	}()
	return w
}

// UnionChanged starts watching regions the union entered and stops those
// it left (off the tick: the watches start on their own goroutines).
func (w *World) UnionChanged(added, removed []voxel.ChunkPos) {
	w.entered, w.left = w.regions.update(added, removed, w.entered[:0], w.left[:0])
	if len(w.entered) == 0 && len(w.left) == 0 {
		return
	}
	w.mu.Lock()
	for _, r := range w.left {
		wt := w.watched[r]
		if wt == nil {
			continue
		}
		wt.stop()
		delete(w.watched, r)
		for pos, ps := range w.parked { // nobody here holds them any more
			if RegionOf(pos) == r {
				for _, p := range ps {
					w.done.Add(voxel.Committed{Tag: p.tag, Edit: p.e})
				}
				delete(w.parked, pos)
			}
		}
	}
	for _, r := range w.entered {
		ctx, stop := context.WithCancel(w.ctx)
		wt := &watch{r: r, chunks: map[voxel.ChunkPos]known{}, stop: stop}
		w.watched[r] = wt
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.watchRegion(ctx, wt)
		}()
	}
	w.mu.Unlock()
	if w.follow != nil {
		w.follow(w.entered, w.left)
	}
}

// watchRegion runs one region's watch until ctx ends, starting it again
// if it fails (JetStream briefly without a leader).
func (w *World) watchRegion(ctx context.Context, wt *watch) {
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		kw, err := w.kv.Watch(ctx, regionFilter(wt.r))
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("watching a region failed; retrying", "region", wt.r, "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		for open := true; open; {
			select {
			case <-ctx.Done():
				open = false
			case e, ok := <-kw.Updates():
				if !ok {
					open = false
					break
				}
				w.onEntry(wt, e)
			}
		}
		_ = kw.Stop()
	}
}

// onEntry applies one watch entry (nil: the initial values are all in).
func (w *World) onEntry(wt *watch, e jetstream.KeyValueEntry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[wt.r] != wt {
		return // the region was left meanwhile
	}
	if e == nil {
		wt.ready = true
		return
	}
	pos, err := parseKey(e.Key())
	if err != nil {
		w.log.Error("ignoring a key in the edit bucket", "key", e.Key(), "err", err)
		return
	}
	old := wt.chunks[pos]
	if e.Revision() <= old.rev {
		return // seen (a restarted watch delivers the latest value again)
	}
	v := chunkValue{pos: pos}
	if e.Operation() == jetstream.KeyValuePut {
		if v, err = decodeValue(e.Value(), pos, w.lim); err != nil {
			w.log.Error("ignoring a bad value in the edit bucket", "key", e.Key(), "revision", e.Revision(), "err", err)
			return
		}
	}
	wt.chunks[pos] = known{v: v, rev: e.Revision()}
	if !wt.ready {
		return // nobody holds a chunk of a region still loading
	}
	changed := diff(old.v.overlay, v.overlay, nil)
	// Own commits up to this revision first, then whatever else changed:
	// the last word on each block is the new value.
	keep := w.parked[pos][:0]
	for _, p := range w.parked[pos] {
		if p.rev > e.Revision() {
			keep = append(keep, p)
			continue
		}
		w.done.Add(voxel.Committed{Tag: p.tag, Edit: p.e})
		for i, c := range changed {
			if c.Index == p.e.Index && c.Block == p.e.Block {
				changed = append(changed[:i], changed[i+1:]...)
				break
			}
		}
	}
	if len(keep) == 0 {
		delete(w.parked, pos)
	} else {
		w.parked[pos] = keep
	}
	for _, c := range changed {
		w.done.Add(voxel.Committed{Tag: netsync.RemoteEdit, Edit: voxel.BlockEdit{Pos: pos, Index: c.Index, Block: c.Block}})
	}
}

// Chunk reports a chunk deliverable once its region's initial values are
// in: its overlay, or none if nobody edited it.
func (w *World) Chunk(pos voxel.ChunkPos) (voxel.Overlay, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt := w.watched[RegionOf(pos)]
	if wt == nil || !wt.ready {
		return nil, false
	}
	return wt.chunks[pos].v.overlay, true
}

// SubmitEdit is SubmitEditOnce for an anonymous request.
func (w *World) SubmitEdit(tag uint64, e voxel.BlockEdit) error {
	return w.SubmitEditOnce(tag, 0, 0, e)
}

// SubmitEditOnce validates e and queues its commit; player and seq name
// the request, so a retry of one already stored is acknowledged without
// being applied again.
func (w *World) SubmitEditOnce(tag uint64, player uint64, seq uint32, e voxel.BlockEdit) error {
	if err := e.Check(); err != nil {
		return err
	}
	if w.ctx.Err() != nil {
		return voxel.ErrClosed
	}
	if _, ready := w.Chunk(e.Pos); !ready {
		return voxel.ErrLoading
	}
	shard := maphash.Comparable(w.seed, e.Pos) % uint64(len(w.shards)) // one chunk, one committer
	select {
	case w.shards[shard] <- request{tag: tag, player: player, seq: seq, e: e}:
		return nil
	default:
		return voxel.ErrBusy
	}
}

// CommittedEdits hands back this server's finished commits and the other
// servers' edits of watched chunks, in the order the watch saw them.
func (w *World) CommittedEdits(done func(tag uint64, e voxel.BlockEdit, err error)) {
	w.done.Drain(done)
}

// committer commits its chunks' edits one at a time, so edits of one chunk
// keep their order.
func (w *World) committer(ch chan request) {
	for {
		select {
		case <-w.ctx.Done():
			return
		case r := <-ch:
			start := time.Now()
			rev, err := w.commit(r)
			w.commitSeconds.Observe(time.Since(start).Seconds())
			w.settle(r, rev, err)
		}
	}
}

// commit stores r's edit by compare-and-set on the chunk's revision,
// starting from the watched value and re-reading on conflict. rev 0 with no
// error: the request was applied before (a retry).
func (w *World) commit(r request) (uint64, error) {
	key := chunkKey(r.e.Pos)
	cur, rev, fresh := w.watchedValue(r.e.Pos)
	enc := wire.NewEncoder()
	deadline := time.Now().Add(w.opt.CommitFor)
	backoff := 20 * time.Millisecond
	for {
		if !fresh {
			var err error
			cur, rev, err = w.read(key, r.e.Pos)
			if err != nil {
				if w.ctx.Err() != nil {
					return 0, voxel.ErrClosed
				}
				if time.Now().After(deadline) {
					return 0, err
				}
				w.pause(&backoff)
				continue
			}
		}
		next, dup := cur.with(r.e, r.player, r.seq)
		if dup {
			return 0, nil
		}
		val, err := next.encode(enc)
		if err != nil {
			return 0, err
		}
		ctx, cancel := context.WithTimeout(w.ctx, w.opt.OpTimeout)
		var nrev uint64
		if rev == 0 {
			nrev, err = w.kv.Create(ctx, key, val)
		} else {
			nrev, err = w.kv.Update(ctx, key, val, rev)
		}
		cancel()
		if err == nil {
			return nrev, nil
		}
		w.casRetries.Inc()
		fresh = false
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // another server was first: re-read and apply on top
		}
		// Not stored, or stored and the answer lost: the re-read shows
		// which (our stamp), so retrying never applies it twice.
		if w.ctx.Err() != nil {
			return 0, voxel.ErrClosed
		}
		if time.Now().After(deadline) {
			return 0, err
		}
		w.pause(&backoff)
	}
}

func (w *World) pause(backoff *time.Duration) {
	select {
	case <-w.ctx.Done():
	case <-time.After(*backoff):
	}
	*backoff = min(2**backoff, 500*time.Millisecond)
}

// watchedValue is the chunk's value as this server's watch last saw it.
func (w *World) watchedValue(pos voxel.ChunkPos) (chunkValue, uint64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt := w.watched[RegionOf(pos)]
	if wt == nil || !wt.ready {
		return chunkValue{}, 0, false
	}
	k := wt.chunks[pos]
	if k.rev == 0 {
		k.v.pos = pos
	}
	return k.v, k.rev, true
}

// read gets the chunk's latest value from the bucket (rev 0: none).
func (w *World) read(key string, pos voxel.ChunkPos) (chunkValue, uint64, error) {
	ctx, cancel := context.WithTimeout(w.ctx, w.opt.OpTimeout)
	defer cancel()
	e, err := w.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return chunkValue{pos: pos}, 0, nil
	case err != nil:
		return chunkValue{}, 0, err
	}
	v, err := decodeValue(e.Value(), pos, w.lim)
	if err != nil {
		return chunkValue{}, 0, err
	}
	return v, e.Revision(), nil
}

// settle answers a finished commit: a failure at once; a stored edit once
// the watch has delivered its revision (the broadcast before the ack), or
// at once when the region is not watched or the watch is past it.
func (w *World) settle(r request, rev uint64, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.log.Error("committing edit failed", "chunk", r.e.Pos, "index", r.e.Index, "err", err)
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e, Err: fmt.Errorf("%w: %v", voxel.ErrNotSaved, err)})
		return
	}
	if rev == 0 { // a retry of a request stored before: acked, not broadcast
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e, Err: voxel.ErrAlreadyApplied})
		return
	}
	wt := w.watched[RegionOf(r.e.Pos)]
	if wt == nil || !wt.ready || wt.chunks[r.e.Pos].rev >= rev {
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e})
		return
	}
	w.parked[r.e.Pos] = append(w.parked[r.e.Pos], parkedCommit{tag: r.tag, e: r.e, rev: rev, at: time.Now()})
}

// reaper acknowledges stored edits whose revision the watch has not shown
// within ParkFor (a watch being restarted): stored is what an ack
// promises; the broadcast comes when the watch catches up.
func (w *World) reaper() {
	t := time.NewTicker(w.opt.ParkFor / 4)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case now := <-t.C:
			w.mu.Lock()
			for pos, ps := range w.parked {
				keep := ps[:0]
				for _, p := range ps {
					if now.Sub(p.at) >= w.opt.ParkFor {
						w.done.Add(voxel.Committed{Tag: p.tag, Edit: p.e})
					} else {
						keep = append(keep, p)
					}
				}
				if len(keep) == 0 {
					delete(w.parked, pos)
				} else {
					w.parked[pos] = keep
				}
			}
			w.mu.Unlock()
		}
	}
}

// Ready reports whether every region this server watches has its initial
// values (tests and tools wait on it).
func (w *World) Ready() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wt := range w.watched {
		if !wt.ready {
			return false
		}
	}
	return true
}

// close stops the watches and committers (queued edits are dropped
// unacknowledged; one being written finishes or times out).
func (w *World) close() {
	w.cancel()
	w.wg.Wait()
}
