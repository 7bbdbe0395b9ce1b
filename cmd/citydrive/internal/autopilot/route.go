// Package autopilot drives along the road graph by itself: a route that
// follows edge centre lines and picks a seeded arm at each junction. The
// bench moves the car along it directly; the game steers its physics car
// towards a point ahead on it.
package autopilot

import (
	"math/rand/v2"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// laneOffset keeps the car right of the centre line.
const laneOffset = 2.5

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
}

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
// on is likelier than turning (as for a real driver), arms into a dead end
// are taken only when nothing else is left, and a dead end turns back.
func (r *Route) turn() {
	j := r.edge.JunctionAt(r.forward)
	r.g.EnsureJunctionArms(j)
	r.Turns++
	in := r.travelDir(r.edge, j, true)
	total, open := 0.0, false
	for _, a := range j.Arms {
		if a != r.edge && !r.deadEnd(a, j) {
			open = true
		}
	}
	weight := func(a *roadgraph.Edge) float64 {
		if a == r.edge || (open && r.deadEnd(a, j)) {
			return 0
		}
		if in.Dot(r.travelDir(a, j, false)) > straightOn {
			return straightWeight
		}
		return 1
	}
	for _, a := range j.Arms {
		total += weight(a)
	}
	next := r.edge
	if total > 0 {
		x := r.rng.Float64() * total
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

// Turn choice: an arm within about 45° of straight on is straightWeight
// times as likely as each of the others.
const (
	straightOn     = 0.7
	straightWeight = 3.0
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

// Track moves the route up to the point nearest the car at pos (never
// backwards, at most maxTrack metres), so the route follows the car rather
// than dead reckoning from its speed. It returns the metres advanced.
func (r *Route) Track(pos world.Vec2) float64 {
	moved := 0.0
	for moved < maxTrack {
		a, b := r.edge.Nodes[r.seg], r.edge.Nodes[r.seg+1]
		if !r.forward {
			a, b = b, a
		}
		l := r.segLen()
		u := pos.Sub(a).Dot(b.Sub(a)) / l
		if u <= r.t {
			return moved
		}
		if u < l {
			moved += u - r.t
			r.t = u
			return moved
		}
		step := l - r.t
		r.Advance(step + 1e-9)
		moved += step
	}
	return moved
}

// maxTrack bounds one Track call: a car is never that far ahead of its
// route unless it left it, and then the caller re-routes.
const maxTrack = 60.0

// Pose is the position (in the right-hand lane) and heading.
func (r *Route) Pose() (world.Vec2, world.Vec2) {
	a, b := r.edge.Nodes[r.seg], r.edge.Nodes[r.seg+1]
	dir := b.Sub(a).Norm()
	f := r.t / r.segLen()
	if !r.forward {
		dir = dir.Scale(-1)
		f = 1 - f
	}
	p := a.Lerp(b, f)
	return p.Sub(roadgraph.Left(dir).Scale(laneOffset)), dir
}

// Directions appends the travel direction at n points step metres apart,
// starting here, without moving the route (turns as in Ahead).
func (r *Route) Directions(step float64, n int, dst []world.Vec2) []world.Vec2 {
	saved := *r.pcg
	c := *r
	for i := 0; i < n; i++ {
		_, dir := c.Pose()
		dst = append(dst, dir)
		c.Advance(step)
	}
	*r.pcg = saved
	return dst
}

// Ahead returns the lane position d metres further along without moving
// the route. It takes the turns the route itself will take: the random
// state is put back afterwards.
func (r *Route) Ahead(d float64) world.Vec2 {
	saved := *r.pcg
	c := *r
	c.Advance(d)
	*r.pcg = saved
	p, _ := c.Pose()
	return p
}
