package bots

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/gen"
)

// How a bot drives between events.
const (
	evictEvery   = 2 * time.Second // how often a bot drops far road graph
	evictKeep    = 1500.0          // metres of graph it keeps around its car
	pollMessages = 1 << 16         // messages a bot takes per tick, at most
	// TeleportAt moves a bot this far along X and Z, metres: 21 km.
	teleportX, teleportZ = 20000, 7000
)

// bot is one headless player over a run: its roads and route, its
// connection (redialled on another server when several are given), its
// area, and the figures it gathers in res. drive hands each event (the
// run's end, the connection lost, a tick) to one method.
type bot struct {
	o   Options
	res Bot

	g     *roadgraph.Graph
	surf  *world.SurfaceCache
	route *autopilot.Route

	c        conn              // the connection: a Client, or h once the server told owners
	cl       *netsync.Client   // the client c is while it is one
	h        *netsync.Handover // nil: no owners told (a single server)
	hcfg     netsync.HandoverConfig
	dial     func(context.Context) (*netsync.Client, error)
	failover bool       // several servers: a lost connection is redialled
	backoff  *rand.Rand // the dial retries' jitter
	rng      *rand.Rand // when and what the bot edits
	radius   int32      // the area's, as the server serves it
	hz       int        // ticks a second: the server's rate
	ar       *area

	start, last time.Time
	joined      bool // the first area was complete
	steady      steadyWindow
	teleported  bool            // TeleportAt has passed
	inBurst     bool            // since the teleport, until the new area is complete
	burstFrom   netsync.Traffic // the traffic at the teleport
	burstAt     time.Time
	nextEdit    time.Time
	nextEvict   time.Time
	msgs        []wire.Message
	cars        []wire.CarSnapshot
	seen        map[uint32]struct{} // players whose cars this bot saw
	sent        map[uint32]sentEdit // edit requests awaiting their answer
	fleet       *fleet              // where this process's bots drive
	shownAs     uint32              // the id this bot's car is in the fleet under
	gaps        *gapWatch           // handed over (with h): the other cars across each switch
	// bytes of connections lost before this one (failover)
	earlierIn, earlierOut uint64
}

// conn is what a bot drives on: a netsync.Client, or a netsync.Handover
// over a cluster's region owners.
type conn interface {
	Done() <-chan struct{}
	Err() error
	Traffic() netsync.Traffic
	SendCar(wire.CarSnapshot)
	Subscribe(voxel.ChunkPos, uint32) error
	Poll([]wire.Message, int) []wire.Message
	Cars([]wire.CarSnapshot) []wire.CarSnapshot
	RequestEdit(voxel.ChunkPos, uint16, voxel.Block) (uint32, error)
	Close() error
}

// sentEdit is an edit request awaiting its answer.
type sentEdit struct {
	at    time.Time
	pos   voxel.ChunkPos
	index uint16
	block voxel.Block
}

// drive runs bot id until ctx ends or its connection is lost for good;
// f is where the process's bots drive.
func drive(ctx context.Context, o Options, id int, f *fleet) Bot {
	b, err := newBot(ctx, o, id)
	if err != nil {
		return Bot{ID: id, Err: err}
	}
	b.fleet = f
	defer b.close()
	tick := time.NewTicker(time.Second / time.Duration(b.hz))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			b.end()
			return b.res
		case <-b.c.Done():
			if b.handedOn(time.Now()) {
				continue
			}
			if !b.reconnect(ctx) {
				return b.res
			}
		case now := <-tick.C:
			b.tick(now)
		}
	}
}

// newBot places bot id on its road and joins its server (the next one
// while busy, with several), within dialPatience.
func newBot(ctx context.Context, o Options, id int) (*bot, error) {
	w := world.New(o.Seed)
	b := &bot{o: o, res: Bot{ID: id}, g: roadgraph.New(w), surf: world.NewSurfaceCache(w),
		backoff: rand.New(rand.NewPCG(o.Seed^0xb0, uint64(id))), rng: rand.New(rand.NewPCG(o.Seed, uint64(id))),
		seen: map[uint32]struct{}{}, sent: map[uint32]sentEdit{}}
	var err error
	if b.route, err = startPose(b.g, id, o.Of, o.Spread, o.Seed); err != nil {
		return nil, err
	}
	pos, _ := b.route.Pose()
	centre, _ := chunkAt(b.surf, pos)
	askRadius := o.Radius
	if askRadius == 0 {
		askRadius = wire.AbsMaxRadius // the client clamps it to the server's maximum
	}
	addrs, pins := strings.Split(o.Addr, ","), strings.Split(o.Fingerprint, ",")
	cfg := netsync.ClientConfig{
		Addr: addrs[id%len(addrs)], Fingerprint: pins[id%len(pins)], Seed: o.Seed, Generator: gen.Version,
		Centre: centre, Radius: askRadius, Name: fmt.Sprintf("bot-%d", id),
		Password: o.Password, Logger: o.Logger.With("bot", id),
	}
	if o.GapTrace { // every connection (the spares and failovers dial with cfg) logs the cars it hears
		cfg.CarLog = carLogLen
	}
	b.dial = func(ctx context.Context) (*netsync.Client, error) { return netsync.Dial(ctx, cfg) }
	if len(addrs) > 1 { // bot id starts on server id mod n, moves on when it is lost
		f, err := netsync.NewFailover(cfg, addrs, pins, id)
		if err != nil {
			return nil, err
		}
		b.dial, b.failover = f.Dial, true
	}
	b.hcfg = netsync.HandoverConfig{Pin: pinFor(addrs, pins)}
	cl, err := b.dialPatiently(ctx)
	if err != nil {
		return nil, err
	}
	b.c, b.cl = cl, cl
	welcome := cl.Welcome()
	b.radius = int32(welcome.MaxRadius)
	if o.Radius > 0 {
		b.radius = min(b.radius, int32(o.Radius))
	}
	b.res.Radius = b.radius
	b.hz = max(1, int(welcome.TickHz))
	b.ar = newArea(centre, b.radius)
	b.start = time.Now()
	b.last = b.start
	b.nextEdit = b.start.Add(jitter(b.rng, o.EditEvery))
	b.nextEvict = b.start.Add(evictEvery)
	return b, nil
}

// dialPatiently dials, retrying busy servers, for up to dialPatience.
func (b *bot) dialPatiently(ctx context.Context) (*netsync.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, dialPatience)
	defer cancel()
	return dialRetrying(ctx, b.dial, b.backoff)
}

func (b *bot) close() {
	if b.shownAs != 0 {
		b.fleet.drop(b.shownAs)
	}
	if b.c != nil {
		_ = b.c.Close()
	}
}

// pinFor is the fingerprint a bot pins for a region owner's address: the
// one given for it in -addr, or else the first (a cluster's servers
// sharing one identity, as cmd/cluster.sh runs them).
func pinFor(addrs, pins []string) func(string) string {
	return func(addr string) string {
		for i, a := range addrs {
			if a == addr {
				return pins[min(i, len(pins)-1)]
			}
		}
		return pins[0]
	}
}

// adopt hands the bot's connection to a Handover: its server told the
// region owners (a cluster's), so the bot is handed between them as it
// drives. later are the messages polled after that Owners.
func (b *bot) adopt(o *wire.Owners, later []wire.Message) {
	cfg := b.hcfg
	cfg.Client.Centre, cfg.Client.Radius = b.ar.centre, uint32(b.radius)
	h, err := netsync.AdoptHandover(b.cl, cfg, o, later)
	if err != nil {
		b.o.Logger.Warn("bot: no handover", "bot", b.res.ID, "err", err)
		return
	}
	b.h, b.c, b.cl = h, h, nil
	if b.gaps == nil {
		b.gaps = newGapWatch(b.fleet, time.Now())
		b.gaps.period = time.Second / time.Duration(b.hz)
		if b.o.GapTrace {
			b.gaps.trace = newGapTracer(b.res.ID)
		}
	}
}

// step is the handover's frame, for the car at p: a switch is counted
// and the cars seen just before it are watched for their gap.
func (b *bot) step(now time.Time, p world.Vec2) {
	before := b.h.Switches()
	spare, _ := b.h.Spare()
	b.h.Step(now, p.X, p.Z)
	if b.h.Switches() == before {
		if sp, _ := b.h.Spare(); sp != spare { // a spare opened, dropped or lost
			b.gaps.connsChanged(now, &b.res)
		}
		return
	}
	b.res.Handovers += b.h.Switches() - before
	if b.gaps.trace != nil { // the other bots' traces ask whether their gap was this car's own switch
		b.fleet.switched(b.shownAs, now)
	}
	b.gaps.switched(now, b.ar, &b.res)
}

// handedOn is the handover's answer to its primary's connection ending:
// a spare takes over (true), or the bot has lost its server (false).
func (b *bot) handedOn(now time.Time) bool {
	if b.h == nil {
		return false
	}
	p, _ := b.route.Pose()
	b.step(now, p)
	return b.h.Err() == nil
}

// end is the run's end: the byte and steady-state figures.
func (b *bot) end() {
	t := b.c.Traffic()
	b.steady.close(time.Now(), t)
	b.res.BytesIn, b.res.BytesOut = b.earlierIn+t.BytesIn, b.earlierOut+t.BytesOut
	b.res.SteadySeconds = b.steady.secs
	if b.steady.secs > 0 {
		b.res.InBps, b.res.OutBps = float64(b.steady.in)/b.steady.secs, float64(b.steady.out)/b.steady.secs
	}
	b.res.CarsSeen = len(b.seen)
	if b.o.RecordEdits { // unanswered at the end: any of them may be stored yet
		for seq, e := range b.sent {
			b.res.Edits = append(b.res.Edits, e.record(b.res.ID, seq, false))
		}
	}
}

// reconnect follows a lost connection: with several servers the bot dials
// the next and asks for its area again; it reports false when the bot is
// done (one server, or no other would take it; res.Err says why).
func (b *bot) reconnect(ctx context.Context) bool {
	if !b.failover {
		b.res.Err = b.c.Err()
		return false
	}
	lost := time.Now()
	t := b.c.Traffic() // the lost connection's bytes stay in the whole-run figures
	b.steady.close(lost, t)
	_ = b.c.Close()
	b.earlierIn, b.earlierOut = b.earlierIn+t.BytesIn, b.earlierOut+t.BytesOut
	b.h = nil // the next server tells its owners again
	c, err := b.dialPatiently(ctx)
	if err != nil {
		b.c = nil
		if ctx.Err() == nil { // not just the run ending while it redialled
			b.res.Err = fmt.Errorf("failing over: %w", err)
		}
		return false
	}
	b.c, b.cl = c, c
	b.res.Failovers++
	b.res.FailedOverAt = time.Now()
	b.o.Logger.Warn("bot failed over", "bot", b.res.ID, "after", time.Since(lost).Round(time.Millisecond), "server", c.Welcome().Player>>20)
	b.ar.forget() // the new server sends the area again
	_ = c.Subscribe(b.ar.centre, uint32(b.radius))
	if b.joined { // the steady window goes on over the new connection
		b.steady.open(time.Now(), c.Traffic())
	}
	return true
}

// tick is one of the server's ticks: the bot drives on, sends its car,
// follows its area, takes what arrived, and now and then edits.
func (b *bot) tick(now time.Time) {
	dt := now.Sub(b.last).Seconds()
	b.countTick(now.Sub(b.last))
	b.last = now
	if b.o.TeleportAt > 0 && !b.teleported && now.Sub(b.start) >= b.o.TeleportAt {
		b.teleport(now)
	}
	b.route.Advance(b.o.Speed * dt)
	b.res.DistanceM += b.o.Speed * dt
	p, dir := b.route.Pose()
	ch, y := chunkAt(b.surf, p)
	if b.h != nil {
		b.step(now, p)
	}
	b.c.SendCar(snapshot(p, y, dir, b.o.Speed))
	b.place(now, ch)
	if ch != b.ar.centre {
		_ = b.c.Subscribe(ch, uint32(b.radius))
		b.ar.move(ch)
	}
	b.msgs = b.c.Poll(b.msgs[:0], pollMessages)
	for i, m := range b.msgs {
		if o, ok := m.(*wire.Owners); ok && b.h == nil && b.cl != nil && !b.o.Stay {
			b.adopt(o, b.msgs[i+1:]) // a cluster server: from now on handed over
			continue
		}
		b.handle(m, now)
	}
	clear(b.msgs)
	if b.ar.complete() {
		b.areaComplete(now)
	}
	if b.o.EditEvery > 0 && now.After(b.nextEdit) {
		b.edit(now, p, y)
	}
	if now.After(b.nextEvict) {
		b.nextEvict = now.Add(evictEvery)
		b.g.EvictFar(p, evictKeep)
	}
	b.cars = b.c.Cars(b.cars[:0])
	for _, s := range b.cars {
		b.seen[s.Player] = struct{}{}
	}
	if b.h != nil {
		if b.gaps.trace != nil {
			b.traceTick(now)
		}
		b.gaps.seen(now, b.cars, b.ar, &b.res)
	}
}

// traceTick gives the gap trace this tick and the handover's connections
// after its Step.
func (b *bot) traceTick(now time.Time) {
	var cs [2]tickConn
	cs[0] = tickConn{c: b.h.Primary(), addr: b.h.PrimaryAddr(), role: rolePrimary}
	if sp := b.h.SpareClient(); sp != nil { // else cs[1].c stays a nil interface
		addr, ready := b.h.Spare()
		cs[1] = tickConn{c: sp, addr: addr, role: roleSpare}
		switch {
		case b.h.Lingered():
			cs[1].role = roleLingered
		case ready:
			cs[1].role = roleSpareReady
		}
	}
	b.gaps.trace.tick(now, cs)
}

// place tells the fleet where this bot's car is (in chunk ch, its
// snapshot sent at now), under the id the world shows it by (the
// handover's first server's; a failover's new one).
func (b *bot) place(now time.Time, ch voxel.ChunkPos) {
	id, seq := b.shownAs, uint32(0)
	switch {
	case b.h != nil:
		id, seq = b.h.CarID(), b.h.CarSeq()
	case b.cl != nil:
		id, seq = b.cl.Player(), b.cl.CarSeq()
	}
	b.fleet.put(id, b.shownAs, ch, seq, now)
	b.shownAs = id
}

// lateTick is how far past its period a tick must come to count late:
// the bot (and so its view of the other cars) fell behind.
const lateTick = 2

// countTick counts a tick that came dt after the one before.
func (b *bot) countTick(dt time.Duration) {
	b.res.Ticks++
	if dt > lateTick*time.Second/time.Duration(b.hz) {
		b.res.LateTicks++
	}
	b.res.LongestTick = max(b.res.LongestTick, dt)
}

// teleport moves the bot far away, once, and starts timing the burst of
// its new area (a failed route leaves it where it is).
func (b *bot) teleport(now time.Time) {
	b.teleported = true
	t := b.c.Traffic()
	b.steady.close(now, t)
	p, _ := b.route.Pose()
	r, err := routeNear(b.g, p.Add(world.Vec2{X: teleportX, Z: teleportZ}), b.o.Seed+uint64(b.res.ID)+1)
	if err == nil {
		b.route = r
		b.inBurst, b.burstFrom, b.burstAt = true, t, now
	}
}

// handle takes one message from the server.
func (b *bot) handle(m wire.Message, now time.Time) {
	switch m := m.(type) {
	case *wire.ChunkDefaults:
		for _, p := range m.Pos {
			b.got(p)
		}
	case *wire.ChunkEdits:
		b.got(m.Pos)
	case *wire.EditAck:
		b.res.EditsAcked++
		if e, ok := b.sent[m.Seq]; ok {
			b.res.AckLatency = append(b.res.AckLatency, now.Sub(e.at).Seconds())
			delete(b.sent, m.Seq)
			if b.o.RecordEdits {
				r := e.record(b.res.ID, m.Seq, true)
				r.AckMs = float64(now.Sub(e.at)) / float64(time.Millisecond)
				b.res.Edits = append(b.res.Edits, r)
			}
		}
	case *wire.EditReject:
		b.res.EditsRejected++
		b.res.LastReject = m.Reason
		delete(b.sent, m.Seq)
	}
}

// got records a delivered chunk.
func (b *bot) got(p voxel.ChunkPos) {
	b.res.Chunks++
	b.ar.got(p)
}

// areaComplete is a tick with every chunk of the area delivered: the
// first time, the join's figures, after a teleport the burst's; either
// starts a steady period.
func (b *bot) areaComplete(now time.Time) {
	switch {
	case !b.joined:
		b.joined = true
		t := b.c.Traffic()
		b.res.JoinBytes, b.res.JoinSeconds = t.BytesIn, now.Sub(b.start).Seconds()
		b.steady.open(now, t)
		b.o.Logger.Info("bot joined", "bot", b.res.ID, "after", now.Sub(b.start).Round(time.Millisecond), "bytes", t.BytesIn)
	case b.inBurst:
		b.inBurst = false
		t := b.c.Traffic()
		b.res.TeleportBytes, b.res.TeleportSeconds = t.BytesIn-b.burstFrom.BytesIn, now.Sub(b.burstAt).Seconds()
		b.steady.open(now, t)
	}
}

// edit asks for one block near the car at p (on a surface at height y)
// to change, when it lies in a chunk the bot holds.
func (b *bot) edit(now time.Time, p world.Vec2, y float64) {
	b.nextEdit = now.Add(jitter(b.rng, b.o.EditEvery))
	bx, by, bz := editNear(b.rng, p, y)
	cp, idx := voxel.ChunkOf(bx, by, bz)
	if !b.ar.holds(cp) {
		return
	}
	block := editBlock(b.rng)
	if seq, err := b.c.RequestEdit(cp, uint16(idx), block); err == nil {
		b.sent[seq] = sentEdit{at: now, pos: cp, index: uint16(idx), block: block}
	}
}

// steadyWindow adds up the steady periods' bytes and time: from the first
// complete area on, without the teleport's burst or redials. One traffic
// reading ends a period and starts the next, so each byte counts once.
type steadyWindow struct {
	from    netsync.Traffic
	at      time.Time // zero: no period open
	in, out uint64
	secs    float64
}

// open starts a period at now, t being the traffic then.
func (w *steadyWindow) open(now time.Time, t netsync.Traffic) { w.from, w.at = t, now }

// close ends the open period, if any, at now with traffic t.
func (w *steadyWindow) close(now time.Time, t netsync.Traffic) {
	if w.at.IsZero() {
		return
	}
	w.in += t.BytesIn - w.from.BytesIn
	w.out += t.BytesOut - w.from.BytesOut
	w.secs += now.Sub(w.at).Seconds()
	w.at = time.Time{}
}
