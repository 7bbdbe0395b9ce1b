// Package autopilot drives along the road graph by itself: a route that
// follows edge centre lines and picks a seeded arm at each junction. The
// bench moves the car along it directly; the game steers its physics car
// towards a point ahead on it.
package autopilot

import (
	"math"
	"math/rand/v2"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// laneOffset is the middle of the right-hand lane: between the centre line
// and the cars parked on the edge stripe of a street (4.85 m out, 1.8 m
// wide), and the inner lane of an avenue. Traffic drives the same line.
const laneOffset = traffic.LaneOffset

// Route is a position on the road graph that moves forward.
type Route struct {
	g       *roadgraph.Graph
	edge    *roadgraph.Edge
	forward bool    // travelling A→B
	seg     int     // current segment
	t       float64 // metres into the segment, in the direction of travel
	pcg     *rand.PCG
	rng     *rand.Rand
	Turns   int // junctions passed
	// the edge it came from (nil before the first turn), for looking back
	prev        *roadgraph.Edge
	prevForward bool
	// avoid, when set, holds the arms that recently led to a blockage or a
	// dead end: turn takes one only when nothing else is left. Copies of
	// the route share it.
	avoid *ArmMemory
	// odo is the metres the route has advanced; lights, when set, weighs
	// its turns by the signals ahead (lights.go). Copies share it.
	odo    float64
	lights *routeLights
}

// ArmMemory is a small bounded set of junction arms that led to a
// blockage or a dead end recently: an arm is an edge left from one of its
// junctions. The oldest is forgotten first.
type ArmMemory struct {
	arms [armMemory]arm
	n    int // arms held
	next int // where the next one goes
}

// armMemory is how many arms are remembered.
const armMemory = 8

type arm struct {
	edge, from uint64  // edge and junction ids (pointers do not outlive eviction)
	at         float64 // the driver's clock when it was remembered
}

// Add remembers edge e left from junction from (at: the caller's clock).
func (m *ArmMemory) Add(e *roadgraph.Edge, from *roadgraph.Junction, at float64) {
	if e == nil || from == nil {
		return
	}
	for i := range m.n {
		if a := &m.arms[i]; a.edge == e.ID && a.from == from.ID {
			a.at = at
			return
		}
	}
	m.arms[m.next] = arm{edge: e.ID, from: from.ID, at: at}
	m.next = (m.next + 1) % armMemory
	m.n = min(m.n+1, armMemory)
}

// Has reports whether edge e left from junction from is remembered.
func (m *ArmMemory) Has(e *roadgraph.Edge, from *roadgraph.Junction) bool {
	if m == nil {
		return false
	}
	for i := range m.n {
		if a := m.arms[i]; a.edge == e.ID && a.from == from.ID {
			return true
		}
	}
	return false
}

// Forget drops the arms remembered before clock time before.
func (m *ArmMemory) Forget(before float64) {
	k := 0
	for i := range m.n {
		if a := m.arms[i]; a.at >= before {
			m.arms[k] = a
			k++
		}
	}
	m.n, m.next = k, k%armMemory
}

// Len is the number of arms remembered.
func (m *ArmMemory) Len() int { return m.n }

// New starts a route on the road nearest pos, in the direction closest to
// heading. seed makes the turns repeatable.
func New(g *roadgraph.Graph, pos, heading world.Vec2, seed uint64) (*Route, bool) {
	h, ok := g.Nearest(pos)
	if !ok {
		return nil, false
	}
	pcg := rand.NewPCG(seed, 0x5eed)
	r := &Route{g: g, edge: h.Edge, seg: h.Seg, pcg: pcg, rng: rand.New(pcg)}
	r.forward = heading.Dot(h.Edge.Tangent(h.Seg)) >= 0
	segLen := r.segLen()
	r.t = h.T * segLen
	if !r.forward {
		r.t = segLen - r.t
	}
	return r, true
}

func (r *Route) segLen() float64 {
	return r.edge.Nodes[r.seg+1].Sub(r.edge.Nodes[r.seg]).Len()
}

// Edge is the edge the route is on.
func (r *Route) Edge() *roadgraph.Edge { return r.edge }

// Advance moves d metres along the road, turning at junctions.
func (r *Route) Advance(d float64) {
	if d > 0 {
		r.odo += d
	}
	for d > 0 {
		left := r.segLen() - r.t
		if d < left {
			r.t += d
			return
		}
		d -= left
		r.t = 0
		if r.forward && r.seg+1 < r.edge.Segments() {
			r.seg++
			continue
		}
		if !r.forward && r.seg > 0 {
			r.seg--
			continue
		}
		r.turn()
	}
}

// turn picks the next edge at the junction ahead, seeded: going straight
// on is likelier than turning (as for a real driver), so is going with
// the signals' green wave, and a dead end
// turns back. Arms into a dead end, or back at a hairpin sharper than the
// car can turn in a street, are taken only when nothing else is left; an
// arm remembered as blocked (r.avoid) only when nothing but turning back
// is — and turning back is preferred to it.
func (r *Route) turn() {
	j := r.edge.JunctionAt(r.forward)
	r.g.EnsureJunctionArms(j)
	r.Turns++
	in := r.travelDir(r.edge, j, true)
	// tier 0: a fine arm, 1: awkward, 2: remembered as blocked
	tier := func(a *roadgraph.Edge) int {
		switch {
		case r.avoid.Has(a, j):
			return 2
		case r.deadEnd(a, j) || in.Dot(r.travelDir(a, j, false)) < hairpin:
			return 1
		}
		return 0
	}
	best := 3
	for _, a := range j.Arms {
		if a != r.edge {
			best = min(best, tier(a))
		}
	}
	if best == 2 {
		best = 3 // every way on is blocked: turn back
	}
	signals := r.lights.signalled()
	base := func(a *roadgraph.Edge) float64 {
		if a == r.edge || tier(a) != best {
			return 0
		}
		out := r.travelDir(a, j, false)
		w := 1.0
		if in.Dot(out) > straightOn {
			w = straightWeight
		}
		if signals && out.X+out.Z > withWave {
			w *= waveWeight
		}
		return w
	}
	open := false // some arm other than back
	for _, a := range j.Arms {
		open = open || base(a) > 0
	}
	// One draw per junction, whether or not the choice was made before,
	// so that every copy of the route draws the same numbers.
	x := r.rng.Float64()
	next := r.edge
	if to, ok := r.lights.chosen(r.Turns, j, r.edge); ok && r.still(j, to, open, base) {
		next = r.arm(j, to)
	} else if open {
		// r.odo is past the junction by what this Advance has still to
		// go: near enough for the prediction.
		lit := r.lights.weigher(j, r.edge, r.forward, r.odo)
		weight := func(a *roadgraph.Edge) float64 {
			if w := base(a); w > 0 {
				return w * lit(a)
			}
			return 0
		}
		total := 0.0
		for _, a := range j.Arms {
			total += weight(a)
		}
		x *= total
		for _, a := range j.Arms {
			w := weight(a)
			if w == 0 {
				continue
			}
			next = a
			if x < w {
				break
			}
			x -= w
		}
	}
	r.lights.choose(r.Turns, j, r.edge, next)
	r.prev, r.prevForward = r.edge, r.forward
	r.edge = next
	r.forward = next.A == j
	if next.A == next.B { // a loop: keep direction
		r.forward = true
	}
	if r.forward {
		r.seg = 0
	} else {
		r.seg = next.Segments() - 1
	}
}

// still reports whether the choice of edge id to at j may still be
// taken: an arm that weighs, or the way back when no arm does (open:
// some arm does). The arms' tiers change as blockages are remembered.
func (r *Route) still(j *roadgraph.Junction, to uint64, open bool, base func(*roadgraph.Edge) float64) bool {
	a := r.arm(j, to)
	switch {
	case a == nil:
		return false
	case a == r.edge:
		return !open
	}
	return base(a) > 0
}

// arm is j's arm with edge id, or r's own edge when it is that one (a
// turn back); nil when j has no such arm.
func (r *Route) arm(j *roadgraph.Junction, id uint64) *roadgraph.Edge {
	if r.edge.ID == id {
		return r.edge
	}
	for _, a := range j.Arms {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Turn choice: an arm within about 45° of straight on is straightWeight
// times as likely as each of the others.
const (
	straightOn     = 0.7
	straightWeight = 3.0
	hairpin        = -0.6 // a turn of over about 127°
	// The signals are a green wave east and south (traffic.waveSpeed): an
	// arm heading with it (its direction's X+Z above withWave: east or
	// south, give or take 45°) is waveWeight times as likely where the
	// car stops at signals (on empty roads it does not), as a driver
	// who knows the city's lights would choose. Against the wave the car
	// meets a red at most junctions of a trunk.
	withWave   = 0.5
	waveWeight = 2.0
)

// travelDir is the direction of travel on e at junction j: arriving at j
// (arrive) or leaving it.
func (r *Route) travelDir(e *roadgraph.Edge, j *roadgraph.Junction, arrive bool) world.Vec2 {
	if e.B == j {
		d := e.Tangent(e.Segments()) // at the last node
		if arrive {
			return d
		}
		return d.Scale(-1)
	}
	d := e.Tangent(0)
	if arrive {
		return d.Scale(-1)
	}
	return d
}

// deadEnd reports whether arm a, left from junction from, leads to a
// junction with no other way out.
func (r *Route) deadEnd(a *roadgraph.Edge, from *roadgraph.Junction) bool {
	far := a.B
	if far == from {
		far = a.A
	}
	if far == from {
		return false // a loop
	}
	r.g.EnsureJunctionArms(far)
	return len(far.Arms) < 2
}

// Track moves the route to the centre-line point nearest the car at pos
// among the next maxTrack metres (never backwards), so the route follows
// the car rather than dead reckoning from its speed. The centre line, not
// the lane, because it runs on unbroken through a junction. It stops where
// the route turns back (a dead end): the way back runs along the same
// centre line, and the car is on it only once it has turned round
// (Reverse). It returns the metres advanced.
func (r *Route) Track(pos world.Vec2) float64 {
	saved := *r.pcg
	c := *r
	p, _ := c.centre()
	best, bestAt := p.Dist2(pos), 0.0
	for d := trackStep; d <= maxTrack; d += trackStep {
		e, fwd := c.edge, c.forward
		c.Advance(trackStep)
		if c.turnedBack(e, fwd) {
			break
		}
		p, _ = c.centre()
		if d2 := p.Dist2(pos); d2 < best {
			best, bestAt = d2, d
		}
	}
	*r.pcg = saved
	r.Advance(bestAt)
	return bestAt
}

// turnedBack reports whether the route, on edge e travelling forward a
// moment ago, has since turned back onto the same edge.
func (r *Route) turnedBack(e *roadgraph.Edge, forward bool) bool {
	return r.edge == e && r.forward != forward && e.A != e.B
}

// Reverse turns the route round where it is: the other lane of the same
// edge, in the other direction (the driver has turned the car round).
func (r *Route) Reverse() {
	r.forward = !r.forward
	r.t = r.segLen() - r.t
	r.prev = nil
}

// TurnsBack is the centre-line metres from here to the junction where the
// route turns back on its own edge (a dead end, or every other arm
// remembered as blocked), looking at most within metres ahead; +Inf when
// it does not within them.
func (r *Route) TurnsBack(within float64) float64 {
	saved := *r.pcg
	defer func() { *r.pcg = saved }()
	c := *r
	total := 0.0
	for {
		j, e, dist := c.NextJunction()
		if j == nil || total+dist > within {
			return math.Inf(1)
		}
		total += dist
		fwd := c.forward
		c.Advance(dist + 1e-9)
		if c.turnedBack(e, fwd) {
			return total
		}
		total += 1e-9
	}
}

// Track's window: a car is never further ahead of its route in one physics
// step unless it left it, and then the driver re-routes.
const (
	trackStep = 0.2
	maxTrack  = 12.0
)

// Pose is the position (in the right-hand lane) and heading.
func (r *Route) Pose() (world.Vec2, world.Vec2) {
	p, dir := r.centre()
	return LaneOf(p, dir), dir
}

// LaneOf is the right-hand lane position beside centre-line point p of a
// road travelled in direction dir.
func LaneOf(p, dir world.Vec2) world.Vec2 { return p.Sub(roadgraph.Left(dir).Scale(laneOffset)) }

// centre is the position on the centre line and the heading.
func (r *Route) centre() (world.Vec2, world.Vec2) {
	a, b := r.edge.Nodes[r.seg], r.edge.Nodes[r.seg+1]
	dir := b.Sub(a).Norm()
	f := r.t / r.segLen()
	if !r.forward {
		dir = dir.Scale(-1)
		f = 1 - f
	}
	return a.Lerp(b, f), dir
}

// Behind appends the centre-line positions at n points step metres apart
// behind here, nearest first, back along the way the route came (through
// one junction at most; past that, straight on backwards).
func (r *Route) Behind(step float64, n int, dst []world.Vec2) []world.Vec2 {
	c := *r
	p, dir := c.centre()
	for i := 1; i <= n; i++ {
		if c.retreat(step) {
			p, dir = c.centre()
		} else {
			p = p.Sub(dir.Scale(step))
		}
		dst = append(dst, p)
	}
	return dst
}

// retreat moves d metres back the way the route came; false when there is
// no more road behind it.
func (r *Route) retreat(d float64) bool {
	for d > r.t {
		d -= r.t
		switch {
		case r.forward && r.seg > 0:
			r.seg--
		case !r.forward && r.seg+1 < r.edge.Segments():
			r.seg++
		case r.prev != nil:
			r.edge, r.forward, r.prev = r.prev, r.prevForward, nil
			if r.forward {
				r.seg = r.edge.Segments() - 1
			} else {
				r.seg = 0
			}
		default:
			r.t = 0
			return false
		}
		r.t = r.segLen()
	}
	r.t -= d
	return true
}

// Centres appends the centre-line position at n points step metres
// apart, starting here, without moving the route (turns as in Ahead).
// Where the route turns back (a dead end) they run on straight past the
// junction: a U-turn is the driver's to make, not a line to follow.
func (r *Route) Centres(step float64, n int, dst []world.Vec2) []world.Vec2 {
	saved := *r.pcg
	c := *r
	for n > 0 {
		// one segment at a time: its length and direction once
		a, b := c.edge.Nodes[c.seg], c.edge.Nodes[c.seg+1]
		if !c.forward {
			a, b = b, a
		}
		l := b.Sub(a).Len()
		dir := b.Sub(a).Scale(1 / l)
		for ; c.t < l && n > 0; c.t += step {
			dst = append(dst, a.Add(dir.Scale(c.t)))
			n--
		}
		over := c.t - l
		c.t = l
		e, fwd := c.edge, c.forward
		c.Advance(over + 1e-12) // into the next segment, turning as Advance does
		if n > 0 && c.turnedBack(e, fwd) {
			for k := 0; n > 0; k++ {
				dst = append(dst, b.Add(dir.Scale(over+float64(k)*step)))
				n--
			}
		}
	}
	*r.pcg = saved
	return dst
}

// Ahead returns the lane position d metres further along without moving
// the route. It takes the turns the route itself will take: the random
// state is put back afterwards.
func (r *Route) Ahead(d float64) world.Vec2 {
	c := r.peek(d)
	p, _ := c.Pose()
	return p
}

// peek is a copy of the route d metres further along, r unmoved: the turns
// taken on the way are the route's own, and its random state is put back.
func (r *Route) peek(d float64) Route {
	saved := *r.pcg
	c := *r
	c.Advance(d)
	*r.pcg = saved
	return c
}

// NextJunction is the junction the route's edge leads to, that edge, and
// the centre-line metres from here to the junction's centre.
func (r *Route) NextJunction() (*roadgraph.Junction, *roadgraph.Edge, float64) {
	j := r.edge.JunctionAt(r.forward)
	if j == nil {
		return nil, nil, 0
	}
	dist := r.segLen() - r.t
	n := r.edge.Segments()
	if r.forward {
		for s := r.seg + 1; s < n; s++ {
			dist += r.edge.Nodes[s+1].Sub(r.edge.Nodes[s]).Len()
		}
	} else {
		for s := r.seg - 1; s >= 0; s-- {
			dist += r.edge.Nodes[s+1].Sub(r.edge.Nodes[s]).Len()
		}
	}
	return j, r.edge, dist
}
