package netsync

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/wire"
)

// acceptLoop hands every new connection to a handshake goroutine, at most
// MaxHandshakes at a time; the rest are told the server is busy.
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
	rule := admittance{protocol: own, seed: s.cfg.Seed, generator: s.cfg.Generator, maxPlayers: s.cfg.MaxPlayers}
	reason := rule.refusal(conn.ConnectionState().TLS.NegotiatedProtocol, hello, int(s.players.Load()))
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
