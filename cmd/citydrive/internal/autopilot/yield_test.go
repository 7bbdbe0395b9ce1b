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
func (f fakeTraffic) WaitsForCar(k traffic.Key) bool { return f.waiting[k] }
func (fakeTraffic) String() string                   { return "fake traffic" }

var _ Traffic = fakeTraffic{}

// A vehicle standing face to face with the car in its lane is waited for
// unless the flow says it waits for the car (then the two would wait for
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
		name          string
		speed         float64
		ahead, side   float64 // metres ahead of the car and left of it
		heading       float64 // degrees from the car's heading, + left
		waits, waited bool
	}{
		{"standing for the car, face to face", 0, 12, 0, 180, true, false},
		{"standing for something else", 0, 12, 0, 180, false, true},
		{"braking for the car but still moving", 2, 12, 0, 180, true, true},
		// in a junction, turning across the car's way: no room to pass
		{"standing for the car across its line", 0, 5.1, 0.8, -134, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.heading * math.Pi / 180
			dir := fwd.Scale(math.Cos(a)).Add(left.Scale(math.Sin(a)))
			o := traffic.Vehicle{Key: key, Pos: c.Pos.Add(fwd.Scale(tc.ahead)).Add(left.Scale(tc.side)), Dir: dir, Speed: tc.speed}
			d.Traffic = fakeTraffic{vs: []traffic.Vehicle{o}, waiting: map[traffic.Key]bool{key: tc.waits}}
			limit := d.yield(c.Pos, fwd, 10, 1.0/40)
			if tc.waited {
				require.False(t, math.IsInf(limit, 1), "the car stops for it")
				assert.Less(t, limit, 10.0)
				assert.Empty(t, d.appendWaiting(nil, c.Pos), "not steered round")
			} else {
				assert.True(t, math.IsInf(limit, 1), "the car does not wait for it (limit %.1f)", limit)
				assert.NotEmpty(t, d.appendWaiting(nil, c.Pos), "it is an obstacle to steer round")
			}
		})
	}
}
