package soak

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/roadgraph/world"
)

// soak drives two simulated minutes on seed with one worker, o's traffic
// settings, and logs the report.
func soak(t *testing.T, seed uint64, o Options) Report {
	t.Helper()
	if raceDetector {
		t.Skip("the soak runs without the race detector: cmd/test.sh runs it on its own")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	w := world.New(seed)
	cfg := buildworkers.DefaultConfig()
	cfg.Workers = 1
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	o.Seed, o.Duration, o.Streaming, o.World = seed, 2*time.Minute, cfg, w
	r, err := Run(context.Background(), o)
	require.NoError(t, err)
	t.Log("\n" + r.String())
	return r
}

// Two minutes of the real game loop, headless: the car must never stick,
// touch a parked car or sink into the road, and must cover the distance
// a 30 m/s cruise gives through a city.
func TestSoak(t *testing.T) {
	r := soak(t, 412, Options{})
	assert.InDelta(t, 120, r.GameSeconds, 0.05)
	assert.Zero(t, r.StuckEpisodes, "stuck episodes")
	assert.Zero(t, r.CarContacts, "contacts with parked cars")
	assert.GreaterOrEqual(t, r.MinHeightM, -0.05, "never more than 5 cm below the road surface")
	// 2.36 km on seed 412's route since the network rule (2.45 before):
	// 10-minute soaks of the tuned seeds are compared side by side in
	// docs/performance.md
	assert.GreaterOrEqual(t, r.KM, 2.3, "11.5 km per 10 simulated minutes")
	assert.Empty(t, r.Fallback, "the workers stayed healthy")
}

// The same drive through the city's light night traffic: the car never
// sticks and never touches a traffic vehicle or a parked car; the traffic
// is there and costs the main goroutine little (p50: the p99 of a shared
// machine is its neighbours' noise; the benchmarks in roadgraph/traffic
// and trafficframe are the measure). The autopilot stops at red signals
// (up to 19 s of each 32 s cycle) and follows slower vehicles instead of
// passing them, so the distance floor is half the traffic-free one.
const nightHour = 0

func TestSoakWithTraffic(t *testing.T) {
	r := soak(t, 412, Options{Hour: nightHour, Traffic: true})
	assert.Zero(t, r.StuckEpisodes, "stuck episodes")
	assert.Zero(t, r.CarContacts, "contacts with parked cars")
	assert.Zero(t, r.TrafficContacts, "contacts with traffic")
	assert.Greater(t, r.TrafficMax, 0, "traffic was simulated")
	assert.Less(t, r.TrafficUSP50, 100.0, "traffic work per frame, µs")
	assert.GreaterOrEqual(t, r.KM, 0.5*12.0/5, "12 km per 10 simulated minutes, halved by red signals and slower traffic")
}

// Rush hour on seed 1, the busiest of the seeds measured: the car starts
// beside a vehicle, queues held up by it reach back to lane entries, and
// vehicles turn across its way at junctions. It still never sticks and
// never touches a traffic vehicle or a parked car.
const rushHour = 17.5

func TestSoakAtRushHour(t *testing.T) {
	r := soak(t, 1, Options{Hour: rushHour, Traffic: true})
	assert.Zero(t, r.StuckEpisodes, "stuck episodes")
	assert.Zero(t, r.CarContacts, "contacts with parked cars")
	assert.Zero(t, r.TrafficContacts, "contacts with traffic")
	assert.Zero(t, r.Contacts, "contacts with anything")
	assert.Greater(t, r.TrafficMax, 15, "busy traffic around the car")
	assert.Greater(t, r.TrafficFarMean, 100.0, "and down the streets it looks along")
	assert.GreaterOrEqual(t, r.KM, 0.5*12.0/5, "12 km per 10 simulated minutes, halved by red signals and slower traffic")
}
