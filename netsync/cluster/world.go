package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// World is the server's voxel world when edits live in a JetStream
// key-value bucket shared by every server of the cluster (a
// netsync.OnceWorld). One key per edited chunk holds its overlay.
//
// Each region has one owner (lease.go): only the owner writes its chunks,
// one commit worker per region (commits.go), and every write is fenced by the region's
// lease: it is stored only if the lease key is still at the revision the
// owner holds it by, so a server that lost the lease while paused writes
// nothing. A server that does not own an edit's region forwards it to the
// owner (forward.go). An edit is acknowledged once JetStream has stored it
// (quorum) and this server's watch has seen that revision, so its
// broadcast goes first.
//
// The server watches the regions its players' areas touch and the ones it
// owns, through one watch (watch.go): a region is deliverable once its
// current values are in, then every change, from whichever server, is
// compared with the value before it and the changed blocks come back from
// CommittedEdits, as this server's own commits or as netsync.RemoteEdit.
type World struct {
	kv  jetstream.KeyValue
	js  jetstream.JetStream
	log *slog.Logger
	lim wire.Limits
	opt WorldOptions

	dir   *Directory
	self  uint32
	lease *leaser
	fwd   *forwarder
	// prefix of this bucket's subjects ("$KV.<bucket>.")
	subj string
	// testHookWrite, if set, runs before each fenced write (tests pause a
	// server there).
	testHookWrite func()

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// tick-owned
	regions       *regions
	entered, left []Region
	follow        func(entered, left []Region) // cars follow the same regions

	wake chan struct{} // to the watch goroutine
	// stale asks the watch goroutine to make the main watch again: it
	// delivers nothing while NATS stores our heartbeats (see leaser.run).
	stale atomic.Bool

	mu      sync.Mutex
	want    map[Region]bool // the union's regions
	watched map[Region]*watch
	// linger: regions neither wanted nor owned any more, kept watched
	// until then (watchLinger).
	linger  map[Region]time.Time
	parked  map[voxel.ChunkPos][]parkedCommit
	written map[voxel.ChunkPos]known // own writes the watch has not shown yet
	suspect map[Region]uint64        // a lease revision whose last write's fate is unknown
	used    map[Region]time.Time     // when an owned region last committed
	moved   chan struct{}            // closed at the next change of the watched state
	done    voxel.Commits

	// commit queues (commits.go)
	qmu     sync.Mutex
	queues  map[Region]*regionQueue // regions with a worker running
	queued  int                     // edits waiting or being committed
	qclosed bool
	writes  chan struct{} // a slot per chunk write in flight

	commitSeconds  prometheus.Histogram
	chunkWrites    prometheus.Counter
	casRetries     prometheus.Counter
	fenced         prometheus.Counter
	forwarded      prometheus.Counter
	consumerStarts prometheus.Counter
	watchedGauge   prometheus.GaugeFunc
}

// WorldOptions tune a World; zero values take the defaults shown.
type WorldOptions struct {
	Committers  int           // chunk writes in flight at once, over all regions (16)
	CommitQueue int           // edits waiting or being committed before "busy" (1024)
	OpTimeout   time.Duration // one KV call (2 s)
	CommitFor   time.Duration // retrying one edit through NATS outages and owner changes before rejecting it (10 s)
	ParkFor     time.Duration // an ack waits this long at most for its own revision on the watch (3 s)
}

func (o *WorldOptions) defaults() {
	if o.Committers <= 0 {
		o.Committers = 16
	}
	if o.CommitQueue <= 0 {
		o.CommitQueue = 1024
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

// watch is one watched region and the values the watch has delivered.
type watch struct {
	r        Region
	ready    bool // initial values all in
	catching bool // in the catch-up watch running now
	chunks   map[voxel.ChunkPos]known
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
	// reply, if set, answers a forwarded edit instead of CommittedEdits.
	reply func(rev uint64, err error)
	// until, for a forwarded edit, is when its sender stops waiting for
	// the answer (and sends it again, the stamp making that harmless).
	until time.Time
}

type parkedCommit struct {
	tag uint64
	e   voxel.BlockEdit
	rev uint64
	at  time.Time
}

var _ netsync.OnceWorld = (*World)(nil)

func newWorld(js jetstream.JetStream, kv jetstream.KeyValue, dir *Directory, self uint32, log *slog.Logger, opt WorldOptions) *World {
	opt.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	w := &World{
		kv: kv, js: js, log: log, lim: wire.DefaultLimits, opt: opt, ctx: ctx, cancel: cancel,
		dir: dir, self: self, subj: "$KV." + kv.Bucket() + ".",
		regions: newRegions(),
		wake:    make(chan struct{}, 1),
		want:    map[Region]bool{},
		watched: map[Region]*watch{},
		linger:  map[Region]time.Time{},
		parked:  map[voxel.ChunkPos][]parkedCommit{},
		written: map[voxel.ChunkPos]known{},
		suspect: map[Region]uint64{},
		used:    map[Region]time.Time{},
		moved:   make(chan struct{}),
		queues:  map[Region]*regionQueue{},
		writes:  make(chan struct{}, opt.Committers),
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "citydrive_cluster_edit_commit_seconds",
			Help:    "Time from an edit leaving the queue to JetStream storing it (owner changes, forwarding and retries included).",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1, 4},
		}),
		chunkWrites: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "citydrive_cluster_chunk_writes_total",
			Help: "Chunk writes sent by this server as an owner (each carries every edit of the chunk queued meanwhile).",
		}),
		casRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "citydrive_cluster_cas_retries_total",
			Help: "Edit writes retried (the write failed, was refused, or its outcome was unknown).",
		}),
		fenced: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "citydrive_cluster_fenced_writes_total",
			Help: "Edit writes JetStream refused because the region's lease had moved on (or was being written).",
		}),
		forwarded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "citydrive_cluster_edits_forwarded_total",
			Help: "Edits sent on to the server owning their region.",
		}),
		consumerStarts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "citydrive_cluster_watch_starts_total",
			Help: "Times the server's one edit watch was made (again), as its watched regions changed or it failed.",
		}),
	}
	w.watchedGauge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "citydrive_cluster_watched_regions", Help: "Regions whose edits this server watches.",
	}, func() float64 {
		w.mu.Lock()
		defer w.mu.Unlock()
		return float64(len(w.watched))
	})
	return w
}

// start runs the watch and the reaper (commit workers start with the
// edits, commits.go).
func (w *World) start() {
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		w.reaper()
	}()
	go func() {
		defer w.wg.Done()
		w.watchLoop()
	}()
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
	return w.enqueue(request{tag: tag, player: player, seq: seq, e: e})
}

// CommittedEdits hands back this server's finished commits and the other
// servers' edits of watched chunks, in the order the watch saw them.
func (w *World) CommittedEdits(done func(tag uint64, e voxel.BlockEdit, err error)) {
	w.done.Drain(done)
}

// WriterHeader names, on every chunk write, the slot of the server that
// committed it.
const WriterHeader = "Citydrive-Writer"

// ErrStoreDown: the edit was not stored because NATS did not answer
// (a lost quorum, a stalled node) for as long as an edit is retried.
var ErrStoreDown = errors.New("the world's store (NATS) is not answering, try again soon")

// storeDown reports whether err means NATS did not answer, as opposed to
// a refusal or a region still loading.
func storeDown(err error) bool {
	return errors.Is(err, errLapsing) || errors.Is(err, errRefenced) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse)
}

// errSenderGone: a forwarded edit whose sender stopped waiting for it.
var errSenderGone = errors.New("the forwarding server stopped waiting for this edit")

// errRefenced: a write's fate was unknown, so the lease was moved on
// before writing again; the edit is not stored yet.
var errRefenced = errors.New("an earlier write's outcome was unknown, so the region's lease was moved on first")

// errLapsing: this server's own heartbeat is late, so others may take its
// regions any moment; it writes nothing until it is back.
var errLapsing = errors.New("this server's region lease is lapsing (its NATS heartbeat is late)")

// commitOwned is one attempt at a fenced write of rest, edits of one chunk
// in order, into a region the directory says this server owns: all of
// them in one write, a request already in the value (a retry) answered
// without, one too old for its stamp refused. The rest it finishes all,
// or leaves and returns why (try once more after the state moves on).
func (w *World) commitOwned(rest []*pending, reg Region) error {
	if !w.lease.fresh() {
		return errLapsing
	}
	token := w.dir.lease(reg).rev
	w.mu.Lock()
	wt := w.watched[reg]
	ready := wt != nil && wt.ready
	suspect := w.suspect[reg] == token
	w.mu.Unlock()
	if !ready {
		// Owned regions are watched: their values are on the way. The
		// lease's own entry came through the same watch, so once ready
		// every write before the lease is in the values.
		return fmt.Errorf("region %d,%d is still loading here", reg.X, reg.Z)
	}
	if suspect {
		// A write's fate is unknown: move the lease on (by our own CAS)
		// so the write cannot land later, and commit once the watch has
		// shown the new lease (and with it everything before). Never
		// nil: at the deadline that error is the edit's answer, and nil
		// would ack an edit never stored.
		if err := w.lease.refence(w.ctx, reg, token); err != nil {
			return err
		}
		return errRefenced
	}
	pos := rest[0].e.Pos
	next, crev := w.latest(pos)
	stored := make([]bool, len(rest))
	anyStored := false
	for i, p := range rest {
		v, done, err := next.with(p.e, p.player, p.seq)
		switch {
		case err != nil:
			p.finish(0, err) // too old to place: refused, the player is told
		case done == applied:
			next, stored[i], anyStored = v, true, true
		}
	}
	if !anyStored {
		for _, p := range rest {
			if !p.done {
				p.finish(0, nil) // stored before, or superseded by the player's newer edit
			}
		}
		return nil
	}
	val, err := next.encode(wire.NewEncoder())
	if err != nil {
		for _, p := range unfinished(rest) {
			p.finish(0, err)
		}
		return nil
	}
	if h := w.testHookWrite; h != nil {
		h()
	}
	msg := nats.NewMsg(w.subj + chunkKey(pos))
	msg.Data = val
	msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(token, 10))
	msg.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, w.subj+ownKey(reg))
	// Who wrote it, kept with the value: the bucket's history then shows
	// which server committed each write (the drill and tests check that
	// it was the lease holder of the moment).
	msg.Header.Set(WriterHeader, strconv.FormatUint(uint64(w.self), 10))
	ack, err := w.publish(msg)
	if err == nil {
		w.mu.Lock()
		if ack.Sequence > crev {
			w.written[pos] = known{v: next, rev: ack.Sequence}
		}
		w.used[reg] = time.Now()
		w.mu.Unlock()
		for i, p := range rest {
			switch {
			case stored[i]:
				p.finish(ack.Sequence, nil)
			case !p.done:
				p.finish(0, nil) // stored before, or superseded
			}
		}
		return nil
	}
	if w.ctx.Err() != nil {
		for _, p := range unfinished(rest) {
			p.finish(0, voxel.ErrClosed)
		}
		return nil
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		if apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
			apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant {
			// Refused by the fence: the lease moved on (another server
			// took it) or was being written. Not stored; the refence
			// finds out which.
			w.fenced.Inc()
			w.markSuspect(reg, token)
		}
		return err // refused: not stored
	}
	// Not stored, or stored and the answer lost.
	w.markSuspect(reg, token)
	return err
}

// publish sends one chunk write, holding one of the Committers write
// slots while it is in flight.
func (w *World) publish(msg *nats.Msg) (*jetstream.PubAck, error) {
	select {
	case w.writes <- struct{}{}:
	case <-w.ctx.Done():
		return nil, w.ctx.Err()
	}
	defer func() { <-w.writes }()
	w.chunkWrites.Inc()
	ctx, cancel := context.WithTimeout(w.ctx, w.opt.OpTimeout)
	defer cancel()
	return w.js.PublishMsg(ctx, msg)
}

func (w *World) markSuspect(reg Region, token uint64) {
	w.mu.Lock()
	w.suspect[reg] = token
	w.mu.Unlock()
}

// movedChan is closed at the next change of the watched state.
func (w *World) movedChan() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.moved
}

// waitMoved waits for the state to move on, or the backoff.
func (w *World) waitMoved(moved <-chan struct{}, backoff *time.Duration) {
	t := time.NewTimer(*backoff)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
	case <-moved:
	case <-t.C:
		*backoff = min(2**backoff, 500*time.Millisecond)
	}
}

// latest is the chunk's value as stored: the watch's, or this server's own
// newer write the watch has not shown yet (an owner is the region's only
// writer, so nothing else can be newer).
func (w *World) latest(pos voxel.ChunkPos) (chunkValue, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var k known
	if wt := w.watched[RegionOf(pos)]; wt != nil {
		k = wt.chunks[pos]
	}
	if o, ok := w.written[pos]; ok && o.rev > k.rev {
		k = o
	}
	if k.rev == 0 {
		k.v.pos = pos
	}
	return k.v, k.rev
}

// settle answers a finished commit: a failure at once; a stored edit once
// the watch has delivered its revision (the broadcast before the ack), or
// at once when the region is not watched or the watch is past it.
func (w *World) settle(r request, rev uint64, err error) {
	if r.reply != nil {
		r.reply(rev, err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.log.Error("committing edit failed", "chunk", r.e.Pos, "index", r.e.Index, "err", err)
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e, Err: fmt.Errorf("%w: %v", voxel.ErrNotSaved, err)})
		return
	}
	if rev == 0 { // a retry of a request stored before, or superseded: acked, not broadcast
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e, Err: voxel.ErrAlreadyApplied})
		return
	}
	wt := w.watched[RegionOf(r.e.Pos)]
	if wt == nil || !wt.ready {
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e})
		return
	}
	if k := wt.chunks[r.e.Pos]; k.rev >= rev {
		// The watch is past it (a forwarded edit's answer can be slower
		// than the watch). If the block was overwritten since, the watch
		// has shown that: broadcast now, the edit would undo it for
		// everyone here, so it is only answered.
		var err error
		if b, _ := k.v.overlay.Get(r.e.Index); b != r.e.Block {
			err = voxel.ErrAlreadyApplied
		}
		w.done.Add(voxel.Committed{Tag: r.tag, Edit: r.e, Err: err})
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

// Ready reports whether every region this server watches or is to watch
// has its initial values (tests and tools wait on it).
func (w *World) Ready() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for r := range w.want {
		if wt := w.watched[r]; wt == nil || !wt.ready {
			return false
		}
	}
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
	w.qmu.Lock()
	w.qclosed = true // no worker starts after this (enqueue)
	w.qmu.Unlock()
	w.wg.Wait()
}
