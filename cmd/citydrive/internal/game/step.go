package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/world"
)

// Physics runs at a fixed rate whatever the frame rate: a frame adds its
// time to an accumulator and runs as many whole steps as fit; drawing
// interpolates between the last two states. A frame longer than
// maxFrameTime (under 5 fps) counts as maxFrameTime, so the game slows down
// instead of taking a huge step, and the HUD says so.
const (
	PhysicsHz    = 120
	physicsStep  = 1.0 / PhysicsHz
	maxFrameTime = 0.2
)

// stepClock is the accumulator.
type stepClock struct {
	acc float64
}

// frame takes a frame of dt wall seconds and returns the physics steps to
// run and the game time it covers (dt, or maxFrameTime when slowed).
func (c *stepClock) frame(dt float64) (steps int, game float64) {
	game = math.Min(math.Max(dt, 0), maxFrameTime)
	c.acc += game
	// The epsilon keeps a frame of exactly k steps (1/60 s = 2 steps) from
	// losing one to rounding.
	steps = int(math.Floor(c.acc/physicsStep + 1e-6))
	c.acc = math.Max(0, c.acc-float64(steps)*physicsStep)
	return steps, game
}

// alpha is how far the present lies between the last two physics states.
func (c *stepClock) alpha() float64 { return math.Min(1, c.acc/physicsStep) }

// pose is what drawing needs of the car.
type pose struct {
	pos     world.Vec2
	y       float64
	heading float64
}

func poseOf(c *car.Car) pose { return pose{c.Pos, c.Y, c.Heading} }

// lerpPose blends two poses (the heading the short way round).
func lerpPose(a, b pose, t float64) pose {
	dh := math.Remainder(b.heading-a.heading, 2*math.Pi)
	return pose{pos: a.pos.Lerp(b.pos, t), y: a.y + (b.y-a.y)*t, heading: a.heading + dh*t}
}
