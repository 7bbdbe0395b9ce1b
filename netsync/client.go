package netsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// ClientConfig configures Dial.
type ClientConfig struct {
	Addr        string // server address, host:port
	Fingerprint string // the server's SHA-256 certificate fingerprint (pin); required
	Seed        uint64 // world seed the client generates with
	Generator   uint32 // terrain generator version
	Protocol    uint32 // protocol version to offer; 0 means wire.ProtocolVersion

	Centre   voxel.ChunkPos // initial subscription
	Radius   uint32         // initial subscription radius; clamped to the server's maximum
	MaxBlock voxel.Block    // largest valid block id (wire.DefaultLimits.MaxBlock)

	InboundQueue  int // decoded server messages buffered (8192)
	OutboundQueue int // frames queued towards the server (256)
	MaxCars       int // other cars tracked (1024)
	// CarLog, when positive, keeps each other car's last CarLog relays
	// heard on this connection (its seq, when it came) for HeardLog: a
	// diagnostic (the bots' -gaps-trace). 0: nothing is kept or spent.
	CarLog int
	// ClockInterval is how often the world clock is pinged
	// (DefaultClockInterval).
	ClockInterval time.Duration

	// Identity is the player across reconnects and servers (its key, edit
	// sequence and unanswered edits, sent again on this connection). nil:
	// a fresh one.
	Identity *Identity
	// Name is shown on the server's map (at most wire.MaxNameLen bytes);
	// Password is the server's join password, if it has one.
	Name, Password string
	// IdleTimeout is how long a silent server is waited for before the
	// connection counts as lost (0: transport.IdleTimeout, 15 s); clients
	// that fail over between servers want it short.
	IdleTimeout time.Duration
	// SpareOf, when not 0, dials a handover's spare connection (Handover)
	// for the car the world knows by that id (the player's id on its first
	// server): it starts on standby (wire.Handover), so the server neither
	// shows the car nor expects it, asks that server to vouch for the id,
	// and does not send unanswered edits again (the handover does, at the
	// switch).
	SpareOf uint32
	// InProcess, when set, joins that server (ServerConfig.InProcess)
	// through memory, not the network (pipe.go); Addr and Fingerprint are
	// then unused.
	InProcess *Server
	// WebTransport, when set, joins over this WebTransport session
	// instead of native QUIC (the browser build: the page's own
	// WebTransport). Fingerprint must vouch for its Offer (webcert.Verify),
	// and the session trusts only the offered certificates; Addr is then
	// only named in errors, and IdleTimeout does not apply (the browser's
	// QUIC settings do).
	WebTransport *WebTransportTarget

	Logger *slog.Logger

	now func() time.Time // the car clock (CarForget); nil: time.Now. For tests.
}

// Client is one connection to a server. Its methods never block the
// caller's frame loop: messages arrive on Messages (or via Poll), sends are
// queued, and car snapshots go through a latest-only slot.
type Client struct {
	cfg     ClientConfig
	log     *slog.Logger
	conn    clientConn
	welcome wire.Welcome
	enc     *wire.Encoder
	encMu   sync.Mutex
	in      chan wire.Message
	out     *queue
	car     *carSlot
	carSeq  atomic.Uint32

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	errMu sync.Mutex
	err   error

	carsMu sync.Mutex
	cars   map[uint32]heardCar
	// carLog is each car's ring of relays (ClientConfig.CarLog; nil
	// without), its times from logBase (pointer-free: nothing for the
	// collector to scan). Under carsMu.
	carLog  map[uint32]*carLog
	logBase time.Time

	start time.Time // LocalTime's zero
	clock *clockSamples

	spawnPose  wire.Pose // the server's placement at the join
	spawnReady chan struct{}
	resetSeq   atomic.Uint32
}

// Dial connects to a server, pins its certificate, runs the handshake and
// sends the initial subscription. A refused handshake returns a
// *RefusedError whose Reason the player can act on.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	if cfg.Protocol == 0 {
		cfg.Protocol = wire.ProtocolVersion
	}
	if cfg.MaxBlock == 0 {
		cfg.MaxBlock = wire.DefaultLimits.MaxBlock
	}
	if cfg.InboundQueue <= 0 {
		cfg.InboundQueue = 8192
	}
	if cfg.OutboundQueue <= 0 {
		cfg.OutboundQueue = 256
	}
	if cfg.MaxCars <= 0 {
		cfg.MaxCars = 1024
	}
	if cfg.Identity == nil {
		cfg.Identity = NewIdentity()
	}
	if cfg.ClockInterval <= 0 {
		cfg.ClockInterval = DefaultClockInterval
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	log := logger(cfg.Logger)
	conn, err := dialConn(ctx, cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, log: log, conn: conn, enc: wire.NewEncoder(),
		in: make(chan wire.Message, cfg.InboundQueue), out: newQueue(cfg.OutboundQueue, 1<<20),
		car: newCarSlot(), cars: map[uint32]heardCar{}, start: time.Now(), clock: newClockSamples(),
		spawnReady: make(chan struct{})}
	if cfg.CarLog > 0 {
		c.carLog, c.logBase = map[uint32]*carLog{}, cfg.now()
	}
	if err := c.handshake(ctx); err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			log.Error("connection refused", "by_server", re.ByServer, "reason", re.Reason)
		}
		_ = conn.CloseWithError(CodeRefused, err.Error())
		if c.ctx != nil { // it failed waiting for the spawn: the readers run
			c.cancel()
			c.wg.Wait()
		}
		_ = conn.release()
		return nil, err
	}
	return c, nil
}

func (c *Client) handshake(ctx context.Context) error {
	hsCtx, cancel := context.WithTimeout(ctx, transport.HandshakeTimeout)
	defer cancel()
	ctrl, err := c.conn.OpenStream(hsCtx)
	if err != nil {
		return c.explain(err)
	}
	f, err := c.enc.AppendFrame(nil, &wire.Hello{Protocol: c.cfg.Protocol, Seed: c.cfg.Seed, Generator: c.cfg.Generator}, wire.ControlCap)
	if err != nil {
		return err
	}
	// The Join goes with the Hello, in one write: a server of another
	// version reads the Hello alone and explains the mismatch.
	join := &wire.Join{Key: c.cfg.Identity.Key(), Name: c.cfg.Name, Password: c.cfg.Password}
	if f, err = c.enc.AppendFrame(f, join, wire.ControlCap); err != nil {
		return err
	}
	helloSent := time.Now()
	if _, err := ctrl.Write(f); err != nil {
		return c.explain(err)
	}
	deadline, _ := hsCtx.Deadline()
	_ = ctrl.SetReadDeadline(deadline)
	fr := wire.NewFrameReader(ctrl, wire.ControlCap)
	p, err := fr.Next()
	if err != nil {
		return c.explain(err)
	}
	m, err := wire.Decode(p, wire.DefaultLimits)
	if err != nil {
		return fmt.Errorf("netsync: bad handshake from server: %w", err)
	}
	switch m := m.(type) {
	case *wire.Refuse:
		return &RefusedError{Reason: m.Reason, ByServer: true}
	case *wire.Welcome:
		switch {
		case m.Protocol != c.cfg.Protocol:
			return &RefusedError{Reason: fmt.Sprintf("server answered with protocol %d, this client speaks %d", m.Protocol, c.cfg.Protocol)}
		case m.Seed != c.cfg.Seed:
			return &RefusedError{Reason: fmt.Sprintf("world seed mismatch: server %d, client %d", m.Seed, c.cfg.Seed)}
		case m.Generator != c.cfg.Generator:
			return &RefusedError{Reason: fmt.Sprintf("generator mismatch: server %d, client %d", m.Generator, c.cfg.Generator)}
		}
		c.welcome = *m
		if m.World > 0 {
			c.clock.add(ClockSample{Sent: helloSent, Received: time.Now(), World: time.Duration(m.World) * time.Microsecond})
		}
	default:
		return fmt.Errorf("netsync: bad handshake from server: unexpected %v", m.Kind())
	}
	_ = ctrl.SetReadDeadline(time.Time{})

	chunk, err := c.conn.OpenStream(hsCtx)
	if err != nil {
		return c.explain(err)
	}
	sub := &wire.Subscribe{Centre: c.cfg.Centre, Radius: min(c.cfg.Radius, c.welcome.MaxRadius)}
	if f, err = c.enc.AppendFrame(f[:0], sub, wire.ControlCap); err != nil {
		return err
	}
	if c.cfg.SpareOf != 0 {
		if f, err = c.enc.AppendFrame(f, &wire.Handover{From: c.cfg.SpareOf}, wire.ControlCap); err != nil {
			return err
		}
	}
	if _, err := chunk.Write(f); err != nil {
		return c.explain(err)
	}

	c.ctx, c.cancel = context.WithCancel(context.Background())
	lim := wire.Limits{MaxRadius: c.welcome.MaxRadius, MaxBlock: c.cfg.MaxBlock}
	id := c.cfg.Identity
	var again resend
	if c.cfg.SpareOf == 0 {
		again.wait = id.retry()
	}
	var due []wire.EditRequest
	spawned := false
	c.spawn(func() {
		err := readFrames(chunk, wire.ChunkCap, 0, lim, func(m wire.Message) error {
			switch m := m.(type) {
			case *wire.Pose:
				if !spawned { // the first message: the spawn, which Dial waits for
					if m.Seq != 0 {
						return fmt.Errorf("%w: the first Pose answers Reset %d, none was asked", wire.ErrMalformed, m.Seq)
					}
					spawned, c.spawnPose = true, *m
					close(c.spawnReady)
					return nil
				}
			case *wire.ChunkDefaults:
				due = again.delivered(m.Pos, due[:0])
			case *wire.ChunkEdits:
				due = again.delivered([]voxel.ChunkPos{m.Pos}, due[:0])
			case *wire.EditAck:
				id.answered(m.Seq)
			case *wire.EditReject:
				id.answered(m.Seq)
			case *wire.ChunkDrop, *wire.EditBroadcast, *wire.TickRate, *wire.Notice, *wire.Owners:
			default:
				return fmt.Errorf("%w: %v not allowed from the server on the chunk stream", wire.ErrMalformed, m.Kind())
			}
			for i := range due { // unanswered on an earlier connection: its chunk is here now
				_ = c.queue(&due[i])
			}
			due = due[:0]
			select {
			case c.in <- m: // a full queue holds the server back, which cuts us off
				return nil
			case <-c.ctx.Done():
				return c.ctx.Err()
			}
		})
		c.readerDone(err)
	})
	c.spawn(func() {
		err := readFrames(ctrl, wire.ControlCap, 0, lim, func(m wire.Message) error {
			if m, ok := m.(*wire.Clock); ok {
				return c.onClock(m)
			}
			return fmt.Errorf("%w: unexpected %v on the control stream", wire.ErrMalformed, m.Kind())
		})
		c.readerDone(err)
	})
	c.spawn(func() { c.pingClock(ctrl, c.cfg.ClockInterval) })
	c.spawn(func() {
		if err := c.out.run(c.ctx, chunk); err != nil {
			c.fail(CodeOK, c.explain(err))
		}
	})
	c.spawn(func() { c.car.run(c.ctx, c.conn, new(atomic.Uint64)) })
	c.spawn(c.receiveCars)
	c.spawn(func() {
		select {
		case <-c.conn.Context().Done():
			c.fail(CodeOK, c.explain(context.Cause(c.conn.Context())))
		case <-c.ctx.Done():
		}
	})
	select { // the game starts where the server places the car
	case <-c.spawnReady:
		return nil
	case <-c.ctx.Done():
		return c.Err()
	case <-hsCtx.Done():
		c.fail(CodeTimeout, fmt.Errorf("netsync: no spawn from the server within %v: %w", transport.HandshakeTimeout, ErrTimedOut))
		return c.Err()
	}
}

// Spawn is where the server placed this player's car at the join (a Pose
// of Seq 0, Y 0: on the ground there). Its first car snapshot must lie
// near it.
func (c *Client) Spawn() wire.Pose { return c.spawnPose }

// Reset asks the server to put the car at x, y, z (metres) facing heading
// (radians, the car snapshot's convention): a deliberate reset. The
// server answers with a Pose of the returned Seq, from Messages or a
// PoseSink: the car goes where that Pose says (the asked place if
// granted; if refused, its Reason says why and where the car stays).
func (c *Client) Reset(x, y, z, heading float64) (uint32, error) {
	seq := c.resetSeq.Add(1)
	if seq == 0 { // 0 is the server's own placements
		seq = c.resetSeq.Add(1)
	}
	q := wire.QuantiseCar(0, 0, x, y, z, heading, 0)
	return seq, c.queue(&wire.Reset{Seq: seq, X: q.X, Y: q.Y, Z: q.Z, Heading: q.Heading})
}

// explain turns the server's close reason into an error the player can
// read; a refusal becomes a *RefusedError.
func (c *Client) explain(err error) error {
	if ae, ok := remoteAppError(err); ok && ae.Remote {
		if ae.ErrorCode == CodeRefused {
			return &RefusedError{Reason: ae.ErrorMessage, ByServer: true}
		}
		if ae.ErrorCode == CodeBusy {
			return fmt.Errorf("%w (code %d): %s", ErrBusy, uint64(ae.ErrorCode), ae.ErrorMessage)
		}
		if ae.ErrorCode == CodeTimeout {
			return fmt.Errorf("%w (code %d): %s", ErrTimedOut, uint64(ae.ErrorCode), ae.ErrorMessage)
		}
		if ae.ErrorCode == CodeKicked {
			return fmt.Errorf("%w: %s", ErrKicked, ae.ErrorMessage)
		}
		return fmt.Errorf("netsync: server closed the connection (code %d): %s", uint64(ae.ErrorCode), ae.ErrorMessage)
	}
	if err == nil {
		return ErrClosed
	}
	if refusedByQUIC(err) {
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return err
}

// refusedByQUIC reports whether the server's QUIC stack refused the
// connection (CONNECTION_REFUSED: its accept queue was full), which is
// busy too.
func refusedByQUIC(err error) bool {
	var te *quic.TransportError
	return errors.As(err, &te) && te.Remote && te.ErrorCode == quic.ConnectionRefused
}

func (c *Client) spawn(f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
}

func (c *Client) readerDone(err error) {
	if c.ctx.Err() != nil {
		return
	}
	switch {
	case errors.Is(err, wire.ErrMalformed), errors.Is(err, wire.ErrFrameTooLarge),
		errors.Is(err, wire.ErrTruncated), errors.Is(err, wire.ErrEmptyFrame):
		c.fail(CodeProtocol, fmt.Errorf("netsync: bad data from server: %w", err))
	default:
		c.fail(CodeOK, c.explain(err))
	}
}

func (c *Client) fail(code quic.ApplicationErrorCode, err error) {
	c.errMu.Lock()
	first := c.err == nil
	if first {
		c.err = err
	}
	c.errMu.Unlock()
	if !first {
		return
	}
	if code != CodeOK {
		c.log.Warn("closing connection", "err", err)
	} else {
		c.log.Info("connection ended", "err", err)
	}
	c.cancel()
	_ = c.conn.CloseWithError(code, err.Error())
}

func (c *Client) receiveCars() {
	var buf []wire.CarSnapshot
	for {
		d, err := c.conn.ReceiveDatagram(c.ctx)
		if err != nil {
			return
		}
		buf, err = wire.DecodeCarDatagram(d, buf[:0])
		if err != nil {
			c.fail(CodeProtocol, fmt.Errorf("netsync: bad car datagram from server: %w", err))
			return
		}
		now := c.cfg.now()
		c.carsMu.Lock()
		for _, s := range buf {
			if c.carLog != nil {
				c.logHeard(s, now)
			}
			old, ok := c.cars[s.Player]
			if ok && s.Seq == old.s.Seq { // relayed again (a car held still): still there
				old.at = now
				c.cars[s.Player] = old
				continue
			}
			if ok && !wire.SeqNewer(s.Seq, old.s.Seq) {
				continue
			}
			if !ok && len(c.cars) >= c.cfg.MaxCars {
				continue
			}
			h := heardCar{s: s, at: now}
			if ok { // moving: newer than one before (a first is whatever the server had)
				h.newAt = now
			}
			c.cars[s.Player] = h
		}
		c.carsMu.Unlock()
	}
}

// Welcome returns the session parameters the server announced.
func (c *Client) Welcome() wire.Welcome { return c.welcome }

// Player is this client's player id.
func (c *Client) Player() uint32 { return c.welcome.Player }

// Messages delivers chunk, drop, edit and ack messages in stream order.
// A frame loop drains it without blocking (see Poll).
func (c *Client) Messages() <-chan wire.Message { return c.in }

// Poll appends up to max queued messages to dst without blocking.
func (c *Client) Poll(dst []wire.Message, max int) []wire.Message {
	for range max {
		select {
		case m := <-c.in:
			dst = append(dst, m)
		default:
			return dst
		}
	}
	return dst
}

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.ctx.Done() }

// Err returns why the connection ended, or nil while it is up.
func (c *Client) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

func (c *Client) queue(m wire.Message) error {
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	c.encMu.Lock()
	f := getFrame()
	b, err := c.enc.AppendFrame((*f)[:0], m, wire.ControlCap)
	c.encMu.Unlock()
	if err != nil {
		putFrame(f)
		return err
	}
	*f = b
	if !c.out.push(f) {
		return ErrQueueFull
	}
	return nil
}

// Subscribe replaces the client's area: radius chunks around centre,
// clamped to the server's maximum.
func (c *Client) Subscribe(centre voxel.ChunkPos, radius uint32) error {
	return c.queue(&wire.Subscribe{Centre: centre, Radius: min(radius, c.welcome.MaxRadius)})
}

// RequestEdit asks the server to set one block; the answer is an EditAck
// or EditReject with the returned sequence number.
func (c *Client) RequestEdit(pos voxel.ChunkPos, index uint16, block voxel.Block) (uint32, error) {
	if index >= voxel.ChunkVolume || block > c.cfg.MaxBlock {
		return 0, fmt.Errorf("netsync: edit out of range (index %d, block %d)", index, block)
	}
	r := c.cfg.Identity.request(pos, index, block)
	if err := c.queue(&r); err != nil {
		c.cfg.Identity.answered(r.Seq) // never sent: not to be retried
		return r.Seq, err
	}
	return r.Seq, nil
}

// SendCar publishes this client's car state; only the latest unsent
// snapshot is kept. Seq is assigned here.
func (c *Client) SendCar(s wire.CarSnapshot) { c.sendCar(s, c.carSeq.Add(1)) }

// CarSeq is the Seq SendCar gave the latest snapshot (0: none yet): how
// another player's client knows which of this car's snapshots it holds.
func (c *Client) CarSeq() uint32 { return c.carSeq.Load() }

// sendCar sends the car with sequence seq (a handover numbers the car's
// snapshots across its connections: one car, one sequence).
func (c *Client) sendCar(s wire.CarSnapshot, seq uint32) {
	s.Player = c.welcome.Player
	s.Seq = seq
	c.car.put([]wire.CarSnapshot{s})
}

// heardCar is another car's latest snapshot, when it was last relayed
// and when it replaced an older one (the car last shown moving here;
// zero: not since it was first relayed).
type heardCar struct {
	s         wire.CarSnapshot
	at, newAt time.Time
}

// CarForget is how long a car the server stopped relaying is still
// returned by Cars: its player left, drove out of the area, or was handed
// to another server (under another id there). Servers relay every car in
// the area each tick while any car moves.
const CarForget = time.Second

// Cars appends the latest snapshot of every other car the server relayed
// within CarForget.
func (c *Client) Cars(dst []wire.CarSnapshot) []wire.CarSnapshot {
	now := c.cfg.now()
	c.carsMu.Lock()
	defer c.carsMu.Unlock()
	for id, h := range c.cars {
		if now.Sub(h.at) > CarForget {
			delete(c.cars, id)
			continue
		}
		dst = append(dst, h.s)
	}
	for id, l := range c.carLog { // bounded: a car not heard for a while is forgotten
		if now.Sub(c.logBase) > l.newest()+carLogKeep {
			delete(c.carLog, id)
		}
	}
	return dst
}

// carLogKeep is how long a car's log (ClientConfig.CarLog) is kept after
// its last relay: longer than the gap watch's (the bots'), which reads it.
const carLogKeep = 5 * time.Second

// HeardAt is one relay of a car heard on a connection (HeardLog).
type HeardAt struct {
	Seq uint32
	At  time.Time
}

// carLog is a ring of one car's relays, next at n % len(ring).
type carLog struct {
	ring []heardEntry
	n    int
}

type heardEntry struct {
	seq uint32
	at  time.Duration // from the client's logBase
}

func (l *carLog) newest() time.Duration { return l.ring[(l.n-1)%len(l.ring)].at }

// logHeard logs s, heard at now, in its car's ring (a new car's only
// while fewer than MaxCars are logged). Under carsMu.
func (c *Client) logHeard(s wire.CarSnapshot, now time.Time) {
	l := c.carLog[s.Player]
	if l == nil {
		if len(c.carLog) >= c.cfg.MaxCars {
			return
		}
		l = &carLog{ring: make([]heardEntry, c.cfg.CarLog)}
		c.carLog[s.Player] = l
	}
	l.ring[l.n%len(l.ring)] = heardEntry{seq: s.Seq, at: now.Sub(c.logBase)}
	l.n++
}

// HeardLog appends to dst, oldest first, every relay of player's car
// (every snapshot, a newer one or the same again) this connection heard
// among the last ClientConfig.CarLog kept, and reports whether older
// ones were forgotten. For diagnostics; nothing without CarLog.
func (c *Client) HeardLog(player uint32, dst []HeardAt) ([]HeardAt, bool) {
	c.carsMu.Lock()
	defer c.carsMu.Unlock()
	l := c.carLog[player]
	if l == nil {
		return dst, false
	}
	for i := max(0, l.n-len(l.ring)); i < l.n; i++ {
		e := l.ring[i%len(l.ring)]
		dst = append(dst, HeardAt{Seq: e.seq, At: c.logBase.Add(e.at)})
	}
	return dst, l.n > len(l.ring)
}

// advancedWithin appends the latest snapshot of every other car whose
// snapshots advanced (a newer one came) within d: a server relaying a
// car's last snapshot again (held still, or no longer heard from the
// cluster), or relaying one for the first time (a remote car's last
// snapshot may be old), is not showing it move.
func (c *Client) advancedWithin(dst []wire.CarSnapshot, d time.Duration) []wire.CarSnapshot {
	now := c.cfg.now()
	c.carsMu.Lock()
	defer c.carsMu.Unlock()
	for _, h := range c.cars {
		if now.Sub(h.newAt) <= d {
			dst = append(dst, h.s)
		}
	}
	return dst
}

// advancedLately reports whether player's car's snapshots advanced
// within d.
func (c *Client) advancedLately(player uint32, d time.Duration) bool {
	now := c.cfg.now()
	c.carsMu.Lock()
	defer c.carsMu.Unlock()
	h, ok := c.cars[player]
	return ok && now.Sub(h.newAt) <= d
}

// heard is the latest snapshot of player's car relayed to this client.
func (c *Client) heard(player uint32) (wire.CarSnapshot, bool) {
	c.carsMu.Lock()
	defer c.carsMu.Unlock()
	h, ok := c.cars[player]
	return h.s, ok
}

// Close ends the connection and waits for the client's goroutines.
func (c *Client) Close() error {
	c.fail(CodeOK, ErrClosed)
	c.wg.Wait()
	return c.conn.release()
}

// Traffic is what this connection has moved so far, counted by QUIC: every
// stream and datagram byte plus QUIC's packet overhead (headers,
// acknowledgements, keep-alives), retransmissions included, UDP and IP
// headers excluded. Over a browser's WebTransport, which shows no QUIC
// counters to a page, it is the stream and datagram bytes alone.
type Traffic struct {
	BytesIn  uint64 // received from the server
	BytesOut uint64 // sent to the server
}

// Traffic returns the connection's byte counters. Safe from any goroutine.
func (c *Client) Traffic() Traffic { return c.conn.Traffic() }

// Unanswered counts this player's edit requests not yet answered (on this
// connection or an earlier one of the same Identity).
func (c *Client) Unanswered() int { return c.cfg.Identity.Unanswered() }
