package autopilot

import (
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
)

// Putting a car back on the road (the game's Backspace).
const (
	resetClear  = 0.3  // metres kept between the car and anything around it
	resetSearch = 60.0 // metres along the lane it looks for a clear spot, each way
	resetStep   = 1.0
)

// ResetPose is where a car at pos facing heading is put back on the road:
// in the lane of the loaded road nearest it whose direction is closest to
// heading, facing along it, at the lane point nearest the car — or, where
// the car would overlap an obstacle or a built block there (resetClear
// kept) or stand over water, at the nearest lane point that is clear,
// looking along the lane ahead and behind resetStep at a time. Where none
// within resetSearch is, it is the nearest lane point anyway. False: no
// road is loaded.
func ResetPose(g *roadgraph.Graph, env car.Env, pos, heading world.Vec2) (world.Vec2, world.Vec2, bool) {
	r, ok := New(g, pos, heading, 0)
	if !ok {
		return world.Vec2{}, world.Vec2{}, false
	}
	var cl clearance
	clear := func(c *Route) (world.Vec2, world.Vec2, bool) {
		p, dir := c.Pose()
		y := env.Surface(p.X, p.Z).Y
		cl.gather(env, p, y, car.Length)
		f := car.BodyAt(p, dir, resetClear)
		wet, _ := cl.ground(f)
		return p, dir, wet == 0 && !cl.hits(f)
	}
	p0, d0, ok := clear(r)
	if ok {
		return p0, d0, true
	}
	ahead, behind := *r, *r
	backOK := true
	for s := resetStep; s <= resetSearch; s += resetStep {
		ahead.Advance(resetStep)
		if p, dir, ok := clear(&ahead); ok {
			return p, dir, true
		}
		if backOK = backOK && behind.retreat(resetStep); backOK {
			if p, dir, ok := clear(&behind); ok {
				return p, dir, true
			}
		}
	}
	return p0, d0, true
}
