package netsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/threadcpu"
	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// Server is the authoritative side: it accepts clients, runs the fixed
// tick and relays edits and cars.
type Server struct {
	cfg         ServerConfig
	log         *slog.Logger
	endpoint    *transport.Endpoint
	ln          *quic.Listener
	fingerprint string
	wt          *wtListener // nil without WebTransportAddr

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	joins      chan *serverPeer
	pool       *handshakePool
	seats      *seats // players per address key
	nextPlayer atomic.Uint32
	players    atomic.Int32
	runOnce    atomic.Bool
	runDone    chan struct{}
	closeOnce  sync.Once
	closeErr   error

	// Tick-goroutine state.
	peers       map[uint32]*serverPeer
	order       []*serverPeer // peers in join order, for round-robin delivery
	enc         *wire.Encoder
	union       *union
	pace        pacing
	admit       admission
	cars        CarRule
	dil         dilation
	hz          int          // current tick rate (tick goroutine)
	curHz       atomic.Int32 // the same, for handshakes and metrics
	world       *slowClock   // the world clock, slowed with hz (slowclock.go)
	change      areaChange   // subscribe scratch
	subWork     tickWork     // cylinder changes applied this tick (SubscribeChunksPerTick)
	left        []voxel.ChunkPos
	scratchCars []wire.CarSnapshot
	remoteCars  []wire.CarSnapshot // other servers' cars (exchange.go)
	carGrid     carGrid            // relayCars' index, reused
	remoteGrid  carGrid            // the same for remoteCars (exchange.go)
	lastTick    time.Time

	// live mirrors peers for the metrics collector (other goroutines).
	liveMu sync.Mutex
	live   map[uint32]*serverPeer
	// pastKeys: the keys of players who left, for HasPlayerKey (liveMu)
	pastKeys pastKeys

	metrics *metrics

	// Admin calls (admin.go) run on the tick goroutine between ticks.
	requests   chan func()
	adminState adminState

	datagramsDropped atomic.Uint64

	vouched chan vouchAnswer // CarVoucher answers, to the tick (owners.go)
}

// NewServer loads or creates the server identity in cfg.DataDir and starts
// listening. Call Run to serve and Close to stop.
func NewServer(cfg ServerConfig) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	log := logger(cfg.Logger)
	var ep *transport.Endpoint
	var ln *quic.Listener
	var wt *wtListener
	fp := inProcessFingerprint
	if !cfg.InProcess {
		var err error
		if ep, ln, wt, fp, err = listen(cfg, log); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg: cfg, log: log, endpoint: ep, ln: ln, fingerprint: fp, wt: wt,
		ctx: ctx, cancel: cancel,
		joins:    make(chan *serverPeer, 16),
		requests: make(chan func(), requestQueue),
		runDone:  make(chan struct{}),
		pool:     newHandshakePool(cfg.MaxHandshakes, cfg.MaxHandshakesPerAddr),
		seats:    newSeats(cfg.MaxPlayersPerAddr),
		peers:    map[uint32]*serverPeer{},
		enc:      wire.NewEncoder(),
		union:    newUnion(),
		pace: pacing{edited: cfg.DeliveriesPerTick, defaults: cfg.DefaultsPerTick, skips: maxSkips,
			budget: cfg.DeliveryBudget, now: time.Now},
		admit: admission{reach: cfg.Reach, rate: cfg.EditsPerSecond},
		cars:  cfg.CarRule(),
		dil:   newDilation(cfg.TickBudget, cfg.TickHz, cfg.TickFloorHz),
		hz:    cfg.TickHz,
		world: newSlowClock(cfg.WorldClock),
		live:  map[uint32]*serverPeer{}, pastKeys: pastKeys{max: keepPastKeys},

		vouched: make(chan vouchAnswer, 256),
	}
	s.curHz.Store(int32(cfg.TickHz))
	s.nextPlayer.Store(cfg.FirstPlayer)
	s.metrics = newMetrics(s)
	if cfg.Registerer != nil {
		if err := s.metrics.register(cfg.Registerer); err != nil {
			_ = s.closeSockets()
			cancel()
			return nil, fmt.Errorf("netsync: registering metrics: %w", err)
		}
	}
	log.Info("server listening", "addr", s.Addr().String(), "alpn", transport.ALPN(wire.ProtocolVersion),
		"fingerprint", fp, "tick_hz", cfg.TickHz, "max_radius", cfg.MaxRadius)
	if wt != nil {
		log.Info("WebTransport listening", "addr", wt.ln.Addr().String(), "path", s.WebTransportPath())
	}
	return s, nil
}

// inProcessFingerprint stands for an InProcess server's identity: it has
// none (nothing to pin: nobody reaches it over a network).
const inProcessFingerprint = "in-process"

// listen opens the server's sockets and loads (or creates) its identity.
func listen(cfg ServerConfig, log *slog.Logger) (*transport.Endpoint, *quic.Listener, *wtListener, string, error) {
	cert, fp, err := transport.LoadOrCreateIdentity(cfg.DataDir, log)
	if err != nil {
		return nil, nil, nil, "", err
	}
	resetKey, err := transport.ResetKey(cert)
	if err != nil {
		return nil, nil, nil, "", err
	}
	ep, ln, err := transport.Listen(cfg.Addr, transport.ServerTLS(cert, wire.ProtocolVersion, log), transport.ServerQUIC(), resetKey)
	if err != nil {
		return nil, nil, nil, "", fmt.Errorf("netsync: listen on %s: %w", cfg.Addr, err)
	}
	var wt *wtListener
	if cfg.WebTransportAddr != "" {
		if wt, err = listenWebTransport(cfg.WebTransportAddr, cert, resetKey); err != nil {
			_ = ln.Close()
			_ = ep.Close()
			return nil, nil, nil, "", fmt.Errorf("netsync: WebTransport on %s: %w", cfg.WebTransportAddr, err)
		}
	}
	return ep, ln, wt, fp, nil
}

// closeSockets closes what listen opened (nothing InProcess).
func (s *Server) closeSockets() error {
	if s.ln == nil {
		return nil
	}
	err := s.ln.Close()
	// Closing the endpoint ends every remaining connection, which unblocks
	// the per-connection readers.
	err = errors.Join(err, s.endpoint.Close())
	if s.wt != nil {
		err = errors.Join(err, s.wt.close())
	}
	return err
}

// Addr is the address the server listens on (InProcess: "in-process").
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return pipeAddr{}
	}
	return s.ln.Addr()
}

// Fingerprint is the SHA-256 fingerprint clients pin.
func (s *Server) Fingerprint() string { return s.fingerprint }

// DatagramsDropped counts car datagrams that could not be sent.
func (s *Server) DatagramsDropped() uint64 { return s.datagramsDropped.Load() }

// Run accepts connections and ticks until ctx is cancelled or Close is
// called. It may be called once.
func (s *Server) Run(ctx context.Context) error {
	if !s.runOnce.CompareAndSwap(false, true) {
		return errors.New("netsync: Server.Run called twice")
	}
	defer close(s.runDone)
	// Close cancels before it reads runOnce: a Close that read false (and
	// shuts down without waiting for Run) has cancelled already, so Run
	// starts nothing that Close would not wait for.
	if s.ctx.Err() != nil {
		return nil // as a Run that Close ends
	}
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	if s.ln != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.acceptLoop(s.ln, func(conn *quic.Conn, key string, helloIn func()) {
				s.handshake(nativeConn{conn}, key, time.Now().Add(s.cfg.HelloTimeout), helloIn)
			})
		}()
	}
	if s.wt != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.acceptLoop(s.wt.ln, s.serveWebTransport)
		}()
	}
	t := time.NewTicker(time.Second / time.Duration(s.cfg.TickHz))
	defer t.Stop()
	// The tick keeps its own OS thread, so the thread's CPU clock measures
	// the tick's work alone (citydrive_tick_cpu_seconds).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		select {
		case <-s.ctx.Done():
			s.shutdownPeers()
			return nil
		case f := <-s.requests:
			f()
			s.serveRequests()
		case now := <-t.C:
			start := time.Now()
			cpu0, cpuOK := threadcpu.Now()
			s.tick(now)
			work := time.Since(start)
			if cpu1, ok := threadcpu.Now(); cpuOK && ok {
				s.metrics.observeTickCPU(cpu1 - cpu0)
			}
			s.metrics.observeTick(work)
			s.adminState.observeTick(work)
			if hz := s.dil.observe(work); hz != s.hz {
				s.setRate(hz)
				t.Reset(time.Second / time.Duration(hz))
			}
		}
	}
}

// Close stops the server, closes every connection and waits for all of the
// server's goroutines.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

// CloseAbruptly is Close after dropping the socket first, so no client is
// told (as when the process is killed): they notice only by their idle
// timeout. For fault drills and tests.
func (s *Server) CloseAbruptly() error {
	if s.endpoint != nil {
		_ = s.endpoint.Drop()
	}
	return s.Close()
}

func (s *Server) close() error {
	s.cancel()
	if s.runOnce.Load() {
		<-s.runDone
	} else {
		s.shutdownPeers()
	}
	if s.wt != nil {
		s.wt.drain() // pages hear the shutdown before the socket closes
	}
	err := s.closeSockets()
	s.wg.Wait()
	return err
}

func (s *Server) observe(e Event) {
	if s.cfg.Observer != nil {
		s.cfg.Observer(e)
	}
}

// shutdownPeers closes every connection; called from the tick goroutine
// (or Close, when Run never ran).
func (s *Server) shutdownPeers() {
	for {
		select {
		case p := <-s.joins:
			s.peers[p.id] = p
			continue
		default:
		}
		break
	}
	for _, p := range s.peers {
		p.fail(CodeShutdown, "server shutting down")
		s.removePeer(p)
	}
	// Handshakes still in flight see s.ctx and close their own
	// connections; a peer that slipped into joins after this drain is
	// closed with the endpoint in Close.
}

// tick is one server step. It never blocks.
func (s *Server) tick(now time.Time) {
	dt := now.Sub(s.lastTick).Seconds()
	if s.lastTick.IsZero() {
		dt = 0
	}
	s.lastTick = now
	for {
		select {
		case p := <-s.joins:
			s.addPeer(p, now)
			p.log.Info("client joined")
			s.observe(Event{Kind: EventJoined, Player: p.id, Remote: p.conn.RemoteAddr()})
			continue
		default:
		}
		break
	}
	s.takeVouches()
	carsChanged := s.exchangeCars(s.intakeCars(now))
	s.subWork.start(s.cfg.SubscribeChunksPerTick)
	for _, p := range s.peers { // map order: random, so no client always goes last
		if p.ctx.Err() == nil {
			p.tokens.refill(dt)
			p.sub.bucket.refill(dt)
			p.resets.refill(dt)
			s.drain(p)
			if s.subWork.open() {
				if m, ok := p.sub.due(); ok && p.ctx.Err() == nil {
					s.subscribe(p, &m)
				}
			}
			// A Subscribe waiting for the tick's allowance is the server's
			// delay, not the client's.
			if !p.area.subscribed && !p.sub.waiting() && now.Sub(p.joined) > s.cfg.SubscribeTimeout {
				p.fail(CodeTimeout, fmt.Sprintf("no Subscribe within %v of joining", s.cfg.SubscribeTimeout))
			}
			s.tellOwners(p, now)
			if now.Sub(p.active) > s.cfg.IdleLimit && p.ctx.Err() == nil {
				s.metrics.idleClosed.Inc()
				p.fail(CodeTimeout, fmt.Sprintf("idle: neither a car nor an edit for %v", s.cfg.IdleLimit))
			}
		}
		if p.ctx.Err() != nil {
			s.removePeer(p)
			code, reason := p.closedReason()
			s.observe(Event{Kind: EventLeft, Player: p.id, Remote: p.conn.RemoteAddr(), Code: code, Reason: reason})
		}
	}
	s.union.flush(s.cfg.World.UnionChanged)
	s.cfg.World.CommittedEdits(s.editDone)
	s.deliverAll()
	if carsChanged {
		s.relayCars()
	}
}

// setRate slows or speeds up time: the world clock follows the new tick
// rate, which is announced to every client.
func (s *Server) setRate(hz int) {
	s.hz = hz
	s.curHz.Store(int32(hz))
	s.world.setRate(float64(hz) / float64(s.cfg.TickHz)) // time slows with the ticks
	s.log.Debug("tick rate", "hz", hz)
	m := &wire.TickRate{Hz: uint32(hz)}
	for _, p := range s.order {
		s.send(p, m)
	}
}

func (s *Server) addPeer(p *serverPeer, now time.Time) {
	p.joined, p.active = now, now
	if s.cars.MaxSpeed > 0 && s.cfg.SpawnRadius > 0 {
		p.track.place(s.cfg.SpawnX, s.cfg.SpawnZ, s.cfg.SpawnRadius, now)
	}
	s.send(p, &wire.Pose{X: centimetres(s.cfg.SpawnX), Z: centimetres(s.cfg.SpawnZ)}) // the spawn: Seq 0, first on the stream
	if p.welcomedHz != s.hz {                                                         // the rate changed since its Welcome
		s.send(p, &wire.TickRate{Hz: uint32(s.hz)})
	}
	s.peers[p.id] = p
	s.order = append(s.order, p)
	s.liveMu.Lock()
	s.live[p.id] = p
	s.liveMu.Unlock()
}

// removePeer forgets a peer whose connection has ended (or is ending).
func (s *Server) removePeer(p *serverPeer) {
	if _, ok := s.peers[p.id]; !ok {
		return
	}
	delete(s.peers, p.id)
	if i := slices.Index(s.order, p); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	s.liveMu.Lock()
	delete(s.live, p.id)
	if s.cfg.Cars != nil { // only a cluster's servers are asked to vouch
		s.pastKeys.add(p.id, p.playerKey)
	}
	s.liveMu.Unlock()
	s.unreservePlayer(p.key)
	s.left = p.area.leave(s.left[:0])
	for _, pos := range s.left {
		s.union.unref(pos)
	}
}

// deliverAll serves clients round-robin within the tick's delivery budget.
func (s *Server) deliverAll() {
	n := len(s.order)
	if n == 0 {
		return
	}
	s.pace.startTick(n)
	for k := range n {
		i := s.pace.turn(k, n)
		if !s.deliver(s.order[i]) {
			s.pace.ranOut(i)
			s.metrics.budgetExhausted.Inc()
			return
		}
	}
	s.pace.allServed()
}

// drain handles at most InboundPerTick queued messages of p without
// blocking.
func (s *Server) drain(p *serverPeer) {
	for range s.cfg.InboundPerTick {
		select {
		case m := <-p.in:
			s.handle(p, m)
			if p.ctx.Err() != nil {
				return
			}
		default:
			return
		}
	}
}

func (s *Server) handle(p *serverPeer, m wire.Message) {
	switch m := m.(type) {
	case *wire.Subscribe:
		if p.standby { // a spare's only sign of life is its area following the car
			p.active = s.lastTick
		}
		if p.sub.offer(m) {
			s.metrics.subsCoalesced.Inc()
		}
	case *wire.Handover:
		s.handover(p, m, s.lastTick)
	case *wire.EditRequest:
		p.active = s.lastTick
		s.edit(p, m)
	case *wire.Reset:
		s.reset(p, m, s.lastTick)
	}
}

func (s *Server) subscribe(p *serverPeer, m *wire.Subscribe) {
	s.metrics.subsApplied.Inc()
	ch := &s.change
	if !p.area.subscribe(saturateCentre(m.Centre), m.Radius, s.cfg.MaxRadius, ch) {
		return
	}
	s.subWork.spend(len(ch.entered) + len(ch.left))
	for _, pos := range ch.left {
		s.union.unref(pos)
	}
	for _, pos := range ch.entered { // near-first, so the world loads near-first
		s.union.ref(pos)
	}
	for _, pos := range ch.drops {
		if !s.send(p, &wire.ChunkDrop{Pos: pos}) {
			return
		}
		s.metrics.drops.Inc()
	}
}

// maxSkips bounds how many not-yet-ready chunks one client's delivery pass
// looks past per tick.
const maxSkips = 64

// deliver sends ready chunks from p's pending list, nearest first: up to
// DeliveriesPerTick edited chunks (one ChunkEdits each) and up to
// DefaultsPerTick never-edited ones, batched into ChunkDefaults messages
// relative to p's centre. It reports false when the tick's delivery budget
// (deadline, zero for none) ran out.
func (s *Server) deliver(p *serverPeer) bool {
	a := p.area
	if len(a.pending) == 0 || p.ctx.Err() != nil {
		return true
	}
	q := s.pace.client()
	keep := a.pending[:0]
	batch := p.batch[:0]
	for i, pos := range a.pending {
		if !q.look(i) || p.ctx.Err() != nil {
			keep = append(keep, a.pending[i:]...)
			break
		}
		edits, ready := s.cfg.World.Chunk(pos)
		if !ready {
			keep = append(keep, pos)
			q.notReady()
			continue
		}
		if len(edits) == 0 {
			batch = append(batch, pos)
			q.sentDefault()
			if len(batch) == wire.MaxChunkDefaults {
				s.sendDefaults(p, batch)
				batch = batch[:0]
			}
			continue
		}
		if len(batch) > 0 { // keep the stream near-first
			s.sendDefaults(p, batch)
			batch = batch[:0]
		}
		if !s.send(p, &wire.ChunkEdits{Pos: pos, Edits: edits}) {
			if p.ctx.Err() != nil {
				return true
			}
			a.undeliverable(pos) // could not be encoded (logged); not retried
			continue
		}
		s.metrics.delivered[kindEdits].Inc()
		q.sentEdits()
	}
	if len(batch) > 0 {
		s.sendDefaults(p, batch)
	}
	p.batch = batch[:0]
	a.pending = keep
	return q.inTime()
}

// sendDefaults sends one ChunkDefaults relative to p's centre (every
// pending position lies in p's cylinder, so each offset fits a byte).
func (s *Server) sendDefaults(p *serverPeer, batch []voxel.ChunkPos) {
	if s.send(p, &wire.ChunkDefaults{Base: p.area.centre, Pos: batch}) {
		s.metrics.delivered[kindDefault].Add(float64(len(batch)))
	}
}

// editTag packs who asked for an edit into the world's opaque tag.
func editTag(player, seq uint32) uint64 { return uint64(player)<<32 | uint64(seq) }

// untag inverts editTag.
func untag(tag uint64) (player, seq uint32) { return uint32(tag >> 32), uint32(tag) }

func (s *Server) edit(p *serverPeer, m *wire.EditRequest) { s.editAt(p, m, false) }

// editAt admits and submits one edit. In a cluster, a player that has just
// joined (a failover, a handover) resends its unanswered edits as soon as
// their chunks arrive, which can be before its first car there is
// accepted: an edit refused for reach in that window waits for the next
// accepted car (or reachWait) and is judged again, once (final).
func (s *Server) editAt(p *serverPeer, m *wire.EditRequest, final bool) {
	reject := func(why rejection, sentence string) {
		s.metrics.editsRejected.WithLabelValues(why.label()).Inc()
		s.send(p, &wire.EditReject{Seq: m.Seq, Reason: sentence})
	}
	e := voxel.BlockEdit{Pos: m.Pos, Index: m.Index, Block: m.Block}
	cx, cy, cz := p.lastCar.Position() // the server's accepted position
	if v := s.admit.check(e, p.area.holds(m.Pos), cx, cy, cz, p.hasCar, &p.tokens); v.why != admitted {
		if !final && (v.why == noCar || v.why == outOfReach) && s.cfg.Cars != nil &&
			s.lastTick.Sub(p.joinedAt) < reachWait && len(p.reachWaiting) < maxReachWaiting {
			p.reachWaiting = append(p.reachWaiting, waitingEdit{m: *m, until: s.lastTick.Add(reachWait)})
			return
		}
		reject(v.why, s.admit.sentence(v))
		return
	}
	if err := s.submitEdit(editTag(p.id, m.Seq), m, e); err != nil {
		reject(worldError, err.Error())
	}
	// Otherwise answered when the commit finishes (editDone).
}

// editDone broadcasts a committed edit to every client holding its chunk
// and acknowledges it, or rejects a failed one.
func (s *Server) editDone(tag uint64, e voxel.BlockEdit, err error) {
	player, seq := untag(tag)
	p := s.peers[player] // nil if the player left meanwhile
	if s.answeredRetry(p, seq, err) {
		return
	}
	if err != nil {
		s.metrics.editsRejected.WithLabelValues(worldError.label()).Inc()
		if p != nil {
			s.send(p, &wire.EditReject{Seq: seq, Reason: err.Error()})
		}
		return
	}
	s.metrics.editsApplied.Inc()
	s.adminState.noteEdit(e.Pos, s.lastTick)
	b := &wire.EditBroadcast{Pos: e.Pos, Index: e.Index, Block: e.Block}
	for _, q := range s.peers {
		if q.area.holds(e.Pos) {
			s.send(q, b)
		}
	}
	if p != nil {
		s.send(p, &wire.EditAck{Seq: seq})
	}
}

// intakeCars takes every player's newest car snapshot, if it arrived since
// the last tick and the car rule accepts it; it reports whether any car
// changed.
func (s *Server) intakeCars(now time.Time) bool {
	changed := false
	for _, p := range s.peers {
		p.carMu.Lock()
		c, fresh := p.carIn, p.carNew
		p.carNew = false
		p.carMu.Unlock()
		if p.handedOver { // placed by a Handover this tick
			p.handedOver = false
			changed = true
		}
		if !fresh || p.standby {
			continue
		}
		p.active = now
		x, y, z := c.Position()
		if !s.cars.Judge(&p.track, x, y, z, now) {
			s.metrics.carsRejected.Inc()
			s.held(p, now)
			continue
		}
		c.Player = p.carID()
		p.lastCar, p.hasCar = c, true
		p.heldSince = time.Time{}
		changed = true
		s.judgeWaiting(p, now, true)
	}
	for _, p := range s.peers {
		s.judgeWaiting(p, now, false)
	}
	return changed
}

// Edits waiting for a newly joined player's car (editAt): how long the
// window after joining is, and how many may wait.
const (
	reachWait       = 2 * time.Second
	maxReachWaiting = 16
)

type waitingEdit struct {
	m     wire.EditRequest
	until time.Time
}

// judgeWaiting judges p's edits waiting for its car again: all of them
// after an accepted car, the expired ones otherwise.
func (s *Server) judgeWaiting(p *serverPeer, now time.Time, car bool) {
	if len(p.reachWaiting) == 0 {
		return
	}
	ws := p.reachWaiting
	p.reachWaiting = nil
	for _, w := range ws {
		if car || !now.Before(w.until) {
			s.editAt(p, &w.m, true)
		} else {
			p.reachWaiting = append(p.reachWaiting, w)
		}
	}
}

// relayCars hands every client the latest snapshots of the other cars in
// its area, through its latest-only slot. The cars are indexed by cell
// first, so each client looks only at cars near it.
func (s *Server) relayCars() {
	g := &s.carGrid
	g.reset()
	for _, from := range s.order {
		if from.hasCar && !from.standby {
			g.add(from.lastCar)
		}
	}
	g.build()
	s.indexRemoteCars()
	for _, to := range s.order {
		if !to.area.subscribed || to.ctx.Err() != nil {
			continue
		}
		s.scratchCars = g.appendCovered(to.area, to.carID(), s.scratchCars[:0])
		s.scratchCars = s.appendRemoteCars(to, s.scratchCars)
		if len(s.scratchCars) > 0 {
			to.cars.put(s.scratchCars)
		}
	}
}
