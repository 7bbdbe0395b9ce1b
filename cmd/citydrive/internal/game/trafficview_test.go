package game

import (
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/scene"
	"citydrive/roadgraph/world"
)

// With the chase camera, a traffic vehicle queued right behind the car
// (between the camera and the car) is left out of the frame's vehicles;
// the top view and photo mode draw it.
func TestChaseViewLeavesOutTrafficBehindTheCar(t *testing.T) {
	s := offlineSession(t, 7, 0, Options{Autopilot: true, Traffic: true, TimeOfDay: 12, FixedStep: true, Duration: 2 * time.Second})
	require.NoError(t, s.Run())
	require.NotNil(t, s.env.traffic)
	all := s.env.traffic.Draw()
	require.NotEmpty(t, all)

	// the car 2 m ahead of the first vehicle, heading as it does
	van := all[0]
	dir := world.Vec2{X: float64(van.Dir[0]), Z: float64(van.Dir[1])}
	s.placeCar(world.Vec2{X: van.X, Z: van.Z}.Add(dir.Scale(2.3+2+2.1)), dir)
	drawn := func() bool {
		s.setCamera()
		s.buildFrame()
		return slices.Contains(s.frame.Vehicles, van)
	}
	assert.False(t, drawn(), "chase camera: left out")
	require.True(t, scene.BlocksChaseView(s.frame.Camera.Position, s.frame.DynamicOrigin, mgl64.Vec3{van.X, van.Y, van.Z}),
		"the chase camera's line to the car passes through it")
	assert.Less(t, len(s.frame.Vehicles), len(all))
	s.topView = true
	assert.True(t, drawn(), "top view: drawn")
	assert.Len(t, s.frame.Vehicles, len(all))
	s.topView = false
	s.SetPhotoMode(true)
	assert.True(t, drawn(), "photo mode: drawn")
}
