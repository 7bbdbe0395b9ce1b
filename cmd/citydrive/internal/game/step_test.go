package game

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// script is a driver's hands as a function of game time: full throttle,
// a long left turn, a lift, a hard stop and a right turn. Its changes fall
// on multiples of 0.2 s, which are frame boundaries at 5, 10, 60, 240 and
// 500 fps.
func script(t float64) car.Input {
	var in car.Input
	switch {
	case t < 8:
		in.Throttle = 1
	case t < 12:
	case t < 14:
		in.Brake = 1
	default:
		in.Throttle = 0.6
	}
	if t >= 3 && t < 6 {
		in.Steer = 0.5
	}
	if t >= 15.6 && t < 17.4 {
		in.Steer = -1
	}
	return in
}

// flat is an endless flat road with nothing on it.
type flat struct{}

func (flat) Surface(_, _ float64) world.Surface { return world.Surface{Road: true} }
func (flat) AppendObstacles(dst []slots.Obstacle, _, _, _ float64) []slots.Obstacle {
	return dst
}
func (flat) Solid(_, _, _ int64) bool { return false }

// drive runs 20 s of game time at fps through the game's step clock, the
// controls read once per frame as the session does.
func drive(fps float64) *car.Car {
	c := car.New(world.Vec2{}, world.Vec2{X: 1}, flat{})
	var clock stepClock
	game := 0.0
	for frames := int(math.Round(20 * fps)); frames > 0; frames-- {
		in := script(game + 1e-9)
		steps, dt := clock.frame(1 / fps)
		for range steps {
			c.Step(physicsStep, in, flat{})
		}
		game += dt
	}
	return c
}

func TestTrajectoryIsTheSameAtAnyFrameRate(t *testing.T) {
	ref := drive(60)
	require.Greater(t, ref.Pos.Len(), 100.0, "the script drives somewhere")
	for _, fps := range []float64{10, 240, 500, 5} {
		t.Run(fmt.Sprintf("%gfps", fps), func(t *testing.T) {
			c := drive(fps)
			assert.InDelta(t, 0, c.Pos.Sub(ref.Pos).Len(), 0.03, "position after 20 s, metres")
			assert.InDelta(t, ref.Heading, c.Heading, 1e-3)
			assert.InDelta(t, ref.Speed(), c.Speed(), 0.01)
		})
	}
}

func TestSlowFramesSlowTheGameInsteadOfTakingHugeSteps(t *testing.T) {
	var c stepClock
	for range 30 { // a steady 3 fps
		steps, game := c.frame(1.0 / 3)
		assert.InDelta(t, maxFrameTime, game, 1e-9, "under 5 fps a frame is 0.2 s of game time")
		assert.Equal(t, int(maxFrameTime*PhysicsHz), steps, "covered by whole fixed steps")
	}

	var d stepClock
	for range 30 { // 60 fps, then one hitch of 0.4 s: caught up, not slowed
		d.frame(1.0 / 60)
	}
	steps, game := d.frame(0.4)
	assert.InDelta(t, 0.4, game, 1e-9)
	assert.Equal(t, 48, steps)
	_, game = d.frame(3)
	assert.InDelta(t, maxCatchUp, game, 1e-9, "a long pause is not replayed")

	var e stepClock
	steps, game = e.frame(1.0 / 60)
	assert.Equal(t, 2, steps)
	assert.InDelta(t, 1.0/60, game, 1e-12)
	steps = 0
	for range 3 { // 500 fps: a step every few frames, none lost
		n, _ := e.frame(1.0 / 500)
		steps += n
	}
	assert.Zero(t, steps, "3/500 s holds no whole step yet")
	assert.InDelta(t, 3.0/500*PhysicsHz, e.alpha(), 1e-6, "drawing interpolates the remainder")
}

func TestLerpPoseTakesTheShortWayRound(t *testing.T) {
	a := pose{heading: math.Pi - 0.1}
	b := pose{pos: world.Vec2{X: 2}, y: 1, heading: -math.Pi + 0.1}
	m := lerpPose(a, b, 0.5)
	assert.InDelta(t, math.Pi, math.Abs(math.Remainder(m.heading, 2*math.Pi)), 1e-9)
	assert.Equal(t, world.Vec2{X: 1}, m.pos)
	assert.InDelta(t, 0.5, m.y, 1e-12)
}
