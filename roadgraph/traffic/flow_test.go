package traffic

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// overlap reports whether two oriented boxes overlap (separating axes).
func overlap(a, b Blocker) bool {
	axes := [4]world.Vec2{a.Dir, right(a.Dir), b.Dir, right(b.Dir)}
	d := b.Pos.Sub(a.Pos)
	ext := func(x Blocker, ax world.Vec2) float64 {
		return math.Abs(x.Dir.Dot(ax))*x.Length/2 + math.Abs(right(x.Dir).Dot(ax))*x.Width/2
	}
	for _, ax := range axes {
		if math.Abs(d.Dot(ax)) > ext(a, ax)+ext(b, ax) {
			return false
		}
	}
	return true
}

func box(v Vehicle) Blocker {
	return Blocker{Pos: v.Pos, Dir: v.Dir, Length: VehicleLength, Width: VehicleWidth}
}

// carInLane parks a car on the lane of a scheduled vehicle, ahead of it,
// and returns the car and the time.
func carInLane(t *testing.T, s *Schedule, p world.Vec2) (Blocker, Key) {
	for tt := 0.0; tt < SignalPeriod; tt += 0.5 {
		for _, v := range s.Vehicles(tt, p, 250, nil) {
			g := s.geomByID(v.Key.Edge)
			lt := g.timing(v.Key.Lane)
			if v.U < lt.start+5 && lt.stop-lt.start > 80 {
				pos, dir := g.lanePoint(v.Key.Lane, v.U+45)
				return Blocker{Pos: pos, Dir: dir, Length: 4.2, Width: 1.8}, v.Key
			}
		}
	}
	t.Fatal("no vehicle entering a long lane")
	return Blocker{}, Key{}
}

// inLane is a car parked in a busy lane ahead of a vehicle about to
// enter it (carInLane), a flow of the same world with nothing done yet,
// and a second before that vehicle enters (beforeEntry).
func inLane(t *testing.T) (s *Schedule, f *Flow, car Blocker, first Key, t0 float64) {
	t.Helper()
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s = NewSchedule(w, 17.5)
	car, first = carInLane(t, s, p)
	return s, NewFlow(NewSchedule(w, 17.5)), car, first, beforeEntry(s, first)
}

// beforeEntry is a second before vehicle k is first on the road in a
// signal cycle from time 0 (0 if it is not).
func beforeEntry(s *Schedule, k Key) float64 {
	for tt := 0.0; tt < SignalPeriod; tt += 0.5 {
		if _, ok := s.At(k, tt, 0); ok {
			return tt - 1
		}
	}
	return 0
}

func TestVehiclesStopForTheCarThenRejoinTheirSchedule(t *testing.T) {
	// The flow starts a little before the vehicle enters its lane.
	s, f, car, first, t0 := inLane(t)
	const dt = 1.0 / 60
	far := Blocker{Pos: world.Vec2{X: 1e6, Z: 1e6}, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	stopped := false
	maxLag := 0.0
	tt := t0
	for ; tt < t0+40; tt += dt {
		vs := f.Update(tt, dt, car.Pos, 250, car)
		for _, v := range vs {
			require.False(t, overlap(box(v), car), "vehicle %+v drove into the car at %.2f", v.Key, tt)
			if v.Key == first && v.Speed == 0 {
				stopped = true
			}
		}
		for _, l := range f.lags {
			if l.held {
				continue // off the road, waiting to enter
			}
			v, ok := f.s.At(l.key, tt, l.lag)
			require.True(t, ok)
			// Local: only vehicles near the car, or queued behind one that
			// is, run late.
			assert.Less(t, v.Pos.Sub(car.Pos).Len(), reactRadius+maxPlatoon*headway*avenueSpeedMax)
			maxLag = math.Max(maxLag, l.lag)
		}
	}
	require.True(t, stopped, "the vehicle stopped behind the car")
	// Bounded: no more than the time held up at schedule speed.
	assert.Greater(t, maxLag, 10.0)
	assert.Less(t, maxLag, 40*avenueSpeedMax)
	// The car drives off: within the time it takes to make up the lag at
	// rejoinShare, every vehicle is back on its schedule.
	back := tt + maxLag/(rejoinShare*streetSpeedMin) + 5
	for ; tt < back; tt += dt {
		f.Update(tt, dt, car.Pos, 250, far)
	}
	assert.Zero(t, f.Lagging())
	got := f.Update(tt, dt, car.Pos, 250, far)
	want := s.Vehicles(tt, car.Pos, 250, nil)
	require.Len(t, got, len(want))
	for i := range got {
		assert.Equal(t, want[i].Key, got[i].Key)
		assert.Less(t, got[i].Pos.Sub(want[i].Pos).Len(), 0.1)
	}
}

func TestVehiclesFarFromTheCarKeepTheirSchedule(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	f := NewFlow(NewSchedule(w, 17.5))
	car := Blocker{Pos: p.Add(world.Vec2{X: 2000}), Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	for tt := 0.0; tt < 10; tt += 1.0 / 60 {
		got := f.Update(tt, 1.0/60, p, 250, car)
		want := s.Vehicles(tt, p, 250, nil)
		require.Equal(t, len(want), len(got))
		for i := range got {
			require.Equal(t, want[i], got[i])
		}
	}
}

func TestFlowDoesNotAllocateOnceWarm(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	f := NewFlow(NewSchedule(w, 17.5))
	car, _ := carInLane(t, NewSchedule(w, 17.5), p)
	tt := 0.0
	f.Update(tt, 0, car.Pos, 250, car)
	allocs := testing.AllocsPerRun(600, func() {
		tt += 1.0 / 60
		f.Update(tt, 1.0/60, car.Pos, 250, car)
	})
	assert.Zero(t, allocs)
}

// BenchmarkFlowUpdate is one frame of traffic around a car in a busy
// district at rush hour (b.ReportMetric: vehicles).
func BenchmarkFlowUpdate(b *testing.B) {
	w := world.New(testSeed)
	_, p := busyJunction(b, w)
	f := NewFlow(NewSchedule(w, 17.5))
	car := Blocker{Pos: p, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	tt := 0.0
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tt += 1.0 / 60
		car.Pos = car.Pos.Add(world.Vec2{X: 0.2})
		n += len(f.Update(tt, 1.0/60, car.Pos, benchRadius, car))
	}
	b.ReportMetric(float64(n)/float64(b.N), "vehicles")
}

const benchRadius = 700

// A car standing at a lane's entry (just out of a junction) never has a
// vehicle appear on it or in front of it: the vehicles due to enter wait
// off the road, and enter behind it once it has driven on.
func TestVehiclesWaitToEnterWhereTheCarIs(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	var car Blocker
	var lane Key
	start := 0.0
	for tt := 0.0; tt < SignalPeriod && lane == (Key{}); tt += 0.25 {
		for _, v := range s.Vehicles(tt, p, 250, nil) {
			if v.U-v.Start < 0.5 {
				g := s.geomByID(v.Key.Edge)
				pos, dir := g.lanePoint(v.Key.Lane, v.Start+2)
				car, lane, start = Blocker{Pos: pos, Dir: dir, Length: 4.2, Width: 1.8}, v.Key, tt-0.5
				break
			}
		}
	}
	require.NotEqual(t, Key{}, lane, "a vehicle entering its lane")
	f := NewFlow(s)
	held := 0
	already := map[Key]bool{} // on the road when the car got there
	for _, v := range s.Vehicles(start, p, 250, nil) {
		already[v.Key] = true
	}
	for tt := start; tt < start+3*SignalPeriod; tt += 1.0 / 30 {
		for _, v := range f.Update(tt, 1.0/30, car.Pos, 250, car) {
			if v.Key.Edge == lane.Edge && v.Key.Lane == lane.Lane && !already[v.Key] {
				ahead := car.Pos.Sub(v.Pos).Dot(v.Dir)
				require.False(t, ahead > -spawnBehind && ahead < VehicleLength+0.5 && math.Abs(car.Pos.Sub(v.Pos).Dot(right(v.Dir))) < 2,
					"vehicle %+v on or just ahead of the car at %v", v.Key, tt)
			}
		}
		held = max(held, f.Lagging())
	}
	assert.Positive(t, held, "vehicles were held back")
	// The car drives off: the held vehicles enter and catch up.
	car.Pos = car.Pos.Add(car.Dir.Scale(2000))
	entered := false
	for tt := start + 3*SignalPeriod; tt < start+6*SignalPeriod; tt += 1.0 / 30 {
		f.Update(tt, 1.0/30, p, 250, car)
		if f.Lagging() == 0 {
			entered = true
			break
		}
	}
	assert.True(t, entered, "everyone back on schedule")
}

// Near its turn a vehicle looks for the car along its own curve: a car on
// that curve a few metres on stops it short, one beside the curve does not.
func TestTurningVehiclesLookAlongTheirCurve(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	f := NewFlow(s)
	var v Vehicle
	found := false
	tt := 0.0
	for ; tt < SignalPeriod && !found; tt += 0.25 {
		for _, c := range s.Vehicles(tt, p, 250, nil) {
			if c.U > c.Stop+1 {
				if ahead, ok := s.At(c.Key, tt, -8); ok && ahead.U > ahead.Stop && ahead.Dir.Dot(c.Dir) < 0.95 {
					v, found = c, true
					break
				}
			}
		}
	}
	require.True(t, found, "a vehicle in a turn")
	tt -= 0.25
	ahead, _ := s.At(v.Key, tt, -8)
	on := Blocker{Pos: ahead.Pos, Dir: ahead.Dir, Length: 4.2, Width: 1.8}
	g := f.pathGap(&v, 0, tt, on)
	assert.False(t, math.IsInf(g, 1), "the car on the curve")
	assert.Less(t, g, 8.0-stopGap, "stops short of it")
	// stopGap short: stopGap further on it would still be clear of the car
	at, ok := s.At(v.Key, tt, -(g + stopGap))
	require.True(t, ok)
	assert.False(t, overlap(box(at), on), "it stops a full stopGap short")
	off := on
	off.Pos = ahead.Pos.Add(right(ahead.Dir).Scale(6))
	assert.True(t, math.IsInf(f.pathGap(&v, 0, tt, off), 1), "a car beside the curve")
}

// Vehicles brake for another player's car standing in their lane, as for
// the car (which is far off), without ever driving into it, and rejoin
// their schedule once it is gone; without it they keep their schedule.
func TestVehiclesStopForAnotherPlayersCar(t *testing.T) {
	s, f, other, first, t0 := inLane(t)
	// the player's car far from every vehicle of the scene
	car := Blocker{Pos: other.Pos.Add(world.Vec2{X: 1000}), Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	alone := NewFlow(NewSchedule(s.World(), 17.5))
	f.SetOthers([]Blocker{other})
	const dt = 1.0 / 60
	stopped := false
	tt := t0
	for ; tt < t0+30; tt += dt {
		for _, v := range f.Update(tt, dt, other.Pos, 250, car) {
			require.False(t, overlap(box(v), other), "vehicle %+v drove into the other car at %.2f", v.Key, tt)
			if v.Key == first && v.Speed == 0 {
				stopped = true
			}
			assert.False(t, f.WaitsForCar(v.Key), "it waits for the other car, not this one")
		}
		for _, v := range alone.Update(tt, dt, other.Pos, 250, car) {
			require.Zero(t, alone.Lag(v.Key), "no other car: on schedule")
		}
	}
	require.True(t, stopped, "the vehicle stopped behind the other car")
	require.Positive(t, f.Lag(first))
	f.SetOthers(nil)
	for end := tt + 60; tt < end; tt += dt {
		f.Update(tt, dt, other.Pos, 250, car)
	}
	assert.Zero(t, f.Lagging(), "back on schedule once it left")
	// more than MaxOthers: the rest are ignored, nothing breaks
	many := make([]Blocker, 3*MaxOthers)
	f.SetOthers(many)
	assert.Len(t, f.others, MaxOthers)
}
