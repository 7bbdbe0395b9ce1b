package game

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/roadgraph/world"
)

// shuffledRanks is 1…n in a seeded random order.
func shuffledRanks(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	rand.New(rand.NewPCG(5, 6)).Shuffle(n, func(i, j int) { v[i], v[j] = v[j], v[i] })
	return v
}

// The soak's figures (Summarise) take quantile's nearest rank, as the
// bench's do: of 1…200 the p50 is the 100th and the p99 the 198th, the
// figures bench's TestBenchQuantilesAreTheSoakRule pins for the same
// samples. The samples themselves are left in their order.
func TestSummaryQuantilesAreTheBenchRule(t *testing.T) {
	cfg := buildworkers.DefaultConfig()
	cfg.Workers = 0
	w := world.New(412)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	st, err := buildworkers.NewStreamer(cfg, w, NewHeadless(), time.Now())
	require.NoError(t, err)
	defer st.Close()
	samples := shuffledRanks(200)
	s := &Session{stream: st, times: samples, workUS: samples, roadUS: samples, voxelUS: samples}
	sum := s.Summarise()
	assert.Equal(t, 100.0, sum.FrameMSMedian)
	assert.Equal(t, 198.0, sum.FrameMSP99)
	assert.Equal(t, 100.0, sum.WorkUSMedian)
	assert.Equal(t, 198.0, sum.WorkUSP99)
	assert.Equal(t, 198.0, sum.RoadUSP99)
	assert.Equal(t, 198.0, sum.VoxelUSP99)
	assert.Equal(t, 200.0, sum.VoxelUSMax)
	assert.Equal(t, shuffledRanks(200), samples, "the session's samples keep their order")
}
