package game

import (
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// laneHeights memoises the road surface under the traffic lanes: one
// sample per heightStep metres of each lane, taken where the first vehicle
// to get there stood, and interpolated for the vehicles after it (the
// leader extrapolates from the two samples behind it). A surface query at
// an arbitrary point costs microseconds, a few hundred vehicles each
// frame would cost the frame; this way only a few per frame are made.
// Vehicles turning through a junction stand on its level surface: one
// sample per lane's turn.
type laneHeights struct {
	surface *world.SurfaceCache
	m       map[laneBucket]heightSample
}

type laneBucket struct {
	edge uint64
	lane uint8 // the lane, | turnFlag for its turn at the far junction
	b    int32
}

type heightSample struct{ u, y float64 }

const (
	heightStep = 4.0
	// heightLimit bounds the memo (about 25 km of lanes); past it, it
	// starts over.
	heightLimit = 1 << 14
	turnFlag    = 0x80
	// trafficCells: the traffic's surface cache holds the lattice cells
	// of its whole radius, so its queries do not evict one another.
	trafficCells = 96
)

func newLaneHeights(w world.World) *laneHeights {
	return &laneHeights{surface: world.NewSurfaceCacheCells(w, trafficCells), m: make(map[laneBucket]heightSample, heightLimit)}
}

// at is the road height under v.
func (h *laneHeights) at(v *traffic.Vehicle) float64 {
	if len(h.m) >= heightLimit {
		clear(h.m)
	}
	k := laneBucket{edge: v.Key.Edge, lane: v.Key.Lane}
	if v.U > v.Stop {
		k.lane |= turnFlag
		return h.sample(k, v).y
	}
	k.b = int32(v.U / heightStep)
	s0 := h.sample(k, v)
	k.b++
	if s1, ok := h.m[k]; ok && s1.u > s0.u {
		f := min(max((v.U-s0.u)/(s1.u-s0.u), 0), 1)
		return s0.y + f*(s1.y-s0.y)
	}
	k.b -= 2
	if sb, ok := h.m[k]; ok && sb.u < s0.u {
		slope := (s0.y - sb.y) / (s0.u - sb.u)
		return s0.y + slope*min(v.U-s0.u, heightStep)
	}
	return s0.y
}

func (h *laneHeights) sample(k laneBucket, v *traffic.Vehicle) heightSample {
	if s, ok := h.m[k]; ok {
		return s
	}
	s := heightSample{u: v.U, y: h.surface.Surface(v.Pos.X, v.Pos.Z).Y}
	h.m[k] = s
	return s
}
