package netsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/wire"
)

// refuseLinger bounds how long a refused connection is kept open after
// the Refuse frame, waiting for the client to read it and close, so that
// the frame is not discarded by an immediate CONNECTION_CLOSE.
const refuseLinger = time.Second

// acceptLoop hands every new connection to a handshake goroutine, at most
// MaxHandshakes at a time and MaxHandshakesPerAddr half-open ones (no
// complete Hello yet) from one IP; the rest are told the server is busy.
// The per-address slot is given back as soon as the Hello is in, so
// players behind one NAT (or a crowd of bots on one host) only contend for
// the round trip of their Hello, while a host holding connections open
// without a Hello still cannot take more than its share.
func (s *Server) acceptLoop() {
	for {
		conn, err := s.ln.Accept(s.ctx)
		if err != nil {
			return
		}
		ip := remoteIP(conn.RemoteAddr())
		if !s.perAddr.acquire(ip) {
			s.metrics.handshakesBusy.WithLabelValues("addr").Inc()
			s.log.Warn("too many concurrent handshakes from one address; refusing", "remote", conn.RemoteAddr())
			_ = conn.CloseWithError(CodeBusy, fmt.Sprintf("server busy: more than %d handshakes at once from your address, try again", s.cfg.MaxHandshakesPerAddr))
			continue
		}
		select {
		case s.handshakes <- struct{}{}:
		default:
			s.perAddr.release(ip)
			s.metrics.handshakesBusy.WithLabelValues("server").Inc()
			s.log.Warn("too many concurrent handshakes; refusing", "remote", conn.RemoteAddr())
			_ = conn.CloseWithError(CodeBusy, "server busy, try again")
			continue
		}
		var once sync.Once
		helloIn := func() { once.Do(func() { s.perAddr.release(ip) }) }
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.handshakes; helloIn() }()
			s.handshake(conn, helloIn)
		}()
	}
}

// remoteIP is the host part of a remote address, the per-address key.
func remoteIP(a net.Addr) string {
	if u, ok := a.(*net.UDPAddr); ok {
		return u.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// reservePlayer takes one of MaxPlayers' places before the Welcome, so a
// burst of joins cannot pass the limit; unreservePlayer gives it back.
func (s *Server) reservePlayer() bool {
	for {
		n := s.players.Load()
		if int(n) >= s.cfg.MaxPlayers {
			return false
		}
		if s.players.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (s *Server) unreservePlayer() { s.players.Add(-1) }

// handshake runs the control-stream handshake; on success the new peer is
// handed to the tick loop. helloIn is called once a complete Hello is read.
func (s *Server) handshake(conn *quic.Conn, helloIn func()) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.HandshakeTimeout)
	defer cancel()
	remote := conn.RemoteAddr()
	fail := func(code quic.ApplicationErrorCode, reason string) {
		s.log.Warn("handshake failed", "remote", remote, "reason", reason)
		_ = conn.CloseWithError(code, reason)
		s.observe(Event{Kind: EventLeft, Remote: remote, Code: code, Reason: reason})
	}
	helloCtx, helloCancel := context.WithTimeout(ctx, s.cfg.HelloTimeout)
	defer helloCancel()
	ctrl, err := conn.AcceptStream(helloCtx)
	if err != nil {
		if helloCtx.Err() == context.DeadlineExceeded {
			fail(CodeTimeout, fmt.Sprintf("no control stream within %v", s.cfg.HelloTimeout))
			return
		}
		fail(CodeProtocol, "no control stream: "+err.Error())
		return
	}
	deadline, _ := helloCtx.Deadline()
	_ = ctrl.SetReadDeadline(deadline)
	var hello *wire.Hello
	err = readFrames(ctrl, wire.ControlCap, 0, wire.DefaultLimits, func(m wire.Message) error {
		h, ok := m.(*wire.Hello)
		if !ok {
			return fmt.Errorf("expected Hello, got %v", m.Kind())
		}
		hello = h
		return io.EOF // one message only
	})
	if hello == nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			fail(CodeTimeout, fmt.Sprintf("no complete Hello within %v", s.cfg.HelloTimeout))
			return
		}
		fail(CodeProtocol, fmt.Sprintf("bad handshake: %v", err))
		return
	}
	_ = ctrl.SetReadDeadline(time.Time{})
	helloIn()

	own := wire.ProtocolVersion
	rule := admittance{protocol: own, seed: s.cfg.Seed, generator: s.cfg.Generator, maxPlayers: s.cfg.MaxPlayers}
	reserved := s.reservePlayer()
	players := 0 // a place is reserved: only mismatches refuse
	if !reserved {
		players = s.cfg.MaxPlayers
	}
	reason := rule.refusal(conn.ConnectionState().TLS.NegotiatedProtocol, hello, players)
	if reason != "" {
		if reserved {
			s.unreservePlayer()
		}
		s.log.Info("refusing client", "remote", remote, "reason", reason)
		if f, err := wire.NewEncoder().AppendFrame(nil, &wire.Refuse{Reason: reason}, wire.ControlCap); err == nil {
			_, _ = ctrl.Write(f)
		}
		_ = ctrl.Close()
		// Let the client read the Refuse (it closes on reading it) before
		// CONNECTION_CLOSE discards unsent stream data.
		linger := time.NewTimer(refuseLinger)
		select {
		case <-conn.Context().Done():
		case <-linger.C:
		case <-s.ctx.Done():
		}
		linger.Stop()
		_ = conn.CloseWithError(CodeRefused, reason)
		s.observe(Event{Kind: EventRefused, Remote: remote, Code: CodeRefused, Reason: reason})
		return
	}

	id := s.nextPlayer.Add(1)
	welcome := &wire.Welcome{Protocol: own, Seed: s.cfg.Seed, Generator: s.cfg.Generator,
		Player: id, MaxRadius: s.cfg.MaxRadius, TickHz: uint32(s.curHz.Load()), World: s.worldNow()}
	f, err := wire.NewEncoder().AppendFrame(nil, welcome, wire.ControlCap)
	if err == nil {
		_, err = ctrl.Write(f)
	}
	if err != nil {
		s.unreservePlayer()
		fail(CodeProtocol, "writing Welcome: "+err.Error())
		return
	}
	chunk, err := conn.AcceptStream(ctx)
	if err != nil {
		s.unreservePlayer()
		fail(CodeProtocol, "no chunk stream: "+err.Error())
		return
	}
	p := s.newPeer(id, conn, ctrl, chunk) // removePeer gives the place back
	p.welcomedHz = int(welcome.TickHz)
	select {
	case s.joins <- p:
	case <-s.ctx.Done():
		p.fail(CodeShutdown, "server shutting down")
		s.unreservePlayer()
	}
}
