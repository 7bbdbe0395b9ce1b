package buildworkers

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// Config is every streaming budget; each is a flag of the game and bench.
// The slot counts are the walks' item caps: a walk never finds more items
// than its tier can hold. Layout is the vertex buffer they make.
type Config struct {
	Slots              slots.Config // the near tier and the dynamic region
	Walk               walker.Params
	Workers            int // 0: no pool, the main goroutine builds
	MaxInFlight        int // per worker
	MainBuildsPerFrame int // main-goroutine builds per frame once workers are gone
	// UploadBytesPerFrame bounds the vertex bytes applied to slots per
	// frame (at least one result always lands): copying geometry is the
	// main goroutine's biggest cost, and a burst of big results must not
	// make a long frame. Results over the budget wait for the next frame.
	UploadBytesPerFrame int
	VisibleEvery        time.Duration
	EvictEvery          time.Duration
	EvictKeep           float64 // metres: graph beyond this is dropped
	RequeueRadius       float64 // metres around a new edge whose items rebuild
	RebaseDistance      float64 // metres the car may stray from the origin
	NewBuilder          func() Builder
	Log                 *slog.Logger
	Gate                *sync.RWMutex // see PoolConfig.Gate
	Far                 FarConfig     // the far tier (far.go); off without a sink
}

// DefaultConfig holds the reference defaults; NewBuilder must still be set.
func DefaultConfig() Config {
	return Config{
		Slots:               slots.DefaultConfig(),
		Walk:                walker.DefaultParams(),
		Workers:             1,
		MaxInFlight:         DefaultMaxInFlight,
		MainBuildsPerFrame:  5,
		UploadBytesPerFrame: 768 << 10,
		VisibleEvery:        250 * time.Millisecond,
		EvictEvery:          2 * time.Second,
		EvictKeep:           1200,
		RequeueRadius:       142,
		RebaseDistance:      2048,
		Far:                 DefaultFarConfig(),
	}
}

// Validate reports budgets the streamer cannot honour.
func (c Config) Validate() error {
	errs := []error{c.Slots.Validate(), c.Walk.Validate(), c.Far.validate()}
	if c.Workers < 0 || c.Workers > 256 {
		errs = append(errs, fmt.Errorf("workers must be 0..256, got %d", c.Workers))
	}
	if c.MaxInFlight < 1 || c.MaxInFlight > 64 {
		errs = append(errs, fmt.Errorf("in-flight limit must be 1..64, got %d", c.MaxInFlight))
	}
	if c.MainBuildsPerFrame < 1 || c.MainBuildsPerFrame > 1000 {
		errs = append(errs, fmt.Errorf("builds per frame must be 1..1000, got %d", c.MainBuildsPerFrame))
	}
	if c.UploadBytesPerFrame < 1 {
		errs = append(errs, fmt.Errorf("upload budget must be positive, got %d bytes", c.UploadBytesPerFrame))
	}
	if c.VisibleEvery <= 0 || c.EvictEvery <= 0 {
		errs = append(errs, errors.New("refresh intervals must be positive"))
	}
	if !(c.EvictKeep > c.Walk.ViewCost/c.Walk.ForwardWeight) {
		errs = append(errs, fmt.Errorf("eviction radius %g m must exceed the walk's reach %g m", c.EvictKeep, c.Walk.ViewCost/c.Walk.ForwardWeight))
	}
	if !(c.RequeueRadius >= 0) || !(c.RebaseDistance > 0) {
		errs = append(errs, errors.New("requeue radius must be ≥ 0 and rebase distance > 0"))
	}
	if c.NewBuilder == nil {
		errs = append(errs, errors.New("no builder"))
	}
	return errors.Join(errs...)
}

// Layout is the vertex buffer the near and far tiers write to: what a
// renderer or a headless run allocates for this config. The far tier is in
// it whenever it has slots, before its sink exists (the renderer that
// makes the buffer provides the sink).
func (c Config) Layout() slots.Layout {
	return slots.Layout{Near: c.Slots, Far: c.Far.table()}
}

// treesPerSlot is the preallocated tree capacity of a slot.
const treesPerSlot = 96

// Stats are the streamer's counters, for the HUD and the bench.
type Stats struct {
	Builds          int // results uploaded (worker and main)
	WorkerBuilds    int
	MainBuilds      int // built on the main goroutine (missing, fallback)
	StaleDropped    int // results for a slot that moved on
	Missing         int // worker mirrors lacked the item
	Overflows       int // items that exceeded a slot (simplified or refused)
	Requeued        int // rebuilds caused by new edges or a re-base
	Rebases         int
	Pending         int
	InFlight        int
	Used, Total     int
	Fallback        string // why the main goroutine builds; "" while workers are healthy
	LogLinesDropped int    // overflow log lines dropped because the logger fell behind
	VertsBuilt      int64
	MaxVertsInItem  int
}

// Streamer is the road-streaming orchestrator on the main goroutine.
type Streamer struct {
	cfg      Config
	world    world.World
	graph    *roadgraph.Graph
	walk     *walker.Walker
	table    *slots.Table
	pool     *Pool // nil when running without workers
	main     Builder
	log      *slog.Logger
	nextID   uint64
	latest   []uint64 // per slot: the newest request id in flight (0 = none)
	mainQ    []Request
	trees    [][]slots.Tree
	origins  [][3]float64 // per slot: the origin its vertices are relative to
	origin   [3]float64
	bornSeen uint64
	visibleT float64
	evictT   float64
	walked   bool
	stats    Stats
	items    []walker.Item
	far      *farTier // nil: no far tier (far.go)
	// overflow log lines go to a goroutine: see logOverflow
	overflowLog chan int64
	loggerDone  chan struct{}
}

// NewStreamer builds the streamer writing slots into sink. now starts the
// workers' readiness clock.
func NewStreamer(cfg Config, w world.World, sink slots.Sink, now time.Time) (*Streamer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	table, err := slots.New(cfg.Slots, sink)
	if err != nil {
		return nil, err
	}
	wk, err := walker.New(cfg.Walk, cfg.Slots.Slots)
	if err != nil {
		return nil, err
	}
	s := &Streamer{
		cfg: cfg, world: w, graph: roadgraph.New(w), walk: wk, table: table,
		log:     cfg.Log,
		latest:  make([]uint64, cfg.Slots.Slots),
		trees:   make([][]slots.Tree, cfg.Slots.Slots),
		origins: make([][3]float64, cfg.Slots.Slots),
		mainQ:   make([]Request, 0, cfg.Slots.Slots),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	backing := make([]slots.Tree, cfg.Slots.Slots*treesPerSlot)
	for i := range s.trees {
		s.trees[i] = backing[i*treesPerSlot : i*treesPerSlot : (i+1)*treesPerSlot]
	}
	if cfg.Workers > 0 {
		s.pool, err = NewPool(PoolConfig{
			Workers: cfg.Workers, MaxInFlight: cfg.MaxInFlight, World: w,
			NewBuilder: cfg.NewBuilder, Gate: cfg.Gate, ExtraInFlight: cfg.Far.extraInFlight(),
		}, now)
		if err != nil {
			return nil, err
		}
	} else {
		s.stats.Fallback = "no workers configured"
	}
	if cfg.Far.On() {
		if s.far, err = newFarTier(cfg.Far, w, cfg.Gate); err != nil {
			return nil, err
		}
	}
	s.overflowLog = make(chan int64, overflowLogQueue)
	s.loggerDone = make(chan struct{})
	go s.runLogger()
	return s, nil
}

// Graph is the main goroutine's road graph.
func (s *Streamer) Graph() *roadgraph.Graph { return s.graph }

// Table is the slot table.
func (s *Streamer) Table() *slots.Table { return s.table }

// Visible is the last visible set (valid until the next walk).
func (s *Streamer) Visible() []walker.Item { return s.items }

// Trees returns slot s's tree instances (relative to SlotOrigin(s)). They
// are meaningful only while the slot's vertex count is non-zero.
func (s *Streamer) Trees(slot int32) []slots.Tree { return s.trees[slot] }

// SlotOrigin is the origin slot's vertices are relative to.
func (s *Streamer) SlotOrigin(slot int32) [3]float64 { return s.origins[slot] }

// Origin is the origin new builds use.
func (s *Streamer) Origin() [3]float64 { return s.origin }

// Stats returns the counters.
func (s *Streamer) Stats() Stats {
	st := s.stats
	st.Pending = len(s.table.Pending()) + len(s.mainQ)
	st.InFlight = s.inFlight()
	st.Used, st.Total = s.table.Used(), s.cfg.Slots.Slots
	if s.pool != nil && !s.pool.Healthy() {
		st.Fallback = s.pool.Failure()
	}
	return st
}

func (s *Streamer) inFlight() int {
	if s.pool == nil {
		return 0
	}
	return s.pool.InFlight()
}

// Ready is the start-up gate: slots exist, nothing pending, nothing in
// flight.
func (s *Streamer) Ready() bool {
	return s.walked && s.table.Used() > 0 && len(s.table.Pending()) == 0 && len(s.mainQ) == 0 && s.nearInFlight() == 0
}

// Progress is the fraction of used slots whose geometry is uploaded.
func (s *Streamer) Progress() float64 {
	if s.table.Used() == 0 {
		return 0
	}
	return float64(s.table.BuiltCount()) / float64(s.table.Used())
}

// Update runs one frame of streaming: the visible set on its clock, far
// graph eviction on its clock, then results drained and builds pushed. It
// never blocks on a worker.
func (s *Streamer) Update(dt float64, car, heading world.Vec2, now time.Time) {
	s.visibleT -= dt
	budget := s.cfg.UploadBytesPerFrame
	nearWalk := !s.walked || s.visibleT <= 0
	if nearWalk {
		s.visibleT = s.cfg.VisibleEvery.Seconds()
		s.refreshVisible(car, heading)
		// The walk is this frame's big job: uploads wait one frame rather
		// than add to it.
		budget = 0
	}
	s.evictT -= dt
	if s.evictT <= 0 {
		s.evictT = s.cfg.EvictEvery.Seconds()
		s.graph.EvictFar(car, s.cfg.EvictKeep)
	}
	if s.pool != nil {
		s.pool.setNow(now)
		s.pool.CheckReady(now)
		s.drain(budget)
		if !s.pool.Healthy() {
			s.takeBack()
		}
	}
	s.push()
	if s.far != nil {
		s.far.walk(dt, car, heading, nearWalk)
		s.pushFar()
	}
}

// Pace makes a run faster than real time see the workers' results when a
// player would (see pace): now passed to Update is then game time, and the
// caller calls AwaitWorkers between frames.
func (s *Streamer) Pace() {
	if s.pool != nil {
		s.pool.Pace()
	}
}

// AwaitWorkers blocks until every build in flight is answered (paced runs
// only; otherwise it returns at once).
func (s *Streamer) AwaitWorkers() {
	if s.pool != nil {
		s.pool.Await()
	}
}

func (s *Streamer) refreshVisible(car, heading world.Vec2) {
	s.walked = true
	if dx, dz := car.X-s.origin[0], car.Z-s.origin[2]; dx*dx+dz*dz > s.cfg.RebaseDistance*s.cfg.RebaseDistance {
		s.rebase(car)
	}
	s.items = s.walk.Walk(s.graph, car, heading)
	s.table.Sync(s.items)
	// New roads may now cut through lots built beside older segments.
	for _, e := range s.graph.Edges() {
		if e.Born <= s.bornSeen {
			continue
		}
		for i := 0; i < len(e.Nodes); i += 16 {
			s.stats.Requeued += s.table.RequeueNear(e.Nodes[i].X, e.Nodes[i].Z, s.cfg.RequeueRadius)
		}
		last := e.Nodes[len(e.Nodes)-1]
		s.stats.Requeued += s.table.RequeueNear(last.X, last.Z, s.cfg.RequeueRadius)
	}
	s.bornSeen = s.graph.Signature()
}

// rebase moves the origin to near the car so float32 vertices stay exact,
// and rebuilds everything relative to it. Slots keep drawing against their
// old origin until their rebuild lands.
func (s *Streamer) rebase(car world.Vec2) {
	const snap = 256.0
	s.origin = [3]float64{math.Round(car.X/snap) * snap, 0, math.Round(car.Z/snap) * snap}
	s.stats.Requeued += s.table.RequeueNear(car.X, car.Z, math.Inf(1))
	if s.far != nil {
		s.far.table.RequeueNear(car.X, car.Z, math.Inf(1))
	}
	s.stats.Rebases++
}

// drain applies finished results that are still current, up to budget
// vertex bytes.
func (s *Streamer) drain(budget int) {
	for budget > 0 {
		r, ok := s.pool.Poll()
		if !ok {
			return
		}
		if r.Item.Kind == walker.Far {
			budget -= s.drainFar(&r)
			continue
		}
		if r.Missing {
			s.stats.Missing++
			if s.current(r.Request) {
				s.mainQ = append(s.mainQ, r.Request)
			}
			continue
		}
		if !s.current(r.Request) {
			s.stats.StaleDropped++
			s.pool.Recycle(&r)
			continue
		}
		s.stats.WorkerBuilds++
		budget -= r.Count * slots.BytesPerVertex
		s.apply(r.Request, r.Output)
		s.pool.Recycle(&r)
	}
}

// current reports whether a result for req may still be applied: it is the
// slot's newest request and the slot still holds the same item and claim.
func (s *Streamer) current(req Request) bool {
	return s.latest[req.Slot] == req.ID && s.table.Holds(req.Slot, req.Item.Key, req.Claim)
}

// takeBack moves requests returned by a failed pool to the main queue.
func (s *Streamer) takeBack() {
	for _, r := range s.pool.TakeReturned() {
		if r.Item.Kind == walker.Far { // waits for workers (see pushFar)
			s.far.inflight--
			s.far.latest[r.Slot] = 0
			s.far.table.Requeue(r.Slot)
			continue
		}
		if s.current(r) {
			s.mainQ = append(s.mainQ, r)
		}
	}
	if s.stats.Fallback == "" {
		s.stats.Fallback = s.pool.Failure()
		s.log.Warn("build workers failed; the main goroutine builds from now on", "reason", firstLine(s.pool.Failure()), "builds_per_frame", s.cfg.MainBuildsPerFrame)
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// push sends pending builds to the workers, or builds a bounded number on
// the main goroutine when workers are gone (and always for "missing").
func (s *Streamer) push() {
	mainBudget := s.cfg.MainBuildsPerFrame
	for mainBudget > 0 && len(s.mainQ) > 0 {
		r := s.mainQ[0]
		s.mainQ = append(s.mainQ[:0], s.mainQ[1:]...)
		if s.current(r) {
			s.buildOnMain(r)
			mainBudget--
		}
	}
	healthy := s.pool != nil && s.pool.Healthy()
	for {
		pending := s.table.Pending()
		if len(pending) == 0 {
			return
		}
		p := pending[0]
		req := Request{Slot: p.Slot, Claim: s.table.Claim(p.Slot), Item: p.Item, Origin: s.origin}
		if healthy {
			s.nextID++
			req.ID = s.nextID
			if !s.pool.Dispatch(s.graph, req) {
				return
			}
		} else {
			if mainBudget == 0 {
				return
			}
			s.nextID++
			req.ID = s.nextID
			s.latest[req.Slot] = req.ID
			s.table.TakePending()
			s.buildOnMain(req)
			mainBudget--
			continue
		}
		s.latest[req.Slot] = req.ID
		s.table.TakePending()
	}
}

func (s *Streamer) buildOnMain(r Request) {
	if s.main == nil {
		s.main = s.cfg.NewBuilder()
	}
	out, ok := s.main.Build(s.graph, r.Item, r.Origin)
	s.stats.MainBuilds++
	if !ok {
		// Not even the main graph holds it: the next walk decides again.
		s.latest[r.Slot] = 0
		return
	}
	s.apply(r, out)
}

// apply uploads a current result into its slot.
func (s *Streamer) apply(r Request, out Output) {
	s.latest[r.Slot] = 0
	if out.Simplified {
		s.stats.Overflows++
		s.logOverflow(r.Item.Key)
	}
	if err := s.table.Upload(r.Slot, r.Item.Key, out.Verts, out.Count, out.Bounds); err != nil {
		if errors.Is(err, slots.ErrOverflow) {
			s.stats.Overflows++
		}
		s.log.Error("slot upload failed", "key", r.Item.Key, "err", err)
		return
	}
	s.stats.Builds++
	s.stats.VertsBuilt += int64(out.Count)
	s.stats.MaxVertsInItem = max(s.stats.MaxVertsInItem, out.Count)
	s.table.SetObstacles(r.Slot, r.Item.Key, out.Obstacles)
	s.trees[r.Slot] = append(s.trees[r.Slot][:0], out.Trees...)
	s.origins[r.Slot] = r.Origin
}

// overflowLogQueue bounds overflow log lines waiting for the logger.
const overflowLogQueue = 64

// logOverflow hands the key to the log goroutine: the frame never formats
// a log line nor waits on stderr. Lines beyond the queue are dropped (and
// counted); the overflow counter itself is exact.
func (s *Streamer) logOverflow(key int64) {
	select {
	case s.overflowLog <- key:
	default:
		s.stats.LogLinesDropped++
	}
}

// overflowLogKeys bounds the keys the logger remembers having named: an
// item that overflows again (it is rebuilt each time it comes back into
// the walk) is named once, not once per build; the Overflows counter
// counts every build.
const overflowLogKeys = 4096

func (s *Streamer) runLogger() {
	defer close(s.loggerDone)
	named := make(map[int64]struct{})
	for key := range s.overflowLog {
		if _, ok := named[key]; ok {
			continue
		}
		if len(named) == overflowLogKeys {
			clear(named)
		}
		named[key] = struct{}{}
		if s.cfg.Gate != nil { // a benchmark measuring the main goroutine alone
			s.cfg.Gate.RLock()
		}
		s.log.Warn("item exceeded its slot; built with simplified detail", "key", key, "slot_verts", s.cfg.Slots.VertsPerSlot)
		if s.cfg.Gate != nil {
			s.cfg.Gate.RUnlock()
		}
	}
}

// Close stops the workers and the log goroutine.
func (s *Streamer) Close() {
	if s.pool != nil {
		s.pool.Close()
	}
	if s.far != nil {
		s.far.close()
		s.far = nil
	}
	if s.overflowLog != nil {
		close(s.overflowLog)
		<-s.loggerDone
		s.overflowLog = nil
	}
}
