package traffic

import (
	"cmp"
	"math"
	"slices"

	"citydrive/roadgraph/world"
)

// Key names one vehicle of the schedule: the k-th vehicle of the platoon
// that lane Lane of edge Edge sends in signal cycle Cycle.
type Key struct {
	Edge  uint64
	Cycle int64
	Lane  uint8 // 0: from the edge's junction A towards B; 1: back
	K     uint8
}

// Vehicle is one traffic vehicle at one instant.
type Vehicle struct {
	Key   Key
	Pos   world.Vec2 // centre, world metres
	Y     float64    // the road surface under it (world.Surface)
	Dir   world.Vec2 // unit heading
	Speed float64    // m/s
	// U is metres along the vehicle's path from its lane's start junction;
	// it enters the road at Start and past Stop it is turning through the
	// far junction.
	U, Start, Stop float64
}

// Heading is the vehicle's heading in radians from +X towards +Z (the
// obstacle convention).
func (v Vehicle) Heading() float64 { return math.Atan2(v.Dir.Z, v.Dir.X) }

// lane geometry of one lattice edge, memoised.
type edgeGeom struct {
	spec   world.EdgeSpec
	nodes  []world.Vec2
	cum    []float64    // arc length at each node
	dirs   []world.Vec2 // unit direction of each segment (pointAt's: no square root a query)
	offs   []world.Vec2 // lane 0's offset direction at each node (laneOffsets)
	length float64
	r      [2]float64 // junction radius at A, at B
	arms   [2]int     // lattice arms at A, at B
	speed  [2]float64 // per lane
	fill   float64    // district share of platoon places
	phase  [2]float64 // signal offset (seconds) of A, of B
	min    world.Vec2
	max    world.Vec2
	// reach is the box every vehicle of the edge lies in, lanes and turns
	// through its junctions (reachBox; rok once it is computed)
	reach  [2]world.Vec2
	rok    bool
	exits  [2][4]world.EdgeSpec // lane l's choices at its far end (no U-turn)
	nexits [2]int
	turns  [2][4]turn // memoised turns onto the exits (or the U-turn: index 0)
	lts    [2]laneTiming
	// hts holds lane l's road height every heightStep metres from its
	// start, filled as vehicles get there (NaN: not yet). Inline, so a
	// new edge costs no allocation of its own for them.
	hts [2][maxHeights]float32
	nh  int // entries of each in use
}

// maxHeights covers the longest edge.
const maxHeights = 137 // ≥ world.MaxSegments*world.SegmentLength/heightStep + 2 (TestHeightsCoverTheLongestEdge)

// heightStep is the spacing of a lane's memoised road heights: a surface
// query costs microseconds, and hundreds of vehicles a frame would cost
// the frame; between samples the height is interpolated (roads are
// smooth over a few metres).
const heightStep = 4.0

// turn is the curve from a lane's stop line onto an exit lane: a quadratic
// Bezier p0, c, p1 of about length metres.
type turn struct {
	p0, c, p1 world.Vec2
	length    float64
	ok        bool
}

// Schedule computes the scheduled traffic of one world. Two Schedules of
// the same world and hour answer the same whatever they were asked before:
// the caches below only memoise pure functions. Not safe for concurrent
// use; one per goroutine.
type Schedule struct {
	w    world.World
	lat  *world.Cache
	surf *world.SurfaceCache // for lane heights: cells of a district, not one car's
	// surfCells is how many cells surf holds
	surfCells int
	hour      float64
	fill      float64 // timeFactor(hour)
	geoms     map[uint64]*edgeGeom
	free      []*edgeGeom
	// lastGeom is geomByID's last answer (nil after a reset)
	lastGeom *edgeGeom
	queues   bool             // platoons queue at signals (queue.go)
	specs    []world.EdgeSpec // scratch of nearby
	arms     []world.EdgeSpec // scratch of geom (called inside nearby's loop)
	// near caches the edges around a lattice cell for Vehicles.
	nearCell  world.Cell
	nearR     int32
	nearValid bool
	near      []*edgeGeom
	warmNext  int // next cell of the box around nearCell that warm looks at
}

// geomLimit bounds the geometry cache; past half of it a call starts over
// (recycling the memory), so a car driving on reaches a steady state.
const geomLimit = 2048

// NewSchedule returns the schedule of world w at hour of day hour (0–24):
// the hour sets how full platoons are. Platoons queue at signals when
// QueueAtSignals is set.
func NewSchedule(w world.World, hour float64) *Schedule {
	return newSchedule(w, hour, QueueAtSignals)
}

// newSchedule is NewSchedule with the queues on or off.
func newSchedule(w world.World, hour float64, queues bool) *Schedule {
	s := &Schedule{
		w: w, lat: world.NewCache(w), surf: world.NewSurfaceCacheCells(w, surfaceCells), surfCells: surfaceCells, hour: hour, fill: timeFactor(hour), queues: queues,
		geoms: make(map[uint64]*edgeGeom, geomLimit),
		specs: make([]world.EdgeSpec, 0, 8),
		arms:  make([]world.EdgeSpec, 0, 8),
		near:  make([]*edgeGeom, 0, 256),
		free:  make([]*edgeGeom, 0, geomLimit),
	}
	// The geometry cache's storage up front (about 5 MB): a car driving
	// into new cells then recycles, never allocates.
	for range geomLimit / 2 {
		s.free = append(s.free, newEdgeGeom())
	}
	return s
}

// World is the schedule's world.
func (s *Schedule) World() world.World { return s.w }

func (s *Schedule) resetIfFull() {
	if len(s.geoms) < geomLimit/2 {
		return
	}
	for _, g := range s.geoms {
		s.free = append(s.free, g)
	}
	clear(s.geoms)
	s.nearValid, s.lastGeom = false, nil
}

// geom returns the memoised geometry of edge spec e.
func (s *Schedule) geom(e world.EdgeSpec) *edgeGeom {
	if g := s.geoms[e.ID]; g != nil {
		return g
	}
	var g *edgeGeom
	if n := len(s.free); n > 0 {
		g = s.free[n-1]
		s.free = s.free[:n-1]
		*g = edgeGeom{nodes: g.nodes[:0], cum: g.cum[:0], dirs: g.dirs[:0], offs: g.offs[:0]}
	} else {
		g = newEdgeGeom()
	}
	g.spec = e
	g.nodes = s.lat.EdgeNodes(e, g.nodes)
	g.min = world.Vec2{X: math.Inf(1), Z: math.Inf(1)}
	g.max = world.Vec2{X: math.Inf(-1), Z: math.Inf(-1)}
	total := 0.0
	for i, p := range g.nodes {
		if i > 0 {
			total += p.Sub(g.nodes[i-1]).Len()
		}
		g.cum = append(g.cum, total)
		if i > 0 {
			g.dirs = append(g.dirs, p.Sub(g.nodes[i-1]).Norm())
		}
		g.min = world.Vec2{X: min(g.min.X, p.X), Z: min(g.min.Z, p.Z)}
		g.max = world.Vec2{X: max(g.max.X, p.X), Z: max(g.max.Z, p.Z)}
	}
	g.length = total
	g.offs = laneOffsets(g.dirs, g.offs)
	g.nh = min(int(total/heightStep)+2, maxHeights)
	nan := float32(math.NaN())
	for l := range g.hts {
		for i := range g.nh {
			g.hts[l][i] = nan
		}
	}
	lo, hi := streetSpeedMin, streetSpeedMax
	if e.IsAvenue() {
		lo, hi = avenueSpeedMin, avenueSpeedMax
	}
	mid := g.nodes[len(g.nodes)/2]
	g.fill = districtFactor(s.w.District(mid.X, mid.Z))
	for end, c := range [2]world.Cell{e.A, e.B} {
		s.arms = s.lat.Arms(c, s.arms[:0])
		hw := world.StreetHalfWidth
		for _, a := range s.arms {
			hw = max(hw, a.HalfWidth())
		}
		g.r[end] = StopLine(hw)
		g.arms[end] = len(s.arms)
		g.phase[end] = signalOffset(world.JunctionID(c))
		// lane 0 ends at B (end 1), lane 1 at A (end 0)
		l := 1 - end
		for _, a := range s.arms {
			if a.ID != e.ID {
				g.exits[l][g.nexits[l]] = a
				g.nexits[l]++
			}
		}
		g.speed[end] = lo + (hi-lo)*s.w.Hash01(saltSpeed, int64(e.ID), int64(end), 0)
	}
	g.lts = [2]laneTiming{g.laneTiming(0, s.queues), g.laneTiming(1, s.queues)}
	s.geoms[e.ID] = g
	return g
}

func newEdgeGeom() *edgeGeom {
	return &edgeGeom{nodes: make([]world.Vec2, 0, world.MaxSegments), cum: make([]float64, 0, world.MaxSegments),
		dirs: make([]world.Vec2, 0, world.MaxSegments), offs: make([]world.Vec2, 0, world.MaxSegments+1)}
}

// laneOffsets appends to dst, for each node of a polyline whose segments
// run along dirs, the direction and length (in units of LaneOffset) by
// which lane 0 lies right of it: at a bend the bisector, lengthened so the
// lane stays LaneOffset from both segments (a mitre, at most maxMitre).
// Between two nodes the lane is the straight line between their offset
// points: it bends with the road instead of stepping sideways at each node
// by the turn of the segments' normals.
func laneOffsets(dirs, dst []world.Vec2) []world.Vec2 {
	if len(dirs) == 0 {
		return dst
	}
	dst = append(dst, right(dirs[0]))
	for i := 1; i < len(dirs); i++ {
		b := dirs[i-1].Add(dirs[i])
		l := b.Len()
		if l < 1e-9 {
			dst = append(dst, right(dirs[i])) // a reversal: no bisector
			continue
		}
		b = b.Scale(1 / l)
		dst = append(dst, right(b).Scale(1/max(b.Dot(dirs[i]), 1/maxMitre)))
	}
	return append(dst, right(dirs[len(dirs)-1]))
}

// maxMitre bounds a bend's lane offset relative to LaneOffset (a bend of
// about 96°; the lattice's edges bend far less).
const maxMitre = 1.5

// laneReach bounds how far a lane's points lie from its edge's nodes.
const laneReach = LaneOffset * maxMitre

// geomByID is geom for an edge known only by id (nil if the lattice has
// none). The last one is kept at hand: the reaction asks for one
// vehicle's lane a few dozen times running.
func (s *Schedule) geomByID(id uint64) *edgeGeom {
	if s.lastGeom != nil && s.lastGeom.spec.ID == id {
		return s.lastGeom
	}
	if g := s.geoms[id]; g != nil {
		s.lastGeom = g
		return g
	}
	e, ok := s.lat.Edge(id)
	if !ok {
		return nil
	}
	return s.geom(e)
}

// endOf is the end (0: A, 1: B) at which lane l finishes.
func endOf(l uint8) int { return 1 - int(l) }

// lane timing of one lane: where it starts and stops, its speed and when
// platoon vehicle k of cycle c crosses the stop line, base + c*P + k*gap,
// driving through (or, queued at a signal, where it stands: queue.go).
type laneTiming struct {
	start, stop, speed, base, gap float64
	// before and after bound when cycle c's vehicles are on the lane:
	// from base + c*P - before to base + c*P + after
	before, after float64
	queued        bool // platoons queue at the red
	most          int  // vehicles a platoon sends at most
}

func (g *edgeGeom) timing(l uint8) laneTiming { return g.lts[l] }

// laneTiming computes lane l's timing (memoised in g.lts), queued at a
// signal if queues.
func (g *edgeGeom) laneTiming(l uint8, queues bool) laneTiming {
	e := endOf(l)
	lt := laneTiming{start: g.r[1-e], stop: g.length - g.r[e], speed: g.speed[l], most: maxPlatoon}
	if g.arms[e] >= SignalArms {
		lt.base = greenStart(g.spec.Dir) - g.phase[e] + greenLead
		lt.gap = headway
	} else {
		lt.base = -g.phase[e] + greenLead
		lt.gap = SignalPeriod / maxPlatoon
	}
	lt.before = (lt.stop - lt.start) / lt.speed
	lt.after = maxTurn*g.r[e]/lt.speed + float64(maxPlatoon-1)*lt.gap
	if n := queueFits(&lt); queues && g.arms[e] >= SignalArms && n > 0 {
		lt.queued, lt.most = true, n
		lt.before += queueBefore
		// the last crosses before the green ends, maybe still speeding up
		lt.after = maxTurn*g.r[e]/lt.speed + accelTime + greenLength
	}
	return lt
}

// platoon is how many vehicles lane l of g sends in cycle c.
func (s *Schedule) platoon(g *edgeGeom, l uint8, c int64) int {
	f := g.fill * s.fill * maxPlatoon
	n := int(f + s.w.Hash01(saltCount, int64(g.spec.ID), int64(l), c))
	return max(0, min(g.lts[l].most, n))
}

// lanePoint is the point of lane l at u metres from its start junction,
// and the travel direction there.
func (g *edgeGeom) lanePoint(l uint8, u float64) (world.Vec2, world.Vec2) {
	return pointAt(g.nodes, g.cum, g.dirs, g.offs, 0, len(g.nodes), laneS(g.length, l, u), l)
}

// laneS is where, in metres along its edge, lane l is u metres from its
// start (lane 1 runs from the edge's far end), clamped to the edge.
func laneS(length float64, l uint8, u float64) float64 {
	s := u
	if l == 1 {
		s = length - u
	}
	return max(0, min(length, s)) // builtins: inlined, unlike math's (a frame calls this hundreds of times)
}

// pointAt is lane l's point at s metres along an edge of n nodes, given
// the edge's nodes from index base on (their arc lengths cum and lane
// offsets offs, laneOffsets'): the schedule passes them all, a Plan the few
// its window reaches. Both get the same float arithmetic, so both place a
// vehicle alike to the bit. dirs holds each segment's unit direction, the
// vehicle's heading there.
func pointAt(nodes []world.Vec2, cum []float64, dirs, offs []world.Vec2, base, n int, s float64, l uint8) (world.Vec2, world.Vec2) {
	// the segment holding s: a plain binary search (sort.Search's
	// closure is a measurable share of a frame's traffic)
	lo, hi := 0, len(cum)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cum[m] < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := max(0, min(n-2, base+lo-1)) - base
	segLen := cum[i+1] - cum[i]
	f := 0.0
	if segLen > 0 {
		f = (s - cum[i]) / segLen
	}
	side := LaneOffset
	d := dirs[i]
	if l == 1 {
		side, d = -LaneOffset, d.Scale(-1)
	}
	a := nodes[i].Add(offs[i].Scale(side))
	b := nodes[i+1].Add(offs[i+1].Scale(side))
	return a.Lerp(b, f), d
}

// right is the right-hand side of travel direction d (Z is south: the
// right of +X is +Z).
func right(d world.Vec2) world.Vec2 { return world.Vec2{X: -d.Z, Z: d.X} }

// At evaluates vehicle k at world time t, lag metres behind its schedule.
// ok is false when the vehicle is not on the road at that moment.
func (s *Schedule) At(k Key, t, lag float64) (Vehicle, bool) {
	g := s.geomByID(k.Edge)
	if g == nil {
		return Vehicle{}, false
	}
	return s.at(g, k, g.timing(k.Lane), t, lag)
}

// crossTime is when vehicle k, driving through, crosses its lane's stop
// line.
func crossTime(lt *laneTiming, k Key) float64 {
	return lt.base + float64(k.Cycle)*SignalPeriod + float64(k.K)*lt.gap
}

// turnAt is the point and heading f of the way along turn tr.
func turnAt(tr *turn, f float64) (world.Vec2, world.Vec2) {
	a, b := tr.p0.Lerp(tr.c, f), tr.c.Lerp(tr.p1, f)
	return a.Lerp(b, f), b.Sub(a).Norm()
}

func (s *Schedule) at(g *edgeGeom, k Key, lt laneTiming, t, lag float64) (Vehicle, bool) {
	m := s.motion(&lt, k)
	u := uAt(&lt, &m, t, lag)
	if u < lt.start || lt.stop <= lt.start {
		return Vehicle{}, false
	}
	v := Vehicle{Key: k, U: u, Start: lt.start, Stop: lt.stop, Speed: speedAt(&lt, &m, t)}
	if u <= lt.stop {
		v.Pos, v.Dir = g.lanePoint(k.Lane, u)
		v.Y = s.laneHeight(g, k.Lane, u)
		return v, true
	}
	v.Y = s.laneHeight(g, k.Lane, lt.stop) // a junction's surface is level
	tr := s.turn(g, k, lt.stop)
	f := (u - lt.stop) / tr.length
	if f > 1 {
		return Vehicle{}, false
	}
	v.Pos, v.Dir = turnAt(tr, f)
	return v, true
}

// turn is vehicle k's turn from its stop line (at stop) onto its exit lane.
// The exit is chosen from (edge, lane, cycle, vehicle); a dead end turns
// back onto the edge's other lane.
func (s *Schedule) turn(g *edgeGeom, k Key, stop float64) *turn {
	i, n := 0, g.nexits[k.Lane]
	if n > 0 {
		i = min(n-1, int(s.w.Hash01(saltTurn, int64(g.spec.ID), int64(k.Lane)<<8|int64(k.K), k.Cycle)*float64(n)))
	}
	return s.exitTurn(g, k.Lane, i, stop)
}

// exitTurn is lane l's turn onto its exit i, from its stop line at stop.
func (s *Schedule) exitTurn(g *edgeGeom, l uint8, i int, stop float64) *turn {
	tr := &g.turns[l][i]
	if !tr.ok {
		p0, d0 := g.lanePoint(l, stop)
		p1, d1 := s.exitPoint(g, l, i)
		tr.p0, tr.p1, tr.c = p0, p1, control(p0, d0, p1, d1)
		tr.length = (p0.Sub(tr.c).Len() + tr.c.Sub(p1).Len() + p1.Sub(p0).Len()) / 2
		tr.ok = true
	}
	return tr
}

// reachBox is the box that holds every place a vehicle of g can be: its
// lanes (laneReach about its nodes) and its turns through the junctions
// at both ends (a quadratic Bezier lies in the triangle of its points). A
// turn can bulge metres beyond the nodes' box, and a query that pruned by
// that box alone would miss a vehicle in the junction.
func (s *Schedule) reachBox(g *edgeGeom) (lo, hi world.Vec2) {
	if g.rok {
		return g.reach[0], g.reach[1]
	}
	lo = world.Vec2{X: g.min.X - laneReach, Z: g.min.Z - laneReach}
	hi = world.Vec2{X: g.max.X + laneReach, Z: g.max.Z + laneReach}
	for l := uint8(0); l < 2; l++ {
		lt := g.timing(l)
		if lt.stop <= lt.start {
			continue
		}
		for i := range max(1, g.nexits[l]) {
			tr := s.exitTurn(g, l, i, lt.stop)
			for _, p := range [3]world.Vec2{tr.p0, tr.c, tr.p1} {
				lo = world.Vec2{X: min(lo.X, p.X), Z: min(lo.Z, p.Z)}
				hi = world.Vec2{X: max(hi.X, p.X), Z: max(hi.Z, p.Z)}
			}
		}
	}
	g.reach, g.rok = [2]world.Vec2{lo, hi}, true
	return lo, hi
}

// exitPoint is where lane l's exit i begins, and the direction there.
func (s *Schedule) exitPoint(g *edgeGeom, l uint8, i int) (world.Vec2, world.Vec2) {
	end := endOf(l)
	if g.nexits[l] == 0 {
		return g.lanePoint(1-l, g.r[end])
	}
	spec := g.exits[l][i]
	x := s.geom(spec)
	junction := g.spec.B
	if end == 0 {
		junction = g.spec.A
	}
	if spec.A == junction {
		return x.lanePoint(0, x.r[0])
	}
	return x.lanePoint(1, x.r[1])
}

// control is the Bezier control point of a turn from p0 heading d0 to p1
// heading d1: where the two lines meet, or ahead of the midpoint when they
// run (anti)parallel.
func control(p0, d0, p1, d1 world.Vec2) world.Vec2 {
	mid := p0.Lerp(p1, 0.5)
	cross := d0.X*d1.Z - d0.Z*d1.X
	if math.Abs(cross) < 0.2 {
		if d0.Dot(d1) < 0 { // turning back
			return mid.Add(d0.Scale(p1.Sub(p0).Len()))
		}
		return mid
	}
	// p0 + d0*a = p1 - d1*b
	q := p1.Sub(p0)
	a := (q.X*d1.Z - q.Z*d1.X) / cross
	b := (d0.X*q.Z - d0.Z*q.X) / cross
	if a <= 0 || b <= 0 {
		return mid
	}
	return p0.Add(d0.Scale(a))
}

// maxTurn bounds a turn's length relative to its junction radius (for
// finding the cycles that may be on the road).
const maxTurn = 4.0

// Vehicles appends to dst every scheduled vehicle within radius of centre
// at world time t, in a fixed order (by edge, lane, cycle, vehicle). It
// allocates nothing once its caches are warm and dst has room.
func (s *Schedule) Vehicles(t float64, centre world.Vec2, radius float64, dst []Vehicle) []Vehicle {
	s.resetIfFull()
	s.nearby(centre, radius)
	r2 := radius * radius
	for _, g := range s.near {
		if lo, hi := s.reachBox(g); boxDist2(lo, hi, centre) > r2 {
			continue
		}
		for l := uint8(0); l < 2; l++ {
			lt := g.timing(l)
			if lt.stop <= lt.start {
				continue
			}
			lo, hi := lt.cycles(t)
			for c := lo; c <= hi; c++ {
				n := s.platoon(g, l, c)
				for k := 0; k < n; k++ {
					v, ok := s.at(g, Key{Edge: g.spec.ID, Cycle: c, Lane: l, K: uint8(k)}, lt, t, 0)
					if ok && v.Pos.Dist2(centre) <= r2 {
						dst = append(dst, v)
					}
				}
			}
		}
	}
	return dst
}

// nearby fills s.near with the edges that start in the lattice cells
// around centre, recomputing only when centre's cell changes.
func (s *Schedule) nearby(centre world.Vec2, radius float64) {
	c := world.CellAt(centre.X, centre.Z)
	r := int32(math.Ceil(radius/world.CellSize)) + 1
	if s.nearValid && c == s.nearCell && r == s.nearR {
		s.warm()
		return
	}
	s.near = s.near[:0]
	for i := c.I - r - world.MaxSpanCells; i <= c.I+r; i++ {
		for j := c.J - r - 1; j <= c.J+r; j++ {
			cell := world.Cell{I: i, J: j}
			s.specs = s.lat.Arms(cell, s.specs[:0])
			for _, e := range s.specs {
				if e.A == cell {
					s.near = append(s.near, s.geom(e))
				}
			}
		}
	}
	// Arms of later cells may have filled the cache past its half; the
	// pointers stay valid until the next call's reset.
	slices.SortFunc(s.near, func(a, b *edgeGeom) int { return cmp.Compare(a.spec.ID, b.spec.ID) })
	s.nearCell, s.nearR, s.nearValid, s.warmNext = c, r, true, 0
}

// warmCells is how many lattice cells a call warms: the box one cell
// wider than the one nearby reads is warm within a second at 60 calls a
// second, long before a car crosses a cell.
const warmCells = 2

// warm builds the geometry of the edges one cell beyond what nearby
// reads, a few cells per call, so that when the car crosses into the next
// cell nearby finds it memoised instead of building a row of edges in one
// frame.
func (s *Schedule) warm() {
	r := s.nearR + 1
	c := s.nearCell
	w := int(2*r + 1 + world.MaxSpanCells)
	h := int(2*r + 2)
	for range warmCells {
		if s.warmNext >= w*h {
			return
		}
		cell := world.Cell{I: c.I - r - world.MaxSpanCells + int32(s.warmNext%w), J: c.J - r - 1 + int32(s.warmNext/w)}
		s.warmNext++
		s.specs = s.lat.Arms(cell, s.specs[:0])
		for _, e := range s.specs {
			if e.A == cell {
				s.geom(e)
			}
		}
	}
}

func boxDist2(lo, hi, p world.Vec2) float64 {
	dx := max(0, lo.X-p.X, p.X-hi.X)
	dz := max(0, lo.Z-p.Z, p.Z-hi.Z)
	return dx*dx + dz*dz
}

// SignalOffset is where, in its signal cycle, the light shown to traffic
// arriving at junction along an edge of axis d stands at world time 0:
// the light at t is ShowLight(floorMod(t, SignalPeriod)+offset). The city
// builder stores it in the signal heads it draws, so the shader shows the
// same light as SignalLight from the world clock alone.
func SignalOffset(junction uint64, d world.Dir) float64 {
	return floorMod(signalOffset(junction)-greenStart(d), SignalPeriod)
}

// ShowLight is the light at cycle position u (seconds, any real: taken
// modulo SignalPeriod) from the start of the approach's green.
func ShowLight(u float64) Light {
	u = floorMod(u, SignalPeriod)
	switch {
	case u < greenLength:
		return Green
	case u < SignalPeriod/2:
		return AmberLight
	}
	return Red
}

// GreenLength is how long an approach's light stays green in a cycle
// (then AmberLight for Amber seconds, then red for half the cycle).
const GreenLength = greenLength

// surfaceCells is how many lattice cells the schedule's surface cache
// holds at first: all those within a client's traffic radius. A plan
// grows it to its own reach (surfaceFor).
const surfaceCells = 128

// surfaceFor grows the surface cache to hold every cell a query reaching
// reach metres reads (nearby's cells): a far plan's lane heights come from
// cells across two kilometres, and a smaller cache filled each cell's
// roads again (their terrain heights) for every lane it came back to, a
// third of the planner's work. It allocates only when it grows.
func (s *Schedule) surfaceFor(reach float64) {
	r := int(math.Ceil(reach/world.CellSize)) + 1
	if n := (2*r + 1 + world.MaxSpanCells) * (2*r + 2); n > s.surfCells {
		s.surf, s.surfCells = world.NewSurfaceCacheCells(s.w, n), n
	}
}

// laneHeight is the road height of lane l at u metres from its start,
// interpolated between memoised samples.
func (s *Schedule) laneHeight(g *edgeGeom, l uint8, u float64) float64 {
	i := heightIndex(g.nh, u)
	s.heightAt(g, l, i)
	s.heightAt(g, l, i+1)
	return heightOf(g.hts[l][:g.nh], 0, g.nh, u)
}

// heightIndex is the sample at or before u metres of a lane with nh
// samples (the last pair for u past its end).
func heightIndex(nh int, u float64) int {
	return min(int(max(0, u)/heightStep), nh-2)
}

// heightOf interpolates the road height at u metres from a lane's start
// between samples hts (from sample base on, of nh in all): the schedule
// and a Plan share it, as they share pointAt.
func heightOf(hts []float32, base, nh int, u float64) float64 {
	f := max(0, u) / heightStep
	i := heightIndex(nh, u)
	a, b := float64(hts[i-base]), float64(hts[i+1-base])
	t := min(1, f-float64(i))
	return a + t*(b-a)
}

// heightAt is lane l's memoised road height sample i, computed if need be.
// It answers the stored float32 either way, so the first query and later
// ones agree to the bit.
func (s *Schedule) heightAt(g *edgeGeom, l uint8, i int) float64 {
	if y := g.hts[l][i]; y == y { // not NaN
		return float64(y)
	}
	p, _ := g.lanePoint(l, float64(i)*heightStep)
	y := float32(s.surf.Surface(p.X, p.Z).Y)
	g.hts[l][i] = y
	return float64(y)
}

// path is one vehicle's lane, timing and motion looked up once, for the
// reaction's many look-ups along its path: Schedule.At's position,
// heading and U, to the bit, without the map look-up, the motion's and
// turn's hashes or the road height each time.
type path struct {
	s  *Schedule
	g  *edgeGeom
	k  Key
	lt laneTiming
	m  motion
	tr *turn // looked up on first use
}

// pathOf is vehicle k's path; false when its edge is unknown.
func (s *Schedule) pathOf(k Key) (path, bool) {
	g := s.geomByID(k.Edge)
	if g == nil {
		return path{}, false
	}
	p := path{s: s, g: g, k: k, lt: g.timing(k.Lane)}
	p.m = s.motion(&p.lt, k)
	return p, true
}

// at is Schedule.At(k, t, lag)'s Pos, Dir and U.
func (p *path) at(t, lag float64) (pos, dir world.Vec2, u float64, ok bool) {
	lt := &p.lt
	u = uAt(lt, &p.m, t, lag)
	if u < lt.start || lt.stop <= lt.start {
		return pos, dir, u, false
	}
	if u <= lt.stop {
		pos, dir = p.g.lanePoint(p.k.Lane, u)
		return pos, dir, u, true
	}
	if p.tr == nil {
		p.tr = p.s.turn(p.g, p.k, lt.stop)
	}
	f := (u - lt.stop) / p.tr.length
	if f > 1 {
		return pos, dir, u, false
	}
	pos, dir = turnAt(p.tr, f)
	return pos, dir, u, true
}
