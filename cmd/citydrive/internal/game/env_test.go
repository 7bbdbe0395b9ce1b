package game

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// A car driving through the session's environment meets the obstacles of
// the slot it drives into, and only slots near it are handed over.
func TestCarEnvHandsOverNearbySlotObstacles(t *testing.T) {
	cfg := slots.Config{Slots: 4, VertsPerSlot: 36}
	buf, err := slots.NewCPUBuffer(cfg)
	require.NoError(t, err)
	table, err := slots.New(cfg, buf)
	require.NoError(t, err)
	table.Sync([]walker.Item{{Key: 1}, {Key: 2}})
	near, _ := table.SlotOf(1)
	far, _ := table.SlotOf(2)
	verts := make([]uint32, 3*slots.WordsPerVertex)
	// Slot "near" holds a parked car 30 m ahead of the car, slot "far" one
	// 2 km away.
	wall := slots.BoxObstacle([2]float64{30, 0}, 0, 2.1, 0.9, -5, 50, slots.ObstacleParkedCar)
	require.NoError(t, table.Upload(near, 1, verts, 3, slots.Bounds{Min: [3]float64{25, -5, -5}, Max: [3]float64{35, 50, 5}}))
	table.SetObstacles(near, 1, []slots.Obstacle{wall})
	faraway := wall
	faraway.Centre[0] = 2000
	require.NoError(t, table.Upload(far, 2, verts, 3, slots.Bounds{Min: [3]float64{1995, -5, -5}, Max: [3]float64{2005, 50, 5}}))
	table.SetObstacles(far, 2, []slots.Obstacle{faraway})

	env := newCarEnv(world.New(412), table, nil)
	assert.Equal(t, []slots.Obstacle{wall}, env.AppendObstacles(nil, 0, 0, 30), "only the slot within reach")
	assert.Empty(t, env.AppendObstacles(nil, 0, 0, 20))

	// Drive at it on the real world's surface.
	c := car.New(world.Vec2{}, world.Vec2{X: 1}, env)
	var touched car.Contact
	for range 120 * 6 {
		c.Step(1.0/120, car.Input{Throttle: 1}, env)
		touched |= c.Contacts
	}
	assert.True(t, touched.Has(car.TouchParkedCar))
	assert.Less(t, c.Pos.X, 30-2.1-car.Length/2+0.01)
}

// Traffic vehicles are obstacles of their own kind, turned as they drive,
// handed over only near the query, and the car touching one says so.
func TestCarEnvHandsOverTrafficAsObstacles(t *testing.T) {
	cfg := slots.Config{Slots: 1, VertsPerSlot: 36}
	buf, err := slots.NewCPUBuffer(cfg)
	require.NoError(t, err)
	table, err := slots.New(cfg, buf)
	require.NoError(t, err)
	w := world.New(412)
	env := newCarEnv(w, table, nil)
	dir := world.Vec2{X: 0.6, Z: 0.8}
	v := traffic.Vehicle{Pos: world.Vec2{X: 12, Z: 0}, Y: w.Surface(12, 0).Y, Dir: dir}
	env.vehicles = fixedTraffic{v, {Pos: world.Vec2{X: 900}, Dir: dir}}
	got := env.AppendObstacles(nil, 0, 0, 10)
	require.Len(t, got, 1)
	o := got[0]
	assert.Equal(t, slots.ObstacleTraffic, o.Kind)
	assert.InDelta(t, 0.6, o.Axis[0], 1e-9)
	assert.InDelta(t, 0.8, o.Axis[1], 1e-9)
	assert.Equal(t, [2]float64{traffic.VehicleLength / 2, traffic.VehicleWidth / 2}, o.Half)
	y := w.Surface(12, 0).Y
	assert.InDelta(t, y, o.Y0, 1e-6)

	c := car.New(world.Vec2{}, world.Vec2{X: 1}, env)
	var touched car.Contact
	for range 120 * 4 {
		c.Step(1.0/120, car.Input{Throttle: 1}, env)
		touched |= c.Contacts
	}
	assert.True(t, touched.Has(car.TouchTraffic))
	assert.Equal(t, "traffic", car.TouchTraffic.String())
}

// fixedTraffic is traffic that stands still.
type fixedTraffic []traffic.Vehicle

func (f fixedTraffic) Vehicles() []traffic.Vehicle { return f }
