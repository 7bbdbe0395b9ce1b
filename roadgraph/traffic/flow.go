package traffic

import (
	"math"

	"citydrive/roadgraph/world"
)

// Local reaction: a vehicle that finds the player's car (or a vehicle
// ahead of it that is already held up) in its path brakes so as to stop
// short of it, and afterwards drives a little faster than its schedule
// until it is back on it. Only vehicles near the car deviate, and only by
// how long they were held up.
const (
	reactRadius = 80.0 // metres: vehicles this near the car look out for it
	stopGap     = 2.0  // metres left in front of a stopped vehicle
	brakeDecel  = 6.0  // m/s²: the braking that sets a vehicle's safe speed
	sideMargin  = 0.3  // metres: a blocker this far beside the path is passed
	rejoinShare = 0.3  // a late vehicle drives this share above its schedule speed
	maxLagging  = 128  // vehicles held up at once; more go by on schedule
	// A vehicle enters its lane at the lane's start, wherever the car is:
	// one that would enter where the car stands, or up to spawnBehind
	// metres ahead of it in its lane (the car could not stop for it),
	// waits off the road until the car is past, then follows it.
	spawnBehind = 60.0
	spawnFresh  = 1.0  // metres into its lane a vehicle counts as just entering
	entryClear  = 20.0 // metres around the entry the car keeps clear of vehicles entering (it may be turning in)
	entrySide   = 1.5  // metres beside the lane (both widths apart) the car still holds an entering vehicle
)

// Blocker is something traffic must not drive into: the player's car.
type Blocker struct {
	Pos, Dir      world.Vec2 // centre and unit heading
	Length, Width float64
}

type lagging struct {
	key  Key
	lag  float64 // metres behind schedule
	seen bool
	held bool // waiting off the road to enter it (spawnBehind)
	// forCar: at the last Update it was braking for the car (not for a
	// vehicle ahead of it).
	forCar bool
	// standoff: seconds it has stood still for a car standing still too;
	// gone: it gave way, and stays off the road (held) for good
	standoff float64
	gone     bool
	// out: its index in Flow.out at this Update (-1: not there), so a
	// vehicle finds its late leader without a search
	out int
}

// Flow is the traffic one client shows: the schedule around its car, with
// the vehicles near the car reacting to it. Not safe for concurrent use.
type Flow struct {
	s     *Schedule
	lags  []lagging
	index lagTable // of lags
	out   []Vehicle
	sched []Vehicle
	// carAt is where the car was at the last Update; placed is false
	// before the first. A car that appears (the start, a reset: it moved
	// more than CarJump in one Update) has the vehicles under it held.
	carAt  world.Vec2
	placed bool
	carVel world.Vec2 // the car's velocity over the last Update
	plan   *Plan      // where the scheduled vehicles come from when it covers them (plan.go)
	others []Blocker  // other players' cars (SetOthers)
}

// MaxOthers bounds the other players' cars the traffic brakes for: the
// nearest few are all a vehicle near this car can meet.
const MaxOthers = 16

// flowCapacity sizes the vehicle lists for a busy neighbourhood.
const flowCapacity = 1024

// NewFlow returns the flow of schedule s.
func NewFlow(s *Schedule) *Flow {
	return &Flow{
		s: s, lags: make([]lagging, 0, maxLagging), others: make([]Blocker, 0, MaxOthers),
		out: make([]Vehicle, 0, flowCapacity), sched: make([]Vehicle, 0, flowCapacity),
	}
}

// Schedule is the flow's schedule.
func (f *Flow) Schedule() *Schedule { return f.s }

// SetOthers is the other players' cars near this one (up to MaxOthers
// are kept, the rest ignored) for the next Updates: vehicles near one
// brake for it as for the car, and rejoin their schedule once it is out
// of their way. Only the car itself holds vehicles at their lane's entry
// or stands them off (its own client does that for each other player).
func (f *Flow) SetOthers(bs []Blocker) {
	f.others = append(f.others[:0], bs[:min(len(bs), MaxOthers)]...)
}

// Vehicles is the last Update's result. Do not modify.
func (f *Flow) Vehicles() []Vehicle { return f.out }

// Lag is how many metres vehicle k runs behind its schedule (0 if on it).
func (f *Flow) Lag(k Key) float64 {
	if i := f.lagIndex(k); i >= 0 {
		return f.lags[i].lag
	}
	return 0
}

// WaitsForCar reports whether vehicle k was braking for the car at the
// last Update (the car, not a vehicle ahead, set its speed): the car need
// not wait for it in turn, or the two would wait for each other for ever.
func (f *Flow) WaitsForCar(k Key) bool {
	i := f.lagIndex(k)
	return i >= 0 && f.lags[i].forCar
}

// Ahead is vehicle k at world time t, s metres further along its path
// than the flow has it (lag included): where it is going, turns and all.
func (f *Flow) Ahead(k Key, t, s float64) (Vehicle, bool) {
	return f.s.At(k, t, f.Lag(k)-s)
}

// Lagging is how many vehicles run behind their schedule.
func (f *Flow) Lagging() int { return len(f.lags) }

func (f *Flow) lagIndex(k Key) int { return f.index.find(f.lags, k) }

// addLag appends l to the lagging vehicles.
func (f *Flow) addLag(l lagging) {
	f.lags = append(f.lags, l)
	f.index.add(l.key, len(f.lags)-1)
}

// placeOut appends v to out; i is its lag's index (-1: it is on schedule).
func (f *Flow) placeOut(v Vehicle, i int) {
	if i >= 0 && f.lags[i].out < 0 {
		f.lags[i].out = len(f.out)
	}
	f.out = append(f.out, v)
}

// Update computes the traffic within radius of centre at world time t, dt
// seconds after the previous Update, with the vehicles near car reacting
// to it, and returns it. It allocates nothing in steady state.
func (f *Flow) Update(t, dt float64, centre world.Vec2, radius float64, car Blocker) []Vehicle {
	f.sched = f.scheduled(t, centre, radius)
	f.out = f.out[:0]
	appeared := !f.placed || car.Pos.Dist2(f.carAt) > CarJump*CarJump
	f.carVel = world.Vec2{}
	if !appeared && dt > 0 {
		f.carVel = car.Pos.Sub(f.carAt).Scale(1 / dt)
	}
	f.carAt, f.placed = car.Pos, true
	for i := range f.lags {
		f.lags[i].seen = false
		f.lags[i].out = -1
	}
	for _, v := range f.sched {
		if i := f.lagIndex(v.Key); i >= 0 {
			f.lags[i].seen = true
			if f.lags[i].held {
				continue
			}
			if lv, ok := f.s.At(v.Key, t, f.lags[i].lag); ok {
				f.placeOut(lv, i)
			}
			continue
		}
		if v.U-v.Start < spawnFresh && f.hold(v, t, car) {
			continue
		}
		if appeared && under(&v, car) && f.holdUnder(v) {
			continue
		}
		f.placeOut(v, -1)
	}
	// Late vehicles the schedule no longer places here (it has them past
	// their turn already, or beyond the radius) are still on the road;
	// held ones enter once the car is clear of their entry.
	for i := range f.lags {
		l := &f.lags[i]
		entered := false
		if l.held {
			if entered = !l.gone && f.release(l, t, car); !entered {
				continue
			}
		}
		if l.seen && !entered {
			continue // placed above
		}
		if lv, ok := f.s.At(l.key, t, l.lag); ok {
			f.placeOut(lv, i)
		}
	}
	for i := range f.out {
		f.react(i, t, dt, car)
	}
	// Forget the vehicles that have left the road, or are back on their
	// schedule; a held one while its scheduled self is still on the road.
	n := len(f.lags)
	for i := 0; i < len(f.lags); {
		l := &f.lags[i]
		keep := false
		if l.held {
			_, keep = f.s.At(l.key, t, 0)
		} else if _, ok := f.s.At(l.key, t, l.lag); ok && l.lag > 0 {
			keep = true
		}
		if !keep {
			f.lags[i] = f.lags[len(f.lags)-1]
			f.lags = f.lags[:len(f.lags)-1]
			continue
		}
		i++
	}
	if len(f.lags) != n {
		f.index.rebuild(f.lags)
	}
	return f.out
}

// hold keeps vehicle v, just entering its lane, off the road when the car
// is at its entry or coming up to it in its lane, or when a vehicle due
// before it still waits there; it reports whether it did (false also when
// too many vehicles lag already).
func (f *Flow) hold(v Vehicle, t float64, car Blocker) bool {
	if !entryBlocked(&v, car) && !f.entryTaken(v.Key, t) || len(f.lags) == cap(f.lags) {
		return false
	}
	f.addLag(lagging{key: v.Key, lag: v.U - v.Start + 1e-3, seen: true, held: true, out: -1})
	return true
}

// A standoff: a vehicle standing for the car for standoffTime while the
// car stands too (slower than standoffSpeed), in front of the car (so the
// car may be waiting for it in turn: face to face, or across a junction),
// is taken off the road for good (its scheduled self goes on for everyone
// else). A queue behind a car that waits (at a red light, say) waits with
// it.
const (
	standoffTime  = 5.0 // seconds
	standoffSpeed = 1.0 // m/s
	standoffSide  = 4.0 // metres beside both widths that count as in front
)

// facing: v stands in front of the car, in its way or nearly.
func facing(v *Vehicle, car Blocker) bool {
	d := v.Pos.Sub(car.Pos)
	return d.Dot(car.Dir) > 0 && math.Abs(d.Dot(right(car.Dir))) < car.Width/2+VehicleWidth/2+standoffSide
}

// CarJump: a car that moves further than this in one Update was put
// there (the game's start, a reset), not driven.
const CarJump = 10.0

// under: v's box, grown by stopGap, overlaps the car's.
func under(v *Vehicle, car Blocker) bool {
	d := car.Pos.Sub(v.Pos)
	cos := math.Abs(car.Dir.Dot(v.Dir))
	sin := math.Abs(car.Dir.X*v.Dir.Z - car.Dir.Z*v.Dir.X)
	along := cos*car.Length/2 + sin*car.Width/2
	across := sin*car.Length/2 + cos*car.Width/2
	return math.Abs(d.Dot(v.Dir)) < VehicleLength/2+along+stopGap &&
		math.Abs(d.Dot(right(v.Dir))) < VehicleWidth/2+across+sideMargin
}

// holdUnder takes vehicle v, on the road where the car has just appeared,
// off it: it waits to enter its lane again like a held entering vehicle.
func (f *Flow) holdUnder(v Vehicle) bool {
	if len(f.lags) == cap(f.lags) {
		return false
	}
	f.addLag(lagging{key: v.Key, lag: v.U - v.Start + 1e-3, seen: true, held: true, out: -1})
	return true
}

// entrySpacing is the room a vehicle leaves in front of the next one to
// enter its lane.
const entrySpacing = VehicleLength + stopGap

// entryTaken: a vehicle of k's lane due to enter before k (an earlier
// cycle, or earlier in k's platoon) still waits to enter, or has entered
// late and stands within entrySpacing of the entry. k enters after it, or
// the two would stand in one place.
func (f *Flow) entryTaken(k Key, t float64) bool {
	for i := range f.lags {
		l := &f.lags[i]
		o := l.key
		if l.gone || o.Edge != k.Edge || o.Lane != k.Lane || o.Cycle > k.Cycle || o.Cycle == k.Cycle && o.K >= k.K {
			continue
		}
		if l.held {
			return true
		}
		if v, ok := f.s.At(o, t, l.lag); ok && v.U-v.Start < entrySpacing {
			return true
		}
	}
	return false
}

// release lets held vehicle l enter its lane once the car is clear of the
// entry, at the entry and late by as much as it waited; until then its
// lag grows with the schedule. It reports whether l entered now.
func (f *Flow) release(l *lagging, t float64, car Blocker) bool {
	v0, ok := f.s.At(l.key, t, 0)
	if !ok {
		return false
	}
	late := v0.U - v0.Start
	at, ok := f.s.At(l.key, t, late)
	if !ok {
		return false
	}
	l.lag = late + 1e-3
	if entryBlocked(&at, car) || f.entryTaken(l.key, t) {
		return false
	}
	l.held, l.lag = false, late
	return true
}

// entryBlocked: v stands at its lane's entry and the car is within
// entryClear of it (turning in, say), or up to spawnBehind metres before
// it in v's lane.
func entryBlocked(v *Vehicle, car Blocker) bool {
	d := car.Pos.Sub(v.Pos)
	if d.Dot(d) < entryClear*entryClear {
		return true
	}
	a := d.Dot(v.Dir)
	cos := math.Abs(car.Dir.Dot(v.Dir))
	sin := math.Abs(car.Dir.X*v.Dir.Z - car.Dir.Z*v.Dir.X)
	along := cos*car.Length/2 + sin*car.Width/2
	across := sin*car.Length/2 + cos*car.Width/2
	if math.Abs(d.Dot(right(v.Dir))) > VehicleWidth/2+across+entrySide {
		return false
	}
	return a >= -spawnBehind && a <= VehicleLength/2+along+stopGap
}

// react brakes vehicle i for the car, or for its platoon leader when that
// one is late, and moves it to where that leaves it.
func (f *Flow) react(i int, t, dt float64, car Blocker) {
	v := &f.out[i]
	li := f.lagIndex(v.Key)
	var leader *Vehicle
	// The leader is of v's platoon, or of the one before (leaderOf):
	// when no one there lags, neither does the leader, whoever it is.
	lc := v.Key.Cycle
	if v.Key.K == 0 {
		lc--
	}
	if f.index.platoonMayLag(v.Key.Edge, v.Key.Lane, lc) {
		if lk, ok := f.leaderOf(v.Key); ok {
			if j := f.lagIndex(lk); j >= 0 && f.lags[j].out >= 0 {
				leader = &f.out[f.lags[j].out]
			}
		}
	}
	nearCar := v.Pos.Dist2(car.Pos) < reactRadius*reactRadius
	otherGap := math.Inf(1)
	for j := range f.others {
		if o := &f.others[j]; v.Pos.Dist2(o.Pos) < reactRadius*reactRadius {
			otherGap = min(otherGap, gapTo(v, *o))
		}
	}
	if li < 0 && leader == nil && !nearCar && math.IsInf(otherGap, 1) {
		return
	}
	sched := v.Speed
	lag := 0.0
	if li >= 0 {
		lag = f.lags[li].lag
	}
	carGap, gap := math.Inf(1), math.Inf(1)
	if nearCar {
		if v.U > v.Stop-turnLook && v.Pos.Dist2(car.Pos) < turnLook*turnLook {
			// turning, or about to: along its curve, not straight on
			carGap = f.pathGap(v, lag, t, car)
		} else {
			carGap = gapTo(v, car)
		}
	}
	if nearCar && v.U <= v.Stop && v.Stop-v.U < yieldLook {
		// before its junction: it waits at the stop line for a car that
		// would be in its way through the junction
		if g := v.Stop - v.U - VehicleLength/2 - yieldShort; g < carGap && f.conflict(v, lag, t, car) {
			carGap = max(0, g)
		}
	}
	gap = min(carGap, otherGap)
	if lag > 0 && v.U <= v.Stop && v.Stop-v.U < yieldLook {
		gap = min(gap, f.redGap(v, t))
	}
	if leader != nil {
		gap = min(gap, gapTo(v, Blocker{Pos: leader.Pos, Dir: leader.Dir, Length: VehicleLength, Width: VehicleWidth}))
	}
	want := sched
	if lag > 0 {
		want = sched * (1 + rejoinShare)
	}
	speed := min(want, math.Sqrt(2*brakeDecel*max(0, gap)))
	// Held up at its lane's entry, a vehicle waits there: a lag taking it
	// back past the entry would take it off the road, and it would be
	// forgotten and jump to its schedule.
	next := min(max(0, lag+(sched-speed)*dt), v.U+lag-v.Start-1e-6)
	if next == lag && li < 0 {
		return
	}
	if li < 0 {
		if len(f.lags) == cap(f.lags) {
			return // too many held up: this one goes by on schedule
		}
		f.addLag(lagging{key: v.Key, seen: true, out: i})
		li = len(f.lags) - 1
	}
	f.lags[li].lag = next
	l := &f.lags[li]
	l.forCar = speed < want && carGap <= gap
	// An Update with no time passed (a frame with no simulation step, on a
	// display faster than the physics) judges nothing: the vehicle, placed
	// where the last step left it, reads a little short of the car and not
	// quite still, which would restart every standoff.
	switch {
	case dt <= 0: // the standoff stays as it is
	case l.forCar && speed == 0 && f.carVel.Dot(f.carVel) < standoffSpeed*standoffSpeed && facing(v, car):
		l.standoff += dt
	default:
		l.standoff = 0
	}
	if l.standoff > standoffTime {
		// The car waits for it as it waits for the car: it gives way
		// by leaving the road.
		l.held, l.gone, l.standoff = true, true, 0
	}
	if nv, ok := f.s.At(v.Key, t, next); ok {
		*v = nv
	}
	v.Speed = speed
}

// turnLook: within this many metres of its turn, a vehicle looks for the
// car along its own path (sampled every turnStep metres) rather than
// straight ahead, so it neither stops for a car its turn passes by nor
// misses one on its curve.
const (
	turnLook = 25.0
	turnStep = 1.0
)

// leaderOf is the vehicle ahead of k in its lane by the schedule: the one
// before it in its platoon, or the last of the platoon before (a queue
// held up by the car reaches back across cycles).
func (f *Flow) leaderOf(k Key) (Key, bool) {
	if k.K > 0 {
		k.K--
		return k, true
	}
	if len(f.lags) == 0 {
		return k, false // no one is late: no one to follow
	}
	g := f.s.geomByID(k.Edge)
	if g == nil {
		return k, false
	}
	n := f.s.platoon(g, k.Lane, k.Cycle-1)
	if n == 0 {
		return k, false
	}
	k.Cycle--
	k.K = uint8(n - 1)
	return k, true
}

// Junction yield: a vehicle coming up to its stop line looks along its
// path through the junction (every yieldStep metres, for as long as it is
// in the junction or yieldTime seconds at most) for the car, moving on at
// its present velocity; if the two would meet, it waits at the stop line
// (its nose yieldShort before it) until they would not. A car turning across it, or
// still in the junction on amber, is let through instead of met there.
const (
	yieldLook  = 30.0 // metres before the stop line it starts to look
	yieldStep  = 2.0
	yieldTime  = 4.0 // seconds
	yieldShort = 0.5
	yieldSide  = 0.8 // metres of margin beside both boxes
	yieldAlong = 1.5 // metres of margin ahead and behind
)

// redGap is how far a vehicle behind its schedule may go before its stop
// line when its light shows red at t, or amber it can stop for (+Inf: it
// may go on). On schedule a vehicle crosses on green; held up by the car,
// it would arrive late, and must not then enter across the way of the
// cross traffic's green (and of the car, which has that green).
func (f *Flow) redGap(v *Vehicle, t float64) float64 {
	g := v.Stop - v.U - VehicleLength/2 - yieldShort
	switch f.s.Light(v.Key.Edge, endOf(v.Key.Lane) == 1, t) {
	case Red:
		return max(0, g)
	case AmberLight:
		if v.Speed*v.Speed <= 2*brakeDecel*max(0, g) {
			return max(0, g)
		}
	}
	return math.Inf(1)
}

// conflict reports whether v (lag metres behind its schedule at t), going
// on through its junction at its schedule speed, would meet the car.
func (f *Flow) conflict(v *Vehicle, lag, t float64, car Blocker) bool {
	if v.Speed <= 0 {
		return false
	}
	reach := v.Stop - v.U + 3*turnLook
	vel := f.carVel
	if c := car.Pos.Add(vel.Scale(yieldTime / 2)); c.Dist2(v.Pos) > (reach+vel.Len()*yieldTime/2+car.Length)*(reach+vel.Len()*yieldTime/2+car.Length) {
		return false // nowhere near, even moving
	}
	pa, ok := f.s.pathOf(v.Key)
	if !ok {
		return false
	}
	for s := yieldStep; s <= reach; s += yieldStep {
		tau := s / v.Speed
		if tau > yieldTime {
			break
		}
		pos, dir, u, ok := pa.at(t, lag-s)
		if !ok {
			break // left the junction
		}
		c := car.Pos.Add(vel.Scale(tau))
		d := c.Sub(pos)
		cos := math.Abs(car.Dir.Dot(dir))
		sin := math.Abs(car.Dir.X*dir.Z - car.Dir.Z*dir.X)
		along := cos*car.Length/2 + sin*car.Width/2
		across := sin*car.Length/2 + cos*car.Width/2
		if math.Abs(d.Dot(dir)) < VehicleLength/2+along+yieldAlong && math.Abs(d.Dot(right(dir))) < VehicleWidth/2+across+yieldSide {
			return true
		}
		if u > pa.lt.stop+turnLook*2 {
			break
		}
	}
	return false
}

// pathGap is gapTo along v's path: how far v (lag metres behind its
// schedule at t) can go before its box, grown by sideMargin, would meet
// the car's, less stopGap; +Inf when it leaves the road first.
func (f *Flow) pathGap(v *Vehicle, lag, t float64, car Blocker) float64 {
	pa, ok := f.s.pathOf(v.Key)
	if !ok {
		return math.Inf(1)
	}
	for s := 0.0; s <= turnLook; s += turnStep {
		pos, dir, _, ok := pa.at(t, lag-s)
		if !ok {
			return math.Inf(1)
		}
		d := car.Pos.Sub(pos)
		cos := math.Abs(car.Dir.Dot(dir))
		sin := math.Abs(car.Dir.X*dir.Z - car.Dir.Z*dir.X)
		along := cos*car.Length/2 + sin*car.Width/2
		across := sin*car.Length/2 + cos*car.Width/2
		if math.Abs(d.Dot(dir)) < VehicleLength/2+along && math.Abs(d.Dot(right(dir))) < VehicleWidth/2+across+sideMargin {
			return s - turnStep - stopGap
		}
	}
	return math.Inf(1)
}

// gapTo is the free distance vehicle v has before it must stop for b: how
// far b's box lies ahead along v's path, less both half lengths and
// stopGap; +Inf when b is not in v's way.
func gapTo(v *Vehicle, b Blocker) float64 {
	d := b.Pos.Sub(v.Pos)
	ahead := d.Dot(v.Dir)
	if ahead <= 0 {
		return math.Inf(1)
	}
	cos := math.Abs(b.Dir.Dot(v.Dir))
	sin := math.Abs(b.Dir.X*v.Dir.Z - b.Dir.Z*v.Dir.X)
	along := cos*b.Length/2 + sin*b.Width/2
	across := sin*b.Length/2 + cos*b.Width/2
	if math.Abs(d.Dot(right(v.Dir))) > VehicleWidth/2+across+sideMargin {
		return math.Inf(1)
	}
	return ahead - VehicleLength/2 - along - stopGap
}
