// Package car is the player's car: arcade physics (throttle, brake,
// steering, grip) on the world's road surface, colliding with what the city
// draws, plus the chase camera. Pure: positions are float64 world metres,
// no GL; Step is a function of the car's state, the time step, the input
// and the environment, so a fixed-rate loop replays it exactly.
package car

import (
	"math"
	"slices"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Tuning: numbers chosen to feel like a nimble hatchback.
const (
	Length       = 4.2
	Width        = 1.8
	wheelBase    = 2.6
	maxSteer     = 0.55 // radians at the wheels, at rest
	steerRate    = 2.5  // radians per second the wheel turns
	engineAccel  = 7.0  // m/s² at full throttle, falling with speed
	brakeDecel   = 14.0 // m/s²
	reverseAccel = 4.0
	maxSpeed     = 58.0 // m/s, ~210 km/h
	maxReverse   = 12.0
	rollingDrag  = 0.25 // m/s² at any speed
	airDrag      = 0.0016
	grip         = 9.0 // how fast sideways slip is removed (1/s)
)

// Collision: the car is an oriented box Length × Width × BodyHeight.
const (
	BodyHeight = 1.5 // roof above the wheels
	// StepHeight: a voxel block or obstacle whose top is at most this far
	// above the wheels is a kerb, driven over (the wheels stay on the road
	// surface); anything taller whose bottom is below the roof stops the
	// car.
	StepHeight = 0.5
	// maxMove bounds one collision sub-step: well under the thinnest
	// obstacle (a 0.16 m bollard) plus the car, so nothing is tunnelled
	// through and contacts resolve towards the side they were met from.
	maxMove = 0.25
	// resolvePasses bounds the push-outs per sub-step (a corner between a
	// wall and a parked car needs two).
	resolvePasses = 4
	// contactSlop is how far past the touching point a push-out goes, so
	// the next sub-step starts clear.
	contactSlop = 1e-4
	// nearMargin widens the obstacle query beyond the car's bounding
	// circle and this step's travel.
	nearMargin = 0.5
	// shoreProbe is the distance of the samples that find the shore's
	// direction from the land's rise.
	shoreProbe = 1.0
)

// Input is one step's controls, each in [-1, 1] (throttle/brake in [0, 1]).
type Input struct {
	Throttle float64
	Brake    float64
	Steer    float64 // +1 = left
}

// Env is the world around the car as its physics sees it.
type Env interface {
	// Surface is the drivable surface at (x, z) (world.SurfaceCache).
	Surface(x, z float64) world.Surface
	// AppendObstacles appends to dst every obstacle that may lie within r
	// of (x, z); extra ones are fine, the car tests each exactly. It must
	// not retain dst.
	AppendObstacles(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle
	// Solid reports whether world block (x, y, z) (spanning [x, x+1) etc.)
	// stops the car.
	Solid(x, y, z int64) bool
}

// Contact is a set of things the car touched in one step.
type Contact uint8

const (
	TouchBuilding Contact = 1 << iota
	TouchParkedCar
	TouchFurniture
	TouchRail
	TouchShore // open water: the car stops at the shore
	TouchVoxel // a solid block
	TouchTraffic
)

// Has reports whether every contact in k is in c.
func (c Contact) Has(k Contact) bool { return c&k == k }

func touchOf(k slots.ObstacleKind) Contact {
	switch k {
	case slots.ObstacleBuilding:
		return TouchBuilding
	case slots.ObstacleParkedCar:
		return TouchParkedCar
	case slots.ObstacleRail:
		return TouchRail
	case slots.ObstacleTraffic:
		return TouchTraffic
	}
	return TouchFurniture
}

// Car is the state of one car.
type Car struct {
	Pos      world.Vec2
	Y        float64
	Heading  float64 // radians; 0 = +X, increasing towards -Z (left turn)
	Vel      world.Vec2
	Steer    float64 // current wheel angle
	Contacts Contact // what the car touched during the last step
	Impact   float64 // m/s of velocity into contacts removed in the last step
	// Surface is what the car stood on after the last step.
	Surface world.Surface

	near  []slots.Obstacle // scratch: obstacles near this step's path
	solid []Box            // scratch: solid blocks near this step's path
	// hitNear and hitSolid index the near obstacles and solid blocks that
	// overlapped the body at some point of the last step (Touched).
	hitNear, hitSolid []int32
}

// scratchObstacles is the obstacle scratch capacity; a step near more
// grows it once.
const scratchObstacles = 256

// New places a car at pos facing dir, standing on env's surface.
func New(pos, dir world.Vec2, env Env) *Car {
	s := env.Surface(pos.X, pos.Z)
	return &Car{
		Pos: pos, Y: s.Y, Surface: s, Heading: HeadingOf(dir),
		near:  make([]slots.Obstacle, 0, scratchObstacles),
		solid: make([]Box, 0, scratchObstacles),
	}
}

// Forward is the unit direction the car faces.
func (c *Car) Forward() world.Vec2 {
	return world.Vec2{X: math.Cos(c.Heading), Z: -math.Sin(c.Heading)}
}

// Speed is the signed speed along the car's heading.
func (c *Car) Speed() float64 { return c.Vel.Dot(c.Forward()) }

// Step advances the car by dt seconds: controls, then the move, sliding
// along whatever it meets (obstacles, solid blocks, the shore).
func (c *Car) Step(dt float64, in Input, env Env) {
	in.Throttle = clamp(in.Throttle, 0, 1)
	in.Brake = clamp(in.Brake, 0, 1)
	in.Steer = clamp(in.Steer, -1, 1)
	speed := c.Speed()

	// Steering: less lock at speed keeps it drivable.
	target := in.Steer * wheelLock(speed)
	c.Steer += clamp(target-c.Steer, -steerRate*dt, steerRate*dt)

	// Longitudinal forces.
	acc := 0.0
	switch {
	case in.Throttle > 0:
		acc = in.Throttle * engineAccel * (1 - max(0, speed)/maxSpeed)
	case in.Brake > 0 && speed > 0.5:
		acc = -in.Brake * brakeDecel
	case in.Brake > 0:
		acc = -in.Brake * reverseAccel * (1 - max(0, -speed)/maxReverse)
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
	fwd := c.Forward()

	// Grip: sideways slip decays, so the car carves instead of sliding.
	side := world.Vec2{X: -fwd.Z, Z: fwd.X}
	lateral := c.Vel.Dot(side) * math.Exp(-grip*dt)
	c.Vel = fwd.Scale(newSpeed).Add(side.Scale(lateral))

	c.move(dt, env)
	c.Surface = env.Surface(c.Pos.X, c.Pos.Z)
	c.Y = c.Surface.Y
}

// move advances the position by Vel·dt in sub-steps, resolving contacts.
func (c *Car) move(dt float64, env Env) {
	c.Contacts, c.Impact = 0, 0
	c.hitNear, c.hitSolid = c.hitNear[:0], c.hitSolid[:0]
	travel := c.Vel.Len() * dt
	c.gather(env, travel)
	n := max(1, int(math.Ceil(travel/maxMove)))
	h := dt / float64(n)
	// wet counts the corners over open water where the car is; no move may
	// add one (a car put down on the water may still drive out).
	wet := c.wetCorners(env, c.Pos)
	for range n {
		prev := c.Pos
		c.Pos = c.Pos.Add(c.Vel.Scale(h))
		c.resolve()
		if now := c.wetCorners(env, c.Pos); now > wet {
			c.shore(env, prev, h, wet)
			wet = c.wetCorners(env, c.Pos)
		} else {
			wet = now
		}
	}
	// A push-out may leave the car touching the next thing; a final pass
	// ends the step clear of obstacles, unless that would wet a wheel.
	before := c.Pos
	c.resolve()
	if c.Pos != before && c.wetCorners(env, c.Pos) > wet {
		c.Pos = before
	}
}

// gather collects the obstacles and solid blocks the car can reach this
// step, so the sub-steps test a short list.
func (c *Car) gather(env Env, travel float64) {
	reach := math.Hypot(Length/2, Width/2) + travel + nearMargin
	c.near = env.AppendObstacles(c.near[:0], c.Pos.X, c.Pos.Z, reach)
	// Keep what can touch the body: within reach, and neither under the
	// car's floor nor over its roof (a deck, a lamp's arm).
	kept := c.near[:0]
	for _, o := range c.near {
		dx, dz, r := o.Centre[0]-c.Pos.X, o.Centre[1]-c.Pos.Z, reach+o.Radius()
		if dx*dx+dz*dz <= r*r && o.Y1 > c.Y+StepHeight && o.Y0 < c.Y+BodyHeight {
			kept = append(kept, o)
		}
	}
	c.near = kept
	c.solid = c.solid[:0]
	// Blocks whose top is above a kerb's height and whose bottom is below
	// the roof: block y spans [y, y+1).
	y0 := int64(math.Floor(c.Y + StepHeight))
	y1 := int64(math.Ceil(c.Y+BodyHeight)) - 1
	x0, x1 := int64(math.Floor(c.Pos.X-reach)), int64(math.Floor(c.Pos.X+reach))
	z0, z1 := int64(math.Floor(c.Pos.Z-reach)), int64(math.Floor(c.Pos.Z+reach))
	for x := x0; x <= x1; x++ {
		for z := z0; z <= z1; z++ {
			for y := y0; y <= y1; y++ {
				if env.Solid(x, y, z) {
					c.solid = append(c.solid, BlockBox(x, z))
					break // one block of the column is enough to stop the car
				}
			}
		}
	}
}

// body is the car's footprint at p.
func (c *Car) body(p world.Vec2) Box { return BodyAt(p, c.Forward(), 0) }

// resolve pushes the car out of every obstacle and block it overlaps,
// deepest first, and removes the velocity into each contact: the car
// slides along what it meets instead of stopping dead.
func (c *Car) resolve() {
	for range resolvePasses {
		me := c.body(c.Pos)
		depth, normal, kind := 0.0, world.Vec2{}, Contact(0)
		for i := range c.near {
			o := &c.near[i]
			if n, d, ok := penetration(me, ObstacleBox(o)); ok {
				c.hitNear = markHit(c.hitNear, i)
				if d > depth {
					depth, normal, kind = d, n, touchOf(o.Kind)
				}
			}
		}
		for i, b := range c.solid {
			if n, d, ok := penetration(me, b); ok {
				c.hitSolid = markHit(c.hitSolid, i)
				if d > depth {
					depth, normal, kind = d, n, TouchVoxel
				}
			}
		}
		if depth == 0 {
			return
		}
		c.Pos = c.Pos.Add(normal.Scale(depth + contactSlop))
		c.slide(normal)
		c.Contacts |= kind
	}
}

// markHit adds index i to the set hit (a handful at most: a linear scan).
func markHit(hit []int32, i int) []int32 {
	for _, h := range hit {
		if int(h) == i {
			return hit
		}
	}
	return append(hit, int32(i))
}

// Touched appends to obst the obstacles Env gave the last step that
// overlapped the car at some point of it, and to blocks the solid block
// columns that did (x, z), each in the order Env gave them. Nothing else
// Env gave had any effect on the step: an obstacle only acts where it
// overlaps the body. So a step given only these (and in this order)
// runs exactly as it did, which is what a replay gives it
// (cmd/citydrive/internal/replay).
func (c *Car) Touched(obst []slots.Obstacle, blocks [][2]int64) ([]slots.Obstacle, [][2]int64) {
	slices.Sort(c.hitNear)
	slices.Sort(c.hitSolid)
	for _, i := range c.hitNear {
		obst = append(obst, c.near[i])
	}
	for _, i := range c.hitSolid {
		b := c.solid[i]
		blocks = append(blocks, [2]int64{int64(math.Floor(b.C.X)), int64(math.Floor(b.C.Z))})
	}
	return obst, blocks
}

// slide removes the part of the velocity that runs into a contact whose
// outward normal is n.
func (c *Car) slide(n world.Vec2) {
	if vn := c.Vel.Dot(n); vn < 0 {
		c.Vel = c.Vel.Sub(n.Scale(vn))
		c.Impact = max(c.Impact, -vn)
	}
}

// corners of the car's footprint at p.
func (c *Car) corners(p world.Vec2) [4]world.Vec2 {
	f := c.Forward()
	s := world.Vec2{X: -f.Z, Z: f.X}
	fl, sw := f.Scale(Length/2), s.Scale(Width/2)
	return [4]world.Vec2{p.Add(fl).Add(sw), p.Add(fl).Sub(sw), p.Sub(fl).Sub(sw), p.Sub(fl).Add(sw)}
}

// wetCorners counts the footprint's corners over open water.
func (c *Car) wetCorners(env Env, p world.Vec2) int {
	n := 0
	for _, q := range c.corners(p) {
		if env.Surface(q.X, q.Z).Water {
			n++
		}
	}
	return n
}

// shore handles a sub-step that ran onto open water: the car goes back to
// where it was, loses the velocity towards the water, and keeps the part
// along the shore if that stays dry.
func (c *Car) shore(env Env, prev world.Vec2, h float64, wetBefore int) {
	c.Contacts |= TouchShore
	move := c.Pos.Sub(prev)
	c.Pos = prev
	n := c.shoreNormal(env, prev, move)
	c.slide(n)
	if along := c.Vel.Scale(h); c.wetCorners(env, prev.Add(along)) <= wetBefore {
		c.Pos = prev.Add(along)
		c.resolve()
		if c.wetCorners(env, c.Pos) > wetBefore {
			c.Pos = prev
		}
	}
}

// shoreNormal is the direction from the water towards the land near the
// car: the rise of the surface around its wet corners (the lake is flat,
// the land climbs out of it), or straight back where that says nothing.
func (c *Car) shoreNormal(env Env, p, move world.Vec2) world.Vec2 {
	var g world.Vec2
	for _, q := range c.corners(p.Add(move)) {
		if !env.Surface(q.X, q.Z).Water {
			continue
		}
		g = g.Add(world.Vec2{
			X: env.Surface(q.X+shoreProbe, q.Z).Y - env.Surface(q.X-shoreProbe, q.Z).Y,
			Z: env.Surface(q.X, q.Z+shoreProbe).Y - env.Surface(q.X, q.Z-shoreProbe).Y,
		})
	}
	if g.Len() < 1e-9 || g.Dot(move) > 0 {
		return move.Scale(-1).Norm()
	}
	return g.Norm()
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }

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
