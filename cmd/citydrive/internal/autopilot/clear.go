package autopilot

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Clearance: where the car's body may go, for the moves the driver makes
// off its line (backing out, turning round, putting the car back on the
// road). The car's physics stops at obstacles, built blocks and the shore;
// these checks find them before the car does.

// dirOf is the unit direction of a car heading h (car.Car.Forward).
func dirOf(h float64) world.Vec2 { return world.Vec2{X: math.Cos(h), Z: -math.Sin(h)} }

// blockBand is the range of block heights that stop a car standing at
// height y: above a kerb's height, below its roof (as the car's physics).
func blockBand(y float64) (int64, int64) {
	return int64(math.Floor(y + car.StepHeight)), int64(math.Ceil(y+car.BodyHeight)) - 1
}

// solidColumn reports whether any block of column (x, z) in [y0, y1] is
// solid.
func solidColumn(env car.Env, x, z, y0, y1 int64) bool {
	for y := y0; y <= y1; y++ {
		if env.Solid(x, y, z) {
			return true
		}
	}
	return false
}

// clearance is the world near the car as the clearance checks see it: the
// obstacles within reach whose height range meets the car's body, and
// caches (filled as they are asked) of which block columns are solid and
// of the surface on a fine grid around it.
type clearance struct {
	env  car.Env
	y    float64
	obst []slots.Obstacle
	// cols: one per block column from (cx, cz), n a side: 0 not looked at,
	// 1 open, 2 solid
	cols   []uint8
	cx, cz int64
	n      int64
	// grd: one per groundCell square from (gx, gz), gn a side: 0 not
	// looked at, else groundKnown plus groundWater and groundRoad
	grd    []uint8
	gx, gz float64
	gn     int
	// coarse: arcFree checks every coarseStep instead of every arcStep
	// (planning, not driving)
	coarse bool
}

// The surface cache's squares: the kerb and the shore are found to within
// half of one.
const (
	groundCell  = 0.25
	groundKnown = 1
	groundWater = 2
	groundRoad  = 4
)

// gather collects the obstacles within r of p that a car at height y can
// touch, and empties the caches for a window that covers them.
func (cl *clearance) gather(env car.Env, p world.Vec2, y, r float64) {
	cl.env, cl.y = env, y
	all := env.AppendObstacles(cl.obst[:0], p.X, p.Z, r)
	cl.obst = all[:0]
	for _, o := range all {
		dx, dz, rr := o.Centre[0]-p.X, o.Centre[1]-p.Z, r+o.Radius()
		if dx*dx+dz*dz <= rr*rr && o.Y1 > y+car.StepHeight && o.Y0 < y+car.BodyHeight {
			cl.obst = append(cl.obst, o)
		}
	}
	reach := r + car.Length
	cl.cx, cl.cz = int64(math.Floor(p.X-reach)), int64(math.Floor(p.Z-reach))
	cl.n = int64(2*reach) + 2
	cl.cols = grow(cl.cols, int(cl.n*cl.n))
	cl.gx, cl.gz = p.X-reach, p.Z-reach
	cl.gn = int(2*reach/groundCell) + 1
	cl.grd = grow(cl.grd, cl.gn*cl.gn)
}

// grow is buf emptied, n long.
func grow(buf []uint8, n int) []uint8 {
	if cap(buf) < n {
		return make([]uint8, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// solid reports whether block column (x, z) stops a car at the gathered
// height.
func (cl *clearance) solid(x, z int64) bool {
	i, j := x-cl.cx, z-cl.cz
	if i < 0 || j < 0 || i >= cl.n || j >= cl.n {
		y0, y1 := blockBand(cl.y)
		return solidColumn(cl.env, x, z, y0, y1)
	}
	k := i*cl.n + j
	if cl.cols[k] == 0 {
		cl.cols[k] = 1
		if y0, y1 := blockBand(cl.y); solidColumn(cl.env, x, z, y0, y1) {
			cl.cols[k] = 2
		}
	}
	return cl.cols[k] == 2
}

// surface is whether q is over open water and whether it is on the
// carriageway, as the centre of its square says.
func (cl *clearance) surface(q world.Vec2) (water, road bool) {
	i, j := int(math.Floor((q.X-cl.gx)/groundCell)), int(math.Floor((q.Z-cl.gz)/groundCell))
	if i < 0 || j < 0 || i >= cl.gn || j >= cl.gn {
		s := cl.env.Surface(q.X, q.Z)
		return s.Water, s.Road
	}
	k := i*cl.gn + j
	if cl.grd[k] == 0 {
		s := cl.env.Surface(cl.gx+(float64(i)+0.5)*groundCell, cl.gz+(float64(j)+0.5)*groundCell)
		cl.grd[k] = groundKnown
		if s.Water {
			cl.grd[k] |= groundWater
		}
		if s.Road {
			cl.grd[k] |= groundRoad
		}
	}
	return cl.grd[k]&groundWater != 0, cl.grd[k]&groundRoad != 0
}

// hits reports whether car.Box f meets a gathered obstacle or a built
// block.
func (cl *clearance) hits(f car.Box) bool {
	for i := range cl.obst {
		if f.Overlaps(car.ObstacleBox(&cl.obst[i])) {
			return true
		}
	}
	ex, ez := f.Extent(world.Vec2{X: 1}), f.Extent(world.Vec2{Z: 1})
	for x := int64(math.Floor(f.C.X - ex)); x <= int64(math.Floor(f.C.X+ex)); x++ {
		for z := int64(math.Floor(f.C.Z - ez)); z <= int64(math.Floor(f.C.Z+ez)); z++ {
			if !cl.solid(x, z) {
				continue
			}
			b := car.BlockBox(x, z)
			if f.Overlaps(b) {
				return true
			}
		}
	}
	return false
}

// ground counts the footprint's corners over open water and off the
// carriageway.
func (cl *clearance) ground(f car.Box) (wet, off int) {
	for _, q := range f.Corners() {
		water, road := cl.surface(q)
		if water {
			wet++
		}
		if !road {
			off++
		}
	}
	return wet, off
}

// arcStep is the spacing of the poses a move is checked at: a corner of
// the car moves about this far between two; coarseStep, when planning.
const (
	arcStep     = 0.2
	coarseStep  = 0.4
	coarseSlack = 0.1
)

// arcFree is how far (metres, at most look) a car at p with heading h can
// move in gear (+1 forward, -1 back) with its wheels at wheel radians (+:
// left) before its body, grown by grow, meets an obstacle or a built
// block, or puts more of its corners over water (grown) or off the
// carriageway (not grown: a kerb is no obstacle) than are there now.
// Where the grown body already meets something, the bare body is checked
// instead (the car may always move away from what it touches).
func (cl *clearance) arcFree(p world.Vec2, h float64, gear int, wheel, look, grow float64) float64 {
	if cl.coarse {
		grow += coarseSlack // what the coarser steps may miss
	}
	if cl.hits(car.BodyAt(p, dirOf(h), grow)) {
		grow = 0
		if cl.hits(car.BodyAt(p, dirOf(h), 0)) {
			return look // inside something already: the physics pushes it out
		}
	}
	wet0, _ := cl.ground(car.BodyAt(p, dirOf(h), grow))
	_, off0 := cl.ground(car.BodyAt(p, dirOf(h), 0))
	step := arcStep
	if cl.coarse {
		step = coarseStep
	}
	for free := 0.0; free < look; free += step {
		p, h = arcMove(p, h, gear, wheel, min(step, look-free))
		u := dirOf(h)
		if cl.hits(car.BodyAt(p, u, grow)) {
			return free
		}
		wet, _ := cl.ground(car.BodyAt(p, u, grow))
		_, off := cl.ground(car.BodyAt(p, u, 0))
		if wet > wet0 || off > off0 {
			return free
		}
	}
	return look
}

// arcMove moves a car at p with heading h s metres in gear (+1 forward,
// -1 back) with its wheels at wheel radians: the bicycle model, as the
// car's physics turns it (heading changes by speed / wheelbase × tan
// wheel).
func arcMove(p world.Vec2, h float64, gear int, wheel, s float64) (world.Vec2, float64) {
	g, k := float64(gear), math.Tan(wheel)/car.WheelBase
	h += g * s * k / 2
	p = p.Add(dirOf(h).Scale(g * s))
	return p, h + g*s*k/2
}

// fullLock is the wheel angle (radians) the steering reaches at speed v.
func fullLock(v float64) float64 { return 0.01 / car.SteerFor(0.01, v) }

// turnRadius is the radius the car's centre turns on at full lock at
// speed v.
func turnRadius(v float64) float64 { return car.WheelBase / math.Tan(fullLock(v)) }
