package car

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// fakeEnv is a flat road at height y, with optional open water, obstacles
// and solid blocks.
type fakeEnv struct {
	y     float64
	water func(x, z float64) bool
	obst  []slots.Obstacle
	solid map[[3]int64]bool
}

func (e *fakeEnv) Surface(x, z float64) world.Surface {
	if e.water != nil && e.water(x, z) {
		return world.Surface{Y: world.WaterLevel, Water: true}
	}
	return world.Surface{Y: e.y, Road: true}
}

func (e *fakeEnv) AppendObstacles(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle {
	for _, o := range e.obst {
		// coarse, like the game's slot bounds: the car tests exactly
		if math.Abs(o.Centre[0]-x) <= r+o.Half[0]+o.Half[1] && math.Abs(o.Centre[1]-z) <= r+o.Half[0]+o.Half[1] {
			dst = append(dst, o)
		}
	}
	return dst
}

func (e *fakeEnv) Solid(x, y, z int64) bool { return e.solid[[3]int64{x, y, z}] }

var flat = &fakeEnv{y: 2}

const step = 1.0 / 120 // the fixed physics rate

// headingOf is the car heading that drives along direction (dx, dz).
func headingOf(dx, dz float64) float64 { return math.Atan2(-dz, dx) }

// run steps c for seconds with input in, calling each after every step.
func run(c *Car, in Input, env Env, seconds float64, each func()) {
	for i := 0; i < int(math.Round(seconds/step)); i++ {
		c.Step(step, in, env)
		if each != nil {
			each()
		}
	}
}

// overlap is how deep the car's footprint is inside obstacle o.
func overlap(c *Car, o slots.Obstacle) float64 {
	_, d, _ := penetration(c.body(c.Pos), ObstacleBox(&o))
	return d
}

func TestThrottleAcceleratesAndBrakesStop(t *testing.T) {
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	run(c, Input{Throttle: 1}, flat, 5, nil)
	assert.Greater(t, c.Speed(), 20.0)
	assert.Less(t, c.Speed(), maxSpeed)
	assert.Greater(t, c.Pos.X, 40.0)
	assert.InDelta(t, 0, c.Pos.Z, 1e-6, "straight ahead")
	assert.Equal(t, 2.0, c.Y, "sits on the ground")
	prev, stopped := c.Speed(), false
	for i := 0; i < 120*4 && !stopped; i++ {
		c.Step(step, Input{Brake: 1}, flat)
		require.LessOrEqual(t, c.Speed(), prev)
		require.GreaterOrEqual(t, c.Speed(), 0.0, "braking from speed stops before reversing")
		prev, stopped = c.Speed(), c.Speed() <= 0.5
	}
	require.True(t, stopped)
	run(c, Input{Brake: 1}, flat, 2, nil)
	assert.Less(t, c.Speed(), -1.0, "holding brake at rest reverses")
}

func TestSteerLeftTurnsLeft(t *testing.T) {
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	run(c, Input{Throttle: 0.6, Steer: 1}, flat, 2, nil)
	assert.Less(t, c.Pos.Z, -1.0, "left of +X is -Z")
	c2 := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	run(c2, Input{Throttle: 0.6, Steer: -1}, flat, 2, nil)
	assert.Greater(t, c2.Pos.Z, 1.0)
}

func TestAutopilotFollowsATarget(t *testing.T) {
	c := New(world.Vec2{}, world.Vec2{X: 1}, flat)
	target := world.Vec2{X: 200, Z: -80}
	for i := 0; i < 120*20 && c.Pos.Sub(target).Len() > 5; i++ {
		c.Step(step, c.SteerTowards(target, 20), flat)
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

// A parked car along +X at the origin, as citygen emits it.
var parked = slots.BoxObstacle([2]float64{0, 0}, 0, Length/2, Width/2, 2, 3.5, slots.ObstacleParkedCar)

func TestParkedCarIsNeverDrivenThrough(t *testing.T) {
	cases := []struct {
		name    string
		degrees float64 // approach angle to the parked car's axis
		passes  bool    // slides along its flank and past it
	}{
		{"head-on", 0, false},
		{"10°", 10, true},
		{"30°", 30, true},
		{"60°", 60, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := &fakeEnv{y: 2, obst: []slots.Obstacle{parked}}
			a := tc.degrees * math.Pi / 180
			d := world.Vec2{X: math.Cos(a), Z: math.Sin(a)}
			// Aim the car at the flank's middle from the -Z side (head-on:
			// at the rear bumper), 15 m away at 12 m/s.
			aim := world.Vec2{X: 0, Z: -Width - 0.1}
			if tc.degrees == 0 {
				aim = world.Vec2{X: -Length - 0.1}
			}
			c := New(aim.Sub(d.Scale(15)), d, env)
			c.Vel = d.Scale(12)
			var touched Contact
			deepest := 0.0
			run(c, Input{Throttle: 0.4}, env, 4, func() {
				touched |= c.Contacts
				deepest = math.Max(deepest, overlap(c, parked))
			})
			assert.Less(t, deepest, 0.01, "never inside the parked car")
			assert.True(t, touched.Has(TouchParkedCar), "the contact is reported as a parked car")
			assert.False(t, touched.Has(TouchBuilding))
			if tc.degrees == 0 {
				assert.Less(t, c.Pos.X+Length/2, -Length/2+0.01, "stopped at its rear bumper")
				assert.InDelta(t, 0, c.Pos.Z, 1e-6)
			}
			if tc.passes {
				assert.Greater(t, c.Pos.X-Length/2, Length/2, "slid off past its front")
				assert.Greater(t, c.Speed(), 5.0, "kept going")
			} else {
				assert.Less(t, c.Pos.X, Length/2, "did not get past it")
			}
		})
	}
}

// streetCar is the parked car citygen puts at the kerb of a street turned
// by heading: centre kerbOffset left of the centre line.
func streetCar(heading float64) slots.Obstacle {
	const kerbOffset = world.StreetHalfWidth - 1.15
	left := world.Vec2{X: -math.Sin(heading), Z: math.Cos(heading)}
	c := left.Scale(kerbOffset)
	return slots.BoxObstacle([2]float64{c.X, c.Z}, heading, Length/2, Width/2, 0, 1.5, slots.ObstacleParkedCar)
}

// aabb is the axis-aligned box around o: the shape obstacles had before.
func aabb(o slots.Obstacle) slots.Obstacle {
	return slots.Obstacle{
		Centre: o.Centre, Axis: [2]float64{1, 0},
		Half: [2]float64{o.Extent([2]float64{1, 0}), o.Extent([2]float64{0, 1})},
		Y0:   o.Y0, Y1: o.Y1, Kind: o.Kind,
	}
}

func TestPassingAParkedCarInTheLaneOfATurnedStreet(t *testing.T) {
	const laneOffset = 2.5
	heading := 10 * math.Pi / 180
	u := world.Vec2{X: math.Cos(heading), Z: math.Sin(heading)}
	left := world.Vec2{X: -u.Z, Z: u.X}
	drive := func(o slots.Obstacle) Contact {
		env := &fakeEnv{obst: []slots.Obstacle{o}}
		c := New(left.Scale(laneOffset).Sub(u.Scale(20)), u, env)
		c.Vel = u.Scale(14)
		var touched Contact
		run(c, Input{Throttle: 0.3}, env, 3, func() { touched |= c.Contacts })
		require.Greater(t, c.Pos.Dot(u), 20.0, "drove past")
		return touched
	}
	assert.Zero(t, drive(streetCar(heading)), "the oriented box stays at the kerb")
	assert.NotZero(t, drive(aabb(streetCar(heading))), "the old axis-aligned box reached into the lane")
}

func TestSlidingAlongABuildingWall(t *testing.T) {
	wall := slots.BoxObstacle([2]float64{0, 10}, 0, 50, 5, -1, 20, slots.ObstacleBuilding) // face at z = 5
	env := &fakeEnv{obst: []slots.Obstacle{wall}}
	a := 15 * math.Pi / 180
	d := world.Vec2{X: math.Cos(a), Z: math.Sin(a)}
	c := New(world.Vec2{X: -30}, d, env)
	c.Vel = d.Scale(15)
	var touched Contact
	deepest, first, impact := 0.0, math.NaN(), 0.0
	run(c, Input{Throttle: 0.5}, env, 4, func() {
		touched |= c.Contacts
		deepest = math.Max(deepest, overlap(c, wall))
		impact = math.Max(impact, c.Impact)
		if c.Contacts.Has(TouchBuilding) && math.IsNaN(first) {
			first = c.Pos.X
		}
	})
	assert.Less(t, deepest, 0.01)
	require.True(t, touched.Has(TouchBuilding))
	assert.Greater(t, c.Pos.X-first, 20.0, "slid along the wall")
	assert.Greater(t, c.Speed(), 5.0)
	// The first touch takes the velocity into the wall (15 m/s at 15°:
	// about 3.9 m/s); afterwards the car only scrapes along.
	assert.Greater(t, impact, 3.0)
	assert.Less(t, c.Impact, 1.0)
}

// lake is land (at 1 m) for x < 30 and open water beyond.
func lake() *fakeEnv {
	return &fakeEnv{y: 1, water: func(x, z float64) bool { return x > 30 }}
}

func TestTheShoreStopsTheCar(t *testing.T) {
	for _, degrees := range []float64{90, 10, 30} { // to the shore line
		env := lake()
		a := degrees * math.Pi / 180
		d := world.Vec2{X: math.Sin(a), Z: math.Cos(a)}
		c := New(world.Vec2{X: 30 - 20*d.X/d.Len() - Length}, d, env)
		c.Vel = d.Scale(15)
		var touched Contact
		shoreZ := math.NaN()
		run(c, Input{Throttle: 1}, env, 6, func() {
			touched |= c.Contacts
			for _, q := range c.corners(c.Pos) {
				require.LessOrEqual(t, q.X, 30.0, "%v°: a wheel went into the lake", degrees)
			}
			require.False(t, c.Surface.Water)
			if c.Contacts.Has(TouchShore) && math.IsNaN(shoreZ) {
				shoreZ = c.Pos.Z
			}
		})
		require.True(t, touched.Has(TouchShore), "%v°", degrees)
		assert.Greater(t, c.Pos.X, 25.0, "%v°: drove up to the shore", degrees)
		if degrees == 90 {
			assert.Less(t, c.Speed(), 1.0, "head-on: stopped")
			assert.InDelta(t, 0, c.Pos.Z, 1e-6)
		} else {
			// Pressed against it with the wheels turned into the water, the
			// car slides along the shore, faster the shallower it meets it.
			assert.Greater(t, c.Pos.Z-shoreZ, 1.0, "%v°: slid along the shore", degrees)
		}
	}
}

func TestBuiltBlocksStopTheCarKerbsAndOverheadDoNot(t *testing.T) {
	env := &fakeEnv{solid: map[[3]int64]bool{
		{10, 0, -1}: true, {10, 0, 0}: true, // a wall of two blocks in the lane, wheels at y = 0
		{5, -1, 3}: true, {5, -1, 4}: true, // a block whose top is at the wheels: a kerb
		{5, 2, 3}: true, {5, 2, 4}: true, // a block above the roof
	}}
	c := New(world.Vec2{}, world.Vec2{X: 1}, env)
	var touched Contact
	run(c, Input{Throttle: 1}, env, 3, func() { touched |= c.Contacts })
	assert.True(t, touched.Has(TouchVoxel))
	assert.LessOrEqual(t, c.Pos.X+Length/2, 10.01, "stopped at the block")
	assert.Greater(t, c.Pos.X+Length/2, 9.5)

	c = New(world.Vec2{Z: 3.5}, world.Vec2{X: 1}, env)
	touched = 0
	run(c, Input{Throttle: 1}, env, 3, func() { touched |= c.Contacts })
	assert.Zero(t, touched, "kerb-high and overhead blocks are no obstacle")
	assert.Greater(t, c.Pos.X, 20.0)
}

func TestObstacleOverheadDoesNotStopTheCar(t *testing.T) {
	deck := slots.BoxObstacle([2]float64{31, 0}, 0, 1, 10, 8, 9, slots.ObstacleRail)
	env := &fakeEnv{y: 2, obst: []slots.Obstacle{deck}}
	c := New(world.Vec2{}, world.Vec2{X: 1}, env)
	run(c, Input{Throttle: 1}, env, 5, nil)
	assert.Greater(t, c.Pos.X, 40.0)
	assert.Zero(t, c.Contacts)
}

func TestStepIsDeterministic(t *testing.T) {
	env := &fakeEnv{obst: []slots.Obstacle{parked, streetCar(0.3)}, water: func(x, z float64) bool { return z > 12 }}
	drive := func() *Car {
		c := New(world.Vec2{X: -20, Z: -3}, world.Vec2{X: 1, Z: 0.2}, env)
		for i := 0; i < 120*6; i++ {
			c.Step(step, Input{Throttle: 0.7, Steer: math.Sin(float64(i) / 50)}, env)
		}
		return c
	}
	a, b := drive(), drive()
	assert.Equal(t, a.Pos, b.Pos)
	assert.Equal(t, a.Vel, b.Vel)
	assert.Equal(t, a.Heading, b.Heading)
}

func TestStepDoesNotAllocate(t *testing.T) {
	env := &fakeEnv{obst: []slots.Obstacle{parked}, solid: map[[3]int64]bool{{10, 0, 0}: true}}
	c := New(world.Vec2{X: -10}, world.Vec2{X: 1}, env)
	assert.Zero(t, testing.AllocsPerRun(200, func() { c.Step(step, Input{Throttle: 1}, env) }))
}

// BenchmarkStepAlongParkedCars drives down a street lined with parked
// cars on both kerbs, 6 m apart, the Env handing over everything within
// reach, as the game's does for nearby slots.
func BenchmarkStepAlongParkedCars(b *testing.B) {
	var obst []slots.Obstacle
	for i := range 200 {
		for _, side := range []float64{-1, 1} {
			o := streetCar(0)
			o.Centre[0], o.Centre[1] = float64(i)*6, side*o.Centre[1]
			obst = append(obst, o)
		}
	}
	env := &fakeEnv{obst: obst, solid: map[[3]int64]bool{}}
	c := New(world.Vec2{}, world.Vec2{X: 1}, env)
	b.ReportAllocs()
	for b.Loop() {
		if c.Pos.X > 1100 {
			c.Pos = world.Vec2{}
		}
		c.Vel = world.Vec2{X: 30}
		c.Step(step, Input{Throttle: 1}, env)
	}
}
