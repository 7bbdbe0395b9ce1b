package game

import (
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel/ground"
)

// carEnv is the session's world as the car's physics sees it (car.Env):
// the world's road surface rule, the collision shapes of the slots near
// the car, and the blocks players built.
type carEnv struct {
	surface  *world.SurfaceCache
	table    *slots.Table
	ground   *ground.Client
	traffic  *trafficState // traffic.go
	vehicles vehicleSource // the traffic as obstacles: traffic, or a test's
}

func newCarEnv(w world.World, table *slots.Table, ground *ground.Client) *carEnv {
	return &carEnv{surface: world.NewSurfaceCache(w), table: table, ground: ground}
}

// carEnv is the session's car environment, made on first use.
func (s *Session) carEnv() *carEnv {
	if s.env == nil {
		s.env = newCarEnv(s.opt.World, s.stream.Table(), s.ground3)
	}
	return s.env
}

func (e *carEnv) Surface(x, z float64) world.Surface { return e.surface.Surface(x, z) }

// AppendObstacles appends the obstacles of every slot whose bounds come
// within r of (x, z): a few slots' worth; the car tests each exactly.
func (e *carEnv) AppendObstacles(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle {
	for s := range int32(e.table.Config().Slots) {
		obst := e.table.Obstacles(s)
		if len(obst) == 0 {
			continue
		}
		b := e.table.Bounds(s)
		if x+r < b.Min[0] || x-r > b.Max[0] || z+r < b.Min[2] || z-r > b.Max[2] {
			continue
		}
		dst = append(dst, obst...)
	}
	return e.appendTraffic(dst, x, z, r)
}

// Solid counts only blocks players built. The generated ground is what
// Surface describes; its 1 m steps are not obstacles (on a slope they can
// stand above a road that is level across or eased into a junction, which
// is for the generator to fix, not for the car to crash into), and a dug
// hole is not something to fall into.
func (e *carEnv) Solid(x, y, z int64) bool {
	if e.ground == nil {
		return false
	}
	return e.ground.Built(x, y, z)
}
