package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/roadgraph/world"
)

// The city must be real content: over a drive the average item holds at
// least 2,500 vertices, and nothing is lost to overflow silently.
func TestDriveAverageIsRealContent(t *testing.T) {
	if testing.Short() {
		t.Skip("drives for 20 simulated seconds")
	}
	for _, seed := range []uint64{412, 7} {
		cfg := buildworkers.DefaultConfig()
		w := world.New(seed)
		cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
		rep, err := Run(Options{Seed: seed, Duration: 20 * time.Second, Speed: 30, Streaming: cfg})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, rep.AvgVertsPerItem, 2500.0, "seed %d", seed)
		assert.LessOrEqual(t, rep.MaxVertsPerItem, cfg.Slots.VertsPerSlot, "nothing exceeds a slot")
		assert.Zero(t, rep.FallbackBuilds, "workers stayed healthy")
		assert.Greater(t, rep.Builds, 180)
	}
}
