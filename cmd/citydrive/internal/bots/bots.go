// Package bots drives headless players against a citydrive server: each
// bot has its own road graph and autopilot, subscribes to its area as its
// centre chunk changes, sends its car at the server's tick rate through the
// client's latest-only slot, edits a block within reach now and then, and
// counts the bytes its connection moves. A bot is bot.go, its figures
// over the run report.go, the server's Prometheus endpoint metrics.go.
package bots

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

// Options configure a run.
type Options struct {
	// Addr is the server, or several comma-separated (a cluster's): bot i
	// joins server i mod n, with the matching Fingerprint (or the only one).
	Addr        string
	Fingerprint string
	Seed        uint64
	N           int
	// First and Of number this run's bots First…First+N-1 of Of bots in
	// all (several bots processes on one grid); zero: 0 of N.
	First, Of int
	// Stay keeps each bot on the server it joined: a cluster's Owners are
	// ignored, so no bot is handed over (to load chosen servers).
	Stay      bool
	Duration  time.Duration
	Speed     float64       // m/s (30)
	Radius    uint32        // subscription radius; 0: the server's maximum
	EditEvery time.Duration // mean time between a bot's edits (10 s); negative: never
	Spread    float64       // metres between bots' starting points (1500)
	// TeleportAt, if positive, moves every bot 20 km away once, this long
	// into the run, and measures the burst until its new area is delivered.
	TeleportAt time.Duration
	// LeaveHalfAfter, if positive, makes every odd-numbered bot leave (close
	// its connection) this long into the run; the others drive on.
	LeaveHalfAfter time.Duration
	MetricsURL     string // the server's /metrics, for its tick p99
	// Password is the server's join password, if it has one (every bot
	// gives it in its Join).
	Password string
	// RecordEdits keeps every edit acknowledged (and those unanswered at
	// the end) in Bot.Edits, to check them against the stored world.
	RecordEdits bool
	// GapTrace explains every car gap of gapTraceMin or more the watch
	// judges (handover and baseline) in Bot.GapTraces (gaptrace.go): a
	// diagnostic, off by default, that costs every connection a log of
	// each car's relays.
	GapTrace bool
	Logger   *slog.Logger
}

// Bot is one bot's outcome.
type Bot struct {
	ID              int
	Err             error
	InBps, OutBps   float64 // steady state: after the first area arrived, teleport burst excluded
	JoinBytes       uint64  // bytes in until the first area was complete
	JoinSeconds     float64
	TeleportBytes   uint64 // bytes in from the teleport until the new area was complete
	TeleportSeconds float64
	BytesIn         uint64  // whole run
	BytesOut        uint64  // whole run
	SteadySeconds   float64 // the time InBps and OutBps are measured over
	Chunks          int
	Radius          int32 // the area's radius: Options.Radius (0: the server's maximum) clamped to the server's maximum
	EditsAcked      int
	AckLatency      []float64 // seconds from request to ack, per acked edit (measured at the bot's tick, so ±1 tick)
	EditsRejected   int
	LastReject      string
	CarsSeen        int
	DistanceM       float64
	Failovers       int       // connections replaced after the server was lost (several -addr)
	FailedOverAt    time.Time // when the last one was back
	// Handovers counts switches between region owners (a cluster's
	// servers that tell them). Across each, the cars this bot saw just
	// before it (gapRecent) that are this process's bots well inside its
	// area are watched (gapwatch.go says exactly how): HandoverWatched
	// of them. HandoverGaps is each one's gap, seconds; HandoverCarsLost
	// those still in view and not shown within gapWatchFor;
	// HandoverLeftView those that drove out of view first (not counted).
	// HandoverUnjudged counts the cars seen before a switch that are
	// other processes' bots, whose place is unknown here.
	// HandoverAnyGap and HandoverAnyLost are the old measure: every car
	// seen before a switch, wherever it drove. The Baseline figures are
	// the same watch started every second where the bot's connections
	// stayed as they were (no handover): what the path's ticks give
	// without one.
	Handovers        int
	HandoverWatched  int
	HandoverGaps     []float64
	HandoverCarsLost int
	HandoverLeftView int
	HandoverUnjudged int
	HandoverAnyGap   time.Duration
	HandoverAnyLost  int
	BaselineWatched  int
	BaselineGaps     []float64
	BaselineCarsLost int
	BaselineLeftView int
	// HandoverWatcherLate and BaselineWatcherLate count the gaps left
	// out of the figures because the watcher's own ticks came more than
	// lateTick periods apart within them (the load generator behind).
	HandoverWatcherLate, BaselineWatcherLate int
	Edits                                    []Edit // with Options.RecordEdits
	// Ticks counts the bot's ticks, LateTicks those that came more than
	// lateTick periods after the one before, LongestTick the longest
	// between two: how far the bots' process kept up (a late watcher
	// sees every car late).
	Ticks, LateTicks int
	LongestTick      time.Duration
	GapTraces        []GapTrace // with Options.GapTrace
}

// rateSampleEvery is how often Run reads the server's tick rate.
const rateSampleEvery = 250 * time.Millisecond

// defaults fills the options left zero with the defaults documented on
// Options.
func (o *Options) defaults() {
	if o.Speed <= 0 {
		o.Speed = 30
	}
	if o.EditEvery == 0 {
		o.EditEvery = 10 * time.Second
	}
	if o.Spread <= 0 {
		o.Spread = 1500
	}
	if o.Of < o.First+o.N {
		o.Of = o.First + o.N
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// Run starts o.N bots, drives them for o.Duration and reports.
func Run(ctx context.Context, o Options) (Report, error) {
	o.defaults()
	var before metrics
	if o.MetricsURL != "" {
		var err error
		if before, err = scrape(ctx, o.MetricsURL); err != nil {
			return Report{}, fmt.Errorf("scraping %s: %w", o.MetricsURL, err)
		}
	}
	bots := make([]Bot, o.N)
	var wg sync.WaitGroup
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	start := time.Now()
	var rates []rateSample
	ratesDone := make(chan struct{})
	if o.MetricsURL != "" {
		go func() {
			defer close(ratesDone)
			t := time.NewTicker(rateSampleEvery)
			defer t.Stop()
			rates = sampleRate(runCtx, o.MetricsURL, start, t.C)
		}()
	} else {
		close(ratesDone)
	}
	f := newFleet()
	for i := range o.N {
		wg.Go(func() {
			ctx := runCtx
			if o.LeaveHalfAfter > 0 && i%2 == 1 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(runCtx, o.LeaveHalfAfter)
				defer cancel()
			}
			bots[i] = drive(ctx, o, o.First+i, f)
		})
	}
	wg.Wait()
	<-ratesDone
	rep := Report{Bots: bots, Duration: time.Since(start)}
	rep.RateBefore, _ = before.value(netsync.MetricTickRate)
	rep.summariseRates(rates, o.LeaveHalfAfter)
	if o.MetricsURL != "" {
		after, err := scrape(ctx, o.MetricsURL)
		if err != nil {
			return rep, fmt.Errorf("scraping %s: %w", o.MetricsURL, err)
		}
		rep.Scraped = true
		rep.TickP99Hist, rep.TickCount = histQuantile(before, after, netsync.MetricTick, 0.99)
		rep.TickP50Hist, _ = histQuantile(before, after, netsync.MetricTick, 0.5)
		rep.TickCPUP50, _ = histQuantile(before, after, netsync.MetricTickCPU, 0.5)
		rep.TickCPUP99, _ = histQuantile(before, after, netsync.MetricTickCPU, 0.99)
		rep.TickP99Summary = after.summaryQuantile(netsync.MetricTickQuantiles, 0.99)
	}
	return rep, nil
}

// startPose spreads bots on a square grid around the origin, each on a
// road near its grid point.
func startPose(g *roadgraph.Graph, i, n int, spread float64, seed uint64) (*autopilot.Route, error) {
	var r *autopilot.Route
	err := searchNear(gridPoint(i, n, spread), func(q world.Vec2) (err error) {
		r, err = routeNear(g, q, seed+uint64(i))
		return err
	})
	return r, err
}

// gridPoint is bot i's of n on a square grid spread metres apart, centred
// on the origin.
func gridPoint(i, n int, spread float64) world.Vec2 {
	side := int(math.Ceil(math.Sqrt(float64(n))))
	return world.Vec2{X: (float64(i%side) - float64(side-1)/2) * spread, Z: (float64(i/side) - float64(side-1)/2) * spread}
}

// searchNear tries p, then (a grid point on the lake has no road near)
// the points around it, farther out ring by ring, until try succeeds;
// after the last ring it gives up with try's last error.
func searchNear(p world.Vec2, try func(world.Vec2) error) error {
	err := try(p)
	for k := 1; err != nil && k <= startSearchSteps; k++ {
		d := float64(k) * startSearchStep
		for _, o := range []world.Vec2{{X: d}, {X: -d}, {Z: d}, {Z: -d}} {
			if err = try(p.Add(o)); err == nil {
				break
			}
		}
	}
	return err
}

// How far startPose looks around a grid point without roads.
const (
	startSearchStep  = 400.0 // metres
	startSearchSteps = 8
)

func routeNear(g *roadgraph.Graph, p world.Vec2, seed uint64) (*autopilot.Route, error) {
	j := g.JunctionNear(p)
	if j == nil {
		return nil, fmt.Errorf("no road near %v", p)
	}
	g.EnsureJunctionArms(j)
	if len(j.Arms) == 0 {
		return nil, fmt.Errorf("junction near %v has no roads", p)
	}
	e := j.Arms[0]
	mid := e.Segments() / 2
	r, ok := autopilot.New(g, e.Nodes[mid], e.Tangent(mid), seed)
	if !ok {
		return nil, errors.New("no road to drive on")
	}
	return r, nil
}

// snapshot is the car state a bot at p facing dir sends, with the game's
// heading convention.
func snapshot(p world.Vec2, y float64, dir world.Vec2, speed float64) wire.CarSnapshot {
	return wire.QuantiseCar(0, 0, p.X, y, p.Z, car.HeadingOf(dir), speed)
}

// chunkAt is the chunk a bot at p is in and its height: on the road
// surface, as a player's car is (bridge decks included).
func chunkAt(surf *world.SurfaceCache, p world.Vec2) (voxel.ChunkPos, float64) {
	y := surf.Surface(p.X, p.Z).Y
	return voxel.ChunkAt(p.X, y, p.Z), y
}

// dialPatience is how long a bot keeps trying to join (busy refusals
// included).
const dialPatience = 30 * time.Second

// Backoff after a "server busy" refusal: the first wait, doubled per retry
// up to the cap, each jittered to between half and all of it so a crowd of
// bots does not come back in step.
const (
	busyBackoffFirst = 100 * time.Millisecond
	busyBackoffMax   = 2 * time.Second
)

// busyBackoff is the wait before retry attempt (0-based) after a busy
// refusal; u in [0, 1) is the jitter.
func busyBackoff(attempt int, u float64) time.Duration {
	d := busyBackoffMax
	if attempt < 16 {
		d = min(busyBackoffMax, busyBackoffFirst<<attempt)
	}
	return d/2 + time.Duration(u*float64(d/2))
}

// retryable reports whether a failed dial is worth another try: the
// server was busy or timed the bot out, or the QUIC handshake got no
// answer in time (a starved server drops Initial packets).
func retryable(err error) bool {
	var idle *quic.IdleTimeoutError
	var hs *quic.HandshakeTimeoutError
	return errors.Is(err, netsync.ErrBusy) || errors.Is(err, netsync.ErrTimedOut) ||
		errors.As(err, &idle) || errors.As(err, &hs)
}

// dialRetrying dials, retrying "server busy" refusals (netsync.ErrBusy)
// and handshakes that timed out on either side (netsync.ErrTimedOut: the
// bot's Hello was late; a QUIC handshake with no answer: the machine
// starved) with jittered exponential backoff until ctx ends; any other
// error is returned at once.
func dialRetrying(ctx context.Context, dial func(context.Context) (*netsync.Client, error), rng *rand.Rand) (*netsync.Client, error) {
	for attempt := 0; ; attempt++ {
		c, err := dial(ctx)
		if err == nil || !retryable(err) {
			return c, err
		}
		t := time.NewTimer(busyBackoff(attempt, rng.Float64()))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("still busy after %d attempts: %w", attempt+1, err)
		case <-t.C:
		}
	}
}

// Where a bot edits: a block up to editAcross/2 metres along X and Z
// from its car, from editDown metres below the road surface to editUp
// above it (it digs and builds at the roadside).
const (
	editAcross = 16.0
	editDown   = 3.0
	editUp     = 1.0
)

// editNear picks the block a bot at p, on a surface at height y, edits.
func editNear(rng *rand.Rand, p world.Vec2, y float64) (x, by, z int64) {
	fx := math.Floor(p.X + rng.Float64()*editAcross - editAcross/2)
	fz := math.Floor(p.Z + rng.Float64()*editAcross - editAcross/2)
	fy := math.Floor(y + rng.Float64()*(editDown+editUp) - editDown)
	return int64(fx), int64(fy), int64(fz)
}

// editBlock picks the block a bot places: any kind but air.
func editBlock(rng *rand.Rand) voxel.Block {
	return voxel.Block(1 + rng.IntN(int(voxel.NumBlocks-1)))
}

// jitter is uniform in [d/2, 3d/2).
func jitter(r *rand.Rand, d time.Duration) time.Duration {
	if d <= 0 {
		return time.Hour
	}
	return d/2 + time.Duration(r.Int64N(int64(d)))
}
