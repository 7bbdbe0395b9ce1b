package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/world"
)

// Physics runs at a fixed rate whatever the frame rate: a frame adds its
// time to an accumulator and runs as many whole steps as fit; drawing
// interpolates between the last two states. Game time is wall time while
// the frame rate (averaged over about ten frames) stays at 5 fps or more,
// a single slow frame included; below 5 fps the game slows down instead of
// taking huge steps, and the HUD says so. One frame never catches up more
// than maxCatchUp (a pause, a window drag).
const (
	PhysicsHz    = 120
	physicsStep  = 1.0 / PhysicsHz
	maxFrameTime = 0.2 // 5 fps
	maxCatchUp   = 0.5
	frameAverage = 0.1 // weight of the newest frame in the average
)

// stepClock is the accumulator.
type stepClock struct {
	acc float64
	avg float64 // smoothed wall time per frame; 0 before the first frame
}

// frame takes a frame of dt wall seconds and returns the physics steps to
// run and the game time it covers.
func (c *stepClock) frame(dt float64) (steps int, game float64) {
	dt = math.Max(dt, 0)
	if c.avg == 0 {
		c.avg = dt
	}
	// The frames before this one decide: one slow frame is caught up.
	game = math.Min(dt, maxCatchUp)
	if c.avg > maxFrameTime {
		game = math.Min(game, maxFrameTime)
	}
	c.avg += (dt - c.avg) * frameAverage
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
