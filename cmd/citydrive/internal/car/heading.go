package car

import (
	"math"

	"citydrive/roadgraph/world"
)

// HeadingOf is the heading of a car facing dir: radians, 0 = +X,
// increasing towards -Z (a left turn), the inverse of Forward. Everything
// that reports a car's heading (the game, the bots) goes through it.
func HeadingOf(dir world.Vec2) float64 { return math.Atan2(-dir.Z, dir.X) }
