// Package bots drives headless players against a citydrive server: each
// bot has its own road graph and autopilot, subscribes to its area as its
// centre chunk changes, sends its car at the server's tick rate through the
// client's latest-only slot, edits a block within reach now and then, and
// counts the bytes its connection moves.
package bots

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
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
	"citydrive/voxel/gen"
)

// Options configure a run.
type Options struct {
	// Addr is the server, or several comma-separated (a cluster's): bot i
	// joins server i mod n, with the matching Fingerprint (or the only one).
	Addr        string
	Fingerprint string
	Seed        uint64
	N           int
	Duration    time.Duration
	Speed       float64       // m/s (30)
	Radius      uint32        // subscription radius; 0: the server's maximum
	EditEvery   time.Duration // mean time between a bot's edits (10 s); negative: never
	Spread      float64       // metres between bots' starting points (1500)
	// TeleportAt, if positive, moves every bot 20 km away once, this long
	// into the run, and measures the burst until its new area is delivered.
	TeleportAt time.Duration
	// LeaveHalfAfter, if positive, makes every odd-numbered bot leave (close
	// its connection) this long into the run; the others drive on.
	LeaveHalfAfter time.Duration
	MetricsURL     string // the server's /metrics, for its tick p99
	Logger         *slog.Logger
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
}

// Report is the whole run.
type Report struct {
	Bots     []Bot
	Duration time.Duration
	// Server tick (from its Prometheus endpoint; zero without one).
	TickP99Hist    float64 // seconds, from the histogram's buckets over the run
	TickP99Summary float64 // seconds, the server's own 1-minute summary at the end
	TickP50Hist    float64
	// The tick's CPU time (its thread's; zero where the server does not
	// measure it): the server's own cost, without the machine's waits.
	TickCPUP50, TickCPUP99 float64
	TickCount              float64
	Scraped                bool
	// The server's tick rate (citydrive_tick_rate_hz), sampled every
	// rateSampleEvery: its rate before the bots joined, the lowest seen,
	// and with LeaveHalfAfter, the rate when the half left and how long
	// after that it was back at the rate before (negative: never).
	RateBefore, RateMin   float64
	RateAtLeave           float64
	RecoveredAfterLeaving time.Duration
	RateSamples           int
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
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// Run starts o.N bots, drives them for o.Duration and reports.
func Run(ctx context.Context, o Options) (Report, error) {
	o.defaults()
	var before map[string]float64
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
	for i := range o.N {
		wg.Go(func() {
			ctx := runCtx
			if o.LeaveHalfAfter > 0 && i%2 == 1 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(runCtx, o.LeaveHalfAfter)
				defer cancel()
			}
			bots[i] = drive(ctx, o, i)
		})
	}
	wg.Wait()
	<-ratesDone
	rep := Report{Bots: bots, Duration: time.Since(start)}
	if before != nil {
		rep.RateBefore = before[netsync.MetricTickRate]
	}
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
		rep.TickP99Summary = after[netsync.MetricTickQuantiles+`{quantile="0.99"}`]
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

func drive(ctx context.Context, o Options, id int) (b Bot) {
	b.ID = id
	w := world.New(o.Seed)
	g := roadgraph.New(w)
	surf := world.NewSurfaceCache(w)
	route, err := startPose(g, id, o.N, o.Spread, o.Seed)
	if err != nil {
		b.Err = err
		return b
	}
	pos, _ := route.Pose()
	centre, _ := chunkAt(surf, pos)
	askRadius := o.Radius
	if askRadius == 0 {
		askRadius = wire.AbsMaxRadius // the client clamps it to the server's maximum
	}
	dialCtx, cancel := context.WithTimeout(ctx, dialPatience)
	addrs, pins := strings.Split(o.Addr, ","), strings.Split(o.Fingerprint, ",")
	cfg := netsync.ClientConfig{
		Addr: addrs[id%len(addrs)], Fingerprint: pins[id%len(pins)], Seed: o.Seed, Generator: gen.Version,
		Centre: centre, Radius: askRadius,
		Name: fmt.Sprintf("bot-%d", id), Logger: o.Logger.With("bot", id),
	}
	dial := func(ctx context.Context) (*netsync.Client, error) { return netsync.Dial(ctx, cfg) }
	var failover *netsync.Failover // several servers: bot id starts on server id mod n, moves on when it is lost
	if len(addrs) > 1 {
		var err error
		if failover, err = netsync.NewFailover(cfg, addrs, pins, id); err != nil {
			cancel()
			b.Err = err
			return b
		}
		dial = failover.Dial
	}
	backoffRng := rand.New(rand.NewPCG(o.Seed^0xb0, uint64(id)))
	c, err := dialRetrying(dialCtx, dial, backoffRng)
	cancel()
	if err != nil {
		b.Err = err
		return b
	}
	defer func() {
		if c != nil {
			_ = c.Close()
		}
	}()
	radius := int32(c.Welcome().MaxRadius)
	if o.Radius > 0 {
		radius = min(radius, int32(o.Radius))
	}
	b.Radius = radius
	hz := max(1, int(c.Welcome().TickHz))
	rng := rand.New(rand.NewPCG(o.Seed, uint64(id)))

	ar := newArea(centre, radius)
	got := func(p voxel.ChunkPos) {
		b.Chunks++
		ar.got(p)
	}

	start := time.Now()
	joined := false
	var steadyFrom netsync.Traffic
	var steadyAt time.Time
	var steadyIn, steadyOut uint64
	var steadyT float64
	teleported, inTeleport := false, false
	var tpFrom netsync.Traffic
	var tpAt time.Time
	nextEdit := start.Add(jitter(rng, o.EditEvery))
	nextEvict := start.Add(2 * time.Second)
	var msgs []wire.Message
	var cars []wire.CarSnapshot
	seen := map[uint32]struct{}{}
	sent := map[uint32]time.Time{}   // edit requests awaiting their ack
	var earlierIn, earlierOut uint64 // bytes of connections lost before this one (failover)

	// closeSteady ends a steady period at now, t being the traffic then
	// (one reading shared with whatever starts next, so every byte is
	// counted in exactly one period).
	closeSteady := func(now time.Time, t netsync.Traffic) {
		if !steadyAt.IsZero() {
			steadyIn += t.BytesIn - steadyFrom.BytesIn
			steadyOut += t.BytesOut - steadyFrom.BytesOut
			steadyT += now.Sub(steadyAt).Seconds()
			steadyAt = time.Time{}
		}
	}

	tick := time.NewTicker(time.Second / time.Duration(hz))
	defer tick.Stop()
	last := start
	for {
		select {
		case <-ctx.Done():
			end := c.Traffic()
			closeSteady(time.Now(), end)
			b.BytesIn, b.BytesOut, b.SteadySeconds = earlierIn+end.BytesIn, earlierOut+end.BytesOut, steadyT
			if steadyT > 0 {
				b.InBps, b.OutBps = float64(steadyIn)/steadyT, float64(steadyOut)/steadyT
			}
			b.CarsSeen = len(seen)
			return b
		case <-c.Done():
			if failover == nil {
				b.Err = c.Err()
				return b
			}
			now := time.Now()
			t := c.Traffic() // the lost connection's bytes stay in the whole-run figures
			closeSteady(now, t)
			earlierIn, earlierOut = earlierIn+t.BytesIn, earlierOut+t.BytesOut
			_ = c.Close()
			dctx, cancel := context.WithTimeout(ctx, dialPatience)
			c, err = dialRetrying(dctx, dial, backoffRng)
			cancel()
			if err != nil {
				c = nil
				if ctx.Err() == nil { // not just the run ending while it redialled
					b.Err = fmt.Errorf("failing over: %w", err)
				}
				return b
			}
			b.Failovers++
			b.FailedOverAt = time.Now()
			o.Logger.Warn("bot failed over", "bot", id, "after", time.Since(now).Round(time.Millisecond), "server", c.Welcome().Player>>20)
			ar.forget() // the new server sends the area again
			_ = c.Subscribe(ar.centre, uint32(radius))
			if joined { // the steady window goes on over the new connection
				steadyFrom, steadyAt = c.Traffic(), time.Now()
			}
		case now := <-tick.C:
			dt := now.Sub(last).Seconds()
			last = now
			if o.TeleportAt > 0 && !teleported && now.Sub(start) >= o.TeleportAt {
				teleported = true
				t := c.Traffic()
				closeSteady(now, t)
				p, _ := route.Pose()
				r, err := routeNear(g, p.Add(world.Vec2{X: 20000, Z: 7000}), o.Seed+uint64(id)+1)
				if err == nil {
					route = r
					inTeleport, tpFrom, tpAt = true, t, now
				}
			}
			route.Advance(o.Speed * dt)
			b.DistanceM += o.Speed * dt
			p, dir := route.Pose()
			ch, y := chunkAt(surf, p)
			c.SendCar(snapshot(p, y, dir, o.Speed))
			if ch != ar.centre {
				_ = c.Subscribe(ch, uint32(radius))
				ar.move(ch)
			}
			msgs = c.Poll(msgs[:0], 1<<16)
			for _, m := range msgs {
				switch m := m.(type) {
				case *wire.ChunkDefaults:
					for _, p := range m.Pos {
						got(p)
					}
				case *wire.ChunkEdits:
					got(m.Pos)
				case *wire.EditAck:
					b.EditsAcked++
					if at, ok := sent[m.Seq]; ok {
						b.AckLatency = append(b.AckLatency, now.Sub(at).Seconds())
						delete(sent, m.Seq)
					}
				case *wire.EditReject:
					b.EditsRejected++
					b.LastReject = m.Reason
				}
			}
			clear(msgs)
			if ar.complete() {
				switch {
				case !joined:
					joined = true
					t := c.Traffic()
					b.JoinBytes, b.JoinSeconds = t.BytesIn, now.Sub(start).Seconds()
					steadyFrom, steadyAt = t, now
					o.Logger.Info("bot joined", "bot", id, "after", now.Sub(start).Round(time.Millisecond), "bytes", t.BytesIn)
				case inTeleport:
					inTeleport = false
					t := c.Traffic()
					b.TeleportBytes, b.TeleportSeconds = t.BytesIn-tpFrom.BytesIn, now.Sub(tpAt).Seconds()
					steadyFrom, steadyAt = t, now
				}
			}
			if o.EditEvery > 0 && now.After(nextEdit) {
				nextEdit = now.Add(jitter(rng, o.EditEvery))
				bx, by, bz := editNear(rng, p, y)
				cp, idx := voxel.ChunkOf(bx, by, bz)
				if ar.holds(cp) { // only in a chunk the bot holds
					blk := editBlock(rng)
					if seq, err := c.RequestEdit(cp, uint16(idx), blk); err == nil {
						sent[seq] = now
					}
				}
			}
			if now.After(nextEvict) {
				nextEvict = now.Add(2 * time.Second)
				g.EvictFar(p, 1500)
			}
			cars = c.Cars(cars[:0])
			for _, s := range cars {
				seen[s.Player] = struct{}{}
			}
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

// scrape reads a Prometheus text endpoint into "name{labels}" → value.
func scrape(ctx context.Context, url string) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// rateSample is the server's tick rate at a moment of the run.
type rateSample struct {
	at time.Duration // since the start
	hz float64
}

// sampleRate reads the server's tick-rate gauge at every tick until ctx
// ends (failed reads are skipped).
func sampleRate(ctx context.Context, url string, start time.Time, tick <-chan time.Time) []rateSample {
	var out []rateSample
	for {
		select {
		case <-ctx.Done():
			return out
		case <-tick:
		}
		m, err := scrape(ctx, url)
		if hz, ok := m[netsync.MetricTickRate]; err == nil && ok {
			out = append(out, rateSample{at: time.Since(start), hz: hz})
		}
	}
}

// summariseRates fills the rate fields from the samples: the lowest, and
// with leave > 0 the rate at leave and how long after it the rate was
// back at RateBefore (negative: not within the run).
func (r *Report) summariseRates(rates []rateSample, leave time.Duration) {
	r.RateSamples = len(rates)
	r.RecoveredAfterLeaving = -1
	if len(rates) == 0 {
		return
	}
	r.RateMin = rates[0].hz
	for _, s := range rates {
		r.RateMin = min(r.RateMin, s.hz)
	}
	if leave <= 0 {
		return
	}
	for _, s := range rates {
		if s.at < leave {
			r.RateAtLeave = s.hz
			continue
		}
		if r.RateBefore > 0 && s.hz >= r.RateBefore {
			r.RecoveredAfterLeaving = s.at - leave
			return
		}
	}
}

// histQuantile estimates quantile q of histogram name over the interval
// between two scrapes, interpolating linearly inside the bucket.
func histQuantile(before, after map[string]float64, name string, q float64) (float64, float64) {
	type bucket struct{ le, n float64 }
	var bs []bucket
	prefix := name + `_bucket{le="`
	for k, v := range after {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		le, err := strconv.ParseFloat(strings.TrimSuffix(k[len(prefix):], `"}`), 64)
		if err != nil {
			continue
		}
		bs = append(bs, bucket{le, v - before[k]})
	}
	slices.SortFunc(bs, func(a, b bucket) int {
		switch {
		case a.le < b.le:
			return -1
		case a.le > b.le:
			return 1
		}
		return 0
	})
	if len(bs) == 0 || bs[len(bs)-1].n == 0 {
		return 0, 0
	}
	total := bs[len(bs)-1].n
	rank := q * total
	prevLe, prevN := 0.0, 0.0
	for _, b := range bs {
		if b.n >= rank {
			if math.IsInf(b.le, 1) {
				return prevLe, total
			}
			if b.n == prevN {
				return b.le, total
			}
			return prevLe + (b.le-prevLe)*(rank-prevN)/(b.n-prevN), total
		}
		prevLe, prevN = b.le, b.n
	}
	return prevLe, total
}

// WriteTable prints the report.
func (r Report) WriteTable(w io.Writer) {
	var in, out, join, joinS, tp, tpS []float64
	failed := 0
	acked, rejected := 0, 0
	var ackLat []float64
	failovers := 0
	var lastBack time.Time
	var radii []int32
	var lastReject string
	for _, b := range r.Bots {
		if b.Err != nil {
			failed++
			continue
		}
		in, out = append(in, b.InBps), append(out, b.OutBps)
		radii = append(radii, b.Radius)
		if b.JoinSeconds > 0 {
			join, joinS = append(join, float64(b.JoinBytes)), append(joinS, b.JoinSeconds)
		}
		if b.TeleportSeconds > 0 {
			tp, tpS = append(tp, float64(b.TeleportBytes)), append(tpS, b.TeleportSeconds)
		}
		acked += b.EditsAcked
		ackLat = append(ackLat, b.AckLatency...)
		failovers += b.Failovers
		if b.FailedOverAt.After(lastBack) {
			lastBack = b.FailedOverAt
		}
		rejected += b.EditsRejected
		if b.LastReject != "" {
			lastReject = b.LastReject
		}
	}
	fmt.Fprintf(w, "bots: %d (%d failed), ran %.1f s\n", len(r.Bots), failed, r.Duration.Seconds())
	for _, b := range r.Bots {
		if b.Err != nil {
			fmt.Fprintf(w, "  bot %d failed: %v\n", b.ID, b.Err)
			break
		}
	}
	if len(radii) > 0 {
		lo, hi := slices.Min(radii), slices.Max(radii)
		fmt.Fprintf(w, "area radius served: %d", lo)
		if hi != lo {
			fmt.Fprintf(w, " to %d", hi)
		}
		fmt.Fprintln(w, " chunks")
	}
	row := func(name string, v []float64, unit string) {
		if len(v) == 0 {
			fmt.Fprintf(w, "%-34s -\n", name)
			return
		}
		slices.Sort(v)
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		fmt.Fprintf(w, "%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", name, sum/float64(len(v)), v[len(v)/2], v[len(v)-1], unit, len(v))
	}
	row("bytes/s in per player (steady)", in, "B/s")
	row("bytes/s out per player (steady)", out, "B/s")
	row("first area: bytes in", join, "B")
	row("first area: seconds", joinS, "s")
	row("teleport burst: bytes in", tp, "B")
	row("teleport burst: seconds", tpS, "s")
	fmt.Fprintf(w, "edits: %d acknowledged, %d rejected", acked, rejected)
	if lastReject != "" {
		fmt.Fprintf(w, " (last reason: %s)", lastReject)
	}
	fmt.Fprintln(w)
	if failovers > 0 {
		fmt.Fprintf(w, "failovers: %d; the last bot was back on a server at %s (unix ms %d)\n",
			failovers, lastBack.UTC().Format("15:04:05.000"), lastBack.UnixMilli())
	}
	if len(ackLat) > 0 {
		slices.Sort(ackLat)
		q := func(p float64) float64 { return ackLat[min(len(ackLat)-1, int(p*float64(len(ackLat))))] * 1000 }
		fmt.Fprintf(w, "edit ack latency: p50 %.1f ms  p99 %.1f ms  (n=%d, bot-tick resolution)\n", q(0.5), q(0.99), len(ackLat))
	}
	if r.Scraped {
		fmt.Fprintf(w, "server tick p50 %.2f ms, p99 %.2f ms over this run (histogram, %.0f ticks); p99 %.2f ms (server's 1-minute summary)\n",
			r.TickP50Hist*1000, r.TickP99Hist*1000, r.TickCount, r.TickP99Summary*1000)
		if r.TickCPUP99 > 0 {
			fmt.Fprintf(w, "server tick CPU time: p50 %.2f ms, p99 %.2f ms (the tick's thread; wall time above adds the machine's waits)\n",
				r.TickCPUP50*1000, r.TickCPUP99*1000)
		}
		if r.RateSamples > 0 {
			fmt.Fprintf(w, "server tick rate: %.0f Hz before, lowest %.0f Hz (%d samples)", r.RateBefore, r.RateMin, r.RateSamples)
			switch {
			case r.RateAtLeave == 0:
			case r.RecoveredAfterLeaving >= 0:
				fmt.Fprintf(w, "; %.0f Hz when half the bots left, back to %.0f Hz %.2f s later", r.RateAtLeave, r.RateBefore, r.RecoveredAfterLeaving.Seconds())
			default:
				fmt.Fprintf(w, "; %.0f Hz when half the bots left, not back to %.0f Hz by the end", r.RateAtLeave, r.RateBefore)
			}
			fmt.Fprintln(w)
		}
	} else {
		fmt.Fprintln(w, "server tick p99: not measured (pass -metrics http://host:port/metrics)")
	}
}
