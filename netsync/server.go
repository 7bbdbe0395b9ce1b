package netsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quic-go/quic-go"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
)

// ServerConfig configures a Server. Zero values take the defaults shown.
type ServerConfig struct {
	Addr      string // UDP listen address; "127.0.0.1:0" picks a loopback port
	DataDir   string // where the server identity (certificate) is kept; required
	Seed      uint64 // world seed
	Generator uint32 // terrain generator version
	World     World  // the voxel world; required

	MaxRadius         uint32 // largest subscription radius in chunks (8)
	TickHz            int    // server tick rate (30)
	DeliveriesPerTick int    // edited-chunk deliveries per client per tick (32)
	// DefaultsPerTick bounds never-edited chunks announced per client per
	// tick (1024); they cost 3 bytes each in a ChunkDefaults and nothing to
	// prepare, so a whole area fits in a tick or two.
	DefaultsPerTick int
	MaxBlock        uint8   // largest valid block id (255)
	EditsPerSecond  float64 // per-player edit rate limit, also the burst (20)
	// DeliveryBudget bounds the wall time one tick spends delivering chunks
	// to all clients together (3 ms); clients are served round-robin, so
	// the ones cut off go first next tick. Negative: count bound only.
	DeliveryBudget time.Duration
	// Reach is how far (metres) from the player's latest car snapshot an
	// edited block may lie (48). Negative disables the check.
	Reach float64
	// Registerer receives the server's Prometheus metrics (nil: the
	// metrics are kept but not registered anywhere).
	Registerer prometheus.Registerer

	InboundQueue     int   // decoded messages buffered per client (256)
	InboundPerTick   int   // messages handled per client per tick (64)
	OutboundFrames   int   // frames queued per client before it is cut off (4096)
	OutboundBytes    int64 // bytes queued per client before it is cut off (8 MiB)
	MaxHandshakes    int   // concurrent handshakes (64)
	MaxPlayers       int   // connected players (256)
	HandshakeTimeout time.Duration

	Logger *slog.Logger
	// Observer, if set, is told about joins, departures and refusals. It is
	// called from server goroutines and must not block.
	Observer func(Event)
}

// EventKind classifies an Event.
type EventKind int

const (
	EventJoined  EventKind = iota // a client completed the handshake
	EventLeft                     // a client's connection ended
	EventRefused                  // a handshake was refused
)

func (k EventKind) String() string {
	return [...]string{"joined", "left", "refused"}[k]
}

// Event reports a change in the server's connections.
type Event struct {
	Kind   EventKind
	Player uint32 // 0 for refusals
	Remote net.Addr
	Code   quic.ApplicationErrorCode
	Reason string
}

func (c *ServerConfig) defaults() {
	set := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	if c.MaxRadius == 0 {
		c.MaxRadius = 8
	}
	c.MaxRadius = min(c.MaxRadius, wire.AbsMaxRadius)
	set(&c.TickHz, 30)
	c.TickHz = min(c.TickHz, wire.MaxTickHz)
	set(&c.DeliveriesPerTick, 32)
	set(&c.DefaultsPerTick, 1024)
	if c.MaxBlock == 0 {
		c.MaxBlock = 255
	}
	if c.EditsPerSecond <= 0 {
		c.EditsPerSecond = 20
	}
	if c.DeliveryBudget == 0 {
		c.DeliveryBudget = 3 * time.Millisecond
	}
	if c.Reach == 0 {
		c.Reach = 48
	}
	set(&c.InboundQueue, 256)
	set(&c.InboundPerTick, 64)
	set(&c.OutboundFrames, 4096)
	if c.OutboundBytes <= 0 {
		c.OutboundBytes = 8 << 20
	}
	set(&c.MaxHandshakes, 64)
	set(&c.MaxPlayers, 256)
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = transport.HandshakeTimeout
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
}

// Server is the authoritative side: it accepts clients, runs the fixed
// tick and relays edits and cars.
type Server struct {
	cfg         ServerConfig
	log         *slog.Logger
	endpoint    *transport.Endpoint
	ln          *quic.Listener
	fingerprint string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	joins      chan *serverPeer
	handshakes chan struct{} // semaphore
	nextPlayer atomic.Uint32
	players    atomic.Int32
	runOnce    atomic.Bool
	runDone    chan struct{}
	closeOnce  sync.Once
	closeErr   error

	// Tick-goroutine state.
	peers       map[uint32]*serverPeer
	order       []*serverPeer // peers in join order, for round-robin delivery
	rr          int           // where this tick's deliveries start in order
	enc         *wire.Encoder
	union       map[ChunkPos]struct{} // chunks some client wants
	refs        map[ChunkPos]int32    // how many clients want each chunk
	added       []ChunkPos            // union changes since the last flush
	removed     []ChunkPos
	unionDirty  bool
	scratchPos  []ChunkPos
	scratchCars []wire.CarSnapshot
	committed   []EditCommit
	lastTick    time.Time

	// live mirrors peers for the metrics collector (other goroutines).
	liveMu sync.Mutex
	live   map[uint32]*serverPeer

	metrics *metrics

	datagramsDropped atomic.Uint64
}

// NewServer loads or creates the server identity in cfg.DataDir and starts
// listening. Call Run to serve and Close to stop.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.World == nil {
		return nil, errors.New("netsync: ServerConfig.World is required")
	}
	if cfg.DataDir == "" {
		return nil, errors.New("netsync: ServerConfig.DataDir is required (the server identity lives there)")
	}
	cfg.defaults()
	log := logger(cfg.Logger)
	cert, fp, err := transport.LoadOrCreateIdentity(cfg.DataDir, log)
	if err != nil {
		return nil, err
	}
	ep, ln, err := transport.Listen(cfg.Addr, transport.ServerTLS(cert, wire.ProtocolVersion, log), transport.ServerQUIC())
	if err != nil {
		return nil, fmt.Errorf("netsync: listen on %s: %w", cfg.Addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg: cfg, log: log, endpoint: ep, ln: ln, fingerprint: fp,
		ctx: ctx, cancel: cancel,
		joins:      make(chan *serverPeer, 16),
		runDone:    make(chan struct{}),
		handshakes: make(chan struct{}, cfg.MaxHandshakes),
		peers:      map[uint32]*serverPeer{},
		enc:        wire.NewEncoder(),
		union:      map[ChunkPos]struct{}{},
		refs:       map[ChunkPos]int32{},
		live:       map[uint32]*serverPeer{},
	}
	s.metrics = newMetrics(s)
	if cfg.Registerer != nil {
		if err := s.metrics.register(cfg.Registerer); err != nil {
			_ = ln.Close()
			_ = ep.Close()
			cancel()
			return nil, fmt.Errorf("netsync: registering metrics: %w", err)
		}
	}
	log.Info("server listening", "addr", ln.Addr().String(), "alpn", transport.ALPN(wire.ProtocolVersion),
		"fingerprint", fp, "tick_hz", cfg.TickHz, "max_radius", cfg.MaxRadius)
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

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
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.acceptLoop()
	}()
	t := time.NewTicker(time.Second / time.Duration(s.cfg.TickHz))
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			s.shutdownPeers()
			return nil
		case now := <-t.C:
			start := time.Now()
			s.tick(now)
			s.metrics.observeTick(time.Since(start))
		}
	}
}

// Close stops the server, closes every connection and waits for all of the
// server's goroutines.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	s.cancel()
	if s.runOnce.Load() {
		<-s.runDone
	} else {
		s.shutdownPeers()
	}
	err := s.ln.Close()
	// Closing the endpoint ends every remaining connection, which unblocks
	// the per-connection readers.
	err = errors.Join(err, s.endpoint.Close())
	s.wg.Wait()
	return err
}

func (s *Server) observe(e Event) {
	if s.cfg.Observer != nil {
		s.cfg.Observer(e)
	}
}

func (s *Server) acceptLoop() {
	for {
		conn, err := s.ln.Accept(s.ctx)
		if err != nil {
			return
		}
		select {
		case s.handshakes <- struct{}{}:
		default:
			s.log.Warn("too many concurrent handshakes; refusing", "remote", conn.RemoteAddr())
			_ = conn.CloseWithError(CodeBusy, "server busy, try again")
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.handshakes }()
			s.handshake(conn)
		}()
	}
}

func alpnVersion(alpn string) string {
	return strings.TrimPrefix(alpn, transport.ALPNPrefix)
}

// handshake runs the control-stream handshake; on success the new peer is
// handed to the tick loop.
func (s *Server) handshake(conn *quic.Conn) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.HandshakeTimeout)
	defer cancel()
	remote := conn.RemoteAddr()
	fail := func(code quic.ApplicationErrorCode, reason string) {
		s.log.Warn("handshake failed", "remote", remote, "reason", reason)
		_ = conn.CloseWithError(code, reason)
		s.observe(Event{Kind: EventLeft, Remote: remote, Code: code, Reason: reason})
	}
	ctrl, err := conn.AcceptStream(ctx)
	if err != nil {
		fail(CodeProtocol, "no control stream: "+err.Error())
		return
	}
	deadline, _ := ctx.Deadline()
	_ = ctrl.SetReadDeadline(deadline)
	var hello *wire.Hello
	err = readFrames(ctrl, wire.ControlCap, wire.DefaultLimits, func(m wire.Message) error {
		h, ok := m.(*wire.Hello)
		if !ok {
			return fmt.Errorf("expected Hello, got %v", m.Kind())
		}
		hello = h
		return io.EOF // one message only
	})
	if hello == nil {
		fail(CodeProtocol, fmt.Sprintf("bad handshake: %v", err))
		return
	}
	_ = ctrl.SetReadDeadline(time.Time{})

	own := wire.ProtocolVersion
	negotiated := conn.ConnectionState().TLS.NegotiatedProtocol
	var reason string
	switch {
	case negotiated != transport.ALPN(own) || hello.Protocol != own:
		theirs := alpnVersion(negotiated)
		if hello.Protocol != own {
			theirs = strconv.FormatUint(uint64(hello.Protocol), 10)
		}
		reason = fmt.Sprintf("protocol version mismatch: this server speaks citydrive protocol %d, your client speaks %s; install the citydrive release the server runs", own, theirs)
	case hello.Seed != s.cfg.Seed:
		reason = fmt.Sprintf("world seed mismatch: the server's world has seed %d, your client has %d; start the client with -seed %d", s.cfg.Seed, hello.Seed, s.cfg.Seed)
	case hello.Generator != s.cfg.Generator:
		reason = fmt.Sprintf("terrain generator mismatch: the server runs generator version %d, your client %d; install the citydrive release the server runs", s.cfg.Generator, hello.Generator)
	case int(s.players.Load()) >= s.cfg.MaxPlayers:
		reason = fmt.Sprintf("server full (%d players); try again later", s.cfg.MaxPlayers)
	}
	if reason != "" {
		s.log.Info("refusing client", "remote", remote, "reason", reason)
		if f, err := wire.NewEncoder().AppendFrame(nil, &wire.Refuse{Reason: reason}, wire.ControlCap); err == nil {
			_, _ = ctrl.Write(f)
		}
		_ = ctrl.Close()
		_ = conn.CloseWithError(CodeRefused, reason)
		s.observe(Event{Kind: EventRefused, Remote: remote, Code: CodeRefused, Reason: reason})
		return
	}

	id := s.nextPlayer.Add(1)
	welcome := &wire.Welcome{Protocol: own, Seed: s.cfg.Seed, Generator: s.cfg.Generator,
		Player: id, MaxRadius: s.cfg.MaxRadius, TickHz: uint32(s.cfg.TickHz)}
	f, err := wire.NewEncoder().AppendFrame(nil, welcome, wire.ControlCap)
	if err == nil {
		_, err = ctrl.Write(f)
	}
	if err != nil {
		fail(CodeProtocol, "writing Welcome: "+err.Error())
		return
	}
	chunk, err := conn.AcceptStream(ctx)
	if err != nil {
		fail(CodeProtocol, "no chunk stream: "+err.Error())
		return
	}
	p := s.newPeer(id, conn, ctrl, chunk)
	s.players.Add(1)
	select {
	case s.joins <- p:
	case <-s.ctx.Done():
		p.fail(CodeShutdown, "server shutting down")
		s.players.Add(-1)
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

type serverPeer struct {
	id    uint32
	conn  *quic.Conn
	ctrl  *quic.Stream
	chunk *quic.Stream
	log   *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	in     chan wire.Message
	out    *queue
	cars   *carSlot

	failOnce sync.Once
	mu       sync.Mutex
	code     quic.ApplicationErrorCode
	reason   string

	carMu   sync.Mutex
	carIn   wire.CarSnapshot
	carHave bool
	carNew  bool

	// Tick-goroutine state.
	subscribed bool
	centre     ChunkPos
	radius     int32
	desired    map[ChunkPos]struct{}
	spare      map[ChunkPos]struct{} // the next desired set, reused
	sent       map[ChunkPos]struct{}
	pending    []ChunkPos
	batch      []ChunkPos // this tick's ready defaults, reused
	tokens     float64
	lastCar    wire.CarSnapshot
	hasCar     bool
}

func (s *Server) newPeer(id uint32, conn *quic.Conn, ctrl, chunk *quic.Stream) *serverPeer {
	// The peer's context ends only through fail, which also closes the
	// connection with a code and reason (shutdownPeers fails every peer).
	ctx, cancel := context.WithCancel(context.Background())
	p := &serverPeer{
		id: id, conn: conn, ctrl: ctrl, chunk: chunk,
		log:     s.log.With("player", id, "remote", conn.RemoteAddr().String()),
		ctx:     ctx,
		cancel:  cancel,
		in:      make(chan wire.Message, s.cfg.InboundQueue),
		out:     newQueue(s.cfg.OutboundFrames, s.cfg.OutboundBytes),
		cars:    newCarSlot(),
		desired: map[ChunkPos]struct{}{},
		spare:   map[ChunkPos]struct{}{},
		sent:    map[ChunkPos]struct{}{},
		tokens:  s.cfg.EditsPerSecond,
	}
	lim := wire.Limits{MaxRadius: s.cfg.MaxRadius, MaxBlock: s.cfg.MaxBlock}
	s.spawn(func() {
		// Clients send only small messages, so the chunk stream's inbound
		// direction uses the control cap.
		err := readFrames(chunk, wire.ControlCap, lim, func(m wire.Message) error {
			switch m.(type) {
			case *wire.Subscribe, *wire.EditRequest:
			default:
				return fmt.Errorf("%w: %v not allowed from a client on the chunk stream", wire.ErrMalformed, m.Kind())
			}
			select {
			case p.in <- m:
				return nil
			case <-p.ctx.Done():
				return p.ctx.Err()
			}
		})
		p.readerDone("chunk stream", err)
	})
	s.spawn(func() {
		err := readFrames(ctrl, wire.ControlCap, lim, func(m wire.Message) error {
			return fmt.Errorf("%w: unexpected %v on the control stream", wire.ErrMalformed, m.Kind())
		})
		p.readerDone("control stream", err)
	})
	s.spawn(func() {
		var buf []wire.CarSnapshot
		for {
			d, err := conn.ReceiveDatagram(p.ctx)
			if err != nil {
				return
			}
			buf, err = wire.DecodeCarDatagram(d, buf[:0])
			if err != nil || len(buf) != 1 {
				p.fail(CodeProtocol, fmt.Sprintf("bad car datagram (%d bytes): %v", len(d), err))
				return
			}
			c := buf[0]
			c.Player = id // a client speaks only for its own car
			p.carMu.Lock()
			if !p.carHave || wire.SeqNewer(c.Seq, p.carIn.Seq) {
				p.carIn, p.carHave, p.carNew = c, true, true
			}
			p.carMu.Unlock()
		}
	})
	s.spawn(func() {
		if err := p.out.run(p.ctx, chunk); err != nil {
			p.fail(CodeProtocol, "writing chunk stream: "+err.Error())
		}
	})
	s.spawn(func() { p.cars.run(p.ctx, conn, &s.datagramsDropped) })
	// Reflect the connection's end (the client closed, idle timeout) in ctx.
	s.spawn(func() {
		select {
		case <-conn.Context().Done():
			p.fail(CodeOK, "connection closed: "+context.Cause(conn.Context()).Error())
		case <-p.ctx.Done():
		}
	})
	return p
}

func (s *Server) spawn(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

func (p *serverPeer) readerDone(stream string, err error) {
	switch {
	case p.ctx.Err() != nil:
	case err == nil, errors.Is(err, io.EOF):
		p.fail(CodeOK, stream+" closed by client")
	case errors.Is(err, wire.ErrMalformed), errors.Is(err, wire.ErrFrameTooLarge),
		errors.Is(err, wire.ErrTruncated), errors.Is(err, wire.ErrEmptyFrame):
		p.fail(CodeProtocol, stream+": "+err.Error())
	default:
		p.fail(CodeOK, stream+": "+err.Error())
	}
}

// fail ends the peer's connection once, with a logged reason.
func (p *serverPeer) fail(code quic.ApplicationErrorCode, reason string) {
	p.failOnce.Do(func() {
		p.mu.Lock()
		p.code, p.reason = code, reason
		p.mu.Unlock()
		if code == CodeOK || code == CodeShutdown {
			p.log.Info("client disconnected", "reason", reason)
		} else {
			p.log.Warn("disconnecting client", "code", uint64(code), "reason", reason)
		}
		p.cancel()
		_ = p.conn.CloseWithError(code, reason)
	})
}

func (p *serverPeer) closedReason() (quic.ApplicationErrorCode, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code, p.reason
}

// send encodes m into the peer's outbound queue. It never blocks; a full
// queue cuts the peer off.
func (s *Server) send(p *serverPeer, m wire.Message) bool {
	if p.ctx.Err() != nil {
		return false
	}
	f := getFrame()
	b, err := s.enc.AppendFrame((*f)[:0], m, wire.ChunkCap)
	if err != nil {
		putFrame(f)
		p.log.Error("cannot encode message", "kind", m.Kind(), "err", err)
		return false
	}
	*f = b
	if !p.out.push(f) {
		p.fail(CodeSlowConsumer, fmt.Sprintf("client is not reading: outbound queue passed %d frames or %d bytes", s.cfg.OutboundFrames, s.cfg.OutboundBytes))
		return false
	}
	return true
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
			s.addPeer(p)
			p.log.Info("client joined")
			s.observe(Event{Kind: EventJoined, Player: p.id, Remote: p.conn.RemoteAddr()})
			continue
		default:
		}
		break
	}
	for _, p := range s.peers {
		if p.ctx.Err() == nil {
			p.tokens = min(s.cfg.EditsPerSecond, p.tokens+dt*s.cfg.EditsPerSecond)
			s.drain(p)
		}
		if p.ctx.Err() != nil {
			s.removePeer(p)
			code, reason := p.closedReason()
			s.observe(Event{Kind: EventLeft, Player: p.id, Remote: p.conn.RemoteAddr(), Code: code, Reason: reason})
		}
	}
	s.flushUnion()
	s.finishEdits()
	s.deliverAll()
	s.relayCars()
}

func (s *Server) addPeer(p *serverPeer) {
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
	s.liveMu.Unlock()
	s.players.Add(-1)
	for pos := range p.desired {
		s.unref(pos)
	}
	clear(p.desired)
}

func (s *Server) ref(pos ChunkPos) {
	s.refs[pos]++
	if s.refs[pos] == 1 {
		s.union[pos] = struct{}{}
		s.added = append(s.added, pos)
		s.unionDirty = true
	}
}

func (s *Server) unref(pos ChunkPos) {
	n := s.refs[pos] - 1
	if n > 0 {
		s.refs[pos] = n
		return
	}
	delete(s.refs, pos)
	delete(s.union, pos)
	s.removed = append(s.removed, pos)
	s.unionDirty = true
}

// flushUnion tells the world how the union of all areas changed this tick.
func (s *Server) flushUnion() {
	if !s.unionDirty {
		return
	}
	s.unionDirty = false
	if uw, ok := s.cfg.World.(UnionWorld); ok {
		// A chunk added and removed within the tick ends in one list only,
		// the one that matches where it is now.
		added := s.added[:0]
		for _, pos := range s.added {
			if _, in := s.union[pos]; in {
				added = append(added, pos)
			}
		}
		removed := s.removed[:0]
		for _, pos := range s.removed {
			if _, in := s.union[pos]; !in {
				removed = append(removed, pos)
			}
		}
		uw.UnionChanged(dedupe(added), dedupe(removed))
	} else {
		s.cfg.World.Reconcile(s.union)
	}
	s.added, s.removed = s.added[:0], s.removed[:0]
}

// dedupe removes repeated positions from a short list, keeping the first.
func dedupe(ps []ChunkPos) []ChunkPos {
	if len(ps) < 2 {
		return ps
	}
	seen := make(map[ChunkPos]struct{}, len(ps))
	out := ps[:0]
	for _, p := range ps {
		if _, ok := seen[p]; !ok {
			seen[p] = struct{}{}
			out = append(out, p)
		}
	}
	return out
}

// deliverAll serves clients round-robin within the tick's delivery budget.
func (s *Server) deliverAll() {
	n := len(s.order)
	if n == 0 {
		return
	}
	var deadline time.Time
	if s.cfg.DeliveryBudget > 0 {
		deadline = time.Now().Add(s.cfg.DeliveryBudget)
	}
	start := s.rr % n
	for k := range n {
		p := s.order[(start+k)%n]
		if !s.deliver(p, deadline) {
			// Out of time: the next tick starts with this client.
			s.rr = (start + k) % n
			s.metrics.budgetExhausted.Inc()
			return
		}
	}
	s.rr = start + 1
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
		s.subscribe(p, m)
	case *wire.EditRequest:
		s.edit(p, m)
	}
}

func (s *Server) subscribe(p *serverPeer, m *wire.Subscribe) {
	r := int32(min(m.Radius, s.cfg.MaxRadius))
	if p.subscribed && p.centre == m.Centre && p.radius == r {
		return
	}
	p.subscribed, p.centre, p.radius = true, m.Centre, r
	s.scratchPos = cylinder(m.Centre, r, s.scratchPos)
	next := p.spare
	clear(next)
	for _, pos := range s.scratchPos {
		next[pos] = struct{}{}
	}
	for pos := range p.desired {
		if _, ok := next[pos]; !ok {
			s.unref(pos)
		}
	}
	for _, pos := range s.scratchPos { // near-first, so the world loads near-first
		if _, ok := p.desired[pos]; !ok {
			s.ref(pos)
		}
	}
	p.desired, p.spare = next, p.desired
	// A chunk that left the cylinder the client itself asked for (its
	// Subscribe as sent) is evicted by the client on its own: forget it
	// silently. Only a removal the client cannot work out (the server
	// serves a smaller radius than the one asked for) gets a ChunkDrop.
	asked := int32(m.Radius)
	for pos := range p.sent {
		if _, ok := p.desired[pos]; !ok {
			delete(p.sent, pos)
			if !inCylinder(m.Centre, asked, pos) {
				continue
			}
			if !s.send(p, &wire.ChunkDrop{Pos: pos}) {
				return
			}
			s.metrics.drops.Inc()
		}
	}
	p.pending = p.pending[:0]
	for _, pos := range s.scratchPos {
		if _, ok := p.sent[pos]; !ok {
			p.pending = append(p.pending, pos)
		}
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
func (s *Server) deliver(p *serverPeer, deadline time.Time) bool {
	if len(p.pending) == 0 || p.ctx.Err() != nil {
		return true
	}
	edited, defaults, skipped := 0, 0, 0
	inTime := true
	keep := p.pending[:0]
	batch := p.batch[:0]
	for i, pos := range p.pending {
		if i&15 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			inTime = false
		}
		if !inTime || edited >= s.cfg.DeliveriesPerTick || defaults >= s.cfg.DefaultsPerTick ||
			skipped >= maxSkips || p.ctx.Err() != nil {
			keep = append(keep, p.pending[i:]...)
			break
		}
		edits, ready := s.cfg.World.Chunk(pos)
		if !ready {
			keep = append(keep, pos)
			skipped++
			continue
		}
		if len(edits) == 0 {
			batch = append(batch, pos)
			p.sent[pos] = struct{}{}
			defaults++
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
		if !slices.IsSortedFunc(edits, byIndex) {
			edits = slices.Clone(edits)
			slices.SortFunc(edits, byIndex)
		}
		if !s.send(p, &wire.ChunkEdits{Pos: pos, Edits: edits}) {
			if p.ctx.Err() != nil {
				return true
			}
			continue // could not be encoded (logged); not retried
		}
		s.metrics.delivered[kindEdits].Inc()
		p.sent[pos] = struct{}{}
		edited++
	}
	if len(batch) > 0 {
		s.sendDefaults(p, batch)
	}
	p.batch = batch[:0]
	p.pending = keep
	return inTime
}

// sendDefaults sends one ChunkDefaults relative to p's centre (every
// pending position lies in p's cylinder, so each offset fits a byte).
func (s *Server) sendDefaults(p *serverPeer, batch []ChunkPos) {
	if s.send(p, &wire.ChunkDefaults{Base: p.centre, Pos: batch}) {
		s.metrics.delivered[kindDefault].Add(float64(len(batch)))
	}
}

func byIndex(a, b Edit) int { return int(a.Index) - int(b.Index) }

// blockCentre is the world position (metres) of the centre of block index
// of chunk pos.
func blockCentre(pos ChunkPos, index uint16) (x, y, z float64) {
	i := int(index)
	return float64(pos.X)*32 + float64(i&31) + 0.5,
		float64(pos.Y)*32 + float64(i>>10) + 0.5,
		float64(pos.Z)*32 + float64((i>>5)&31) + 0.5
}

// reachError says why p may not edit that block from where its car is, or
// returns "".
func (s *Server) reachError(p *serverPeer, pos ChunkPos, index uint16) string {
	if s.cfg.Reach < 0 {
		return ""
	}
	p.carMu.Lock()
	c, have := p.carIn, p.carHave
	p.carMu.Unlock()
	if !have {
		return "no car position yet: the server has not received your car, so it cannot check your reach"
	}
	bx, by, bz := blockCentre(pos, index)
	cx, cy, cz := c.Position()
	d := math.Sqrt((bx-cx)*(bx-cx) + (by-cy)*(by-cy) + (bz-cz)*(bz-cz))
	if d > s.cfg.Reach {
		return fmt.Sprintf("out of reach: that block is %.0f m from your car; you can edit within %g m", d, s.cfg.Reach)
	}
	return ""
}

func (s *Server) edit(p *serverPeer, m *wire.EditRequest) {
	reject := func(why, reason string) {
		s.metrics.editsRejected.WithLabelValues(why).Inc()
		s.send(p, &wire.EditReject{Seq: m.Seq, Reason: reason})
	}
	if _, ok := p.sent[m.Pos]; !ok {
		reject("area", "that chunk is not loaded in your area")
		return
	}
	if why := s.reachError(p, m.Pos, m.Index); why != "" {
		reject("reach", why)
		return
	}
	if p.tokens < 1 {
		reject("rate", fmt.Sprintf("too many edits: at most %g per second", s.cfg.EditsPerSecond))
		return
	}
	p.tokens--
	e := EditCommit{Player: p.id, Seq: m.Seq, Pos: m.Pos, Index: m.Index, Block: m.Block}
	if aw, ok := s.cfg.World.(AsyncEditWorld); ok {
		if err := aw.SubmitEdit(e); err != nil {
			reject("world", err.Error())
		}
		return // answered when the commit finishes (finishEdits)
	}
	e.Err = s.cfg.World.ApplyEdit(p.id, m.Pos, m.Index, m.Block)
	s.editDone(e)
}

// finishEdits answers every edit whose asynchronous commit has finished.
func (s *Server) finishEdits() {
	aw, ok := s.cfg.World.(AsyncEditWorld)
	if !ok {
		return
	}
	s.committed = aw.CommittedEdits(s.committed[:0])
	for _, e := range s.committed {
		s.editDone(e)
	}
	clear(s.committed)
}

// editDone broadcasts a committed edit to every client holding its chunk
// and acknowledges it, or rejects a failed one.
func (s *Server) editDone(e EditCommit) {
	p := s.peers[e.Player] // nil if the player left meanwhile
	if e.Err != nil {
		s.metrics.editsRejected.WithLabelValues("world").Inc()
		if p != nil {
			s.send(p, &wire.EditReject{Seq: e.Seq, Reason: e.Err.Error()})
		}
		return
	}
	s.metrics.editsApplied.Inc()
	b := &wire.EditBroadcast{Pos: e.Pos, Index: e.Index, Block: e.Block}
	for _, q := range s.peers {
		if _, ok := q.sent[e.Pos]; ok {
			s.send(q, b)
		}
	}
	if p != nil {
		s.send(p, &wire.EditAck{Seq: e.Seq})
	}
}

// relayCars hands every client the latest snapshots of the other cars in
// its area, through its latest-only slot.
func (s *Server) relayCars() {
	changed := false
	for _, p := range s.peers {
		p.carMu.Lock()
		if p.carNew {
			p.lastCar, p.hasCar, p.carNew = p.carIn, true, false
			changed = true
		}
		p.carMu.Unlock()
	}
	if !changed {
		return
	}
	for _, to := range s.peers {
		if !to.subscribed || to.ctx.Err() != nil {
			continue
		}
		s.scratchCars = s.scratchCars[:0]
		for _, from := range s.peers {
			if from == to || !from.hasCar {
				continue
			}
			c := from.lastCar
			if inCylinder(to.centre, to.radius, chunkOf(c.X, c.Y, c.Z)) {
				s.scratchCars = append(s.scratchCars, c)
			}
		}
		if len(s.scratchCars) > 0 {
			to.cars.put(s.scratchCars)
		}
	}
}
