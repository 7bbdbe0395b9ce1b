package traffic

import (
	"math"

	"citydrive/roadgraph/world"
)

// A Plan is the part of Vehicles that can be done ahead of the frame: the
// vehicles that may come within a radius of a centre in a window of world
// time, each with its lane timing and a copy of the little lane geometry
// (nodes, road heights, the turn) its window reaches. A goroutine plans
// (Schedule.PlanInto, its own Schedule); the frame then only places the
// planned vehicles at its exact world time (Plan.Vehicles), with the same
// arithmetic as the schedule, so the answer is Vehicles' to the bit,
// whoever planned it and when. A Plan owns all it holds: it shares nothing
// with the Schedule that filled it.
type Plan struct {
	t0, t1 float64    // world times covered
	centre world.Vec2 // centres within slack of it are covered
	radius float64
	slack  float64
	ok     bool // planned and complete (no overflow)
	recs   []planned
	// near: Vehicles for a radius up to it reads only nearIdx, the
	// records that may come that near
	near    float64
	nearIdx []int32
	// far samples (far.go): ns instants from j0*FarStep on, binned by
	// cell (cellStart) and within that a row per instant; keys and recOf
	// are their records' keys and indices
	j0        float64
	ns        int
	cellSize  float64
	cellStart [farCells*farCells + 1]int32
	keys      []Key
	recOf     []int32
	samples   []farSample
	scratch   []farSample // sample's, in record order
	recCell   []int32     // sample's: each record's cell (-1: none)
}

// Plan sizes: a record covers its vehicle's window with at most planNodes
// lane nodes and planHeights road heights (MaxPlanSpan's drive at the
// fastest lane speed, 21 m, spans at most eight of each); a vehicle that
// needs more is placed by the frame's own Schedule instead.
const (
	MaxPlanSpan  = 1.5 // seconds of world time a plan may cover
	planNodes    = 9
	planHeights  = 9
	planCapacity = 4096 // vehicles; a busy downtown at rush hour plans about 1,700 within a kilometre
)

// planned is one vehicle of a Plan: what Plan.Vehicles reads for every
// record first, then the geometry of those on the road.
type planned struct {
	cell   world.Cell // the edge's start cell (Vehicles reads the edges of the cells around the centre)
	cycles bool       // the cycle is in Vehicles' range all through the window: no need to check
	nn, hn uint8
	min    world.Vec2 // the edge's reach box (reachBox)
	max    world.Vec2
	// a box holding every point at() answers itself (the lane part and
	// the turn): Vehicles skips a record whose box is out of its radius
	pmin, pmax world.Vec2
	lt         laneTiming
	m          motion
	uLo        float64 // lane part covered: [uLo, uHi] of [start, stop]
	uHi        float64
	key        Key
	length     float64 // the edge's
	yStop      float64 // road height at the stop line (through the junction)
	nBase      int32   // index of nodes[0] among the edge's nodes
	nAll       int32   // the edge's nodes
	hBase      int32
	hAll       int32
	nodes      [planNodes]world.Vec2
	cum        [planNodes]float64
	dirs       [planNodes - 1]world.Vec2 // of the segments between nodes
	offs       [planNodes]world.Vec2     // the lane offsets at the nodes
	hts        [planHeights]float32
	turn       turn
}

// NewPlan returns an empty plan (covering nothing) with room for a busy
// district.
func NewPlan() *Plan {
	return &Plan{recs: make([]planned, 0, planCapacity), nearIdx: make([]int32, 0, planCapacity),
		keys: make([]Key, 0, planCapacity), recOf: make([]int32, 0, planCapacity), recCell: make([]int32, 0, planCapacity),
		samples: make([]farSample, 0, planCapacity*farSamples), scratch: make([]farSample, 0, planCapacity*farSamples)}
}

// Window is the world times the plan covers.
func (p *Plan) Window() (t0, t1 float64) { return p.t0, p.t1 }

// Len is how many vehicles the plan holds.
func (p *Plan) Len() int { return len(p.recs) }

// Covers reports whether Vehicles(t, centre, radius) can be answered from
// p: t in its window, centre within its slack, radius within its own.
func (p *Plan) Covers(t float64, centre world.Vec2, radius float64) bool {
	return p.ok && t >= p.t0 && t <= p.t1 && radius <= p.radius &&
		centre.Dist2(p.centre) <= p.slack*p.slack
}

// planMargin is how far (metres, beyond its travel between the instants
// plan looks at) a planned vehicle may lie outside radius+slack and still
// be planned: room for a lane or turn bending between those instants,
// and for rounding.
const planMargin = 5.0

// PlanInto fills p with every vehicle that may be within radius of any
// centre within slack of centre at any world time in [t0, t1], and their
// far samples (far.go); Vehicles for a radius up to near (at most radius)
// then reads only the records that may come that near. It allocates
// nothing once s's caches are warm.
func (s *Schedule) PlanInto(p *Plan, t0, t1 float64, centre world.Vec2, radius, near, slack float64) {
	p.t0, p.t1, p.centre, p.radius, p.slack, p.near = t0, t1, centre, radius, slack, min(near, radius)
	p.recs, p.nearIdx, p.ok = p.recs[:0], p.nearIdx[:0], false
	reach := radius + slack + 2*avenueSpeedMax*planSample + planMargin
	s.resetIfFull()
	s.surfaceFor(max(reach, radius+world.CellSize))
	// the cells a frame's Vehicles reads, for any centre within slack
	// (less than a cell) of this one: a cell more each way
	s.nearby(centre, max(reach, radius+world.CellSize))
	for _, g := range s.near {
		if lo, hi := s.reachBox(g); boxDist2(lo, hi, centre) > reach*reach {
			continue
		}
		for l := uint8(0); l < 2; l++ {
			lt := g.timing(l)
			if lt.stop <= lt.start {
				continue
			}
			lo, _ := lt.cycles(t0)
			_, hi := lt.cycles(t1)
			// Vehicles' cycle range only grows with t: in it at both ends
			// of the window, in it all through.
			_, hi0 := lt.cycles(t0)
			lo1, _ := lt.cycles(t1)
			for c := lo; c <= hi; c++ {
				n := s.platoon(g, l, c)
				for k := 0; k < n; k++ {
					key := Key{Edge: g.spec.ID, Cycle: c, Lane: l, K: uint8(k)}
					r, dist, ok := s.plan(g, key, lt, t0, t1, centre)
					if !ok || dist > radius+slack {
						continue
					}
					if len(p.recs) == cap(p.recs) {
						return // overflow: not ok, the frame computes it all
					}
					r.cycles = c >= lo1 && c <= hi0
					if dist <= p.near+slack {
						p.nearIdx = append(p.nearIdx, int32(len(p.recs)))
					}
					p.recs = append(p.recs, r)
				}
			}
		}
	}
	s.sample(p)
	p.ok = true
}

// plan is vehicle k's record for [t0, t1] (ok false: not on the road
// then), and how near to centre it can come in the window.
func (s *Schedule) plan(g *edgeGeom, k Key, lt laneTiming, t0, t1 float64, centre world.Vec2) (planned, float64, bool) {
	m := s.motion(&lt, k)
	u0, u1 := uAt(&lt, &m, t0, 0), uAt(&lt, &m, t1, 0)
	tr := s.turn(g, k, lt.stop)
	end := lt.stop + tr.length
	if u1 < lt.start-1 || u0 > end+1 {
		return planned{}, 0, false
	}
	lo, hi := s.reachBox(g)
	r := planned{key: k, cell: g.spec.A, min: lo, max: hi, lt: lt, m: m, length: g.length,
		yStop: s.laneHeight(g, k.Lane, lt.stop), turn: *tr, nAll: int32(len(g.nodes)), hAll: int32(g.nh)}
	// The lane part of the window, a metre wider each way for rounding.
	r.uLo, r.uHi = max(lt.start, u0-1), min(lt.stop, u1+1)
	if r.uLo <= r.uHi && !s.fillLane(&r, g) {
		r.uLo, r.uHi = 1, 0 // covers nothing: the frame's schedule places it
	}
	r.placesWithin()
	// The nearest of its path at a few instants, less how far it can get
	// between them: along the lane its travel, on the turn's Bézier up to
	// four times that (its parameter's speed against the curve's estimated
	// length); from the nearer instant, half of it.
	n := max(1, int(math.Ceil((t1-t0)/planSample)))
	near := math.Inf(1)
	prev := u0
	step := 0.0
	for i := 0; i <= n; i++ {
		u := uAt(&lt, &m, t0+(t1-t0)*float64(i)/float64(n), 0)
		step = max(step, u-prev)
		prev = u
		u = max(lt.start, min(end, u))
		var p world.Vec2
		if u <= lt.stop {
			p, _ = g.lanePoint(k.Lane, u)
		} else {
			p, _ = turnAt(tr, min(1, (u-lt.stop)/tr.length))
		}
		near = min(near, p.Sub(centre).Len())
	}
	return r, near - 2*step - planMargin, true
}

// placesWithin sets r's pmin and pmax: its lane points lie within
// laneReach of the segments between its nodes, its turn's
// within the triangle of the Bézier's points; boxMargin covers the
// rounding.
func (r *planned) placesWithin() {
	lo, hi := r.turn.p0, r.turn.p0
	grow := func(p world.Vec2) {
		lo = world.Vec2{X: min(lo.X, p.X), Z: min(lo.Z, p.Z)}
		hi = world.Vec2{X: max(hi.X, p.X), Z: max(hi.Z, p.Z)}
	}
	grow(r.turn.c)
	grow(r.turn.p1)
	if r.uLo <= r.uHi {
		for _, p := range r.nodes[:r.nn] {
			grow(p)
		}
	}
	m := laneReach + boxMargin
	r.pmin, r.pmax = world.Vec2{X: lo.X - m, Z: lo.Z - m}, world.Vec2{X: hi.X + m, Z: hi.Z + m}
}

// boxMargin: metres a planned vehicle's box is grown for rounding.
const boxMargin = 1.0

// covers reports whether at(t) answers r's vehicle itself (not off the
// lane part r holds).
func (r *planned) covers(t float64) bool {
	lt := &r.lt
	u := uAt(lt, &r.m, t, 0)
	return u < lt.start || lt.stop <= lt.start || u > lt.stop || u >= r.uLo && u <= r.uHi
}

// planSample is how often (world seconds) plan looks where a vehicle is.
const planSample = 0.25

// fillLane copies into r the lane nodes and road heights its lane part
// [uLo, uHi] reaches: the same entries pointAt and heightOf would read
// from the whole lane for any u in it. False when they do not fit.
func (s *Schedule) fillLane(r *planned, g *edgeGeom) bool {
	l := r.key.Lane
	sa, sb := laneS(g.length, l, r.uLo), laneS(g.length, l, r.uHi)
	sLo, sHi := min(sa, sb), max(sa, sb)
	n := len(g.nodes)
	// Nodes: pointAt's segment for s is the one before the first node at
	// or past s; from the one before sLo's first to sHi's first.
	j0 := max(0, countBelow(g.cum, sLo)-1)
	j1 := min(n-1, countBelow(g.cum, sHi))
	if j1-j0+1 > planNodes || n < 2 {
		return false
	}
	r.nBase, r.nn = int32(j0), uint8(j1-j0+1)
	copy(r.nodes[:], g.nodes[j0:j1+1])
	copy(r.cum[:], g.cum[j0:j1+1])
	copy(r.dirs[:], g.dirs[j0:j1])
	copy(r.offs[:], g.offs[j0:j1+1])
	h0, h1 := heightIndex(g.nh, r.uLo), heightIndex(g.nh, r.uHi)+1
	if h1-h0+1 > planHeights {
		return false
	}
	for i := h0; i <= h1; i++ {
		r.hts[i-h0] = float32(s.heightAt(g, l, i))
	}
	r.hBase, r.hn = int32(h0), uint8(h1-h0+1)
	return true
}

// countBelow is how many of the sorted cum lie below s.
func countBelow(cum []float64, s float64) int {
	lo, hi := 0, len(cum)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cum[m] < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Vehicles is Schedule.Vehicles(t, centre, radius, dst) answered from the
// plan, or false (and dst unchanged) when the plan does not cover them. A
// vehicle whose record does not reach t is placed by s, the caller's
// schedule (the frame's), which also checks its caches like Vehicles.
func (p *Plan) Vehicles(s *Schedule, t float64, centre world.Vec2, radius float64, dst []Vehicle) ([]Vehicle, bool) {
	if !p.Covers(t, centre, radius) {
		return dst, false
	}
	s.resetIfFull()
	// Vehicles' edges: those starting in the cells around centre's (nearby)
	c := world.CellAt(centre.X, centre.Z)
	cr := int32(math.Ceil(radius/world.CellSize)) + 1
	q := vehiclesQuery{t: t, centre: centre, iLo: c.I - cr - world.MaxSpanCells, iHi: c.I + cr, jLo: c.J - cr - 1, jHi: c.J + cr,
		r2: radius * radius}
	if radius <= p.near {
		for _, i := range p.nearIdx {
			dst = p.recs[i].appendAt(s, &q, dst)
		}
		return dst, true
	}
	for i := range p.recs {
		dst = p.recs[i].appendAt(s, &q, dst)
	}
	return dst, true
}

// vehiclesQuery is one Plan.Vehicles: its time, centre, the cells whose
// edges it reads and its radius squared.
type vehiclesQuery struct {
	t                  float64
	centre             world.Vec2
	iLo, iHi, jLo, jHi int32
	r2                 float64
}

// appendAt appends r's vehicle to dst when it is one of q's.
func (r *planned) appendAt(s *Schedule, q *vehiclesQuery, dst []Vehicle) []Vehicle {
	if r.cell.I < q.iLo || r.cell.I > q.iHi || r.cell.J < q.jLo || r.cell.J > q.jHi ||
		boxDist2(r.min, r.max, q.centre) > q.r2 {
		return dst
	}
	if !r.cycles {
		if lo, hi := r.lt.cycles(q.t); r.key.Cycle < lo || r.key.Cycle > hi {
			return dst
		}
	}
	if boxDist2(r.pmin, r.pmax, q.centre) > q.r2 && r.covers(q.t) {
		return dst // wherever at places it, it is out of radius
	}
	if v, ok := r.place(s, q.t); ok && v.Pos.Dist2(q.centre) <= q.r2 {
		dst = append(dst, v)
	}
	return dst
}

// place is r's vehicle at t on its schedule: from r where it holds the
// lane part, else from s (the caller's schedule), to the bit alike.
func (r *planned) place(s *Schedule, t float64) (Vehicle, bool) {
	v, ok, covered := r.at(t)
	if !covered {
		v, ok = s.At(r.key, t, 0)
	}
	return v, ok
}

// at is Schedule.at for r's vehicle on its schedule; covered is false
// when t takes it off the lane part r holds.
func (r *planned) at(t float64) (v Vehicle, ok, covered bool) {
	lt := &r.lt
	u := uAt(lt, &r.m, t, 0)
	if u < lt.start || lt.stop <= lt.start {
		return Vehicle{}, false, true
	}
	v = Vehicle{Key: r.key, U: u, Start: lt.start, Stop: lt.stop, Speed: speedAt(lt, &r.m, t)}
	if u <= lt.stop {
		if u < r.uLo || u > r.uHi {
			return Vehicle{}, false, false
		}
		v.Pos, v.Dir = pointAt(r.nodes[:r.nn], r.cum[:r.nn], r.dirs[:max(r.nn, 1)-1], r.offs[:r.nn], int(r.nBase), int(r.nAll), laneS(r.length, r.key.Lane, u), r.key.Lane)
		v.Y = heightOf(r.hts[:r.hn], int(r.hBase), int(r.hAll), u)
		return v, true, true
	}
	v.Y = r.yStop
	f := (u - lt.stop) / r.turn.length
	if f > 1 {
		return Vehicle{}, false, true
	}
	v.Pos, v.Dir = turnAt(&r.turn, f)
	return v, true, true
}

// UsePlan makes Update take the scheduled vehicles from p while p covers
// them (nil: always from the schedule). The flow reads p until the next
// UsePlan; the caller must not change it meanwhile.
func (f *Flow) UsePlan(p *Plan) { f.plan = p }

// scheduled is Schedule.Vehicles(t, centre, radius), from the plan when it
// covers them.
func (f *Flow) scheduled(t float64, centre world.Vec2, radius float64) []Vehicle {
	if f.plan != nil {
		if vs, ok := f.plan.Vehicles(f.s, t, centre, radius, f.sched[:0]); ok {
			return vs
		}
	}
	return f.s.Vehicles(t, centre, radius, f.sched[:0])
}
