package game

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// Backspace on a car knocked off the road beside its lane, where a van
// now stands in the lane: a real session (headless, offline) puts the car
// back in the lane, at rest, facing along it, clear of the van and of
// everything the city put there — not inside the van, as on the lane
// point nearest the car.
func TestResetCarEndsClearOfWhatStandsOnTheLane(t *testing.T) {
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots = 48
	cfg.Workers = 1
	w := world.New(412)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	s, err := New(Options{
		Streaming: cfg, World: w, Display: NewHeadless(), TerrainRadius: 1,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())

	g, env := s.stream.Graph(), s.carEnv()
	r, ok := autopilot.New(g, s.car.Pos, s.car.Forward(), 0)
	require.True(t, ok)
	lane, dir := r.Pose()
	env.vehicles = fixedTraffic{{Pos: lane, Y: env.Surface(lane.X, lane.Z).Y, Dir: dir}}
	s.car.Pos = lane.Sub(roadgraph.Left(dir).Scale(3.5)) // on the kerb beside it
	s.car.Heading += 0.6
	s.car.Vel = dir.Scale(5)

	s.ResetCar()
	c := s.car
	assert.Equal(t, 1, s.drive.Resets)
	assert.Zero(t, c.Vel.Len(), "at rest")
	assert.Greater(t, c.Forward().Dot(dir), 0.99, "facing along the lane")
	h, ok := g.Nearest(c.Pos)
	require.True(t, ok)
	assert.InDelta(t, traffic.LaneOffset, h.Dist, 0.3, "in a lane")
	gap := c.Pos.Sub(lane).Len()
	assert.Greater(t, gap, (car.Length+traffic.VehicleLength)/2, "clear of the van")
	assert.Less(t, gap, 20.0, "near where it was")
	c.Step(physicsStep, car.Input{}, env)
	assert.Zero(t, c.Contacts, "standing there touches nothing")
	lane2, _ := s.driver.Route().Pose()
	assert.Less(t, lane2.Sub(c.Pos).Len(), 1.0, "the autopilot's route starts where the car is")
}
