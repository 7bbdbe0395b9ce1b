package car

import (
	"math"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Box is an oriented rectangle on the ground plane: centre C, unit axis U,
// half extents HU along U and HV along U's perpendicular. The car's
// physics and the autopilot's clearance checks test the same boxes.
type Box struct {
	C, U   world.Vec2
	HU, HV float64
}

// ObstacleBox is obstacle o's footprint.
func ObstacleBox(o *slots.Obstacle) Box {
	return Box{
		C: world.Vec2{X: o.Centre[0], Z: o.Centre[1]}, U: world.Vec2{X: o.Axis[0], Z: o.Axis[1]},
		HU: o.Half[0], HV: o.Half[1],
	}
}

// BlockBox is the footprint of the block column at (x, z).
func BlockBox(x, z int64) Box {
	return Box{C: world.Vec2{X: float64(x) + 0.5, Z: float64(z) + 0.5}, U: world.Vec2{X: 1}, HU: 0.5, HV: 0.5}
}

// BodyAt is the car's footprint at p facing u, grown by grow on every side.
func BodyAt(p, u world.Vec2, grow float64) Box {
	return Box{C: p, U: u, HU: Length/2 + grow, HV: Width/2 + grow}
}

// Extent is how far b reaches from its centre along unit direction d.
func (b Box) Extent(d world.Vec2) float64 {
	return b.HU*math.Abs(b.U.Dot(d)) + b.HV*math.Abs(b.U.Perp().Dot(d))
}

// Overlaps reports whether b and o overlap (touching is not overlapping).
func (b Box) Overlaps(o Box) bool {
	_, _, ok := penetration(b, o)
	return ok
}

// Corners are b's four corners.
func (b Box) Corners() [4]world.Vec2 {
	a, c := b.U.Scale(b.HU), b.U.Perp().Scale(b.HV)
	return [4]world.Vec2{b.C.Add(a).Add(c), b.C.Add(a).Sub(c), b.C.Sub(a).Sub(c), b.C.Sub(a).Add(c)}
}

// penetration tests a against o by separating axes (the four edge normals
// of two rectangles). When they overlap it returns the shortest way out
// for a: the unit normal pointing from o towards a and the depth along it.
func penetration(a, o Box) (n world.Vec2, depth float64, ok bool) {
	d := a.C.Sub(o.C)
	depth = math.Inf(1)
	for _, ax := range [4]world.Vec2{a.U, a.U.Perp(), o.U, o.U.Perp()} {
		dist := d.Dot(ax)
		over := a.Extent(ax) + o.Extent(ax) - math.Abs(dist)
		if over <= 0 {
			return world.Vec2{}, 0, false
		}
		if over < depth {
			depth, n = over, ax
			if dist < 0 {
				n = ax.Scale(-1)
			}
		}
	}
	return n, depth, true
}
