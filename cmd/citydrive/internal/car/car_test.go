package car

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

func flat(x, z float64) float64 { return 2 }

func drive(c *Car, in Input, seconds float64, obst []slots.Bounds) {
	for t := 0.0; t < seconds; t += 1.0 / 60 {
		c.Step(1.0/60, in, flat, func(yield func(slots.Bounds) bool) {
			for _, b := range obst {
				if !yield(b) {
					return
				}
			}
		})
	}
}

func TestThrottleAcceleratesAndBrakesStop(t *testing.T) {
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	drive(c, Input{Throttle: 1}, 5, nil)
	assert.Greater(t, c.Speed(), 20.0)
	assert.Less(t, c.Speed(), maxSpeed)
	assert.Greater(t, c.Pos.X, 40.0)
	assert.InDelta(t, 0, c.Pos.Z, 1e-6, "straight ahead")
	assert.Equal(t, 2.0, c.Y, "sits on the ground")
	prev, stopped := c.Speed(), false
	for i := 0; i < 60*4 && !stopped; i++ {
		c.Step(1.0/60, Input{Brake: 1}, flat, nil)
		require.LessOrEqual(t, c.Speed(), prev)
		require.GreaterOrEqual(t, c.Speed(), 0.0, "braking from speed stops before reversing")
		prev, stopped = c.Speed(), c.Speed() <= 0.5
	}
	require.True(t, stopped)
	drive(c, Input{Brake: 1}, 2, nil)
	assert.Less(t, c.Speed(), -1.0, "holding brake at rest reverses")
}

func TestSteerLeftTurnsLeft(t *testing.T) {
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	drive(c, Input{Throttle: 0.6, Steer: 1}, 2, nil)
	assert.Less(t, c.Pos.Z, -1.0, "left of +X is -Z")
	c2 := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	drive(c2, Input{Throttle: 0.6, Steer: -1}, 2, nil)
	assert.Greater(t, c2.Pos.Z, 1.0)
}

func TestObstacleStopsTheCar(t *testing.T) {
	wall := slots.Bounds{Min: [3]float64{30, 0, -10}, Max: [3]float64{32, 20, 10}}
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	drive(c, Input{Throttle: 1}, 10, []slots.Bounds{wall})
	assert.Less(t, c.Pos.X, 30-collideRadius+0.01)
	assert.Greater(t, c.Pos.X, 25.0)
	assert.InDelta(t, 0, c.Speed(), 1)
	// A box overhead (a bridge deck) does not stop the car.
	deck := slots.Bounds{Min: [3]float64{30, 8, -10}, Max: [3]float64{32, 9, 10}}
	c = New(world.Vec2{}, world.Vec2{X: 1}, flat)
	drive(c, Input{Throttle: 1}, 5, []slots.Bounds{deck})
	assert.Greater(t, c.Pos.X, 40.0)
}

func TestAutopilotFollowsATarget(t *testing.T) {
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	target := world.Vec2{X: 200, Z: -80}
	for i := 0; i < 60*20 && c.Pos.Sub(target).Len() > 5; i++ {
		c.Step(1.0/60, c.SteerTowards(target, 20), flat, nil)
	}
	require.Less(t, c.Pos.Sub(target).Len(), 5.0)
}

func TestChaseCameraSitsBehindAndAbove(t *testing.T) {
	c := New(world.Vec2{X: 1e8, Z: 5}, world.Vec2{X: 0, Z: 1}, flat)
	eye, target := c.ChaseCamera(9, 3.5)
	assert.InDelta(t, 1e8, eye[0], 1e-6)
	assert.InDelta(t, 5-9, eye[2], 1e-6)
	assert.InDelta(t, 5.5, eye[1], 1e-9)
	assert.Greater(t, target[2], eye[2])
}
