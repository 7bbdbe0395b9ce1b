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

// turn picks the next edge at the junction ahead: any other arm, seeded; a
// dead end turns back.
func (r *Route) turn() {
	j := r.edge.JunctionAt(r.forward)
	r.g.EnsureJunctionArms(j)
	r.Turns++
	n := 0
	for _, a := range j.Arms {
		if a != r.edge {
			n++
		}
	}
	next := r.edge
	if n > 0 {
		k := r.rng.IntN(n)
		for _, a := range j.Arms {
			if a == r.edge {
				continue
			}
			if k == 0 {
				next = a
				break
			}
			k--
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
