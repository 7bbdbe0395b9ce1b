package netsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// serverPeer is one connected client: the goroutines that read, write and
// relay for its connection, and the tick goroutine's record of it.
type serverPeer struct {
	id  uint32
	key string // the address key (addrKey): MaxPlayersPerAddr's
	// From the Join; set before the peer reaches the tick, read-only after.
	playerKey uint64
	name      string
	joinedAt  time.Time
	conn      peerConn
	ctrl      peerStream
	chunk     peerStream
	log       *slog.Logger

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
	area   *area
	batch  []voxel.ChunkPos // this tick's ready defaults, reused
	tokens tokens
	sub    subscribeGate
	joined time.Time // when the tick took it in (SubscribeTimeout)
	// welcomedHz is the tick rate its Welcome announced.
	welcomedHz int
	lastCar    wire.CarSnapshot // the last accepted snapshot
	// edits refused for reach just after joining, judged again once its
	// car is accepted (cluster only: editAt)
	reachWaiting []waitingEdit
	hasCar       bool
	track        CarTrack
	active       time.Time // its last car or edit arrived (IdleLimit)
	resets       tokens
	heldSince    time.Time // its snapshots have been refused since (zero: not held)
	poseSent     time.Time // the last Pose correcting a held car
	// standby: the player drives on another server; this connection is
	// its spare (wire.Handover).
	standby bool
	// handedOver: a car placed by a Handover, to be published and relayed
	// at this tick even though no snapshot arrived.
	handedOver bool
	owners     ownersSeen // what it was last told (owners.go)
	// claim is the id the player's car has in the world (a Handover's
	// From), alias the same once its server vouched for it; vouchAt is
	// when it was last asked (owners.go).
	claim, alias uint32
	vouchAt      time.Time
	vouching     bool   // asked at vouchAt, not answered yet
	placeAt      uint32 // the claim to place the car from once vouched for
}

func (s *Server) newPeer(id uint32, key string, conn peerConn, ctrl, chunk peerStream) *serverPeer {
	// The peer's context ends only through fail, which also closes the
	// connection with a code and reason (shutdownPeers fails every peer).
	ctx, cancel := context.WithCancel(context.Background())
	p := &serverPeer{
		id: id, key: key, conn: conn, ctrl: ctrl, chunk: chunk,
		log:    s.log.With("player", id, "remote", conn.RemoteAddr().String()),
		ctx:    ctx,
		cancel: cancel,
		in:     make(chan wire.Message, s.cfg.InboundQueue),
		out:    newQueue(s.cfg.OutboundFrames, s.cfg.OutboundBytes),
		cars:   newCarSlot(),
		area:   newArea(),
		tokens: newTokens(s.cfg.EditsPerSecond),
		sub:    newSubscribeGate(s.cfg.SubscribesPerSecond),
		resets: newBucket(1/s.cfg.ResetEvery.Seconds(), 1),
	}
	lim := wire.Limits{MaxRadius: s.cfg.MaxRadius, MaxBlock: s.cfg.MaxBlock}
	s.spawn(func() {
		// Clients send only small messages, so the chunk stream's inbound
		// direction uses the control cap.
		err := readFrames(chunk, wire.ControlCap, s.cfg.FrameTimeout, lim, func(m wire.Message) error {
			switch m.(type) {
			case *wire.Subscribe, *wire.EditRequest, *wire.Reset, *wire.Handover:
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
		clock := clockAnswerer{s: s, ctx: ctx, ctrl: ctrl, enc: wire.NewEncoder(),
			budget: newClocked(s.cfg.ClockPingsPerSecond, s.cfg.ClockPingsPerSecond, time.Now())}
		err := readFrames(ctrl, wire.ControlCap, s.cfg.FrameTimeout, lim, func(m wire.Message) error {
			if c, ok := m.(*wire.Clock); ok {
				return clock.answer(c)
			}
			return fmt.Errorf("%w: unexpected %v on the control stream", wire.ErrMalformed, m.Kind())
		})
		p.readerDone("control stream", err)
	})
	s.spawn(func() {
		var buf []wire.CarSnapshot
		budget := newClocked(s.cfg.CarsPerSecond, s.cfg.CarsPerSecond, time.Now())
		for {
			d, err := conn.ReceiveDatagram(p.ctx)
			if err != nil {
				return
			}
			if !budget.take(time.Now()) { // checked before any decoding: a flood costs no more
				s.metrics.overBudget[budgetCar].Inc()
				continue
			}
			buf, err = wire.DecodeCarDatagram(d, buf[:0])
			if err == nil && len(buf) != 1 {
				err = fmt.Errorf("%d cars in it: a client sends its own car only, one per datagram", len(buf))
			}
			if err != nil {
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
	case errors.Is(err, os.ErrDeadlineExceeded):
		p.fail(CodeTimeout, stream+": a frame stalled: "+err.Error())
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
