package buildworkers

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// ReadyTimeout is how long the pool waits for any worker to report ready
// before the main goroutine takes over all building.
const ReadyTimeout = 10 * time.Second

// DefaultMaxInFlight is the per-worker limit on outstanding requests.
const DefaultMaxInFlight = 3

// PoolConfig sizes a pool.
type PoolConfig struct {
	Workers     int
	MaxInFlight int
	World       world.World
	NewBuilder  func() Builder
	// Gate, when set, is read-locked by a worker around each job: a
	// benchmark write-locks it to measure the main goroutine alone.
	Gate *sync.RWMutex
	// ExtraInFlight is how many more requests per worker dispatch (the far
	// tier's) may add over MaxInFlight; the channels are sized for both.
	ExtraInFlight int
}

func (c PoolConfig) validate() error {
	var errs []error
	if c.Workers < 1 || c.Workers > 256 {
		errs = append(errs, fmt.Errorf("buildworkers: workers must be 1..256, got %d", c.Workers))
	}
	if c.MaxInFlight < 1 || c.MaxInFlight > 64 {
		errs = append(errs, fmt.Errorf("buildworkers: in-flight limit must be 1..64, got %d", c.MaxInFlight))
	}
	if c.NewBuilder == nil {
		errs = append(errs, errors.New("buildworkers: no builder"))
	}
	return errors.Join(errs...)
}

// job is one message on a worker's ordered channel: a change set, or a
// build request. Order on the channel is what keeps a mirror ahead of the
// requests that need it.
type job struct {
	changes *roadgraph.ChangeSet
	req     Request
}

type msgKind uint8

const (
	msgResult msgKind = iota
	msgReady
)

type message struct {
	kind msgKind
	res  Result
}

// payload is the recyclable memory of one result.
type payload struct {
	verts []uint32
	trees []slots.Tree
	obst  []slots.Obstacle
}

type workerEntry struct {
	in       chan job
	cursor   *roadgraph.Cursor
	inFlight []Request // FIFO: a worker answers in order
	ready    bool
}

// Pool runs the worker goroutines. Its methods belong to the main
// goroutine; nothing here blocks it.
type Pool struct {
	cfg      PoolConfig
	workers  []*workerEntry
	out      chan message
	recycle  chan payload
	csFree   chan *roadgraph.ChangeSet // applied change sets, for reuse
	wg       sync.WaitGroup
	started  time.Time
	anyReady bool
	failed   string // why the pool stopped; "" while healthy
	closed   bool
	returned []Request // in-flight requests handed back on failure
	pace     pace
}

// NewPool starts cfg.Workers goroutines. now starts the readiness clock.
func NewPool(cfg PoolConfig, now time.Time) (*Pool, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// Every send a worker makes fits the buffer: per worker at most
	// MaxInFlight results plus its ready and failure messages, so workers never block on
	// a main goroutine that is busy.
	p := &Pool{
		cfg:     cfg,
		out:     make(chan message, cfg.Workers*(cfg.MaxInFlight+cfg.ExtraInFlight+2)),
		recycle: make(chan payload, cfg.Workers*(cfg.MaxInFlight+cfg.ExtraInFlight)*2),
		csFree:  make(chan *roadgraph.ChangeSet, cfg.Workers*cfg.MaxInFlight*2),
		started: now,
	}
	for i := 0; i < cap(p.csFree)/2; i++ {
		edges := make([]roadgraph.EdgeRecord, 16)
		for k := range edges {
			edges[k].Nodes = make([]world.Vec2, 0, world.MaxSegments)
		}
		p.csFree <- &roadgraph.ChangeSet{
			NewEdges:  edges[:0],
			Junctions: make([]roadgraph.JunctionRecord, 0, 512),
			ArmIDs:    make([]uint64, 0, 2048),
			FlagEdges: make([]uint64, 0, 512),
			Flags:     make([]byte, 0, 16384),
			Removed:   make([]uint64, 0, 64),
		}
	}
	for i := 0; i < cfg.Workers; i++ {
		e := &workerEntry{
			// a change set may precede every request
			in:       make(chan job, 2*(cfg.MaxInFlight+cfg.ExtraInFlight)),
			cursor:   roadgraph.NewCursor(),
			inFlight: make([]Request, 0, cfg.MaxInFlight),
		}
		p.workers = append(p.workers, e)
		p.wg.Add(1)
		go p.run(i, e.in)
	}
	return p, nil
}

// run is one worker goroutine.
func (p *Pool) run(id int, in <-chan job) {
	defer p.wg.Done()
	mirror := roadgraph.NewMirror(p.cfg.World)
	var b Builder
	if !p.safely(id, Request{}, func() { b = p.cfg.NewBuilder() }) {
		return
	}
	p.out <- message{kind: msgReady, res: Result{Worker: id}}
	for j := range in {
		if !p.safely(id, j.req, func() { p.handle(id, b, mirror, j) }) {
			return
		}
	}
}

// handle applies a change set to the worker's mirror or answers a request.
func (p *Pool) handle(id int, b Builder, mirror *roadgraph.Graph, j job) {
	if p.cfg.Gate != nil {
		p.cfg.Gate.RLock()
		defer p.cfg.Gate.RUnlock()
	}
	if j.changes != nil {
		if err := mirror.Apply(j.changes); err != nil {
			panic(err)
		}
		select { // Apply copied what it keeps: hand the set back
		case p.csFree <- j.changes:
		default:
		}
		return
	}
	t0 := time.Now()
	res := p.build(id, b, mirror, j.req)
	res.Took = time.Since(t0)
	p.out <- message{res: res}
}

// safely runs f, turning a panic into a failure report.
func (p *Pool) safely(id int, req Request, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			p.out <- message{res: Result{Request: req, Worker: id, Failed: true,
				Err: fmt.Sprintf("worker %d panicked: %v\n%s", id, r, debug.Stack())}}
			ok = false
		}
	}()
	f()
	return true
}

func (p *Pool) build(id int, b Builder, g *roadgraph.Graph, req Request) Result {
	out, ok := b.Build(g, req.Item, req.Origin)
	if !ok {
		return Result{Request: req, Worker: id, Missing: true}
	}
	var pl payload
	select {
	case pl = <-p.recycle:
	default:
	}
	n := out.Count * slots.WordsPerVertex
	if cap(pl.verts) < n {
		pl.verts = make([]uint32, n, n+n/4)
	}
	out.Verts = append(pl.verts[:0], out.Verts[:n]...)
	out.Trees = append(pl.trees[:0], out.Trees...)
	out.Obstacles = append(pl.obst[:0], out.Obstacles...)
	return Result{Request: req, Worker: id, Output: out}
}

// Healthy reports whether the pool still takes requests.
func (p *Pool) Healthy() bool { return p.failed == "" }

// Failure says why the pool stopped ("" while healthy).
func (p *Pool) Failure() string { return p.failed }

// InFlight is the number of requests sent and not yet answered.
func (p *Pool) InFlight() int {
	n := 0
	for _, w := range p.workers {
		n += len(w.inFlight)
	}
	return n
}

// Dispatch sends req to the least busy ready worker, preceded by a change
// set when g changed since that worker last synced. It returns false when
// no worker can take it now.
func (p *Pool) Dispatch(g *roadgraph.Graph, req Request) bool {
	return p.dispatch(g, req, p.cfg.MaxInFlight)
}

// dispatch is Dispatch with a per-worker in-flight limit of its own (the
// far tier's cheap builds go deeper, see pushFar).
func (p *Pool) dispatch(g *roadgraph.Graph, req Request, limit int) bool {
	if p.failed != "" {
		return false
	}
	limit = min(limit, p.cfg.MaxInFlight+p.cfg.ExtraInFlight)
	var best *workerEntry
	for _, w := range p.workers {
		if w.ready && len(w.inFlight) < limit && (best == nil || len(w.inFlight) < len(best.inFlight)) {
			best = w
		}
	}
	if best == nil {
		return false
	}
	var cs *roadgraph.ChangeSet
	select {
	case cs = <-p.csFree:
	default:
		cs = &roadgraph.ChangeSet{}
	}
	if g.FillChanges(best.cursor, cs) {
		best.in <- job{changes: cs}
	} else {
		select {
		case p.csFree <- cs:
		default:
		}
	}
	req.Sent = p.pace.now
	best.inFlight = append(best.inFlight, req)
	best.in <- job{req: req}
	return true
}

// Poll returns the next finished result without blocking. After a failure
// it returns nothing more: the in-flight requests are in Returned. Paced,
// it returns only results that are due (see Pace).
func (p *Pool) Poll() (Result, bool) {
	if p.pace.on {
		return p.pollPaced()
	}
	for p.failed == "" {
		var m message
		select {
		case m = <-p.out:
		default:
			return Result{}, false
		}
		if r, ok := p.take(m); ok {
			p.finish(r)
			return r, true
		}
	}
	return Result{}, false
}

// take handles one message from a worker and reports whether it is a
// result (readiness and failures are handled here).
func (p *Pool) take(m message) (Result, bool) {
	if m.kind == msgReady {
		p.workers[m.res.Worker].ready, p.anyReady = true, true
		return Result{}, false
	}
	if m.res.Failed {
		p.fail(m.res.Err)
		return Result{}, false
	}
	return m.res, p.failed == ""
}

// finish removes an answered request from its worker's in-flight list.
func (p *Pool) finish(r Result) {
	w := p.workers[r.Worker]
	for i, q := range w.inFlight {
		if q.ID == r.ID {
			w.inFlight = append(w.inFlight[:i], w.inFlight[i+1:]...)
			return
		}
	}
}

// CheckReady fails the pool when no worker has reported ready within
// ReadyTimeout of its start.
func (p *Pool) CheckReady(now time.Time) {
	if p.failed == "" && !p.anyReady && now.Sub(p.started) >= ReadyTimeout {
		p.fail(fmt.Sprintf("no build worker ready within %v", ReadyTimeout))
	}
}

// fail stops the pool and hands every in-flight request back.
func (p *Pool) fail(why string) {
	p.failed = why
	p.pace.held = p.pace.held[:0]
	for _, w := range p.workers {
		p.returned = append(p.returned, w.inFlight...)
		w.inFlight = w.inFlight[:0]
	}
	p.stop()
}

// TakeReturned hands over the requests that were in flight when the pool
// failed (once).
func (p *Pool) TakeReturned() []Request {
	r := p.returned
	p.returned = nil
	return r
}

// Recycle hands a result's memory back for a later result.
func (p *Pool) Recycle(r *Result) {
	if r.Verts == nil && r.Trees == nil && r.Obstacles == nil {
		return
	}
	select {
	case p.recycle <- payload{verts: r.Verts, trees: r.Trees, obst: r.Obstacles}:
	default:
	}
	r.Verts, r.Trees, r.Obstacles = nil, nil, nil
}

func (p *Pool) stop() {
	if p.closed {
		return
	}
	p.closed = true
	for _, w := range p.workers {
		close(w.in)
	}
}

// Close stops the workers and waits for them to exit. Results still queued
// are discarded.
func (p *Pool) Close() {
	p.stop()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return
		case <-p.out: // keep workers from blocking while they finish
		}
	}
}
