package autopilot

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Avoidance: a careful driver looks along its line for anything its car
// would touch (a parked car reaching into the lane, a bollard on a corner
// it cuts) and moves the line aside in good time, gently, rather than
// trusting that the lane is clear.
const (
	avoidClearance   = 0.45 // metres kept between the car's side and an obstacle
	avoidAhead       = 12.0 // metres looked ahead at rest ...
	avoidPerSpeed    = 1.6  // ... plus this many seconds of travel
	avoidMax         = 60.0 // metres at most
	avoidRamp        = 10.0 // metres over which a shift fades in and out
	avoidStep        = 2    // path points between checks (1 m)
	squeezeClearance = 0.15 // metres, when full clearance leaves no way through
	avoidWidest      = 4.0  // metres the line is moved aside at most
)

// freeOffset is the sideways offset (within ±avoidWidest) for the car's
// centre that keeps clear of every span (the offsets at which the car would
// touch an obstacle) by clear, and is nearest the line and the offset
// chosen just before (prev): a driver passes a row of obstacles on one
// side, not weaving between them.
func freeOffset(spans [][2]float64, clear, prev float64) (float64, bool) {
	free := func(x float64) bool {
		if math.Abs(x) > avoidWidest {
			return false
		}
		for _, s := range spans {
			if x > s[0]-clear && x < s[1]+clear {
				return false
			}
		}
		return true
	}
	cost := func(x float64) float64 { return math.Abs(x) + 2*math.Abs(x-prev) }
	best, ok := 0.0, false
	try := func(x float64) {
		if free(x) && (!ok || cost(x) < cost(best)) {
			best, ok = x, true
		}
	}
	try(0)
	try(prev)
	for _, s := range spans {
		try(s[0] - clear - 1e-6)
		try(s[1] + clear + 1e-6)
	}
	return best, ok
}

// avoid shifts d.ahead sideways, from the car onwards, around the
// obstacles env knows of, and returns the speed limit that swerving asks
// for (+Inf: none); where obstacles close both sides, d.blocked is the
// distance to stop in. Obstacles whose height range the car passes
// under or over are ignored.
func (d *Driver) avoid(env car.Env, pos world.Vec2, y, v float64) float64 {
	reach := math.Min(avoidAhead+avoidPerSpeed*math.Max(0, v), avoidMax)
	d.blocked = math.Inf(1)
	d.obst = env.AppendObstacles(d.obst[:0], pos.X, pos.Z, reach+8)
	if d.Traffic != nil {
		// moving traffic is followed (yield.go), not passed: only the
		// vehicles that stand waiting for the car are steered round
		n := 0
		for _, o := range d.obst {
			if o.Kind != slots.ObstacleTraffic {
				d.obst[n] = o
				n++
			}
		}
		d.obst = d.appendWaiting(d.obst[:n], pos)
	}
	if len(d.obst) == 0 {
		return math.Inf(1)
	}
	end := min(d.here+int(reach/pathStep), len(d.ahead)-1)
	d.shift = append(d.shift[:0], make([]float64, end-d.here+1)...)
	found := false
	prev := 0.0 // the offset chosen at the previous point: keep to one side
	for k := d.here; k < end; k += avoidStep {
		p := d.ahead[k]
		t := d.ahead[k+1].Sub(d.ahead[max(k-1, 0)]).Norm()
		l := roadgraph.Left(t)
		// Each obstacle beside this point rules out an interval of
		// sideways offsets for the car's centre; take the allowed offset
		// nearest the line, with full clearance if possible, squeezing by
		// with less if not, and stop short if nothing is left.
		d.spans = d.spans[:0]
		for i := range d.obst {
			o := &d.obst[i]
			if o.Y1 < y+0.2 || o.Y0 > y+1.5 { // a kerb-high slab, or overhead
				continue
			}
			c := world.Vec2{X: o.Centre[0], Z: o.Centre[1]}.Sub(p)
			if c.X*c.X+c.Z*c.Z > 64 {
				continue
			}
			if math.Abs(c.Dot(t)) > car.Length/2+o.Extent([2]float64{t.X, t.Z})+avoidClearance {
				continue
			}
			lat := c.Dot(l)
			ext := car.Width/2 + o.Extent([2]float64{l.X, l.Z})
			d.spans = append(d.spans, [2]float64{lat - ext, lat + ext})
		}
		if len(d.spans) == 0 {
			prev = 0
			continue
		}
		off, ok := freeOffset(d.spans, avoidClearance, prev)
		if !ok {
			off, ok = freeOffset(d.spans, squeezeClearance, prev)
		}
		prev = off
		switch {
		case !ok:
			d.blocked = math.Min(d.blocked, math.Max(0, float64(k-d.here)*pathStep-car.Length))
		case off != 0:
			d.shift[k-d.here] = off
			found = true
		}
	}
	if !found {
		return math.Inf(1)
	}
	// Fade each shift in and out over avoidRamp metres, the biggest one
	// winning at every point, then move the line.
	ramp := avoidRamp / pathStep
	d.marks = d.marks[:0]
	for k, s := range d.shift {
		if s != 0 {
			d.marks = append(d.marks, k)
		}
	}
	limit := math.Inf(1)
	d.fade = append(d.fade[:0], d.shift...)
	for j := range d.fade {
		best := 0.0
		for _, k := range d.marks {
			f := 1 - math.Abs(float64(j-k))/ramp
			if s := d.shift[k] * f; f > 0 && math.Abs(s) > math.Abs(best) {
				best = s
			}
		}
		d.fade[j] = best
		if math.Abs(best) > swerveSlow {
			// a big swerve is taken at swerveSpeed at most: brake for it
			dist := float64(j) * pathStep
			limit = math.Min(limit, math.Sqrt(swerveSpeed*swerveSpeed+2*planBrake*dist))
		}
	}
	for j := range d.shift {
		k := d.here + j
		t := d.ahead[min(k+1, len(d.ahead)-1)].Sub(d.ahead[max(k-1, 0)]).Norm()
		d.ahead[k] = d.ahead[k].Add(roadgraph.Left(t).Scale(d.fade[j]))
	}
	return limit
}
