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
	solidLook        = 40.0 // metres along the line it looks for built blocks
	blockBeyond      = 35.0 // metres past a junction within reach it looks for a blockage ...
	blockLook        = 80.0 // ... within this many metres
	solidProbe       = 1.5  // ... this far either side of it,
	solidHeightEvery = 16   // ... at the road's height taken every this many path points
)

// freeOffset is the sideways offset (within ±avoidWidest) for the car's
// centre that keeps clear of every span (the offsets at which the car would
// touch an obstacle) by clear, and is nearest the line and the offset
// chosen just before (prev): a driver passes a row of obstacles on one
// side, not weaving between them. ground, when set, is what an offset
// costs besides (+Inf: it is not free), for what is under the car there.
func freeOffset(spans [][2]float64, clear, prev float64, ground func(float64) float64) (float64, bool) {
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
	// the cost without the ground: nearest the line and the offset before,
	// and between two as near, the one to the left (traffic keeps right:
	// the kerb is on the right)
	cost := func(x float64) float64 { return math.Abs(x) + 2*math.Abs(x-prev) - leftBias*x }
	var cand [2 + 2*maxSpans]float64
	n := 0
	add := func(x float64) {
		if n < len(cand) && free(x) {
			cand[n] = x
			n++
		}
	}
	add(0)
	add(prev)
	for _, s := range spans {
		add(s[0] - clear - 1e-6)
		add(s[1] + clear + 1e-6)
	}
	// The ground costs a look at the surface: only for the candidates that
	// can still win, cheapest first.
	best, bestCost, ok := 0.0, math.Inf(1), false
	for n > 0 {
		i := 0
		for j := 1; j < n; j++ {
			if cost(cand[j]) < cost(cand[i]) {
				i = j
			}
		}
		x := cand[i]
		cand[i] = cand[n-1]
		n--
		c := cost(x)
		if c >= bestCost {
			break
		}
		if ground != nil && x != 0 {
			c += ground(x)
		}
		if !math.IsInf(c, 1) && c < bestCost {
			best, bestCost, ok = x, c, true
		}
	}
	return best, ok
}

// maxSpans bounds the obstacles beside one point freeOffset weighs.
const maxSpans = 64

// Off the line, the ground: a swerve that puts a side of the car (with
// groundMargin to spare) off the carriageway costs offRoadCost more
// (metres of offset), over the water it is not free; leftBias breaks ties.
const (
	offRoadCost  = 2.0
	groundMargin = 0.3
	leftBias     = 0.05
)

// groundCost is what moving the car's centre x metres to the left of p
// (l: the unit left) costs for the ground under its sides.
func groundCost(env car.Env, p, l world.Vec2, x float64) float64 {
	c := 0.0
	for _, side := range [2]float64{-car.Width/2 - groundMargin, car.Width/2 + groundMargin} {
		q := p.Add(l.Scale(x + side))
		s := env.Surface(q.X, q.Z)
		if s.Water {
			return math.Inf(1)
		}
		if !s.Road {
			c = offRoadCost
		}
	}
	return c
}

// avoid shifts d.ahead sideways, from the car onwards, around the
// obstacles env knows of (the built blocks on the line ahead among them,
// and what the car touched lately, grown: recover.go), and returns the
// speed limit that swerving asks for (+Inf: none); where obstacles close
// both sides, d.blocked is the distance to stop in. Obstacles whose height
// range the car passes under or over are ignored.
func (d *Driver) avoid(env car.Env, pos world.Vec2, y, v float64) float64 {
	reach := min(avoidAhead+avoidPerSpeed*max(0, v), avoidMax)
	d.blocked, d.blockedAt, d.blockedByTraffic = math.Inf(1), 0, false
	// Whether the way on is blocked it looks further, past the next
	// junction, so that the route can still take another arm there.
	look := reach
	if _, _, dist := d.route.NextJunction(); dist < reach {
		look = max(reach, min(dist+blockBeyond, blockLook))
	}
	d.obst = env.AppendObstacles(d.obst[:0], pos.X, pos.Z, look+8)
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
	end := min(d.here+int(reach/pathStep), len(d.ahead)-1)
	far := min(d.here+int(look/pathStep), len(d.ahead)-1)
	d.obst = d.appendTouched(d.obst, pos, look+8)
	d.obst = d.appendSolids(env, d.obst, y, min(far, d.here+int(max(solidLook, look)/pathStep)))
	if len(d.obst) == 0 {
		return math.Inf(1)
	}
	d.shift = append(d.shift[:0], make([]float64, end-d.here+1)...)
	found := false
	prev := 0.0 // the offset chosen at the previous point: keep to one side
	for k := d.here; k < far; k += avoidStep {
		if k >= end && !math.IsInf(d.blocked, 1) {
			break // beyond the swerves, only whether it is blocked
		}
		p := d.ahead[k]
		t := d.ahead[k+1].Sub(d.ahead[max(k-1, 0)]).Norm()
		l := roadgraph.Left(t)
		// Each obstacle beside this point rules out an interval of
		// sideways offsets for the car's centre; take the allowed offset
		// nearest the line, with full clearance if possible, squeezing by
		// with less if not, and stop short if nothing is left.
		d.spans = d.spans[:0]
		vehicle := false
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
			vehicle = vehicle || o.Kind == slots.ObstacleTraffic
		}
		if len(d.spans) == 0 {
			prev = 0
			continue
		}
		ground := func(x float64) float64 { return groundCost(env, p, l, x) }
		off, ok := freeOffset(d.spans, avoidClearance, prev, ground)
		if !ok {
			off, ok = freeOffset(d.spans, squeezeClearance, prev, ground)
		}
		prev = off
		switch {
		case !ok:
			if math.IsInf(d.blocked, 1) {
				d.blockedAt = float64(k-int(pathBack/pathStep)) * pathStep
				d.blockedByTraffic = vehicle
			}
			d.blocked = min(d.blocked, max(0, float64(k-d.here)*pathStep-car.Length))
		case off != 0 && k < end:
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
			limit = min(limit, math.Sqrt(swerveSpeed*swerveSpeed+2*planBrake*dist))
		}
	}
	// The line behind the car moves too, fading out backwards as the
	// swerve fades in ahead: moved from the car on only, it would step
	// aside at the car, and the step (a false heading across the lane,
	// steered for at every plan) would drag the car off the line as
	// long as the swerve lasts. Every point moves square to the line as
	// it was (a direction taken across points already moved would turn
	// the move along the line, and the line would zig-zag).
	behind := min(d.here, int(ramp))
	from := d.here - behind
	d.lefts = d.lefts[:0]
	for k := from; k < d.here+len(d.fade); k++ {
		t := d.ahead[min(k+1, len(d.ahead)-1)].Sub(d.ahead[max(k-1, 0)]).Norm()
		f := d.fade[0] * (1 - float64(d.here-k)/ramp)
		if k >= d.here {
			f = d.fade[k-d.here]
		}
		d.lefts = append(d.lefts, roadgraph.Left(t).Scale(f))
	}
	for i, m := range d.lefts {
		d.ahead[from+i] = d.ahead[from+i].Add(m)
	}
	return limit
}

// appendSolids appends the built blocks (env.Solid) on the line from the
// car to path point end as obstacles: it probes the columns within
// solidProbe of the line every metre at the height of the road there and,
// where it finds one, every column the line could be moved to beside it.
func (d *Driver) appendSolids(env car.Env, dst []slots.Obstacle, y float64, end int) []slots.Obstacle {
	d.cols = d.cols[:0]
	add := func(x, z int64, y0, y1 int64) {
		if !solidColumn(env, x, z, y0, y1) {
			return
		}
		c := world.Vec2{X: float64(x) + 0.5, Z: float64(z) + 0.5}
		for _, o := range d.cols {
			if o == c {
				return
			}
		}
		d.cols = append(d.cols, c)
	}
	wideAt := world.Vec2{X: math.Inf(1)}
	var y0, y1 int64
	for k := d.here; k < end; k += avoidStep {
		p := d.ahead[k]
		l := roadgraph.Left(d.ahead[k+1].Sub(d.ahead[max(k-1, 0)]).Norm())
		if (k-d.here)%solidHeightEvery == 0 { // the road's height, now and then
			y0, y1 = blockBand(env.Surface(p.X, p.Z).Y)
		}
		n := len(d.cols)
		for off := -solidProbe; off <= solidProbe; off += 1 {
			q := p.Add(l.Scale(off))
			add(int64(math.Floor(q.X)), int64(math.Floor(q.Z)), y0, y1)
		}
		if len(d.cols) == n || p.Dist2(wideAt) < 4 {
			continue
		}
		// Something on the line: every column within reach of a swerve.
		wideAt = p
		const wide = avoidWidest + car.Width/2 + avoidClearance + 1
		for dx := -wide; dx <= wide; dx++ {
			for dz := -wide; dz <= wide; dz++ {
				add(int64(math.Floor(p.X+dx)), int64(math.Floor(p.Z+dz)), y0, y1)
			}
		}
	}
	for _, c := range d.cols {
		dst = append(dst, slots.BoxObstacle([2]float64{c.X, c.Z}, 0, 0.5, 0.5, y, y+car.BodyHeight, slots.ObstacleFurniture))
	}
	return dst
}
