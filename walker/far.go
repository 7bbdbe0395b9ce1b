package walker

import (
	"errors"
	"fmt"
	"math"

	"citydrive/roadgraph/world"
)

// Far is the kind of a far-tier item: one whole lattice edge (road strip,
// building masses, parks and water beside it) at coarse detail. Its key is
// the edge id, in the far tier's own key space.
const Far Kind = 2

// roadCurve is road metres per metre of chord between two junctions:
// curving streets are ~5% longer than the straight line.
const roadCurve = 1.05

// FarParams are the far walk's weights and limits. Costs are metres of
// road times the weight of the direction the road takes from the car.
type FarParams struct {
	ForwardWeight  float64 // roads heading away ahead of the car
	BackwardWeight float64 // roads heading back behind it
	SideWeight     float64 // roads across the heading
	Cost           float64 // the walk stops past this cost
}

// DefaultFarParams reach 2.4 km ahead on an open road, about 920 m behind
// and 1.7 km to the sides.
func DefaultFarParams() FarParams {
	return FarParams{ForwardWeight: 1.0, BackwardWeight: 2.6, SideWeight: 1.4, Cost: 2400}
}

// Validate reports parameters no walk could honour.
func (p FarParams) Validate() error {
	var errs []error
	for _, v := range []struct {
		n string
		v float64
	}{{"forward weight", p.ForwardWeight}, {"backward weight", p.BackwardWeight}, {"side weight", p.SideWeight}, {"far cost", p.Cost}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			errs = append(errs, fmt.Errorf("walker: %s must be a positive number, got %v", v.n, v.v))
		}
	}
	return errors.Join(errs...)
}

// FarReach is how far a far walk's items reach from the car, metres: the
// furthest edge midpoint ahead, behind and to either side of the heading.
type FarReach struct{ Ahead, Behind, Side float64 }

// FarWalker runs the far walk: Dijkstra over the lattice junctions of the
// pure world description (it never touches the road graph, so the near
// graph stays small), from the junctions around the car, emitting each
// edge once, cheapest first, when the walk first reaches one of its ends.
// It reuses its buffers: in steady state a walk allocates nothing.
type FarWalker struct {
	p     FarParams
	max   int
	src   *world.Cache
	heap  minHeap[world.Cell]
	best  map[world.Cell]float64
	seen  map[uint64]struct{}
	items []Item
	arms  []world.EdgeSpec
	reach FarReach
}

// NewFar returns a far walker over w whose walks stop at maxItems items,
// the far slot count its caller holds them in.
func NewFar(w world.World, p FarParams, maxItems int) (*FarWalker, error) {
	if err := errors.Join(p.Validate(), validateCap("far item cap", maxItems)); err != nil {
		return nil, err
	}
	return &FarWalker{
		p: p, max: maxItems, src: world.NewCache(w),
		best:  make(map[world.Cell]float64, 4*maxItems),
		seen:  make(map[uint64]struct{}, 2*maxItems),
		items: make([]Item, 0, maxItems),
		heap:  make(minHeap[world.Cell], 0, 4*maxItems),
		arms:  make([]world.EdgeSpec, 0, 8),
	}, nil
}

// Params returns the walker's parameters.
func (w *FarWalker) Params() FarParams { return w.p }

// Reach is the last walk's reach.
func (w *FarWalker) Reach() FarReach { return w.reach }

// weight is the cost per metre of going from a to b, by the direction the
// step takes relative to the heading (unit).
func (w *FarWalker) weight(a, b, heading world.Vec2) float64 {
	d := b.Sub(a)
	l := d.Len()
	if l == 0 {
		return w.p.ForwardWeight
	}
	c := d.Dot(heading) / l
	switch {
	case c > 0.5:
		return w.p.ForwardWeight
	case c < -0.5:
		return w.p.BackwardWeight
	}
	return w.p.SideWeight
}

// Walk returns the far items around the car, cheapest first, at most
// the cap, none past Cost; equal costs (a junction's roads) in the walk's
// own fixed order, not by key. The slice is reused by the next walk.
func (w *FarWalker) Walk(car, heading world.Vec2) []Item {
	if l := heading.Len(); l > 0 {
		heading = heading.Scale(1 / l)
	} else {
		heading = world.Vec2{X: 0, Z: 1}
	}
	w.items = w.items[:0]
	w.heap = w.heap[:0]
	clear(w.best)
	clear(w.seen)
	w.reach = FarReach{}
	// Seeds: the junctions of the 5×5 cells around the car, at their
	// straight-line cost from it.
	c0 := world.CellAt(car.X, car.Z)
	for di := int32(-2); di <= 2; di++ {
		for dj := int32(-2); dj <= 2; dj++ {
			c := world.Cell{I: c0.I + di, J: c0.J + dj}
			p, ok := w.src.Junction(c)
			if !ok {
				continue
			}
			w.relax(c, p.Sub(car).Len()*w.weight(car, p, heading))
		}
	}
	for len(w.heap) > 0 && len(w.items) < w.max {
		cost, cell := w.heap.pop()
		if cost > w.best[cell] || cost > w.p.Cost {
			if cost > w.p.Cost {
				break
			}
			continue
		}
		pa, _ := w.src.Junction(cell)
		w.arms = w.src.Arms(cell, w.arms[:0])
		for _, e := range w.arms {
			other := e.B
			if other == cell {
				other = e.A
			}
			pb, ok := w.src.Junction(other)
			if !ok {
				continue
			}
			if _, done := w.seen[e.ID]; !done && len(w.items) < w.max {
				w.seen[e.ID] = struct{}{}
				w.items = append(w.items, Item{Key: int64(e.ID), Kind: Far, Cost: float32(cost), Edge: e.ID})
				w.extend(pa.Lerp(pb, 0.5), car, heading)
			}
			w.relax(other, cost+roadCurve*pb.Sub(pa).Len()*w.weight(pa, pb, heading))
		}
	}
	return w.items
}

func (w *FarWalker) extend(mid, car, heading world.Vec2) {
	d := mid.Sub(car)
	along := d.Dot(heading)
	across := math.Abs(d.X*heading.Z - d.Z*heading.X)
	w.reach.Ahead = math.Max(w.reach.Ahead, along)
	w.reach.Behind = math.Max(w.reach.Behind, -along)
	w.reach.Side = math.Max(w.reach.Side, across)
}

func (w *FarWalker) relax(c world.Cell, cost float64) {
	if b, ok := w.best[c]; ok && b <= cost {
		return
	}
	w.best[c] = cost
	w.heap.push(cost, cellTie(c), c)
}

// cellTie orders far states of equal cost by cell (I, then J, as signed
// numbers): a total order, so they leave the heap in one order whatever
// order they were pushed in.
func cellTie(c world.Cell) uint64 {
	return uint64(uint32(c.I)^1<<31)<<32 | uint64(uint32(c.J)^1<<31)
}
