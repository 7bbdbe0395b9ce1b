// Package car is the player's car: arcade physics (throttle, brake,
// steering, grip) on a height field, stopped by obstacle boxes, plus the
// chase camera. Pure: positions are float64 world metres, no GL.
package car

import (
	"math"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Tuning: numbers chosen to feel like a nimble hatchback.
const (
	Length        = 4.2
	Width         = 1.8
	wheelBase     = 2.6
	maxSteer      = 0.55 // radians at the wheels, at rest
	steerRate     = 2.5  // radians per second the wheel turns
	engineAccel   = 7.0  // m/s² at full throttle, falling with speed
	brakeDecel    = 14.0 // m/s²
	reverseAccel  = 4.0
	maxSpeed      = 58.0 // m/s, ~210 km/h
	maxReverse    = 12.0
	rollingDrag   = 0.25 // m/s² at any speed
	airDrag       = 0.0016
	grip          = 9.0 // how fast sideways slip is removed (1/s)
	collideRadius = 1.1 // metres: the car as a circle for obstacle tests
)

// Input is one frame's controls, each in [-1, 1] (throttle/brake in [0, 1]).
type Input struct {
	Throttle float64
	Brake    float64
	Steer    float64 // +1 = left
}

// Ground tells the car how high the drivable surface is at (x, z).
type Ground func(x, z float64) float64

// Car is the state of one car.
type Car struct {
	Pos     world.Vec2
	Y       float64
	Heading float64 // radians; 0 = +X, increasing towards -Z (left turn)
	Vel     world.Vec2
	Steer   float64 // current wheel angle
	Blocked bool    // hit an obstacle this step
}

// New places a car at pos facing dir.
func New(pos, dir world.Vec2, ground Ground) *Car {
	return &Car{Pos: pos, Y: ground(pos.X, pos.Z), Heading: HeadingOf(dir)}
}

// Forward is the unit direction the car faces.
func (c *Car) Forward() world.Vec2 {
	return world.Vec2{X: math.Cos(c.Heading), Z: -math.Sin(c.Heading)}
}

// Speed is the signed speed along the car's heading.
func (c *Car) Speed() float64 { return c.Vel.Dot(c.Forward()) }

// Step advances the car by dt seconds.
func (c *Car) Step(dt float64, in Input, ground Ground, obstacles func(yield func(slots.Bounds) bool)) {
	in.Throttle = clamp(in.Throttle, 0, 1)
	in.Brake = clamp(in.Brake, 0, 1)
	in.Steer = clamp(in.Steer, -1, 1)
	fwd := c.Forward()
	speed := c.Speed()

	// Steering: less lock at speed keeps it drivable.
	target := in.Steer * maxSteer / (1 + math.Abs(speed)/18)
	c.Steer += clamp(target-c.Steer, -steerRate*dt, steerRate*dt)

	// Longitudinal forces.
	acc := 0.0
	switch {
	case in.Throttle > 0:
		acc = in.Throttle * engineAccel * (1 - math.Max(0, speed)/maxSpeed)
	case in.Brake > 0 && speed > 0.5:
		acc = -in.Brake * brakeDecel
	case in.Brake > 0:
		acc = -in.Brake * reverseAccel * (1 - math.Max(0, -speed)/maxReverse)
	}
	drag := rollingDrag + airDrag*speed*speed
	if speed > 0 {
		acc -= drag
	} else if speed < 0 {
		acc += drag
	}
	newSpeed := speed + acc*dt
	if speed != 0 && math.Signbit(newSpeed) != math.Signbit(speed) && in.Throttle == 0 && !(in.Brake > 0 && speed <= 0.5) {
		newSpeed = 0 // drag and brakes stop the car, they do not reverse it
	}

	// Yaw from the bicycle model.
	c.Heading += newSpeed / wheelBase * math.Tan(c.Steer) * dt
	fwd = c.Forward()

	// Grip: sideways slip decays, so the car carves instead of sliding.
	side := world.Vec2{X: -fwd.Z, Z: fwd.X}
	lateral := c.Vel.Dot(side) * math.Exp(-grip*dt)
	c.Vel = fwd.Scale(newSpeed).Add(side.Scale(lateral))

	next := c.Pos.Add(c.Vel.Scale(dt))
	c.Blocked = false
	if obstacles != nil {
		for b := range obstacles {
			if hits(b, next, c.Y) {
				c.Blocked = true
				break
			}
		}
	}
	if c.Blocked {
		c.Vel = world.Vec2{}
		return
	}
	c.Pos = next
	c.Y = ground(c.Pos.X, c.Pos.Z)
}

// hits reports whether a car centred at p (at height y) overlaps box b.
func hits(b slots.Bounds, p world.Vec2, y float64) bool {
	if y+1.5 < b.Min[1] || y > b.Max[1] {
		return false
	}
	dx := math.Max(0, math.Max(b.Min[0]-p.X, p.X-b.Max[0]))
	dz := math.Max(0, math.Max(b.Min[2]-p.Z, p.Z-b.Max[2]))
	return dx*dx+dz*dz < collideRadius*collideRadius
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// ChaseCamera returns an eye position behind and above the car and the
// point it looks at. It uses float64 throughout: far from the origin the
// renderer subtracts the camera before going to float32.
func (c *Car) ChaseCamera(distance, height float64) (eye, target [3]float64) {
	f := c.Forward()
	eye = [3]float64{c.Pos.X - f.X*distance, c.Y + height, c.Pos.Z - f.Z*distance}
	target = [3]float64{c.Pos.X + f.X*6, c.Y + 1.2, c.Pos.Z + f.Z*6}
	return eye, target
}

// Steering toward a point: the autopilot's controls.
func (c *Car) SteerTowards(p world.Vec2, targetSpeed float64) Input {
	f := c.Forward()
	d := p.Sub(c.Pos)
	left := world.Vec2{X: f.Z, Z: -f.X} // -Z is left when facing +X
	angle := math.Atan2(d.Dot(left), d.Dot(f))
	in := Input{Steer: clamp(angle*2.2, -1, 1)}
	speed := c.Speed()
	// Slow for sharp bends ahead.
	want := targetSpeed / (1 + 3*math.Abs(angle))
	if speed < want {
		in.Throttle = clamp((want-speed)/4, 0.2, 1)
	} else if speed > want+2 {
		in.Brake = clamp((speed-want)/8, 0, 1)
	}
	return in
}
