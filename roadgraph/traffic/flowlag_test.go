package traffic

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// The first vehicle held up by the car (the only one late, so the first
// the flow keeps) reports its lag and that the car holds it, and Ahead
// looks along its path from where the flow has it.
func TestTheFirstHeldUpVehicleReportsItsLag(t *testing.T) {
	_, f, car, _, t0 := inLane(t)
	const dt = 1.0 / 60
	tt := t0
	for ; tt < t0+40 && f.Lagging() == 0; tt += dt {
		f.Update(tt, dt, car.Pos, 250, car)
	}
	require.Equal(t, 1, f.Lagging(), "one vehicle held up")
	k := f.lags[0].key
	assert.Positive(t, f.Lag(k), "it runs late")
	assert.True(t, f.WaitsForCar(k), "the car holds it up")
	var v Vehicle
	for _, o := range f.Vehicles() {
		if o.Key == k {
			v = o
		}
	}
	require.Equal(t, k, v.Key, "it is on the road")
	a, ok := f.Ahead(k, tt-dt, 3)
	require.True(t, ok)
	assert.InDelta(t, v.U+3, a.U, 1e-6, "Ahead is 3 m further along")
	// one on its schedule reports none
	other := k
	other.Cycle += 7
	assert.Zero(t, f.Lag(other))
	assert.False(t, f.WaitsForCar(other))
}

// A vehicle that has caught up with its schedule is forgotten at once,
// even while it is still on the road: were it kept, vehicles back on time
// would fill the maxLagging places, and the next ones the car holds up
// would drive through it on schedule.
func TestVehiclesBackOnScheduleAreForgotten(t *testing.T) {
	const dt = 1.0 / 60
	f, car, tt := heldUp(t, dt)
	require.Positive(t, f.Lagging(), "vehicles held up")
	// The car drives off at 15 m/s; the queue follows and catches up.
	caughtUp := 0
	for end := tt + 60; tt < end; tt += dt {
		car.Pos = car.Pos.Add(car.Dir.Scale(15 * dt))
		before := map[Key]bool{}
		for _, l := range f.lags {
			before[l.key] = true
		}
		f.Update(tt, dt, car.Pos, 250, car)
		late := 0
		for _, v := range f.Vehicles() {
			if f.WaitsForCar(v.Key) {
				// it says so only while the car holds it below its
				// rejoining speed
				sched, ok := f.Schedule().At(v.Key, tt, f.Lag(v.Key))
				require.True(t, ok)
				require.Less(t, v.Speed, sched.Speed*(1+rejoinShare), "vehicle %+v waits for the car at full speed at %.2f", v.Key, tt)
			}
			if f.Lag(v.Key) > 0 {
				late++
			} else if before[v.Key] && f.lagIndex(v.Key) < 0 {
				caughtUp++
			}
		}
		held := 0
		for _, l := range f.lags {
			if l.held {
				held++
			}
		}
		require.LessOrEqual(t, f.Lagging(), late+held, "at %.2f: a vehicle on schedule counted as late", tt)
	}
	assert.Positive(t, caughtUp, "vehicles caught up while on the road")
}

// The vehicle at the front of the queue keeps its schedule until the car
// is within its braking distance (brakeDecel), then stops short of it:
// it neither crawls up from far off nor brakes too late.
func TestTheFrontVehicleBrakesWithinItsBrakingDistance(t *testing.T) {
	s, f, car, _, t0 := inLane(t)
	const dt = 1.0 / 60
	far, near := 0, 0
	for tt := t0; tt < t0+20; tt += dt {
		vs := f.Update(tt, dt, car.Pos, 250, car)
		// the front of the queue: of the vehicles with the car in their
		// way, the one nearest it
		front, gap := -1, math.Inf(1)
		for i := range vs {
			if g := gapTo(&vs[i], car); g < gap {
				front, gap = i, g
			}
		}
		if front < 0 {
			continue
		}
		v := vs[front]
		sched, ok := s.At(v.Key, tt, f.Lag(v.Key)) // its schedule where it is
		require.True(t, ok)
		brake := sched.Speed * sched.Speed / (2 * brakeDecel)
		switch {
		case gap > brake+1 && f.Lag(v.Key) == 0:
			far++
			assert.Equal(t, sched.Speed, v.Speed, "at %.2f, %.1f m short of the car", tt, gap)
		case gap > brake+1:
			t.Fatalf("vehicle %+v slowed %.1f m short of the car (braking distance %.1f m) at %.2f", v.Key, gap, brake, tt)
		case gap < brake-1 && gap > 0:
			near++
			assert.Less(t, v.Speed, sched.Speed, "at %.2f, %.1f m short of the car", tt, gap)
		}
		assert.GreaterOrEqual(t, gap, -0.01, "it stops short of the car")
	}
	assert.Positive(t, far, "it drove up at its schedule speed")
	assert.Positive(t, near, "it braked")
}

// A vehicle in its turn stops for a car on its curve that is not
// straight ahead of it (looking straight on, it would drive into it).
func TestATurningVehicleStopsForACarOnItsCurve(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	var v, on Vehicle
	tt := 0.0
	for ; tt < 2*SignalPeriod && v.Speed == 0; tt += 0.25 {
		for _, c := range s.Vehicles(tt, p, 250, nil) {
			if c.U < c.Stop || c.U > c.Stop+3 {
				continue
			}
			a, ok := s.At(c.Key, tt, -12)
			if !ok || a.U < a.Stop {
				continue
			}
			if side := math.Abs(a.Pos.Sub(c.Pos).Dot(right(c.Dir))); side > 4 {
				v, on = c, a
				break
			}
		}
	}
	require.Positive(t, v.Speed, "a vehicle starting a sharp turn")
	tt -= 0.25
	car := Blocker{Pos: on.Pos, Dir: on.Dir, Length: 4.2, Width: 1.8}
	vv := v
	require.True(t, math.IsInf(gapTo(&vv, car), 1), "the car is not straight ahead of it")
	f := NewFlow(s)
	const dt = 1.0 / 60
	stopped := false
	for t1 := tt; t1 < tt+6; t1 += dt {
		for _, o := range f.Update(t1, dt, car.Pos, 250, car) {
			if o.Key != v.Key {
				continue
			}
			require.False(t, overlap(box(o), car), "it drove into the car at %.2f", t1)
			if o.Speed == 0 {
				stopped = true
			}
		}
	}
	assert.True(t, stopped, "it stopped short of the car")
}

// A vehicle starting its turn does not stop for a car straight ahead of
// it that its curve passes by (it would hold up the junction for nothing).
func TestATurningVehicleDrivesPastACarOffItsCurve(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	f := NewFlow(s)
	var v Vehicle
	var car Blocker
	tt := 0.0
	for ; tt < 2*SignalPeriod && v.Speed == 0; tt += 0.25 {
		for _, c := range s.Vehicles(tt, p, 250, nil) {
			if c.U < c.Stop || c.U > c.Stop+3 {
				continue
			}
			b := Blocker{Pos: c.Pos.Add(c.Dir.Scale(12)), Dir: c.Dir, Length: 4.2, Width: 1.8}
			if math.IsInf(f.pathGap(&c, 0, tt, b), 1) {
				v, car = c, b
				break
			}
		}
	}
	require.Positive(t, v.Speed, "a vehicle starting its turn")
	tt -= 0.25
	vv := v
	require.False(t, math.IsInf(gapTo(&vv, car), 1), "the car is straight ahead of it")
	const dt = 1.0 / 60
	seen := false
	for t1 := tt; t1 < tt+2; t1 += dt {
		for _, o := range f.Update(t1, dt, car.Pos, 250, car) {
			if o.Key == v.Key {
				seen = true
				require.False(t, overlap(box(o), car), "it drove into the car at %.2f", t1)
				require.Less(t, f.Lag(v.Key), 0.5, "it held back for a car off its curve at %.2f", t1)
			}
		}
	}
	assert.True(t, seen)
}

// conflict: a vehicle coming up to its stop line meets the car if the car,
// moving on at its velocity, is where the vehicle would be at that moment,
// within yieldTime; a car beside its path, or there only later, is no
// conflict.
func TestAVehicleForeseesMeetingTheCarInItsJunction(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	v, tt := comingUpToStopLine(t, s, p, 5)
	// the car square across the vehicle's path, x metres on along it,
	// side metres beside it
	across := func(x, side float64) Blocker {
		a, ok := s.At(v.Key, tt, -x)
		require.True(t, ok)
		return Blocker{Pos: a.Pos.Add(right(a.Dir).Scale(side)), Dir: right(a.Dir), Length: 4.2, Width: 1.8}
	}
	const carSpeed = 10.0
	for _, tc := range []struct {
		name    string
		car     Blocker
		vel     float64 // the car's speed along its heading
		arrives float64 // seconds from now the car reaches the path point (moving)
		want    bool
	}{
		{"standing in its path 10 m on", across(10, 0), 0, 0, true},
		{"standing in its path just before the stop line", across(v.Stop-v.U-1, 0), 0, 0, true},
		{"standing beside its path, within the margin", across(10, 3.5), 0, 0, true},
		{"standing beside its path, clear", across(10, 4.1), 0, 0, false},
		{"standing beside its path on the other side, clear", across(10, -4.1), 0, 0, false},
		{"crossing its path as it gets there", across(10, 0), carSpeed, 10 / v.Speed, true},
		{"crossing its path long before it gets there", across(10, 0), carSpeed, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFlow(s)
			car := tc.car
			f.carVel = car.Dir.Scale(tc.vel)
			car.Pos = car.Pos.Sub(f.carVel.Scale(tc.arrives))
			vv := v
			assert.Equal(t, tc.want, f.conflict(&vv, 0, tt, car))
		})
	}
	t.Run("a vehicle standing still goes nowhere", func(t *testing.T) {
		vv := v
		vv.Speed = 0
		assert.False(t, NewFlow(s).conflict(&vv, 0, tt, across(10, 0)))
	})
	// at 2 m/s it covers 8 m within yieldTime: a car 18 m on is later
	t.Run("a crawling vehicle gets there after yieldTime", func(t *testing.T) {
		vv := v
		assert.True(t, NewFlow(s).conflict(&vv, 0, tt, across(18, 0)), "at its speed")
		vv.Speed = 2
		assert.False(t, NewFlow(s).conflict(&vv, 0, tt, across(18, 0)), "crawling")
	})
}

// A queue behind the car holds together when the flow is asked only for
// the car's surroundings (the front of the queue is then the first
// vehicle the flow lists): the vehicles behind it still stop behind it,
// not in it. (Narrower still, below the queue's length, vehicles on
// schedule enter the radius inside the queue: the flow reacts only for
// what it places.)
func TestAQueueHoldsInANarrowRadius(t *testing.T) {
	s, v, t0 := enteringLane(t)
	car := carOnLane(s, v, entryClear+8)
	for _, radius := range []float64{40, 60} {
		f := NewFlow(s)
		c := frameChecker{t: t}
		const dt = 1.0 / 60
		for tt := t0 - 1; tt < t0+SignalPeriod; tt += dt {
			c.check(f.Update(tt, dt, car.Pos, radius, car), car, tt, dt)
		}
		assert.Positive(t, f.Lagging(), "a queue formed (radius %v)", radius)
	}
}

// Once the car is gone (far off: no vehicle near it), the vehicle it held
// up first (the front of the queue, with no one late ahead of it) makes up
// time at every Update until it is back on schedule.
func TestLateVehiclesMakeUpTimeOnceTheCarIsGone(t *testing.T) {
	const dt = 1.0 / 60
	f, car, tt := heldUp(t, dt)
	require.Positive(t, f.Lagging())
	require.False(t, f.lags[0].held)
	front := f.lags[0].key
	gone := Blocker{Pos: world.Vec2{X: 1e6, Z: 1e6}, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	made := 0
	for end := tt + 2; tt < end; tt += dt {
		lag := f.Lag(front)
		f.Update(tt, dt, car.Pos, 250, gone)
		if lag > 0 {
			require.Less(t, f.Lag(front), lag, "vehicle %+v makes up no time at %.2f", front, tt)
			made++
		}
	}
	assert.Positive(t, made)
}

// heldUp parks the car in a busy lane ahead of a vehicle about to enter
// it and runs a flow for 20 s of dt steps: a queue forms behind the car.
// It returns the flow, the car and the time reached.
func heldUp(t *testing.T, dt float64) (*Flow, Blocker, float64) {
	t.Helper()
	_, f, car, _, t0 := inLane(t)
	tt := t0
	for ; tt < t0+20; tt += dt {
		f.Update(tt, dt, car.Pos, 250, car)
	}
	return f, car, tt
}
