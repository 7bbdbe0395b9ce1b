package roadgraph

import "citydrive/roadgraph/world"

// flagReach is how far from an edge's bounding box another road can affect
// its side flags: the lot band plus the widest road.
const flagReach = LotDepth + world.AvenueHalfWidth + world.AvenueHalfWidth

// refreshFlagsAround recomputes the side flags of every loaded edge near e
// (and of e itself when it is loaded). Flags are therefore a function of the
// set of loaded edges only, never of the order they arrived in.
func (g *Graph) refreshFlagsAround(e *Edge) {
	for _, f := range g.edgeList {
		if boxesNear(f, e, flagReach) {
			g.computeFlags(f)
		}
	}
}

func boxesNear(a, b *Edge, reach float64) bool {
	return a.Min.X-reach <= b.Max.X && b.Min.X-reach <= a.Max.X &&
		a.Min.Z-reach <= b.Max.Z && b.Min.Z-reach <= a.Max.Z
}

// computeFlags sets, for each node of f, which sides have another road
// inside the lot band beside it.
func (g *Graph) computeFlags(f *Edge) {
	clear(f.Flags)
	for _, o := range g.edgeList {
		if o != f && boxesNear(f, o, flagReach) {
			markFlags(f, o)
		}
	}
}

// flagsForNewEdge sets a newly loaded edge's flags and adds its effect to
// its neighbours': a new road only ever hides more, so only the pairs it is
// part of need looking at (eviction recomputes neighbours in full).
func (g *Graph) flagsForNewEdge(e *Edge) {
	clear(e.Flags)
	for _, o := range g.edgeList {
		if o != e && boxesNear(e, o, flagReach) {
			markFlags(e, o)
			markFlags(o, e)
		}
	}
}

// markFlags hides the sides of f's nodes that have road o in their lot
// band. A road counts if one of its nodes (at most a segment apart) falls in
// the band widened by that road's half-width.
func markFlags(f, o *Edge) {
	reachAcross := f.HalfWidth + LotDepth + o.HalfWidth
	reachAlong := world.SegmentLength/2 + o.HalfWidth
	for i, p := range f.Nodes {
		if p.X < o.Min.X-reachAcross || p.X > o.Max.X+reachAcross ||
			p.Z < o.Min.Z-reachAcross || p.Z > o.Max.Z+reachAcross {
			continue
		}
		t := f.tangent(i)
		n := Left(t)
		for _, q := range o.Nodes {
			d := q.Sub(p)
			along := d.Dot(t)
			if along < -reachAlong || along > reachAlong {
				continue
			}
			across := d.Dot(n)
			switch {
			case across > f.HalfWidth-o.HalfWidth && across < reachAcross:
				f.Flags[i] |= HideLeft
			case -across > f.HalfWidth-o.HalfWidth && -across < reachAcross:
				f.Flags[i] |= HideRight
			}
		}
	}
}

// tangent is the unit direction of travel (A→B) at node i.
func (e *Edge) tangent(i int) world.Vec2 {
	a, b := max(0, i-1), min(len(e.Nodes)-1, i+1)
	return e.Nodes[b].Sub(e.Nodes[a]).Norm()
}

// Tangent is the unit direction of travel (A→B) at node i.
func (e *Edge) Tangent(i int) world.Vec2 { return e.tangent(i) }

// Left is the unit vector to the left of travel direction t, seen from above
// with Y up (X east, Z south): driving east, left is north (-Z).
func Left(t world.Vec2) world.Vec2 { return world.Vec2{X: t.Z, Z: -t.X} }
