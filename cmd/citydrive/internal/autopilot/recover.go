package autopilot

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Recovering, as a driver does when the way on is not what the plan said:
//
//   - pressed against something in front (or making no progress), it backs
//     out along its line, remembers what it touched as a little bigger
//     than it is (so avoid passes it with room), and drives on;
//   - where the road ends (a dead end) or cannot be passed (a blockage
//     it has stopped at, or a place it has already backed out of twice),
//     it remembers that arm as one to avoid, turns the route round onto
//     the other lane and turns the car round: a U-turn where the road is
//     wide enough for its turning circle, otherwise forward and back at
//     full lock (a three-point turn, more points if need be), every move
//     checked against obstacles, built blocks, the shore and the kerb.
//
// A turn it cannot make in one go is tried again after backing out, and
// then made as a manoeuvre of its own towards the road it turns into.
const (
	pressedSpeed  = 0.5  // m/s: slower than this while touching something is pressed against it
	pressedTime   = 0.4  // seconds pressed before it backs out
	backOutMin    = 3.0  // metres it backs out at least ...
	backOutMax    = 9.0  // ... and at most
	backOutTime   = 6.0  // seconds it backs out at most
	backSpeed     = 2.0  // m/s backing out
	backOnLine    = 1.0  // metres from its line within which the car may stop backing out
	backLook      = 4.0  // metres behind the car its rear is steered towards on the line
	touchGrow     = 0.35 // metres a touched obstacle is grown by for avoid
	touchKeep     = 30.0 // seconds a touched obstacle is remembered
	maxTouched    = 32   // touched obstacles remembered at most
	retryRadius   = 10.0 // metres: recoveries this near each other are at one place
	retryWindow   = 60.0 // seconds over which they count
	blockedNear   = 1.0  // metres short of a blockage at which the car is at it
	blockedWait   = 1.0  // seconds stopped at a blockage before it turns round
	trafficWait   = 10.0 // ... when a vehicle waiting for the car is part of it
	turnLead      = 2.0  // metres short of a dead end's junction centre it turns round
	manSpeed      = 2.0  // m/s in a manoeuvre
	manBrake      = 3.0  // m/s² a manoeuvre plans to stop with
	manMargin     = 0.3  // metres a move stops short of what ends it
	manClear      = 0.25 // metres kept between the body and anything, in a manoeuvre
	tightMargin   = 0.1  // ... once that failed at a place (wedged in)
	tightClear    = 0.05
	manLook       = 2.0   // metres of a move checked ahead of the car
	turnDone      = 0.5   // radians (about 29°) from the new direction: turned round
	maxShunts     = 14    // moves of a manoeuvre before it gives up (and re-routes)
	turnTimeout   = 60.0  // seconds before it gives up
	maxReverseRun = 6.0   // metres of one move back at most
	armKeep       = 300.0 // seconds an arm that led to a blockage is avoided
	sharpTurn     = 1.0   // radians: a turn sharper than this is made as a manoeuvre
)

type mode uint8

const (
	modeDrive   mode = iota
	modeBackOut      // reversing along the line, away from what it touched
	modeTurn         // a manoeuvre: turning round, or into a turn too sharp to drive
)

// manoeuvre is a turn made at full lock, forward and back, until the car
// faces goal.
type manoeuvre struct {
	goal     world.Vec2 // the direction to face at the end
	side     float64    // +1: turning left (forward with left lock, back with right)
	move     moveKind   // the move it is making
	gear     int        // +1 forward, -1 back
	limit    float64    // metres the move goes at most
	run      float64    // metres driven in this move
	shifting bool       // stopping to make the next move
	moves    int        // moves made, backing up first not counted
	idle     int        // moves in a row that could not start
	flipped  bool       // side was changed once (shut in)
	time     float64    // seconds since it began
	check    float64    // seconds to the next look at finishing forward
}

// moveKind is a move of a manoeuvre.
type moveKind uint8

const (
	moveTurn     moveKind = iota // at full lock: forward to side, back the other way
	moveBackUp                   // straight back first, to make room
	moveStraight                 // straight, to get out of a corner where neither turn moves
)

// touched is an obstacle the car pressed against, grown, until when.
type touched struct {
	o     slots.Obstacle
	until float64
}

// attempt is a place and time where the driver recovered.
type attempt struct {
	at world.Vec2
	t  float64
}

// recoverState is the Driver's recovery state (recover.go).
type recoverState struct {
	clock      float64 // seconds of driving
	mode       mode
	pressed    float64 // seconds pressed against something
	blockedFor float64 // seconds stopped at a blockage
	backFrom   world.Vec2
	backTime   float64
	backOut    float64 // metres to back out
	// swerve: the most the line must move aside to pass what the car
	// pressed against (remember)
	swerve    float64
	man       manoeuvre
	touched   []touched
	attempts  [8]attempt
	nAttempts int
	arms      ArmMemory
	turnBack  float64 // centre-line metres to where the route turns back (+Inf: not within the plan)
	cl        clearance
	// tight: moves keep less room (recovery failed here before); blind: a
	// back-out does not look behind at all, the physics slides the car
	// along what it meets (failed more often still)
	tight, blind bool

	// TurnArounds counts the times it turned the route round (a dead
	// end, a blockage); UTurns and PointTurns the manoeuvres finished in
	// one move and in more (three-point turns and the like).
	TurnArounds, UTurns, PointTurns int
}

// Avoided is the memory of arms that led to a blockage or a dead end.
func (d *Driver) Avoided() *ArmMemory { return &d.arms }

// recoverDrive watches the drive for the moments to recover: pressed
// against something, no progress, stopped at a blockage, at a dead end.
// It starts the recovery and returns true when it did.
func (d *Driver) recoverDrive(c *car.Car, env car.Env, dt, gained float64) bool {
	pos, v := c.Pos, c.Speed()
	if c.Contacts != 0 && math.Abs(v) < pressedSpeed {
		d.pressed += dt
	} else {
		d.pressed = 0
	}
	if d.pressed >= pressedTime && d.touchingAhead(c, env) {
		d.recover(c, env)
		return true
	}
	d.window += dt
	d.progress += gained
	if d.Waiting() { // held up at a signal or behind a vehicle: not stuck
		d.window, d.progress = 0, 0
	}
	if d.window >= stuckWindow {
		stuck := d.progress < stuckProgress
		d.window, d.progress = 0, 0
		if stuck {
			d.recover(c, env)
			return true
		}
	}
	if !math.IsInf(d.blocked, 1) && d.blocked < blockedNear && math.Abs(v) < 0.3 {
		d.blockedFor += dt
	} else {
		d.blockedFor = 0
	}
	wait := blockedWait
	if d.blockedByTraffic {
		wait = trafficWait
	}
	if d.blockedFor >= wait {
		d.blockedFor = 0
		d.tight, d.blind = false, false
		d.addAttempt(pos)
		d.blockage(c, env)
		return true
	}
	if d.turnBack-turnLead < 1 && math.Abs(v) < pressedSpeed {
		d.tight, d.blind = false, false
		d.startTurn(c, env, true)
		return true
	}
	return false
}

// touchingAhead reports whether what the car touches is in front of it
// (a shove from behind is not a reason to back out).
func (d *Driver) touchingAhead(c *car.Car, env car.Env) bool {
	d.cl.gather(env, c.Pos, c.Y, car.Length+1)
	f := car.BodyAt(c.Pos.Add(c.Forward().Scale(0.15)), c.Forward(), 0)
	if d.cl.hits(f) {
		return true
	}
	wet0, _ := d.cl.ground(car.BodyAt(c.Pos, c.Forward(), 0))
	wet, _ := d.cl.ground(f)
	return wet > wet0 || c.Contacts.Has(car.TouchShore)
}

// recover handles a car pressed against something or making no
// progress: it backs out; at a place it recovered at before, it makes a
// sharp turn ahead as a manoeuvre or, failing that, turns round.
func (d *Driver) recover(c *car.Car, env car.Env) {
	d.remember(c, env)
	n := d.attemptsNear(c.Pos)
	d.addAttempt(c.Pos)
	d.tight, d.blind = n >= 4, n >= 6
	switch {
	case n >= 6: // wedged in: a fresh route, and back out letting the car slide along what it touches
		d.Reroute(c.Pos, c.Forward())
		d.startBackOut(c)
	case n >= 2: // turn round, from n = 4 with less room to spare
		d.blockage(c, env)
	case n == 1 && d.sharpAhead(c.Forward()):
		d.startTurn(c, env, false)
	default:
		d.startBackOut(c)
	}
}

// clear and margin are the room a move keeps (manClear, manMargin), less
// once the usual room failed at this place (tightClear, tightMargin).
func (d *Driver) clear() float64 {
	if d.tight {
		return tightClear
	}
	return manClear
}

func (d *Driver) margin() float64 {
	if d.tight {
		return tightMargin
	}
	return manMargin
}

// blockage handles a way on that cannot be passed: beyond the next
// junction, that arm is avoided there (the route picks another, or turns
// back at the junction); on this edge, the car turns round.
func (d *Driver) blockage(c *car.Car, env car.Env) {
	if !math.IsInf(d.blocked, 1) {
		if e, from, beyond := d.route.edgeAhead(d.blockedAt); beyond {
			d.arms.Add(e, from, d.clock)
			d.sincePlan = math.Inf(1) // the line changes now
			return
		}
	}
	d.startTurn(c, env, true)
}

// blockedBeyond: a blockage seen on an arm beyond the next junction (not a
// vehicle: it will move) makes the route avoid that arm at once, so the
// car takes another way instead of driving up to it.
func (d *Driver) blockedBeyond() {
	if math.IsInf(d.blocked, 1) || d.blockedByTraffic {
		return
	}
	if e, from, beyond := d.route.edgeAhead(d.blockedAt); beyond {
		d.arms.Add(e, from, d.clock)
		d.sincePlan = math.Inf(1)
	}
}

// sharpAhead reports whether the route turns sharply just ahead.
func (d *Driver) sharpAhead(fwd world.Vec2) bool {
	return math.Abs(angleTo(fwd, d.route.dirAhead(manAhead))) > sharpTurn
}

// manAhead is how far along the route the direction of a turn made as a
// manoeuvre is taken.
const manAhead = 10.0

// remember keeps what the car is pressed against for avoid, grown: the
// obstacles and built blocks its body (grown a little) meets, and the
// water under its corners.
func (d *Driver) remember(c *car.Car, env car.Env) {
	const near = 0.3
	f := car.BodyAt(c.Pos, c.Forward(), near)
	d.cl.gather(env, c.Pos, c.Y, car.Length+1)
	until := d.clock + touchKeep
	// the lane here, to measure how far aside the line must move to pass
	at, dir := d.route.Pose()
	left := roadgraph.Left(dir)
	d.swerve = 0
	note := func(o slots.Obstacle) {
		d.touch(o, until)
		lat := world.Vec2{X: o.Centre[0], Z: o.Centre[1]}.Sub(at).Dot(left)
		ext := car.Width/2 + o.Extent([2]float64{left.X, left.Z}) + avoidClearance
		if math.Abs(lat) < ext {
			d.swerve = max(d.swerve, min(math.Abs(lat+ext), math.Abs(lat-ext)))
		}
	}
	for _, o := range d.cl.obst {
		if o.Kind != slots.ObstacleTraffic && f.Overlaps(car.ObstacleBox(&o)) {
			o.Half[0] += touchGrow
			o.Half[1] += touchGrow
			note(o)
		}
	}
	block := func(x, z float64) {
		note(slots.BoxObstacle([2]float64{x, z}, 0, 0.5+touchGrow, 0.5+touchGrow, c.Y, c.Y+car.BodyHeight, slots.ObstacleFurniture))
	}
	y0, y1 := blockBand(c.Y)
	ex, ez := f.Extent(world.Vec2{X: 1}), f.Extent(world.Vec2{Z: 1})
	for x := int64(math.Floor(c.Pos.X - ex)); x <= int64(math.Floor(c.Pos.X+ex)); x++ {
		for z := int64(math.Floor(c.Pos.Z - ez)); z <= int64(math.Floor(c.Pos.Z+ez)); z++ {
			cb := car.BlockBox(x, z)
			if f.Overlaps(cb) && solidColumn(env, x, z, y0, y1) {
				block(cb.C.X, cb.C.Z)
			}
		}
	}
	for _, q := range f.Corners() {
		if env.Surface(q.X, q.Z).Water {
			block(q.X, q.Z)
		}
	}
}

// touch remembers obstacle o until then, replacing the one that expires
// first when full.
func (d *Driver) touch(o slots.Obstacle, until float64) {
	if len(d.touched) < maxTouched {
		d.touched = append(d.touched, touched{o, until})
		return
	}
	first := 0
	for i, t := range d.touched {
		if t.until < d.touched[first].until {
			first = i
		}
	}
	d.touched[first] = touched{o, until}
}

// appendTouched appends the touched obstacles still remembered within r
// of p.
func (d *Driver) appendTouched(dst []slots.Obstacle, p world.Vec2, r float64) []slots.Obstacle {
	for _, t := range d.touched {
		dx, dz := t.o.Centre[0]-p.X, t.o.Centre[1]-p.Z
		if t.until >= d.clock && dx*dx+dz*dz <= r*r {
			dst = append(dst, t.o)
		}
	}
	return dst
}

func (d *Driver) attemptsNear(p world.Vec2) int {
	n := 0
	for _, a := range d.attempts[:min(d.nAttempts, len(d.attempts))] {
		if a.t >= d.clock-retryWindow && a.at.Dist2(p) < retryRadius*retryRadius {
			n++
		}
	}
	return n
}

func (d *Driver) addAttempt(p world.Vec2) {
	d.attempts[d.nAttempts%len(d.attempts)] = attempt{p, d.clock}
	d.nAttempts++
}

// startBackOut begins backing out: far enough for the car to move the
// swerve remember measured aside before it reaches what it touched (two
// arcs of a turn a little wider than its tightest).
func (d *Driver) startBackOut(c *car.Car) {
	d.mode = modeBackOut
	d.backFrom, d.backTime = c.Pos, 0
	r := turnRadius(manSpeed) + 1
	l := min(d.swerve, r)
	d.backOut = clamp(2*math.Sqrt(r*r-(r-l/2)*(r-l/2))+1, backOutMin, backOutMax)
	d.Recoveries++
}

// backingOut is a step of backing out: the rear steered along the line
// behind the car, slowly, until it has backed d.backOut and is on its
// line again (or backed backOutMax, or for
// backOutTime, or until something behind it is near); then it stops and
// drives on (false: driving on this step).
func (d *Driver) backingOut(c *car.Car, env car.Env, dt float64) (car.Input, bool) {
	d.backTime += dt
	pos, fwd, v := c.Pos, c.Forward(), c.Speed()
	k := d.here - int(backLook/pathStep)
	target := d.ahead[min(max(k, 0), len(d.ahead)-1)]
	if target.Dist2(pos) < 1 { // the line ends behind the car: straight back
		target = pos.Sub(fwd)
	}
	rel := target.Sub(pos)
	beta := angleTo(fwd.Scale(-1), rel)
	wheel := -math.Atan(2 * car.WheelBase * math.Sin(beta) / max(rel.Len(), 1))
	steer := car.SteerFor(wheel, v)
	d.cl.gather(env, pos, c.Y, car.Length+manLook+1)
	free := manLook
	if !d.blind {
		free = d.cl.arcFree(pos, c.Heading, -1, steer*fullLock(backSpeed), manLook, d.clear())
	}
	want := -min(backSpeed, math.Sqrt(2*manBrake*max(0, free-d.margin())))
	// Back until far enough, and on the line again (a car that ran wide of
	// it rejoins it behind what it hit).
	backed := pos.Sub(d.backFrom).Len()
	onLine := d.ahead[d.here].Dist2(pos) < backOnLine*backOnLine
	if (backed >= d.backOut && onLine) || backed >= backOutMax || d.backTime >= backOutTime || want > -0.3 {
		if math.Abs(v) < 0.05 {
			d.endManoeuvre()
			return car.Input{}, false
		}
		want = 0
	}
	in := pedal(v, want, dt)
	in.Steer = steer
	return in, true
}

// endManoeuvre goes back to driving the line, with a fresh plan and
// progress window.
func (d *Driver) endManoeuvre() {
	d.mode = modeDrive
	d.window, d.progress, d.pressed, d.blockedFor = 0, 0, 0, 0
	d.sincePlan = math.Inf(1)
}

// startTurn begins a manoeuvre: turning round (back: the route is turned
// round onto the other lane, and the arm it was on is avoided from now
// on), or into the sharp turn ahead. planTurn picks the way round and how
// far to back up first.
func (d *Driver) startTurn(c *car.Car, env car.Env, back bool) {
	m := manoeuvre{gear: 1, move: moveTurn}
	prefer := 1.0 // round to the left, across the road, as traffic keeps right
	if back {
		d.avoidThisArm()
		d.route.Reverse()
		d.turnBack = math.Inf(1)
		_, m.goal = d.route.centre()
		d.TurnArounds++
	} else {
		m.goal = d.route.dirAhead(manAhead)
		prefer = math.Copysign(1, angleTo(dirOf(c.Heading), m.goal))
	}
	d.cl.gather(env, c.Pos, c.Y, 2*car.Length+2*manLook)
	var backUp float64
	m.side, backUp = d.planTurn(c.Pos, c.Heading, m.goal, prefer)
	m.limit = math.Inf(1)
	if backUp > 0 {
		m.move, m.gear, m.limit = moveBackUp, -1, backUp
	}
	d.man = m
	d.mode = modeTurn
	d.sincePlan = math.Inf(1)
}

// Turn planning: how far the car may back straight up before it turns,
// and the moves it tries ahead.
const (
	uTurnBackUp = 6.0 // metres
	backUpStep  = 0.5
	planMoves   = 7
)

// planTurn picks the way round (side: +1 left) and how far to back
// straight up first (metres) for a car at p with heading h to face goal:
// the start from which the manoeuvre's own moves (forward at full lock
// until something is near, back at full lock the other way, and so on)
// face goal in the fewest moves, then after the shortest back-up, the
// side prefer on a tie. A U-turn is one move.
func (d *Driver) planTurn(p world.Vec2, h float64, goal world.Vec2, prefer float64) (float64, float64) {
	bestSide, bestBack, bestMoves, bestRot := prefer, 0.0, math.MaxInt, -1.0
	back := dirOf(h).Scale(-1)
	d.cl.coarse = true
	defer func() { d.cl.coarse = false }()
	for _, side := range [2]float64{prefer, -prefer} {
		for s := 0.0; s <= uTurnBackUp; s += backUpStep {
			if s > 0 && d.cl.arcFree(p, h, -1, 0, s, d.clear()) < s {
				break
			}
			moves, rot := d.tryTurn(p.Add(back.Scale(s)), h, side, goal)
			if moves < bestMoves || (moves == bestMoves && moves > planMoves && rot > bestRot+0.05) {
				bestSide, bestBack, bestMoves, bestRot = side, s, moves, rot
			}
			if moves == 1 {
				return bestSide, bestBack // a U-turn: nothing is better
			}
		}
	}
	return bestSide, bestBack
}

// tryTurn plays the manoeuvre's moves from p, heading h, turning to side:
// the moves it takes to face goal (more than planMoves: not in as many),
// and the radians turned towards it.
func (d *Driver) tryTurn(p world.Vec2, h, side float64, goal world.Vec2) (int, float64) {
	lock := side * fullLock(manSpeed)
	r := turnRadius(manSpeed)
	start := remaining(h, side, goal)
	gear := 1
	for moves := 1; moves <= planMoves; moves++ {
		look := maxReverseRun
		if gear > 0 {
			look = r*(remaining(h, side, goal)-turnDone/2) + d.margin()
		}
		f := d.cl.arcFree(p, h, gear, lock*float64(gear), look, d.clear())
		if gear > 0 && f >= look {
			return moves, start
		}
		p, h = arcMove(p, h, gear, lock*float64(gear), max(0, f-d.margin()))
		gear = -gear
	}
	return planMoves + 1, start - remaining(h, side, goal)
}

// remaining is how far (radians) a car with heading h has still to turn
// to side (+1: left) to face goal.
func remaining(h, side float64, goal world.Vec2) float64 {
	a := side * angleTo(dirOf(h), goal)
	if a < -turnDone/2 {
		a += 2 * math.Pi
	}
	return a
}

// uTurnFrom reports whether a car at p with heading h can turn to face
// goal in one move forward at full lock to side (+1: left), in what
// d.cl gathered.
func (d *Driver) uTurnFrom(p world.Vec2, h, side float64, goal world.Vec2) bool {
	need := turnRadius(manSpeed)*(remaining(h, side, goal)-turnDone/2) + d.margin()
	return d.cl.arcFree(p, h, 1, side*fullLock(manSpeed), need, d.clear()) >= need
}

// avoidThisArm remembers the arm the route is on (from the junction it
// left) as one that led to a blockage or a dead end, and the arm before
// it too when there was no other way at the junction between.
func (d *Driver) avoidThisArm() {
	r := d.route
	from := r.edge.JunctionAt(!r.forward)
	if from == nil {
		return
	}
	d.arms.Add(r.edge, from, d.clock)
	d.g.EnsureJunctionArms(from)
	if len(from.Arms) <= 2 && r.prev != nil && r.prev != r.edge {
		d.arms.Add(r.prev, r.prev.JunctionAt(!r.prevForward), d.clock)
	}
}

// turning is a step of a manoeuvre (false: it is over and the car drives
// on this step). Each move goes until what is ahead of it (or behind) is
// near, or its limit; a move back at full lock also ends as soon as the
// rest of the turn is clear forward.
func (d *Driver) turning(c *car.Car, env car.Env, dt float64) (car.Input, bool) {
	m := &d.man
	m.time += dt
	pos, fwd, v := c.Pos, c.Forward(), c.Speed()
	rem := angleTo(fwd, m.goal)
	if math.Abs(rem) < turnDone {
		if m.gear > 0 || math.Abs(v) < 0.05 {
			if m.moves <= 1 {
				d.UTurns++
			} else {
				d.PointTurns++
			}
			d.endManoeuvre()
			return car.Input{}, false
		}
		return stopInput(v, dt, 0), true
	}
	if m.time > turnTimeout || m.moves > maxShunts {
		d.endManoeuvre()
		d.Reroute(pos, fwd)
		return car.Input{}, false
	}
	d.cl.gather(env, pos, c.Y, 2*car.Length+2*manLook)
	if m.shifting { // stopping, the wheels already turning for the next move
		if math.Abs(v) >= 0.05 {
			return stopInput(v, dt, m.steer()), true
		}
		m.shifting = false
	}
	steer := m.steer()
	// The wheels turn before the car moves.
	if math.Abs(c.Steer-steer*fullLock(v)) > 0.12 && math.Abs(v) < pressedSpeed {
		return stopInput(v, dt, steer), true
	}
	free := d.cl.arcFree(pos, c.Heading, m.gear, steer*fullLock(manSpeed), manLook, d.clear())
	want := min(manSpeed, math.Sqrt(2*manBrake*max(0, free-d.margin())))
	want = min(want, math.Sqrt(2*manBrake*max(0, m.limit-m.run)))
	if m.move == moveTurn && m.gear < 0 {
		if m.check -= dt; m.check <= 0 {
			m.check = 0.25
			if d.uTurnFrom(pos, c.Heading, m.side, m.goal) {
				want = 0
			}
		}
	}
	if want < 0.4 {
		m.shifting = true
		d.nextMove(pos, c.Heading)
		return stopInput(v, dt, m.steer()), true
	}
	m.run += math.Abs(v) * dt
	in := pedal(v, want*float64(m.gear), dt)
	in.Steer = steer
	return in, true
}

// steer is the steering input of the move.
func (m *manoeuvre) steer() float64 {
	if m.move != moveTurn {
		return 0
	}
	return m.side * float64(m.gear)
}

// minMove is the shortest move worth making (metres).
const minMove = 0.5

// nextMove picks the manoeuvre's next move from a stop at p, heading h:
// the other way at full lock after a turn (forward after backing up),
// else the same way again; where neither turn can move, a short straight
// move, whichever way has room; where nothing can, the other side once,
// then it gives up.
func (d *Driver) nextMove(p world.Vec2, h float64) {
	m := &d.man
	if m.run >= arcStep {
		m.idle = 0
	} else {
		m.idle++
	}
	if m.move != moveBackUp {
		m.moves++
	}
	next := 1
	if m.move == moveTurn {
		next = -m.gear
	}
	m.run, m.check, m.limit = 0, 0, math.Inf(1)
	lock := m.side * fullLock(manSpeed)
	turnFree := func(g int) float64 { return d.cl.arcFree(p, h, g, lock*float64(g), 1, d.clear()) }
	straightFree := func(g int) float64 { return d.cl.arcFree(p, h, g, 0, 2, d.clear()) }
	switch {
	case m.idle < 2 && turnFree(next) >= minMove:
		m.move, m.gear = moveTurn, next
	case m.idle < 2 && turnFree(-next) >= minMove:
		m.move, m.gear = moveTurn, -next
	default:
		f, b := straightFree(1), straightFree(-1)
		switch {
		case m.move != moveStraight && max(f, b) >= minMove:
			m.move, m.gear, m.limit = moveStraight, 1, min(f-d.margin(), 1.5)
			if b > f {
				m.gear, m.limit = -1, min(b-d.margin(), 1.5)
			}
		case !m.flipped:
			m.side, m.flipped, m.idle = -m.side, true, 0
			m.move, m.gear = moveTurn, 1
		default:
			m.moves = maxShunts + 1 // shut in: give up
		}
	}
	if m.move == moveTurn && m.gear < 0 {
		m.limit = maxReverseRun
	}
}

// pedal is the throttle or brake that takes speed v towards want (m/s,
// negative backwards); the brake pedal reverses below 0.5 m/s.
func pedal(v, want, dt float64) car.Input {
	const tol = 0.15
	switch {
	case want == 0:
		return stopInput(v, dt, 0)
	case want > 0 && v < want-tol:
		return car.Input{Throttle: clamp((want-v)/2, 0.1, 1)}
	case want > 0 && v > want+tol && v > 0.5:
		return car.Input{Brake: clamp((v-want)/1.5, 0.1, 1)}
	case want < 0 && v > want+tol && v > 0.5:
		return car.Input{Brake: 1}
	case want < 0 && v > want+tol:
		return car.Input{Brake: clamp((v-want)/2, 0.1, 1)}
	case want < 0 && v < want-tol:
		return car.Input{Throttle: clamp((want-v)/2, 0.05, 1)}
	}
	return car.Input{}
}

// stopInput is the pedal that stops the car from speed v as fast as it
// can without driving it the other way, with the wheels steered to steer.
func stopInput(v, dt, steer float64) car.Input {
	in := car.Input{Steer: steer}
	switch {
	case v > 0.5:
		in.Brake = 1
	case v > 0: // the brake pedal reverses from here: just enough of it
		in.Brake = clamp((v/dt-rollingDrag)/reverseAccel, 0, 1)
	case v < 0:
		in.Throttle = clamp((-v/dt-rollingDrag)/engineAccel, 0, 1)
	}
	return in
}

// The car's pedal response at a standstill (car.go), for stopping exactly.
const (
	rollingDrag  = 0.25
	reverseAccel = 4.0
	engineAccel  = 7.0
)

// edgeAhead is the edge the route is on d metres ahead, the junction it
// was entered from, and whether that is beyond a junction (not the edge
// the route is on now, nor this one again after turning back: past where
// the route turns back, the line runs straight on, on no edge).
func (r *Route) edgeAhead(d float64) (*roadgraph.Edge, *roadgraph.Junction, bool) {
	if r.TurnsBack(d) <= d {
		return r.edge, r.edge.JunctionAt(!r.forward), false
	}
	c := r.peek(max(d, 0))
	return c.edge, c.edge.JunctionAt(!c.forward), c.edge != r.edge
}

// dirAhead is the route's direction of travel d metres ahead.
func (r *Route) dirAhead(d float64) world.Vec2 {
	c := r.peek(d)
	_, dir := c.centre()
	return dir
}
