package car

import (
	"math"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// box is an oriented rectangle on the ground plane: centre c, unit axis u,
// half extents hu along u and hv along u's perpendicular.
type box struct {
	c, u   world.Vec2
	hu, hv float64
}

func obstacleBox(o *slots.Obstacle) box {
	return box{
		c: world.Vec2{X: o.Centre[0], Z: o.Centre[1]}, u: world.Vec2{X: o.Axis[0], Z: o.Axis[1]},
		hu: o.Half[0], hv: o.Half[1],
	}
}

// extent is how far b reaches from its centre along unit direction d.
func (b box) extent(d world.Vec2) float64 {
	return b.hu*math.Abs(b.u.Dot(d)) + b.hv*math.Abs(b.u.Perp().Dot(d))
}

// penetration tests a against o by separating axes (the four edge normals
// of two rectangles). When they overlap it returns the shortest way out
// for a: the unit normal pointing from o towards a and the depth along it.
func penetration(a, o box) (n world.Vec2, depth float64, ok bool) {
	d := a.c.Sub(o.c)
	depth = math.Inf(1)
	for _, ax := range [4]world.Vec2{a.u, a.u.Perp(), o.u, o.u.Perp()} {
		dist := d.Dot(ax)
		over := a.extent(ax) + o.extent(ax) - math.Abs(dist)
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
