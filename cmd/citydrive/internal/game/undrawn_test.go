package game

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/roadgraph/world"
)

// drivePose drives the autopilot among traffic for 20 s of game time,
// offline, the main goroutine building (so the run repeats exactly), and
// returns where the car ended.
func drivePose(t *testing.T, undrawn bool) (world.Vec2, float64, int) {
	t.Helper()
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots = 48
	cfg.Workers = 0
	w := world.New(7)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	s, err := New(Options{
		Streaming: cfg, World: w, Display: NewHeadless(), TerrainRadius: 1,
		Autopilot: true, Traffic: true, TimeOfDay: 17.5, FixedStep: true, Duration: 20 * time.Second,
		Undrawn: undrawn, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Run())
	if undrawn {
		assert.Empty(t, s.frame.Groups, "no frame was described")
	} else {
		assert.NotEmpty(t, s.frame.Groups)
	}
	return s.car.Pos, s.car.Heading, s.stream.Stats().Builds
}

// A session that describes no frames (the sweep's soaks) drives exactly
// as one that does.
func TestAnUndrawnDriveIsTheSameDrive(t *testing.T) {
	p, h, b := drivePose(t, false)
	require.Greater(t, p.Len(), 50.0, "it drove somewhere")
	q, k, c := drivePose(t, true)
	assert.Equal(t, p, q)
	assert.Equal(t, h, k)
	assert.Equal(t, b, c)
}
