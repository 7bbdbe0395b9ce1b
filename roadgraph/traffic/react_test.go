package traffic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// enteringLane is the rush-hour schedule of the test world, a vehicle
// entering a lane over 80 m long near its busy junction, and the time it
// enters.
func enteringLane(t *testing.T) (*Schedule, Vehicle, float64) {
	t.Helper()
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	for tt := 0.0; tt < 2*SignalPeriod; tt += 0.25 {
		vs := s.Vehicles(tt, p, 250, nil)
		for _, v := range vs {
			if v.U-v.Start < 0.5 && v.Stop-v.Start > 80 && leads(vs, v, 60) {
				return s, v, tt
			}
		}
	}
	t.Fatal("no vehicle entering a long lane")
	return nil, Vehicle{}, 0
}

// leads reports whether no other vehicle of v's lane is within d metres
// ahead of it: a scene set in front of v is v's alone.
func leads(vs []Vehicle, v Vehicle, d float64) bool {
	for _, o := range vs {
		if o.Key != v.Key && o.Key.Edge == v.Key.Edge && o.Key.Lane == v.Key.Lane && o.U > v.U && o.U-v.U < d {
			return false
		}
	}
	return true
}

// carOnLane is a car standing on v's lane, u metres past its start,
// facing along it.
func carOnLane(s *Schedule, v Vehicle, u float64) Blocker {
	pos, dir := s.geomByID(v.Key.Edge).lanePoint(v.Key.Lane, v.Start+u)
	return Blocker{Pos: pos, Dir: dir, Length: 4.2, Width: 1.8}
}

// frameChecker follows a flow's vehicles from one Update to the next.
type frameChecker struct {
	t    *testing.T
	prev map[Key]Vehicle
}

// check: no vehicle overlaps the car, none jumps (moves further than its
// fastest rejoining speed allows), and no two vehicles of one lane stand
// in one place.
func (c *frameChecker) check(vs []Vehicle, car Blocker, tt, dt float64) {
	c.t.Helper()
	next := make(map[Key]Vehicle, len(vs))
	for i, v := range vs {
		require.False(c.t, overlap(box(v), car), "vehicle %+v (u %.1f) on the car at %.2f", v.Key, v.U-v.Start, tt)
		if p, ok := c.prev[v.Key]; ok {
			moved := v.Pos.Sub(p.Pos).Len()
			// 2 cm to spare: a lane outside a bend is a little longer than
			// the centre line its u measures
			require.LessOrEqual(c.t, moved, avenueSpeedMax*(1+rejoinShare)*dt+0.02,
				"vehicle %+v jumped %.1f m at %.2f (u %.1f to %.1f)", v.Key, moved, tt, p.U-p.Start, v.U-v.Start)
		}
		next[v.Key] = v
		for _, o := range vs[i+1:] {
			if o.Key.Edge == v.Key.Edge && o.Key.Lane == v.Key.Lane && v.U <= v.Stop && o.U <= o.Stop {
				require.False(c.t, overlap(box(v), box(o)), "vehicles %+v and %+v in one place at %.2f", v.Key, o.Key, tt)
			}
		}
	}
	c.prev = next
}

// A car standing a little way into a busy lane holds up a queue that
// reaches back to the lane's entry and beyond for several signal cycles:
// the queue waits in line, its last vehicle at the entry (not behind it,
// off the road, from where it would jump back to its schedule), and later
// cycles queue behind earlier ones.
func TestAQueueReachingTheEntryWaitsInLine(t *testing.T) {
	s, v, t0 := enteringLane(t)
	car := carOnLane(s, v, entryClear+8)
	f := NewFlow(s)
	c := frameChecker{t: t}
	const dt = 1.0 / 60
	queued := 0
	for tt := t0 - 1; tt < t0+4*SignalPeriod; tt += dt {
		vs := f.Update(tt, dt, car.Pos, 250, car)
		c.check(vs, car, tt, dt)
		n := 0
		for _, o := range vs {
			if o.Key.Edge == v.Key.Edge && o.Key.Lane == v.Key.Lane && o.Speed == 0 {
				n++
			}
		}
		queued = max(queued, n)
	}
	assert.GreaterOrEqual(t, queued, 3, "a queue formed behind the car")
}

// Vehicles held off the road while the car stood at their lane's entry
// enter one after another once it drives on, not all at once in one place.
func TestHeldVehiclesEnterOneAfterAnother(t *testing.T) {
	s, v, t0 := enteringLane(t)
	car := carOnLane(s, v, 2)
	f := NewFlow(s)
	c := frameChecker{t: t}
	const dt = 1.0 / 60
	tt := t0 - 1
	for ; tt < t0+2*SignalPeriod; tt += dt {
		c.check(f.Update(tt, dt, car.Pos, 250, car), car, tt, dt)
	}
	require.Greater(t, f.Lagging(), 1, "vehicles held at the entry")
	// The car is taken away at the speed it could drive (a jump would hold
	// the vehicles under it again), for 5 s: 100 m, still on its edge (it
	// drives straight, not along the lanes, and past the junction would run
	// into the vehicles ahead of it).
	for end := tt + 5; tt < end; tt += dt {
		car.Pos = car.Pos.Add(car.Dir.Scale(20 * dt))
		c.check(f.Update(tt, dt, car.Pos, 250, car), car, tt, dt)
	}
}

// The car appears (the game's start, a reset) where a scheduled vehicle
// is: that vehicle leaves the road and enters its lane again later, so
// the car never starts inside one.
func TestACarThatAppearsOnAVehicleIsNotInsideIt(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	var on Vehicle
	tt := 0.0
	for ; tt < SignalPeriod && on.Speed == 0; tt += 0.5 {
		for _, v := range s.Vehicles(tt, p, 250, nil) {
			if v.U-v.Start > 20 && v.Stop-v.U > 20 {
				on = v
				break
			}
		}
	}
	require.Positive(t, on.Speed, "a vehicle in the middle of its lane")
	tt -= 0.5
	for _, jump := range []bool{false, true} {
		f := NewFlow(NewSchedule(w, 17.5))
		car := Blocker{Pos: on.Pos.Add(on.Dir.Scale(1)), Dir: on.Dir, Length: 4.2, Width: 1.8}
		if jump { // drive up from far away, then reset onto the vehicle
			far := car
			far.Pos = far.Pos.Add(world.Vec2{X: 500})
			f.Update(tt-1.0/60, 1.0/60, far.Pos, 250, far)
		}
		c := frameChecker{t: t}
		for i := range 120 {
			c.check(f.Update(tt+float64(i)/60, 1.0/60, car.Pos, 250, car), car, tt, 1.0/60)
		}
	}
}

// A vehicle coming up to its junction waits at the stop line for a car
// that crosses its path through the junction, rather than drive on and
// meet it there (where it would stop in the car's way, and the two would
// wait for each other).
func TestVehiclesWaitAtTheStopLineForACarCrossingTheirPath(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	// a vehicle 20 m before its stop line, going straight or turning
	v, tt := comingUpToStopLine(t, s, p, 0)
	// where it will be 6 m into the junction, and when
	at, ok := s.At(v.Key, tt, -(v.Stop - v.U + 6))
	require.True(t, ok)
	when := tt + (v.Stop-v.U+6)/v.Speed
	// The car crosses that point at 10 m/s, square to the vehicle's path
	// there, reaching it when the vehicle would.
	const carSpeed = 10.0
	vel := right(at.Dir).Scale(carSpeed)
	carAt := func(t float64) Blocker {
		return Blocker{Pos: at.Pos.Add(vel.Scale(t - when)), Dir: right(at.Dir), Length: 4.2, Width: 1.8}
	}
	// at 60 updates a second, and at 8 (the car then moves more than a
	// metre an update, and is still driven, not put there)
	for _, dt := range []float64{1.0 / 60, 1.0 / 8} {
		f := NewFlow(s)
		ch := frameChecker{t: t}
		waited := false
		for t1 := tt - 1; t1 < when+3; t1 += dt {
			car := carAt(t1)
			vs := f.Update(t1, dt, car.Pos, 250, car)
			ch.check(vs, car, t1, dt)
			for _, o := range vs {
				if o.Key != v.Key {
					continue
				}
				// its nose behind the stop line until the car's nose is
				// over its path (it may set off as the car crosses: by the
				// time it gets there the car is through)
				if t1 > when-1 && t1 < when-car.Length/2/carSpeed {
					assert.LessOrEqual(t, o.U+VehicleLength/2, o.Stop, "at %.2f, %.1f s from the car's crossing (dt %v)", t1, t1-when, dt)
				}
				if o.Speed == 0 && o.U < o.Stop {
					waited = true
					// at the line, not some way before it
					assert.Less(t, o.Stop-(o.U+VehicleLength/2), yieldShort+1.5, "it waits %.1f m short of the line (dt %v)", o.Stop-o.U-VehicleLength/2, dt)
				}
			}
		}
		assert.True(t, waited, "it waited at the stop line (dt %v)", dt)
		// and afterwards it is on its way again
		assert.Less(t, f.Lag(v.Key), 3*carSpeed, "it went on once the car was through (dt %v)", dt)
	}
}

// comingUpToStopLine is the first vehicle around p found 20 m before its
// stop line (faster than minSpeed) with none ahead of it on its lane, and
// the time it is there.
func comingUpToStopLine(t *testing.T, s *Schedule, p world.Vec2, minSpeed float64) (Vehicle, float64) {
	t.Helper()
	var v Vehicle
	tt := 0.0
	for ; tt < 2*SignalPeriod && v.Speed == 0; tt += 0.1 {
		vs := s.Vehicles(tt, p, 250, nil)
		for _, c := range vs {
			if d := c.Stop - c.U; d > 19 && d < 21 && c.Speed > minSpeed && leads(vs, c, 40) {
				v = c
				break
			}
		}
	}
	require.Positive(t, v.Speed, "a vehicle coming up to its stop line")
	return v, tt - 0.1
}

// A vehicle that stops for a car standing in front of it, facing it (the
// car in its lane the wrong way round, or across its turn), would wait for
// ever while the car waits for it: after standoffTime it gives way by
// leaving the road. One queued behind a car that waits facing away (at a
// red light, say) stays in the queue.
func TestAStandoffEndsWithTheVehicleGivingWay(t *testing.T) {
	s, v, t0 := enteringLane(t)
	at := carOnLane(s, v, entryClear+20)
	for _, tc := range []struct {
		name   string
		dir    world.Vec2
		leaves bool
		// each frame is followed by one with no time passed (a display
		// faster than the physics steps)
		twice bool
	}{
		{"face to face", at.Dir.Scale(-1), true, false},
		{"face to face, frames with no step between", at.Dir.Scale(-1), true, true},
		{"queued behind", at.Dir, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			car := at
			car.Dir = tc.dir
			f := NewFlow(s)
			c := frameChecker{t: t}
			const dt = 1.0 / 60
			stoodFor := 0.0 // seconds v stood still in front of or behind the car
			gone := false
			for tt := t0 - 1; tt < t0+20; tt += dt {
				if tc.twice {
					f.Update(tt-dt, 0, car.Pos, 250, car)
				}
				vs := f.Update(tt, dt, car.Pos, 250, car)
				c.check(vs, car, tt, dt)
				on := false
				for _, o := range vs {
					if o.Key == v.Key {
						on = true
						if o.Speed == 0 {
							stoodFor += dt
						}
					}
				}
				if stoodFor > 0 && !on {
					gone = true
					break
				}
			}
			require.Positive(t, stoodFor, "it stopped for the car")
			if tc.leaves {
				assert.True(t, gone, "it left the road")
				assert.GreaterOrEqual(t, stoodFor, standoffTime, "after the standoff time")
				assert.Less(t, stoodFor, standoffTime+2)
			} else {
				assert.False(t, gone, "it stays in the queue")
				assert.Greater(t, stoodFor, 2*standoffTime)
			}
		})
	}
}

// A vehicle held up by the car arrives at its stop line late: it then
// waits there for green like any other, and does not enter its junction
// on red, across the way of the cross traffic and of the car. The car
// stands in a lane for a while and then goes (is put elsewhere); the
// vehicles it held go on.
func TestALateVehicleDoesNotEnterItsJunctionOnRed(t *testing.T) {
	s, v, t0 := enteringLane(t)
	stand := carOnLane(s, v, entryClear+20)
	away := Blocker{Pos: stand.Pos.Add(world.Vec2{X: 5000}), Dir: stand.Dir, Length: 4.2, Width: 1.8}
	f := NewFlow(s)
	const dt = 1.0 / 60
	type seen struct{ nose float64 }
	prev := map[Key]seen{}
	late, waited := 0, 0
	for tt := t0 - 1; tt < t0+5*SignalPeriod; tt += dt {
		car := stand
		if tt > t0+20 {
			car = away
		}
		for _, o := range f.Update(tt, dt, stand.Pos, 250, car) {
			nose := o.U + VehicleLength/2
			lag := f.Lag(o.Key)
			light := s.Light(o.Key.Edge, endOf(o.Key.Lane) == 1, tt)
			if p, ok := prev[o.Key]; ok && lag > 0 && p.nose <= o.Stop && nose > o.Stop {
				late++
				assert.NotEqual(t, Red, light, "%+v, %.0f m late, entered its junction on red at %.2f", o.Key, lag, tt)
			}
			if lag > 0 && o.Speed == 0 && light == Red && o.Stop-nose < 1 && o.Stop-nose >= 0 {
				waited++
			}
			prev[o.Key] = seen{nose}
		}
	}
	assert.Positive(t, late, "vehicles held up by the car went on through their junctions")
	assert.Positive(t, waited, "one of them waited at its stop line for green")
}
