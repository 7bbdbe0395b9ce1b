package autopilot

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// Driving, as a careful driver: pure pursuit of a point on the lane a short
// way ahead (so a turn follows the lane instead of cutting the corner),
// speed planned from the curvature of the route ahead, and a watchdog that
// backs out and re-routes when the car makes no progress.
const (
	lookMin, lookMax = 5.0, 14.0 // pure-pursuit look-ahead, metres
	lookPerSpeed     = 0.35      // extra look-ahead per m/s
	planStep         = 4.0       // metres between speed-plan samples
	planSamples      = 32        // 128 m of route: enough to stop from 30 m/s
	lateralAccel     = 4.0       // m/s² the driver accepts in a curve
	planBrake        = 4.5       // m/s² the driver plans to brake with
	minCurveSpeed    = 4.5       // m/s: the slowest it takes a tight turn
	offRoute         = 6.0       // metres from the lane before it re-routes
	stuckWindow      = 2.0       // seconds without progress before it recovers
	stuckProgress    = 1.0       // metres of route progress that count
	reverseTime      = 1.5       // seconds of backing out
)

// Driver drives a car along a Route.
type Driver struct {
	g      *roadgraph.Graph
	route  *Route
	seed   uint64
	cruise float64
	dirs   []world.Vec2 // speed-plan scratch

	window   float64 // seconds in the current progress window
	progress float64 // route metres gained in it
	reverse  float64 // seconds of backing out left
	reroutes uint64

	Recoveries int // times it backed out after making no progress
}

// NewDriver starts a driver on the road nearest pos, heading as close to
// heading as the road allows, cruising at cruise m/s where the road allows.
func NewDriver(g *roadgraph.Graph, pos, heading world.Vec2, seed uint64, cruise float64) (*Driver, bool) {
	r, ok := New(g, pos, heading, seed)
	if !ok {
		return nil, false
	}
	return &Driver{g: g, route: r, seed: seed, cruise: cruise, dirs: make([]world.Vec2, 0, planSamples)}, true
}

// Route is the route being followed.
func (d *Driver) Route() *Route { return d.route }

// Drive returns the controls for one physics step of dt seconds.
func (d *Driver) Drive(c *car.Car, dt float64) car.Input {
	pos, fwd, v := c.Pos, c.Forward(), c.Speed()
	gained := d.route.Track(pos)
	if lane, _ := d.route.Pose(); lane.Sub(pos).Len() > offRoute {
		d.Reroute(pos, fwd)
	}
	target := d.route.Ahead(clamp(lookMin+lookPerSpeed*math.Max(0, v), lookMin, lookMax))
	alpha := angleTo(fwd, target.Sub(pos))

	if d.reverse > 0 {
		d.reverse -= dt
		if d.reverse <= 0 {
			d.Reroute(pos, fwd)
		}
		// Backing up with the wheels turned away from the target swings
		// the nose towards it.
		return car.Input{Brake: 1, Steer: -math.Copysign(1, alpha)}
	}
	d.window += dt
	d.progress += gained
	if d.window >= stuckWindow {
		if d.progress < stuckProgress {
			d.reverse = reverseTime
			d.Recoveries++
		}
		d.window, d.progress = 0, 0
	}

	// Pure pursuit: the arc through the target point.
	l := math.Max(target.Sub(pos).Len(), 1)
	wheel := math.Atan(2 * car.WheelBase * math.Sin(alpha) / l)
	in := car.Input{Steer: car.SteerFor(wheel, v)}
	want := d.plannedSpeed()
	switch {
	case v < want:
		in.Throttle = clamp((want-v)/3, 0.15, 1)
	case v > want+0.5:
		in.Brake = clamp((v-want)/6, 0.05, 1)
	}
	return in
}

// plannedSpeed is the fastest speed from which every curve in the next
// planSamples×planStep metres can still be taken at lateralAccel, braking
// at planBrake.
func (d *Driver) plannedSpeed() float64 {
	d.dirs = d.route.Directions(planStep, planSamples, d.dirs[:0])
	want := d.cruise
	for i := 1; i+1 < len(d.dirs); i++ {
		turn := math.Acos(clamp(d.dirs[i-1].Dot(d.dirs[i+1]), -1, 1))
		curv := turn / (2 * planStep)
		vc := d.cruise
		if curv > 1e-6 {
			vc = clamp(math.Sqrt(lateralAccel/curv), minCurveSpeed, d.cruise)
		}
		dist := float64(i-1) * planStep
		want = math.Min(want, math.Sqrt(vc*vc+2*planBrake*dist))
	}
	return want
}

// Reroute picks up the road nearest pos, in the direction closest to
// heading, with fresh (but repeatable) turns.
func (d *Driver) Reroute(pos, heading world.Vec2) {
	d.reroutes++
	if r, ok := New(d.g, pos, heading, d.seed+d.reroutes); ok {
		d.route = r
	}
	d.window, d.progress = 0, 0
}

// angleTo is the signed angle from forward to v, + to the left.
func angleTo(forward, v world.Vec2) float64 {
	left := roadgraph.Left(forward)
	return math.Atan2(v.Dot(left), v.Dot(forward))
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
