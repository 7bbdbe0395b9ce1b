package roadgraph

import (
	"math"

	"citydrive/roadgraph/world"
)

// Hit is the nearest point of one edge to a query position.
type Hit struct {
	Edge  *Edge
	Seg   int        // segment holding the nearest point
	T     float64    // 0..1 along that segment
	Point world.Vec2 // the nearest point on the centre line
	Dist  float64
}

// RoadsWithin appends to dst one hit per loaded edge whose nearest point is
// within dist of p, in edge-id order. It allocates nothing when dst has room.
func (g *Graph) RoadsWithin(p world.Vec2, dist float64, dst []Hit) []Hit {
	d2max := dist * dist
	for _, e := range g.edgeList {
		if boxDist2(e.Min, e.Max, p) > d2max {
			continue
		}
		if h := nearestOnEdge(e, p); h.Dist*h.Dist <= d2max {
			dst = append(dst, h)
		}
	}
	return dst
}

// Nearest returns the nearest point of any loaded road to p.
func (g *Graph) Nearest(p world.Vec2) (Hit, bool) {
	best := Hit{Dist: math.Inf(1)}
	for _, e := range g.edgeList {
		if boxDist2(e.Min, e.Max, p) >= best.Dist*best.Dist {
			continue
		}
		if h := nearestOnEdge(e, p); h.Dist < best.Dist {
			best = h
		}
	}
	return best, best.Edge != nil
}

func nearestOnEdge(e *Edge, p world.Vec2) Hit {
	best := Hit{Edge: e, Dist: math.Inf(1)}
	bestD2 := math.Inf(1)
	for i := 0; i+1 < len(e.Nodes); i++ {
		a, b := e.Nodes[i], e.Nodes[i+1]
		ab := b.Sub(a)
		t := 0.0
		if l2 := ab.Dot(ab); l2 > 0 {
			t = math.Min(1, math.Max(0, p.Sub(a).Dot(ab)/l2))
		}
		q := a.Add(ab.Scale(t))
		if d2 := q.Dist2(p); d2 < bestD2 {
			bestD2 = d2
			best.Seg, best.T, best.Point = i, t, q
		}
	}
	best.Dist = math.Sqrt(bestD2)
	return best
}

// JunctionAt returns the junction at the given end of e: A when forward is
// false (travelling towards node 0), B otherwise.
func (e *Edge) JunctionAt(forward bool) *Junction {
	if forward {
		return e.B
	}
	return e.A
}
