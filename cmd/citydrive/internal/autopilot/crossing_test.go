package autopilot

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// A car standing at its stop line (green) holds there while a vehicle
// crossing the junction will be in its way before the car, speeding off,
// could get past: wherever the vehicle will be over the next seconds,
// not only where it will be when the car gets there (seed 254: a vehicle
// turning across the car's way was projected past its line, and the car
// drove into it). One that is gone by then, or far off, is not waited for.
func TestTheCarHoldsAtItsStopLineWhileAVehicleCrossesTheJunction(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := openRoads{world.NewSurfaceCache(world.New(412))}
	r := &drive{t: t, d: d, c: c, env: env}
	// drive up to the next junction, on empty roads, until just short of
	// the stop line
	require.True(t, r.until(60, func() bool {
		j, _, dist := d.route.NextJunction()
		return j != nil && stopDistance(j, dist) < 2
	}), "reaches a junction")
	d.Drive(c, env, step) // plan
	require.Greater(t, d.toStop, -1.0)
	fwd := c.Forward()
	s, _, tan, ok := d.onLine(c.Pos.Add(fwd.Scale(d.toStop+8)), len(d.ahead)-1)
	require.True(t, ok)
	across := d.ahead[d.here+int(s/pathStep)] // the car's line in the junction
	key := traffic.Key{Edge: 9, K: 1}
	for _, tc := range []struct {
		name  string
		side  float64 // metres left of the car's line, heading right across it
		speed float64
		stops bool
	}{
		{"crossing from the left, 12 m off", 12, 8, true},
		{"crossing, 5 m off", 5, 8, true},
		{"gone: 6 m past the line", -6, 8, false},
		{"far off: 60 m", 60, 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := roadgraph.Left(tan).Scale(-1)
			o := traffic.Vehicle{Key: key, Pos: across.Add(roadgraph.Left(tan).Scale(tc.side)), Dir: dir, Speed: tc.speed, U: 100, Stop: 90}
			d.Traffic = fakeTraffic{vs: []traffic.Vehicle{o}}
			limit := d.yield(c.Pos, fwd, 0, 0, 1.0/40)
			if tc.stops {
				assert.LessOrEqual(t, limit, math.Sqrt(2*followBrake*math.Max(0, d.toStop))+1e-9, "held at the stop line")
			} else {
				assert.True(t, math.IsInf(limit, 1), "not held (limit %.2f)", limit)
			}
		})
	}
}

// Over its stop line (it drove in on green), the car holds short of
// where a vehicle crossing the junction will be in its way, rather than
// only projecting where the vehicle will be when it gets there (seed 821
// at night: an oncoming vehicle turned across the car's way, was
// projected past it, and the car braked too late and touched it).
func TestOverItsStopLineTheCarHoldsShortOfACrossingVehicle(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := openRoads{world.NewSurfaceCache(world.New(412))}
	r := &drive{t: t, d: d, c: c, env: env}
	d.Traffic = fakeTraffic{} // empty streets, green everywhere
	require.True(t, r.until(60, func() bool {
		j, _, dist := d.route.NextJunction()
		return j != nil && stopDistance(j, dist) < -2
	}), "drives over a stop line")
	d.Drive(c, env, step) // plan
	require.Less(t, d.toStop, -1.0)
	fwd, v := c.Forward(), c.Speed()
	require.Greater(t, v, 3.0, "still driving")
	s, _, tan, ok := d.onLine(c.Pos.Add(fwd.Scale(12)), len(d.ahead)-1)
	require.True(t, ok)
	across := d.ahead[d.here+int(s/pathStep)] // the car's line 12 m on
	key := traffic.Key{Edge: 9, K: 1}
	for _, tc := range []struct {
		name  string
		side  float64 // metres left of the car's line, heading right across it
		stops bool
	}{
		{"crossing from the left, 8 m off", 8, true},
		{"crossing, 3 m off", 3, true},
		{"gone: 8 m past the line", -8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := roadgraph.Left(tan).Scale(-1)
			o := traffic.Vehicle{Key: key, Pos: across.Add(roadgraph.Left(tan).Scale(tc.side)), Dir: dir, Speed: 8, U: 100, Stop: 90}
			d.Traffic = fakeTraffic{vs: []traffic.Vehicle{o}}
			limit := d.yield(c.Pos, fwd, v, 0, 1.0/40)
			if tc.stops {
				assert.Less(t, limit, math.Sqrt(2*followBrake*12), "held short of the crossing")
			} else {
				assert.True(t, math.IsInf(limit, 1), "not held (limit %.2f)", limit)
			}
		})
	}
}

// The car drives through a moving crossing stream at a junction without
// ever touching a vehicle: it holds at its stop line while they cross.
func TestTheCarNeverTouchesAVehicleCrossingTheJunction(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := openRoads{world.NewSurfaceCache(world.New(412))}
	r := &drive{t: t, d: d, c: c, env: env}
	require.True(t, r.until(60, func() bool {
		j, _, dist := d.route.NextJunction()
		return j != nil && stopDistance(j, dist) < 25
	}), "nears a junction")
	d.Drive(c, env, step)
	fwd := c.Forward()
	s, _, tan, ok := d.onLine(c.Pos.Add(fwd.Scale(d.toStop+8)), len(d.ahead)-1)
	require.True(t, ok)
	across := d.ahead[d.here+int(s/pathStep)]
	dir := roadgraph.Left(tan).Scale(-1)
	// a stream of vehicles 14 m apart at 8 m/s crosses the car's line in
	// the junction for 6 s, the first due there as the car arrives
	ft := &movingTraffic{}
	for k := range 4 {
		ft.vs = append(ft.vs, traffic.Vehicle{Key: traffic.Key{Edge: 9, K: uint8(k)},
			Pos: across.Sub(dir.Scale(14 + 14*float64(k))), Dir: dir, Speed: 8, U: 100, Stop: 90})
	}
	ft.start = append([]traffic.Vehicle(nil), ft.vs...)
	d.Traffic = ft
	for range int(8 / step) {
		ft.at(r.time)
		r.step()
		body := car.BodyAt(c.Pos, c.Forward(), 0)
		for _, o := range ft.vs {
			vb := car.Box{C: o.Pos, U: o.Dir, HU: traffic.VehicleLength / 2, HV: traffic.VehicleWidth / 2}
			require.False(t, body.Overlaps(vb), "t=%.2f: the car's box overlaps vehicle %v", r.time, o.Key)
		}
	}
}

// movingTraffic: vehicles driving straight on at their speeds from where
// they were at time 0.
type movingTraffic struct {
	fakeTraffic
	start []traffic.Vehicle
	t0    float64
	set   bool
}

func (m *movingTraffic) at(t float64) {
	if !m.set {
		m.t0, m.set = t, true
	}
	for i, v := range m.start {
		v.Pos = v.Pos.Add(v.Dir.Scale(v.Speed * (t - m.t0)))
		m.vs[i] = v
	}
}

func (m *movingTraffic) Vehicles() []traffic.Vehicle { return m.vs }
func (m *movingTraffic) Ahead(k traffic.Key, s float64) (traffic.Vehicle, bool) {
	return m.fakeTraffic.Ahead(k, s)
}

// A swerve round an obstacle beside the lane moves the line behind the
// car too, fading out: moved from the car on only, the line stepped aside
// at the car, and the false heading of that step, steered for at every
// plan, dragged the car across the centre line on a bend among parked
// cars (seed 750), towards the oncoming traffic.
func TestASwerveDoesNotKinkTheLineAtTheCar(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := newBlocked(412)
	d.Drive(c, env, step)
	fwd := c.Forward()
	left := roadgraph.Left(fwd)
	// a row of boxes reaching 0.3 m into the car's way on the right,
	// from 12 m ahead of it on
	for s := 12.0; s <= 60; s += 2 {
		p := c.Pos.Add(fwd.Scale(s)).Sub(left.Scale(car.Width/2 + 0.2))
		env.box(p, fwd, 1, 0.5, slots.ObstacleParkedCar)
	}
	d.sincePlan = math.Inf(1)
	d.Drive(c, env, step)
	require.NotZero(t, len(d.marks), "it swerves")
	h := d.here
	step2 := d.ahead[h-1].Add(d.ahead[h+1]).Sub(d.ahead[h].Scale(2)).Len()
	assert.Less(t, step2, 0.05, "metres the line steps aside at the car")
	// and driving along it, the car keeps to the moved line
	r := &drive{t: t, d: d, c: c, env: env}
	worst := 0.0
	for i := range int(4 / step) {
		r.step()
		if i < int(1/step) {
			continue // moving over to the line
		}
		worst = math.Max(worst, math.Abs(roadgraph.Left(c.Forward()).Dot(c.Pos.Sub(d.ahead[d.here]))))
	}
	assert.Less(t, worst, 0.4, "metres off its line")
	assert.Zero(t, r.contacts)
}
