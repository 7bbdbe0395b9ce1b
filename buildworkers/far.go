package buildworkers

import (
	"errors"
	"sync"
	"time"

	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// FarConfig is the far tier: coarse items (one per lattice edge, see
// walker.FarWalker and citygen's far.go) past the near walk, to kilometres
// ahead, in slots of their own. Sink nil or Slots 0: no far tier.
type FarConfig struct {
	Slots        int // far slots, and so the far walk's item cap
	VertsPerSlot int
	Walk         walker.FarParams
	Every        time.Duration // far walk clock
	Move         float64       // metres the car must move (or 25° turn) for a new far walk
	InFlight     int           // far requests per worker on top of the near limit
	Sink         slots.Sink    // the far region of the vertex buffer
}

// DefaultFarConfig is 1,024 far slots of 960 vertices, walked every second;
// Sink must still be set to turn it on.
func DefaultFarConfig() FarConfig {
	return FarConfig{Slots: slots.DefaultFarSlots, VertsPerSlot: slots.DefaultFarVertsPerSlot, Walk: walker.DefaultFarParams(),
		Every: time.Second, Move: 60, InFlight: 8}
}

// extraInFlight is the pool's extra depth for far requests.
func (c FarConfig) extraInFlight() int {
	if !c.On() {
		return 0
	}
	return c.InFlight
}

// On reports whether the far tier runs.
func (c FarConfig) On() bool { return c.Sink != nil && c.Slots > 0 }

// table is the far tier's part of the vertex buffer.
func (c FarConfig) table() slots.Config {
	return slots.Config{Slots: c.Slots, VertsPerSlot: c.VertsPerSlot}
}

func (c FarConfig) validate() error {
	if !c.On() {
		return nil
	}
	errs := []error{c.table().Validate(), c.Walk.Validate()}
	if c.Every <= 0 || !(c.Move >= 0) || c.InFlight < 0 || c.InFlight > 64 {
		errs = append(errs, errors.New("far walk interval must be positive, its move ≥ 0 and far in-flight 0..64"))
	}
	return errors.Join(errs...)
}

// FarStats are the far tier's counters.
type FarStats struct {
	Items      int             // items of the last far walk
	Builds     int             // far results uploaded
	Used       int             // far slots holding an item
	Built      int             // of which have geometry
	Pending    int             // waiting to be built
	Walks      int             // far walks applied
	Reach      walker.FarReach // of the last walk, metres
	VertsBuilt int64
	Simplified int
}

type farWalkReq struct {
	car, heading world.Vec2
	buf          int
}

type farWalkRes struct {
	buf   int
	reach walker.FarReach
}

// farTier is the streamer's far part. The far walk runs on a goroutine of
// its own (it is pure and takes ~0.4 ms); the main goroutine only syncs
// the far table with its answer, pushes far builds to the same workers as
// the near ones when nothing near is waiting, and applies results.
type farTier struct {
	cfg      FarConfig
	table    *slots.Table
	latest   []uint64
	origins  [][3]float64
	walkT    float64
	lastCar  world.Vec2 // where the last far walk started
	lastDir  world.Vec2
	inWalk   bool
	started  bool
	bufs     [2][]walker.Item
	next     int
	req      chan farWalkReq
	res      chan farWalkRes
	done     chan struct{}
	stats    FarStats
	inflight int // far requests at the workers
}

func newFarTier(cfg FarConfig, w world.World, gate *sync.RWMutex) (*farTier, error) {
	table, err := slots.New(cfg.table(), cfg.Sink)
	if err != nil {
		return nil, err
	}
	fw, err := walker.NewFar(w, cfg.Walk, cfg.Slots)
	if err != nil {
		return nil, err
	}
	f := &farTier{
		cfg: cfg, table: table,
		latest:  make([]uint64, cfg.Slots),
		origins: make([][3]float64, cfg.Slots),
		req:     make(chan farWalkReq, 1),
		res:     make(chan farWalkRes, 1),
		done:    make(chan struct{}),
	}
	for i := range f.bufs {
		f.bufs[i] = make([]walker.Item, 0, cfg.Slots)
	}
	go f.walker(fw, gate)
	return f, nil
}

// walker is the far walk's goroutine.
func (f *farTier) walker(fw *walker.FarWalker, gate *sync.RWMutex) {
	defer close(f.done)
	for r := range f.req {
		if gate != nil {
			gate.RLock()
		}
		items := fw.Walk(r.car, r.heading)
		f.bufs[r.buf] = append(f.bufs[r.buf][:0], items...)
		reach := fw.Reach()
		if gate != nil {
			gate.RUnlock()
		}
		f.res <- farWalkRes{buf: r.buf, reach: reach}
	}
}

func (f *farTier) close() {
	close(f.req)
	<-f.done
}

// walk starts a far walk on the far clock; sync applies a finished one
// (not on a near-walk frame: that frame is busy already).
func (f *farTier) walk(dt float64, car, heading world.Vec2, busy bool) {
	f.walkT -= dt
	if !f.inWalk && (!f.started || f.walkT <= 0 && f.moved(car, heading)) {
		f.walkT = f.cfg.Every.Seconds()
		f.started = true
		f.lastCar, f.lastDir = car, heading.Norm()
		f.inWalk = true
		f.req <- farWalkReq{car: car, heading: heading, buf: f.next}
		f.next = 1 - f.next
	}
	if busy || !f.inWalk {
		return
	}
	select {
	case r := <-f.res:
		f.inWalk = false
		f.table.Sync(f.bufs[r.buf])
		f.stats.Items = len(f.bufs[r.buf])
		f.stats.Reach = r.reach
		f.stats.Walks++
	default:
	}
}

// moved reports whether the car went far enough, or turned enough, since
// the last far walk for the far set to change.
func (f *farTier) moved(car, heading world.Vec2) bool {
	return car.Dist2(f.lastCar) >= f.cfg.Move*f.cfg.Move || heading.Norm().Dot(f.lastDir) < 0.906 // 25°
}

// current reports whether a far result may still be applied.
func (f *farTier) current(req Request) bool {
	return f.latest[req.Slot] == req.ID && f.table.Holds(req.Slot, req.Item.Key, req.Claim)
}

// apply uploads a current far result.
func (f *farTier) apply(r Request, out Output) error {
	f.latest[r.Slot] = 0
	if out.Simplified {
		f.stats.Simplified++
	}
	if err := f.table.Upload(r.Slot, r.Item.Key, out.Verts, out.Count, out.Bounds); err != nil {
		return err
	}
	f.stats.Builds++
	f.stats.VertsBuilt += int64(out.Count)
	f.origins[r.Slot] = r.Origin
	return nil
}

// Ready reports whether every far item of the last walk is built.
func (f *farTier) ready() bool {
	return f.stats.Walks > 0 && len(f.table.Pending()) == 0
}

// FarTable is the far tier's slot table (nil without a far tier).
func (s *Streamer) FarTable() *slots.Table {
	if s.far == nil {
		return nil
	}
	return s.far.table
}

// FarSlotOrigin is the origin far slot's vertices are relative to.
func (s *Streamer) FarSlotOrigin(slot int32) [3]float64 { return s.far.origins[slot] }

// FarStats returns the far tier's counters (zero without one).
func (s *Streamer) FarStats() FarStats {
	if s.far == nil {
		return FarStats{}
	}
	st := s.far.stats
	st.Used = s.far.table.Used()
	st.Built = s.far.table.BuiltCount()
	st.Pending = len(s.far.table.Pending())
	return st
}

// FarReady reports whether the far tier has walked and built everything it
// wants, nothing in flight (true without a far tier).
func (s *Streamer) FarReady() bool { return s.far == nil || s.far.ready() && s.far.inflight == 0 }

// pushFar sends far builds to the workers once nothing near waits: far
// items are never built ahead of near ones. Without healthy workers the
// far tier waits (the main goroutine's budget is for near items).
func (s *Streamer) pushFar() {
	f := s.far
	if f == nil || s.pool == nil || !s.pool.Healthy() || len(s.table.Pending()) > 0 || len(s.mainQ) > 0 || s.nearInFlight() > 0 {
		return
	}
	for {
		pending := f.table.Pending()
		if len(pending) == 0 {
			return
		}
		p := pending[0]
		it := p.Item
		it.Seg = int32(f.cfg.VertsPerSlot) // the far builder's vertex budget
		req := Request{Slot: p.Slot, Claim: f.table.Claim(p.Slot), Item: it, Origin: s.origin}
		s.nextID++
		req.ID = s.nextID
		if !s.pool.dispatch(s.graph, req, s.cfg.MaxInFlight+f.cfg.InFlight) {
			return
		}
		f.latest[req.Slot] = req.ID
		f.inflight++
		f.table.TakePending()
	}
}

// nearInFlight is the near requests at the workers.
func (s *Streamer) nearInFlight() int {
	n := s.inFlight()
	if s.far != nil {
		n -= s.far.inflight
	}
	return n
}

// drainFar handles a far result from the pool; it reports the bytes used.
func (s *Streamer) drainFar(r *Result) int {
	f := s.far
	if f != nil {
		f.inflight--
	}
	if f == nil || r.Missing || !f.current(r.Request) {
		if f != nil && r.Missing && f.table.Holds(r.Slot, r.Item.Key, r.Claim) {
			f.latest[r.Slot] = 0 // not in the lattice (cannot happen): leave it
		}
		s.pool.Recycle(r)
		return 0
	}
	if err := f.apply(r.Request, Output{Verts: r.Verts, Count: r.Count, Bounds: r.Bounds, Simplified: r.Simplified}); err != nil {
		s.log.Error("far slot upload failed", "key", r.Item.Key, "err", err)
	}
	n := r.Count * slots.BytesPerVertex
	s.pool.Recycle(r)
	return n
}
