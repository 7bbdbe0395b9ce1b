package netsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/wire"
)

// refuseLinger bounds how long a refused connection is kept open after
// the Refuse frame, waiting for the client to read it and close, so that
// the frame is not discarded by an immediate CONNECTION_CLOSE.
const refuseLinger = time.Second

// acceptLoop hands every new connection of ln to serve (the native
// handshake, or WebTransport's HTTP/3 first) in a goroutine of its own. Until
// its Hello is in, a connection holds a slot of the handshake pool
// (MaxHandshakes in all, MaxHandshakesPerAddr per address, fair shares
// when full: handpool.go); both are given back together the moment the
// Hello is complete or HelloTimeout passes, so players behind one NAT (or
// a crowd of bots on one host) contend only for their Hello's round trip,
// and a connection that stalls after its Hello holds a player seat
// (bounded per address by MaxPlayersPerAddr), never a handshake slot.
func (s *Server) acceptLoop(ln *quic.Listener, serve func(conn *quic.Conn, key string, helloIn func())) {
	for {
		conn, err := ln.Accept(s.ctx)
		if err != nil {
			return
		}
		s.admitConn(addrKey(conn.RemoteAddr()), conn.RemoteAddr(), conn.CloseWithError, func(key string, helloIn func()) {
			serve(conn, key, helloIn)
		})
	}
}

// admitConn takes a handshake slot for a new connection from key (or
// refuses it, through closeConn) and runs serve in a goroutine of its own;
// the slot is given back by helloIn or when serve returns.
func (s *Server) admitConn(key string, remote net.Addr, closeConn func(quic.ApplicationErrorCode, string) error, serve func(key string, helloIn func())) {
	slot, busy := s.pool.acquire(key, func() {
		s.metrics.handshakesBusy.WithLabelValues(string(limitEvicted)).Inc()
		_ = closeConn(CodeBusy, "server busy: your unfinished handshake's slot went to another address; try again")
	})
	switch busy {
	case limitAddr:
		s.metrics.handshakesBusy.WithLabelValues(string(busy)).Inc()
		s.log.Warn("too many concurrent handshakes from one address; refusing", "remote", remote)
		_ = closeConn(CodeBusy, fmt.Sprintf("server busy: more than %d handshakes at once from your address, try again", s.cfg.MaxHandshakesPerAddr))
		return
	case limitServer:
		s.metrics.handshakesBusy.WithLabelValues(string(busy)).Inc()
		s.log.Warn("too many concurrent handshakes; refusing", "remote", remote)
		_ = closeConn(CodeBusy, "server busy, try again")
		return
	}
	helloIn := func() { s.pool.release(slot) }
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer helloIn()
		serve(key, helloIn)
	}()
}

// seatResult is reservePlayer's answer.
type seatResult uint8

const (
	seated     seatResult = iota
	serverFull            // MaxPlayers
	addrFull              // MaxPlayersPerAddr
)

// reservePlayer takes one of MaxPlayers' places, and one of
// MaxPlayersPerAddr for key, before the Welcome, so a burst of joins
// cannot pass either limit; unreservePlayer gives both back.
func (s *Server) reservePlayer(key string) seatResult {
	if !s.seats.take(key) {
		return addrFull
	}
	for {
		n := s.players.Load()
		if int(n) >= s.cfg.MaxPlayers {
			s.seats.give(key)
			return serverFull
		}
		if s.players.CompareAndSwap(n, n+1) {
			return seated
		}
	}
}

func (s *Server) unreservePlayer(key string) {
	s.players.Add(-1)
	s.seats.give(key)
}

// handshake runs the control-stream handshake; on success the new peer is
// handed to the tick loop. The Hello must be complete by helloBy;
// helloIn is called once it is.
func (s *Server) handshake(conn peerConn, key string, helloBy time.Time, helloIn func()) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.HandshakeTimeout)
	defer cancel()
	remote := conn.RemoteAddr()
	fail := func(code quic.ApplicationErrorCode, reason string) {
		s.log.Warn("handshake failed", "remote", remote, "reason", reason)
		_ = conn.CloseWithError(code, reason)
		s.observe(Event{Kind: EventLeft, Remote: remote, Code: code, Reason: reason})
	}
	helloCtx, helloCancel := context.WithDeadline(ctx, helloBy)
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
	own := wire.ProtocolVersion
	rule := admittance{protocol: own, seed: s.cfg.Seed, generator: s.cfg.Generator, maxPlayers: s.cfg.MaxPlayers}
	alpn := conn.Protocol()
	var hello *wire.Hello
	var join *wire.Join
	err = readFrames(ctrl, wire.ControlCap, 0, wire.DefaultLimits, func(m wire.Message) error {
		if hello == nil {
			h, ok := m.(*wire.Hello)
			if !ok {
				return fmt.Errorf("expected Hello, got %v", m.Kind())
			}
			hello = h
			if rule.refusal(alpn, h, 0) != "" { // another version: its Join is not ours to read
				return io.EOF
			}
			return nil
		}
		j, ok := m.(*wire.Join)
		if !ok {
			return fmt.Errorf("expected Join after the Hello, got %v", m.Kind())
		}
		join = j
		return io.EOF // the handshake's two messages only
	})
	if hello == nil || join == nil && rule.refusal(alpn, hello, 0) == "" {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			fail(CodeTimeout, fmt.Sprintf("no complete Hello within %v", s.cfg.HelloTimeout))
			return
		}
		fail(CodeProtocol, fmt.Sprintf("bad handshake: %v", err))
		return
	}
	_ = ctrl.SetReadDeadline(time.Time{})
	helloIn()

	seat := s.reservePlayer(key)
	players := 0 // a place is reserved: only mismatches refuse
	if seat == serverFull {
		players = s.cfg.MaxPlayers
	}
	reason := rule.refusal(alpn, hello, 0)
	if reason == "" && s.cfg.Gate != nil { // the operator's rules, before "full": a banned player is told so
		if reason = s.cfg.Gate.Admit(join.Key, join.Name, join.Password); reason != "" {
			s.metrics.playersRefusedGate.Inc()
		}
	}
	if reason == "" {
		reason = rule.refusal(alpn, hello, players)
	}
	if reason == "" && seat == addrFull { // a mismatch is said first
		s.metrics.playersRefusedAddr.Inc()
		reason = fmt.Sprintf("too many players from your address: at most %d at once; try again when one has left", s.cfg.MaxPlayersPerAddr)
	}
	if reason != "" {
		if seat == seated {
			s.unreservePlayer(key)
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
		Player: id, MaxRadius: s.cfg.MaxRadius, TickHz: uint32(s.curHz.Load()), World: s.worldNow(),
		FullHz: uint32(s.cfg.TickHz)}
	f, err := wire.NewEncoder().AppendFrame(nil, welcome, wire.ControlCap)
	if err == nil {
		_, err = ctrl.Write(f)
	}
	if err != nil {
		s.unreservePlayer(key)
		fail(CodeProtocol, "writing Welcome: "+err.Error())
		return
	}
	chunk, err := conn.AcceptStream(ctx)
	if err != nil {
		s.unreservePlayer(key)
		fail(CodeProtocol, "no chunk stream: "+err.Error())
		return
	}
	p := s.newPeer(id, key, conn, ctrl, chunk) // removePeer gives the place back
	p.welcomedHz = int(welcome.TickHz)
	p.playerKey, p.name, p.joinedAt = join.Key, join.Name, time.Now()
	select {
	case s.joins <- p:
	case <-s.ctx.Done():
		p.fail(CodeShutdown, "server shutting down")
		s.unreservePlayer(key)
	}
}
