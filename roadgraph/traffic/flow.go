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
}

// Flow is the traffic one client shows: the schedule around its car, with
// the vehicles near the car reacting to it. Not safe for concurrent use.
type Flow struct {
	s     *Schedule
	lags  []lagging
	out   []Vehicle
	sched []Vehicle
	plan  *Plan // where the scheduled vehicles come from when it covers them (plan.go)
}

// flowCapacity sizes the vehicle lists for a busy neighbourhood.
const flowCapacity = 1024

// NewFlow returns the flow of schedule s.
func NewFlow(s *Schedule) *Flow {
	return &Flow{
		s: s, lags: make([]lagging, 0, maxLagging),
		out: make([]Vehicle, 0, flowCapacity), sched: make([]Vehicle, 0, flowCapacity),
	}
}

// Schedule is the flow's schedule.
func (f *Flow) Schedule() *Schedule { return f.s }

// Vehicles is the last Update's result. Do not modify.
func (f *Flow) Vehicles() []Vehicle { return f.out }

// Lag is how many metres vehicle k runs behind its schedule (0 if on it).
func (f *Flow) Lag(k Key) float64 {
	if i := f.lagIndex(k); i >= 0 {
		return f.lags[i].lag
	}
	return 0
}

// Lagging is how many vehicles run behind their schedule.
func (f *Flow) Lagging() int { return len(f.lags) }

func (f *Flow) lagIndex(k Key) int {
	for i := range f.lags {
		if f.lags[i].key == k {
			return i
		}
	}
	return -1
}

// Update computes the traffic within radius of centre at world time t, dt
// seconds after the previous Update, with the vehicles near car reacting
// to it, and returns it. It allocates nothing in steady state.
func (f *Flow) Update(t, dt float64, centre world.Vec2, radius float64, car Blocker) []Vehicle {
	f.sched = f.scheduled(t, centre, radius)
	f.out = f.out[:0]
	for i := range f.lags {
		f.lags[i].seen = false
	}
	for _, v := range f.sched {
		if i := f.lagIndex(v.Key); i >= 0 {
			f.lags[i].seen = true
			if f.lags[i].held {
				continue
			}
			if lv, ok := f.s.At(v.Key, t, f.lags[i].lag); ok {
				f.out = append(f.out, lv)
			}
			continue
		}
		if v.U-v.Start < spawnFresh && f.hold(v, car) {
			continue
		}
		f.out = append(f.out, v)
	}
	// Late vehicles the schedule no longer places here (it has them past
	// their turn already, or beyond the radius) are still on the road;
	// held ones enter once the car is clear of their entry.
	for i := range f.lags {
		l := &f.lags[i]
		entered := false
		if l.held {
			if entered = f.release(l, t, car); !entered {
				continue
			}
		}
		if l.seen && !entered {
			continue // placed above
		}
		if lv, ok := f.s.At(l.key, t, l.lag); ok {
			f.out = append(f.out, lv)
		}
	}
	for i := range f.out {
		f.react(i, t, dt, car)
	}
	// Forget the vehicles that have left the road, or are back on their
	// schedule; a held one while its scheduled self is still on the road.
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
	return f.out
}

// hold keeps vehicle v, just entering its lane, off the road when the car
// is at its entry or coming up to it in its lane; it reports whether it
// did (false also when too many vehicles lag already).
func (f *Flow) hold(v Vehicle, car Blocker) bool {
	if !entryBlocked(&v, car) || len(f.lags) == cap(f.lags) {
		return false
	}
	f.lags = append(f.lags, lagging{key: v.Key, lag: v.U - v.Start + 1e-3, seen: true, held: true})
	return true
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
	if entryBlocked(&at, car) {
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
	if v.Key.K > 0 {
		lk := v.Key
		lk.K--
		if f.lagIndex(lk) >= 0 {
			for j := range f.out {
				if f.out[j].Key == lk {
					leader = &f.out[j]
					break
				}
			}
		}
	}
	nearCar := v.Pos.Dist2(car.Pos) < reactRadius*reactRadius
	if li < 0 && leader == nil && !nearCar {
		return
	}
	sched := v.Speed
	lag := 0.0
	if li >= 0 {
		lag = f.lags[li].lag
	}
	gap := math.Inf(1)
	if nearCar {
		if v.U > v.Stop-turnLook && v.Pos.Dist2(car.Pos) < turnLook*turnLook {
			// turning, or about to: along its curve, not straight on
			gap = f.pathGap(v, lag, t, car)
		} else {
			gap = gapTo(v, car)
		}
	}
	if leader != nil {
		gap = math.Min(gap, gapTo(v, Blocker{Pos: leader.Pos, Dir: leader.Dir, Length: VehicleLength, Width: VehicleWidth}))
	}
	want := sched
	if lag > 0 {
		want = sched * (1 + rejoinShare)
	}
	speed := math.Min(want, math.Sqrt(2*brakeDecel*math.Max(0, gap)))
	next := math.Max(0, lag+(sched-speed)*dt)
	if next == lag && li < 0 {
		return
	}
	if li < 0 {
		if len(f.lags) == cap(f.lags) {
			return // too many held up: this one goes by on schedule
		}
		f.lags = append(f.lags, lagging{key: v.Key, seen: true})
		li = len(f.lags) - 1
	}
	f.lags[li].lag = next
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

// pathGap is gapTo along v's path: how far v (lag metres behind its
// schedule at t) can go before its box, grown by sideMargin, would meet
// the car's, less stopGap; +Inf when it leaves the road first.
func (f *Flow) pathGap(v *Vehicle, lag, t float64, car Blocker) float64 {
	for s := 0.0; s <= turnLook; s += turnStep {
		p, ok := f.s.At(v.Key, t, lag-s)
		if !ok {
			return math.Inf(1)
		}
		d := car.Pos.Sub(p.Pos)
		cos := math.Abs(car.Dir.Dot(p.Dir))
		sin := math.Abs(car.Dir.X*p.Dir.Z - car.Dir.Z*p.Dir.X)
		along := cos*car.Length/2 + sin*car.Width/2
		across := sin*car.Length/2 + cos*car.Width/2
		if math.Abs(d.Dot(p.Dir)) < VehicleLength/2+along && math.Abs(d.Dot(right(p.Dir))) < VehicleWidth/2+across+sideMargin {
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
