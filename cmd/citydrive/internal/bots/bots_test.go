package bots

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/netsync"
	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel"
	"citydrive/voxel/gen"
)

// A bot reports the height a player's car would have: on a bridge, the
// deck, not the water under it.
func TestBotRidesTheRoadSurface(t *testing.T) {
	w := world.New(412)
	surf := world.NewSurfaceCache(w)
	var deck world.Vec2
	found := false
	for i := int32(-40); i < 40 && !found; i++ {
		for j := int32(-40); j < 40 && !found; j++ {
			if e, ok := w.Edge(world.EdgeID(world.Cell{I: i, J: j}, world.DirX)); ok {
				nodes := w.EdgeNodes(e, nil)
				if m := nodes[len(nodes)/2]; w.IsWater(m.X, m.Z) {
					deck, found = m, true
				}
			}
		}
	}
	require.True(t, found, "a bridge near the origin")
	ch, y := chunkAt(surf, deck)
	assert.InDelta(t, world.WaterLevel+world.DeckClear, y, 1e-9, "on the deck")
	want, _ := voxel.ChunkOf(int64(math.Floor(deck.X)), int64(math.Floor(y)), int64(math.Floor(deck.Z)))
	assert.Equal(t, want, ch)
	assert.Equal(t, surf.Surface(deck.X, deck.Z).Y, y)
}

// A bot facing a direction reports the heading the game's car has when it
// faces the same way, so other players see it pointing where it drives.
func TestBotHeadingMatchesTheGame(t *testing.T) {
	pos := world.Vec2{X: 10, Z: -20}
	for _, deg := range []float64{0, 30, 90, 135, 180, 225, 270, 300} {
		a := deg * math.Pi / 180
		dir := world.Vec2{X: math.Cos(a), Z: math.Sin(a)}
		game := car.New(pos, dir, flatRoad{})
		want := wire.QuantiseCar(0, 0, pos.X, 0, pos.Z, game.Heading, 30)
		got := snapshot(pos, 0, dir, 30)
		assert.Equal(t, want.Heading, got.Heading, "direction %v°", deg)
		// And the heading points along dir, as the game's Forward reads it.
		f := game.Forward()
		assert.InDelta(t, dir.X, f.X, 1e-9)
		assert.InDelta(t, dir.Z, f.Z, 1e-9)
	}
}

// flatRoad is an endless flat road with nothing on it.
type flatRoad struct{}

func (flatRoad) Surface(_, _ float64) world.Surface { return world.Surface{Road: true} }
func (flatRoad) AppendObstacles(dst []slots.Obstacle, _, _, _ float64) []slots.Obstacle {
	return dst
}
func (flatRoad) Solid(_, _, _ int64) bool { return false }

func TestBusyBackoff(t *testing.T) {
	cases := []struct {
		attempt  int
		u        float64
		min, max time.Duration
	}{
		{0, 0, 50 * time.Millisecond, 50 * time.Millisecond},
		{0, 0.999, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 0, 100 * time.Millisecond, 100 * time.Millisecond},
		{3, 0.5, 400 * time.Millisecond, 800 * time.Millisecond},
		{10, 0, busyBackoffMax / 2, busyBackoffMax / 2},
		{1000, 0.999, busyBackoffMax / 2, busyBackoffMax},
	}
	for _, tc := range cases {
		d := busyBackoff(tc.attempt, tc.u)
		assert.GreaterOrEqual(t, d, tc.min, "attempt %d", tc.attempt)
		assert.LessOrEqual(t, d, tc.max, "attempt %d", tc.attempt)
	}
}

// A bot refused "server busy" (the only handshake slot is held by a
// connection that never says Hello) retries and joins once the slot frees.
func TestBotRetriesBusy(t *testing.T) {
	cfg := netsync.DefaultServerConfig()
	cfg.DataDir, cfg.Seed, cfg.Generator, cfg.World = t.TempDir(), 42, gen.Version, netsync.NewMemoryWorld()
	cfg.MaxHandshakes, cfg.HelloTimeout = 1, time.Second // long enough that the retrying dial is refused at least once
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := netsync.NewServer(cfg)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	defer func() { require.NoError(t, s.Close()); require.NoError(t, <-done) }()

	tlsConf, err := transport.ClientTLS(s.Fingerprint(), wire.ProtocolVersion)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ccfg := netsync.ClientConfig{Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42,
		Generator: gen.Version, Radius: 1, Logger: cfg.Logger}
	// A holder takes the only handshake slot and never says Hello: a plain
	// dial is then refused busy. The server takes connections in the order
	// their handshakes finish on its side, which on a loaded machine need
	// not be the order they were dialled in: if the plain dial got in
	// first (and the holder was refused), both go and it starts again.
	var holderDone <-chan struct{}
	for i := 0; ; i++ {
		require.Less(t, i, 20, "a holder never kept the only handshake slot")
		ep, holder, err := transport.Dial(ctx, s.Addr().String(), tlsConf, transport.ClientQUIC())
		require.NoError(t, err)
		c, err := netsync.Dial(ctx, ccfg)
		if errors.Is(err, netsync.ErrBusy) {
			holderDone = holder.Context().Done()
			defer ep.Close()
			break
		}
		require.NoError(t, err)
		require.NoError(t, c.Close())
		_ = ep.Close()
	}
	// The holder's Hello deadline then frees the slot and the retrying
	// dial, refused busy until then, joins.
	busy := 0
	c, err := dialRetrying(ctx, func(ctx context.Context) (*netsync.Client, error) {
		c, err := netsync.Dial(ctx, ccfg)
		if errors.Is(err, netsync.ErrBusy) {
			busy++
		}
		return c, err
	}, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	defer c.Close()
	assert.NotZero(t, c.Player())
	assert.Positive(t, busy, "refused busy before it joined")
	<-holderDone
}

// Every one of 200 bots (the issue-12 load test, seed 412) finds a road to
// start on: grid points on the lake look around for one.
func TestEveryBotFindsAStart(t *testing.T) {
	w := world.New(412)
	g := roadgraph.New(w)
	for i := range 200 {
		_, err := startPose(g, i, 200, 1500, 412)
		require.NoError(t, err, "bot %d", i)
	}
}

func TestSummariseRates(t *testing.T) {
	s := func(sec float64, hz float64) rateSample {
		return rateSample{at: time.Duration(sec * float64(time.Second)), hz: hz}
	}
	rates := []rateSample{s(1, 30), s(2, 12), s(3, 10), s(4, 10), s(5, 14), s(6, 29), s(7, 30), s(8, 30)}
	r := Report{RateBefore: 30}
	r.summariseRates(rates, 4500*time.Millisecond)
	assert.Equal(t, 10.0, r.RateMin)
	assert.Equal(t, 10.0, r.RateAtLeave)
	assert.Equal(t, 2500*time.Millisecond, r.RecoveredAfterLeaving, "back at 30 Hz at 7 s")

	r = Report{RateBefore: 30}
	r.summariseRates(rates[:6], 4500*time.Millisecond)
	assert.Negative(t, r.RecoveredAfterLeaving, "never back")

	r = Report{RateBefore: 30}
	r.summariseRates(rates, 0)
	assert.Zero(t, r.RateAtLeave, "nobody left")
	assert.Negative(t, r.RecoveredAfterLeaving, "nobody left: nothing to recover from")
	assert.Equal(t, 8, r.RateSamples)

	// A sample at the very moment the half leaves is after it: back at
	// once.
	r = Report{RateBefore: 30}
	r.summariseRates(rates, 7*time.Second)
	assert.Equal(t, 29.0, r.RateAtLeave)
	assert.Zero(t, r.RecoveredAfterLeaving)

	// No rate before the run (the gauge was missing): no recovery figure.
	r = Report{}
	r.summariseRates(rates, 4500*time.Millisecond)
	assert.Equal(t, 10.0, r.RateAtLeave)
	assert.Negative(t, r.RecoveredAfterLeaving)
}
