package autopilot

import (
	"math"
	"slices"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Driving, as a careful driver: it follows a smoothed line through its lane
// (so a turn is an arc the car can drive instead of a corner it cuts or
// overshoots), plans its speed from the curvature ahead, and stops short
// of a dead end or a blockage; recover.go backs out of what it touches and
// turns the car round where the road cannot be driven on.
const (
	steerLead     = 0.2  // seconds ahead the path's curvature is steered for
	crossGain     = 2.0  // cross-track correction: 1/s
	crossSoft     = 2.0  // m/s added to the speed there, so it is gentle at rest
	backOutLook   = 7.0  // metres ahead of the lane point the car aims at backing out
	pathPoints    = 260  // 130 m of smoothed path: enough to stop from 30 m/s
	curveBase     = 2.0  // metres over which the path's curvature is measured
	lockMargin    = 1.2  // plan turns as if 20% tighter than the path
	lateralAccel  = 7.5  // m/s² the driver accepts in a curve (0.76 g: the line is never tighter than the car holds)
	planBrake     = 7.0  // m/s² the driver plans to brake with
	minCurveSpeed = 3.0  // m/s: the slowest it takes a tight turn
	offRoute      = 6.0  // metres from the lane before it re-routes
	pathStep      = 0.5  // metres between lane points of the smoothed path
	smoothHalf    = 12.0 // metres either side a path point is averaged over
	minLaneRadius = 6.0  // metres: the tightest lane line the car is asked to follow
	offsetEase    = 4.0  // metres over which a change of lane offset is spread
	maxInside     = 3.5  // metres right of the centre line the line may cut a right turn
	pathBack      = 14.0 // metres of smoothed path kept behind the route's point
	stuckWindow   = 2.0  // seconds without progress before it recovers
	stuckProgress = 1.0  // metres of route progress that count
	planHz        = 40.0 // line plans per second
	replanAfter   = 2.0  // metres of progress that make a new plan at once
	swerveSlow    = 0.8  // metres of swerve around an obstacle ...
	swerveSpeed   = 12.0 // ... above which the car slows to this (m/s)
	rerouteEvery  = 1.0  // seconds between off-route re-routes
)

// Driver drives a car along a Route.
type Driver struct {
	g      *roadgraph.Graph
	route  *Route
	seed   uint64
	cruise float64
	pts    []world.Vec2 // lane points ahead, scratch
	sums   []world.Vec2 // their prefix sums, scratch
	ahead  []world.Vec2 // the smoothed lane from pathBack behind to ahead, pathStep apart
	// its centre points, directions and lane offsets, scratch
	cen, dir []world.Vec2
	off, tmp []float64
	relaxed  []float64 // relaxLine's scratch
	here     int       // index in ahead nearest the car
	// avoidance scratch (avoid.go)
	obst        []slots.Obstacle
	shift, fade []float64
	marks       []int
	spans       [][2]float64
	blocked     float64 // metres to an obstacle the car cannot pass (+Inf: none)
	// blockedAt: route metres from the route's point to where it cannot
	// pass; blockedByTraffic: a vehicle waiting for the car is part of it
	blockedAt        float64
	blockedByTraffic bool
	cols             []world.Vec2 // built blocks found along the line, scratch (avoid)
	lefts            []world.Vec2 // the moves of the line behind the car, scratch (avoid)
	swerveLimit      float64      // the speed limit swerving asks for (avoid)
	sincePlan        float64      // seconds since the line was planned
	// sincePlanned is the same for yield's waiting clock (sincePlan is
	// reset before yield runs).
	sincePlanned float64

	window   float64 // seconds in the current progress window
	progress float64 // route metres gained in it
	reroutes uint64
	// sinceReroute: seconds since the last re-route (they are rate-limited,
	// so a car that is merely wide of its lane is steered back, not
	// re-planned every step).
	sinceReroute float64

	Recoveries int // times it backed out (pressed against something, or no progress)
	recoverState

	// Traffic, when set, is yielded to (yield.go).
	Traffic      Traffic
	trafficLimit float64 // the speed limit yield set at the last plan
	waiting      bool    // held up by a signal or a vehicle
	waited       float64 // seconds held up at a crawl
	committed    uint64  // junction driven through on amber
	toStop       float64 // metres to the next junction's stop line at the last plan (-Inf: none)
}

// NewDriver starts a driver on the road nearest pos, heading as close to
// heading as the road allows, cruising at cruise m/s where the road allows.
func NewDriver(g *roadgraph.Graph, pos, heading world.Vec2, seed uint64, cruise float64) (*Driver, bool) {
	r, ok := New(g, pos, heading, seed)
	if !ok {
		return nil, false
	}
	d := &Driver{g: g, route: r, seed: seed, cruise: cruise}
	d.blocked, d.turnBack = math.Inf(1), math.Inf(1)
	r.avoid = &d.arms
	r.lights = &routeLights{speed: cruise / 2}
	return d, true
}

// Route is the route being followed.
func (d *Driver) Route() *Route { return d.route }

// Drive returns the controls for one physics step of dt seconds in env
// (the obstacles it steers around).
func (d *Driver) Drive(c *car.Car, env car.Env, dt float64) car.Input {
	pos, fwd, v := c.Pos, c.Forward(), c.Speed()
	d.clock += dt
	gained := d.route.Track(pos)
	var lights Lights
	if d.Traffic != nil {
		lights = d.Traffic
	}
	d.route.lights.observe(lights, d.route.odo, v, dt)
	d.sinceReroute += dt
	if lane, _ := d.route.Pose(); d.mode == modeDrive && lane.Sub(pos).Len() > offRoute && d.sinceReroute > rerouteEvery {
		d.reroute(pos, fwd)
	}
	// The line changes slowly: it is planned at planHz and in between the
	// car only finds where it is on it.
	d.sincePlan += dt
	d.sincePlanned += dt
	if d.sincePlan >= 1.0/planHz || len(d.ahead) == 0 || gained > replanAfter {
		d.sincePlan = 0
		d.arms.Forget(d.clock - armKeep)
		d.path()
		d.locate(pos, 0, 2*int(pathBack/pathStep))
		d.swerveLimit = d.avoid(env, pos, c.Y, v)
		d.trafficLimit = d.yield(pos, fwd, v, math.Tan(c.Steer)/car.WheelBase, d.sincePlanned)
		d.sincePlanned = 0
		d.turnBack = d.route.TurnsBack(pathPoints * pathStep)
		d.blockedBeyond()
	} else {
		d.locate(pos, d.here-2, d.here+int(replanAfter/pathStep)+2)
	}
	switch d.mode {
	case modeBackOut:
		if in, ok := d.backingOut(c, env, dt); ok {
			return in
		}
	case modeTurn:
		if in, ok := d.turning(c, env, dt); ok {
			return in
		}
	}
	if d.mode == modeDrive && d.recoverDrive(c, env, dt, gained) {
		return d.Drive(c, env, 0) // the first step of the recovery
	}
	swerveLimit := d.swerveLimit
	h := d.here
	at := func(k int) world.Vec2 { return d.ahead[min(max(k, 1), len(d.ahead)-2)] }

	// Steering: the path's own curvature a little ahead (the wheels take
	// time to turn) plus corrections for heading and cross-track error —
	// a Stanley controller with feed-forward.
	tangent := at(h + 1).Sub(at(h - 1)).Norm()
	lateral := roadgraph.Left(fwd).Dot(at(h).Sub(pos)) // +: the path lies to the left
	k := h + int(max(0, v)*steerLead/pathStep)
	wheel := math.Atan(car.WheelBase*d.curvature(k)) + angleTo(fwd, tangent) +
		math.Atan(crossGain*lateral/(math.Abs(v)+crossSoft))
	in := car.Input{Steer: car.SteerFor(wheel, v)}
	want := min(min(d.plannedSpeed(), swerveLimit), d.trafficLimit)
	if !math.IsInf(d.blocked, 1) { // stop before it
		want = min(want, math.Sqrt(2*planBrake*d.blocked))
	}
	if !math.IsInf(d.turnBack, 1) { // stop where it turns round
		want = min(want, math.Sqrt(2*planBrake*max(0, d.turnBack-turnLead)))
	}
	switch {
	case v < want:
		in.Throttle = clamp((want-v)/3, 0.15, 1)
	case v > want+0.2:
		in.Brake = clamp((v-want)/1.5, 0.05, 1)
	}
	return in
}

// curvature is the signed curvature of the smoothed path at index k
// (+: turning left), measured over chords of about curveBase metres.
func (d *Driver) curvature(k int) float64 { return lineCurvature(d.ahead, k) }

// path fills d.ahead with the lane ahead, smoothed. Lanes of two roads
// meet badly at a junction (one road's lane ends beside the junction
// node, the next one's starts on another side of it), and a corner
// sharper than the car can turn makes it swing wide. So the path is the
// centre line averaged over ±smoothHalf metres, which rounds every corner
// into an arc that starts before the junction, offset into the right-hand
// lane: a turn cuts in the way a driver's does, well clear of the kerb.
func (d *Driver) path() {
	w := int(smoothHalf / pathStep)
	back := int(pathBack / pathStep)
	// centre points from w+back behind the route's point to pathPoints+w
	// ahead, then their prefix sums
	const m = int(curveBase / pathStep)
	d.pts = d.route.Behind(pathStep, w+back+m, d.pts[:0])
	slices.Reverse(d.pts)
	d.pts = d.route.Centres(pathStep, pathPoints+w+m, d.pts)
	d.sums = append(d.sums[:0], world.Vec2{})
	for _, p := range d.pts {
		d.sums = append(d.sums, d.sums[len(d.sums)-1].Add(p))
	}
	avg := func(i int) world.Vec2 { // centre point i (0: the route's point), smoothed
		j := i + w + back + m // index in pts of point i
		return d.sums[j+w+1].Sub(d.sums[j-w]).Scale(1 / float64(2*w+1))
	}
	// The lane is laneOffset right of the centre, except around a right
	// turn so tight that the lane's radius would drop below minLaneRadius:
	// there it moves towards the centre line, so the car can still make
	// the turn (slowly). The offset changes gradually (the lowest within
	// ±offsetEase metres, then averaged over as much again), or the line
	// would kink where it moves.
	n := back + pathPoints
	d.cen, d.dir, d.off = d.cen[:0], d.dir[:0], d.off[:0]
	for i := -back; i < pathPoints; i++ {
		prev, cur, next := avg(i-m), avg(i), avg(i+m)
		d.cen = append(d.cen, cur)
		d.dir = append(d.dir, next.Sub(prev).Norm())
		off := laneOffset
		a, b := cur.Sub(prev), next.Sub(cur)
		if turn := angleTo(a, b); turn < 0 {
			off = clamp((a.Len()+b.Len())/2/-turn-minLaneRadius, 0, laneOffset)
		}
		// Smoothing already moved this point cut to the right of the centre
		// line: the lane offset on top keeps the line within maxInside.
		if cut := -roadgraph.Left(d.dir[len(d.dir)-1]).Dot(cur.Sub(d.pts[i+w+back+m])); cut > 0 {
			off = min(off, max(0, maxInside-cut))
		}
		d.off = append(d.off, off)
	}
	e := int(offsetEase / pathStep)
	d.tmp = append(d.tmp[:0], d.off...)
	for i := range n {
		lo := laneOffset
		for k := max(0, i-e); k <= min(n-1, i+e); k++ {
			lo = min(lo, d.tmp[k])
		}
		d.off[i] = lo
	}
	copy(d.tmp, d.off)
	d.ahead = d.ahead[:0]
	for i := range n {
		sum, cnt := 0.0, 0
		for k := max(0, i-e); k <= min(n-1, i+e); k++ {
			sum += d.tmp[k]
			cnt++
		}
		d.ahead = append(d.ahead, d.cen[i].Sub(roadgraph.Left(d.dir[i]).Scale(sum/float64(cnt))))
	}
	d.sums, d.relaxed = relaxLine(d.ahead, d.sums, d.relaxed)
}

// locate sets d.here to the index in [from, to) of the line point nearest
// pos: the route follows the raw lanes, and on the smoothed line the car
// may be a little behind or ahead of the route's point.
func (d *Driver) locate(pos world.Vec2, from, to int) {
	best := math.Inf(1)
	for i := max(from, 0); i < to && i < len(d.ahead); i++ {
		if d2 := d.ahead[i].Dist2(pos); d2 < best {
			d.here, best = i, d2
		}
	}
}

// plannedSpeed is the fastest speed from which every curve of the smoothed
// path ahead can still be taken, braking at planBrake: at most
// lateralAccel sideways, and no faster than the wheels can turn it.
func (d *Driver) plannedSpeed() float64 {
	const m = int(curveBase / pathStep)
	want := d.cruise
	for i := d.here + m; i+m < len(d.ahead); i += m {
		curv := math.Abs(d.curvature(i))
		vc := d.cruise
		if curv > 1e-6 {
			vc = min(math.Sqrt(lateralAccel/curv), car.SpeedForCurvature(curv*lockMargin))
			vc = clamp(vc, minCurveSpeed, d.cruise)
		}
		dist := float64(i-d.here) * pathStep
		want = min(want, math.Sqrt(vc*vc+2*planBrake*dist))
	}
	return want
}

// Reroute picks up the road nearest pos, in the direction closest to
// heading, with fresh (but repeatable) turns, and starts a new progress
// window; a manoeuvre in progress is dropped.
func (d *Driver) Reroute(pos, heading world.Vec2) {
	d.reroute(pos, heading)
	d.endManoeuvre()
}

func (d *Driver) reroute(pos, heading world.Vec2) {
	d.reroutes++
	d.sinceReroute = 0
	if r, ok := New(d.g, pos, heading, d.seed+d.reroutes); ok {
		r.avoid = &d.arms
		r.lights = &routeLights{speed: d.route.lights.speed}
		d.route = r
		d.turnBack = math.Inf(1)
	}
}

// angleTo is the signed angle from forward to v, + to the left.
func angleTo(forward, v world.Vec2) float64 {
	left := roadgraph.Left(forward)
	return math.Atan2(v.Dot(left), v.Dot(forward))
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }
