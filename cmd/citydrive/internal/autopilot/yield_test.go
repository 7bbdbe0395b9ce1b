package autopilot

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// fakeTraffic is a fixed set of vehicles under green lights; waiting
// names the ones braking for the car.
type fakeTraffic struct {
	vs      []traffic.Vehicle
	waiting map[traffic.Key]bool
}

func (f fakeTraffic) Vehicles() []traffic.Vehicle    { return f.vs }
func (fakeTraffic) Light(uint64, bool) traffic.Light { return traffic.Green }
func (fakeTraffic) LightAfter(uint64, bool, float64) traffic.Light {
	return traffic.Green
}
func (f fakeTraffic) WaitsForCar(k traffic.Key) bool { return f.waiting[k] }
func (fakeTraffic) String() string                   { return "fake traffic" }

// Ahead: the fake's vehicles drive straight on.
func (f fakeTraffic) Ahead(k traffic.Key, s float64) (traffic.Vehicle, bool) {
	for _, v := range f.vs {
		if v.Key == k {
			v.Pos = v.Pos.Add(v.Dir.Scale(s))
			return v, true
		}
	}
	return traffic.Vehicle{}, false
}

var _ Traffic = fakeTraffic{}

// A vehicle standing face to face with the car in its lane (beyond the
// bumper's reach, below) is waited for unless the flow says it waits for
// the car (then the two would wait for
// each other for ever, and the car steers round it instead); one that
// waits for the car but moves, or stands beside the car's line, is
// followed or waited for as any other.
func TestTheCarWaitsOnlyForVehiclesThatDoNotWaitForIt(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := openRoads{world.NewSurfaceCache(world.New(412))}
	d.Drive(c, env, step) // plan the line
	fwd := c.Forward()
	left := roadgraph.Left(fwd)
	key := traffic.Key{Edge: 1, K: 2}
	for _, tc := range []struct {
		name           string
		speed          float64
		ahead, side    float64 // metres ahead of the car and left of it
		heading        float64 // degrees from the car's heading, + left
		waits          bool
		waited, passed bool // the car stops for it; steers round it
	}{
		{"standing for the car, face to face", 0, 22, 0, 180, true, false, true},
		{"standing for something else", 0, 22, 0, 180, false, true, false},
		{"braking for the car but still moving", 2, 22, 0, 180, true, true, false},
		// in a junction, turning across the car's way: no room to pass
		{"standing for the car across its line", 0, 5.1, 0.8, -134, true, true, false},
		// steered round, but never into: the bumper stops the car short
		{"standing for the car in front of the bumper", 0, 8, 0, 180, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.heading * math.Pi / 180
			dir := fwd.Scale(math.Cos(a)).Add(left.Scale(math.Sin(a)))
			o := traffic.Vehicle{Key: key, Pos: c.Pos.Add(fwd.Scale(tc.ahead)).Add(left.Scale(tc.side)), Dir: dir, Speed: tc.speed}
			d.Traffic = fakeTraffic{vs: []traffic.Vehicle{o}, waiting: map[traffic.Key]bool{key: tc.waits}}
			limit := d.yield(c.Pos, fwd, 12, 0, 1.0/40)
			if tc.waited {
				require.False(t, math.IsInf(limit, 1), "the car stops for it")
				assert.Less(t, limit, 12.0)
			} else {
				assert.True(t, math.IsInf(limit, 1), "the car does not wait for it (limit %.1f)", limit)
			}
			assert.Equal(t, tc.passed, len(d.appendWaiting(nil, c.Pos)) > 0, "an obstacle to steer round")
		})
	}
}

// The bumper: whatever the line, the car stops short of a vehicle on the
// arc it is driving (its wheel angle), such as one waiting at its stop
// line where a tight turn swings the car wide, and not for one beside it.
func TestTheCarStopsShortOfAVehicleInFrontOfItsBumper(t *testing.T) {
	pos, fwd := world.Vec2{}, world.Vec2{X: 1}
	left := roadgraph.Left(fwd)
	const r = 8.0 // metres: a tight left turn
	onArc := func(s float64) world.Vec2 {
		return pos.Add(fwd.Scale(r * math.Sin(s/r))).Add(left.Scale(r * (1 - math.Cos(s/r))))
	}
	for _, tc := range []struct {
		name    string
		at      world.Vec2
		dir     world.Vec2
		curv    float64
		stopped bool
	}{
		{"straight ahead", pos.Add(fwd.Scale(8)), fwd.Scale(-1), 0, true},
		{"in the oncoming lane", pos.Add(fwd.Scale(8)).Add(left.Scale(2 * traffic.LaneOffset)), fwd.Scale(-1), 0, false},
		{"on the arc of a left turn", onArc(7), fwd.Scale(-1), 1 / r, true},
		{"the same, driving straight", onArc(7), fwd.Scale(-1), 0, false},
		{"behind the car", pos.Sub(fwd.Scale(6)), fwd, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := traffic.Vehicle{Pos: tc.at, Dir: tc.dir}
			limit := bumperLimit(&o, pos, fwd, tc.curv, 6)
			if tc.stopped {
				require.False(t, math.IsInf(limit, 1))
				assert.Less(t, limit, 6.0, "it brakes")
			} else {
				assert.True(t, math.IsInf(limit, 1), "limit %.1f", limit)
			}
		})
	}
}

// pathTraffic is one vehicle whose path (Ahead) is path.
type pathTraffic struct {
	fakeTraffic
	path func(s float64) world.Vec2
}

func (p pathTraffic) Ahead(k traffic.Key, s float64) (traffic.Vehicle, bool) {
	v := p.vs[0]
	v.Pos = p.path(s)
	return v, true
}

// An oncoming vehicle turning across the car's way in a junction is
// projected along its turn, not straight on: the car slows for it before
// it is in the way. One going straight on in the oncoming lane is passed.
func TestTheCarYieldsToAVehicleTurningAcrossItsWay(t *testing.T) {
	_, d, c := newDriver(t, 412)
	env := openRoads{world.NewSurfaceCache(world.New(412))}
	d.Drive(c, env, step) // plan the line
	fwd := c.Forward()
	left := roadgraph.Left(fwd)
	at := func(ahead, side float64) world.Vec2 { return c.Pos.Add(fwd.Scale(ahead)).Add(left.Scale(side)) }
	o := traffic.Vehicle{Key: traffic.Key{Edge: 1}, Pos: at(20, 2*traffic.LaneOffset), Dir: fwd.Scale(-1), Speed: 8}
	for _, tc := range []struct {
		name    string
		path    func(s float64) world.Vec2
		yielded bool
	}{
		{"turning across", func(s float64) world.Vec2 {
			if s < 6 {
				return at(20-s, 2*traffic.LaneOffset)
			}
			return at(14-(s-6)*0.7, 2*traffic.LaneOffset-(s-6)*0.7) // across the car's lane
		}, true},
		{"straight on", func(s float64) world.Vec2 { return at(20-s, 2*traffic.LaneOffset) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d.Traffic = pathTraffic{fakeTraffic{vs: []traffic.Vehicle{o}}, tc.path}
			limit := d.yield(c.Pos, fwd, 12, 0, 1.0/40)
			if tc.yielded {
				assert.Less(t, limit, 12.0, "the car slows for it")
			} else {
				assert.True(t, math.IsInf(limit, 1), "limit %.1f", limit)
			}
		})
	}
}
