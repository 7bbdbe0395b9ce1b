// Package walker picks the visible set: a cost-weighted walk along the roads
// from the car, cheapest first, that grows the road graph as it goes. Its
// output order is the build order.
package walker

import (
	"errors"
	"fmt"
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// Kind says what an item is.
type Kind uint8

const (
	Segment  Kind = iota // 4.2 m of road and everything beside it
	Junction             // one junction
)

func (k Kind) String() string {
	if k == Junction {
		return "junction"
	}
	return "segment"
}

// Item is one visible thing with its stable key and walk cost.
type Item struct {
	Key      int64
	Kind     Kind
	Cost     float32
	Edge     uint64 // segment items
	Seg      int32  // segment items
	Junction uint64 // junction items
}

// Params are the walk's weights and limits.
type Params struct {
	StepLength     float64 // metres per step (one segment)
	ForwardWeight  float64
	BackwardWeight float64
	SideWeight     float64 // multiplies a walker's weight on sideways arms
	NearbyRadius   float64 // roads this close to the car get walkers of their own
	ViewCost       float64 // a walk stops past this cost
}

// DefaultParams are the reference game's numbers: about 760 m ahead and 290
// m behind on an open road.
func DefaultParams() Params {
	return Params{
		StepLength:     world.SegmentLength,
		ForwardWeight:  1.0,
		BackwardWeight: 2.6,
		SideWeight:     1.4,
		NearbyRadius:   140,
		ViewCost:       760,
	}
}

// Validate reports parameters no walk could honour.
func (p Params) Validate() error {
	var errs []error
	pos := func(name string, v float64) {
		if !(v > 0) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("walker: %s must be a positive number, got %v", name, v))
		}
	}
	pos("step length", p.StepLength)
	pos("forward weight", p.ForwardWeight)
	pos("backward weight", p.BackwardWeight)
	pos("side weight", p.SideWeight)
	pos("view cost", p.ViewCost)
	if !(p.NearbyRadius >= 0) || math.IsInf(p.NearbyRadius, 0) {
		errs = append(errs, fmt.Errorf("walker: nearby radius must be ≥ 0, got %v", p.NearbyRadius))
	}
	return errors.Join(errs...)
}

// offRoad is how far from every loaded road the car may be before the walk
// loads the lattice around it.
const offRoad = 30.0

// state is one walker: about to visit a segment, or a junction when seg < 0.
// Its cost so far is its rank in the heap.
type state struct {
	weight float64
	edge   *roadgraph.Edge
	seg    int32 // segment index; -1 = the junction at the end we travel to
	dir    int8  // +1 towards B, -1 towards A
}

// Walker runs walks, reusing its buffers: in steady state a walk allocates
// nothing.
type Walker struct {
	p       Params
	max     int
	heap    minHeap[state]
	visited map[int64]struct{}
	items   []Item
	hits    []roadgraph.Hit
}

// New returns a walker whose walks stop at maxItems items, the slot count
// its caller holds them in, or an error for invalid parameters.
func New(p Params, maxItems int) (*Walker, error) {
	if err := errors.Join(p.Validate(), validateCap("item cap", maxItems)); err != nil {
		return nil, err
	}
	return &Walker{p: p, max: maxItems, visited: make(map[int64]struct{}, 2*maxItems), items: make([]Item, 0, maxItems)}, nil
}

// validateCap reports an item cap no walk could honour.
func validateCap(name string, n int) error {
	if n < 1 {
		return fmt.Errorf("walker: %s must be ≥ 1, got %d", name, n)
	}
	return nil
}

// Params returns the walker's parameters.
func (w *Walker) Params() Params { return w.p }

// Walk computes the visible set from a car at pos heading along heading (a
// horizontal direction; zero means "along the road"). It grows g where the
// walk reaches unexpanded junctions. The result is ordered by non-decreasing
// cost and is valid until the next call.
func (w *Walker) Walk(g *roadgraph.Graph, pos, heading world.Vec2) []Item {
	w.items = w.items[:0]
	w.heap = w.heap[:0]
	clear(w.visited)
	car, ok := g.Nearest(pos)
	if !ok || car.Dist > offRoad {
		// Somewhere new (a start, a teleport, a drive across the grass):
		// load every road that could pass here before choosing one.
		g.EnsureAround(pos)
		if car, ok = g.Nearest(pos); !ok {
			return w.items
		}
	}
	fwd := int8(1)
	if heading.Dot(car.Edge.Tangent(car.Seg)) < 0 {
		fwd = -1
	}
	step := w.p.StepLength
	w.push(0, state{weight: w.p.ForwardWeight, edge: car.Edge, seg: int32(car.Seg), dir: fwd})
	w.pushNext(0, state{weight: w.p.BackwardWeight, edge: car.Edge, seg: int32(car.Seg), dir: -fwd})
	w.hits = g.RoadsWithin(pos, w.p.NearbyRadius, w.hits[:0])
	for _, h := range w.hits {
		if h.Edge == car.Edge {
			continue
		}
		c := h.Dist * w.p.SideWeight
		w.push(c, state{weight: w.p.SideWeight, edge: h.Edge, seg: int32(h.Seg), dir: 1})
		w.pushNext(c-step*w.p.SideWeight, state{weight: w.p.SideWeight, edge: h.Edge, seg: int32(h.Seg), dir: -1})
	}
	for len(w.heap) > 0 && len(w.items) < w.max {
		cost, s := w.heap.pop()
		if cost > w.p.ViewCost {
			break
		}
		if s.seg < 0 {
			w.visitJunction(g, cost, s)
			continue
		}
		key := s.edge.Key(int(s.seg))
		if _, seen := w.visited[key]; seen {
			continue
		}
		w.visited[key] = struct{}{}
		w.items = append(w.items, Item{Key: key, Kind: Segment, Cost: float32(cost), Edge: s.edge.ID, Seg: s.seg})
		w.pushNext(cost, s)
	}
	return w.items
}

// push queues s at cost. Equal costs leave in the heap's own fixed order.
func (w *Walker) push(cost float64, s state) { w.heap.push(cost, 0, s) }

// pushNext queues the step after s, at cost so far: the next segment in
// s's direction, or the junction at the edge's end.
func (w *Walker) pushNext(cost float64, s state) {
	s.seg += int32(s.dir)
	if s.seg < 0 || int(s.seg) >= s.edge.Segments() {
		s.seg = -1
	}
	w.push(cost+w.p.StepLength*s.weight, s)
}

func (w *Walker) visitJunction(g *roadgraph.Graph, cost float64, s state) {
	j := s.edge.JunctionAt(s.dir > 0)
	key := roadgraph.JunctionKey(j.ID)
	if _, seen := w.visited[key]; seen {
		return
	}
	w.visited[key] = struct{}{}
	w.items = append(w.items, Item{Key: key, Kind: Junction, Cost: float32(cost), Junction: j.ID})
	g.EnsureJunctionArms(j)
	// The arm that best continues the direction of travel keeps the
	// walker's weight; every other arm leads sideways.
	in := arrivalDir(s.edge, s.dir)
	straight, bestDot := -1, math.Cos(math.Pi/4)
	for i, arm := range j.Arms {
		if arm == s.edge {
			continue
		}
		if d := in.Dot(departDir(arm, j)); d > bestDot {
			straight, bestDot = i, d
		}
	}
	for i, arm := range j.Arms {
		if arm == s.edge {
			continue
		}
		weight := s.weight * w.p.SideWeight
		if i == straight {
			weight = s.weight
		}
		n := state{weight: weight, edge: arm, seg: 0, dir: 1}
		if arm.A != j {
			n.seg, n.dir = int32(arm.Segments()-1), -1
		}
		w.push(cost+w.p.StepLength*weight, n)
	}
}

// arrivalDir is the direction of travel when reaching the end of e.
func arrivalDir(e *roadgraph.Edge, dir int8) world.Vec2 {
	n := len(e.Nodes)
	if dir > 0 {
		return e.Nodes[n-1].Sub(e.Nodes[n-2]).Norm()
	}
	return e.Nodes[0].Sub(e.Nodes[1]).Norm()
}

// departDir is the direction of travel when leaving junction j along e.
func departDir(e *roadgraph.Edge, j *roadgraph.Junction) world.Vec2 {
	n := len(e.Nodes)
	if e.A == j {
		return e.Nodes[1].Sub(e.Nodes[0]).Norm()
	}
	return e.Nodes[n-2].Sub(e.Nodes[n-1]).Norm()
}
