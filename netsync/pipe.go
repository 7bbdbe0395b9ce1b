package netsync

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/transport"
)

// An in-process server joined through memory: the browser's solo play
// (a page can open no socket to listen on). ServerConfig.InProcess makes a
// server without one; ClientConfig.InProcess joins it. Both ends are the
// same peerConn and clientConn the network paths use, so the handshake,
// the handshake pool, every budget and the peer code are the same: only
// the bytes travel through net.Pipe streams and a bounded datagram queue
// (full: the datagram is dropped, as UDP would).

// pipeDatagrams bounds the datagrams queued at one end.
const pipeDatagrams = 64

// pipeStreams bounds the streams opened and not yet accepted (a client
// opens two).
const pipeStreams = 2

// pipeAddr is an in-process peer's address: one address key, so the
// per-address bounds count every in-process player together.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "in-process" }

// pipeLink is what a connection's two ends share.
type pipeLink struct {
	streams  chan peerStream // opened by the client, accepted by the server
	protocol string          // the ALPN form the client asked for

	mu     sync.Mutex
	closed bool
	opened []net.Conn // every stream's both halves, closed with the link
}

// pipeEnd is one end; in counts what the other sent it.
type pipeEnd struct {
	link   *pipeLink
	other  *pipeEnd
	ctx    context.Context
	cancel context.CancelCauseFunc
	dgrams chan []byte
	sent   atomic.Uint64
}

func newPipe(protocol string) (client, server *pipeEnd) {
	l := &pipeLink{streams: make(chan peerStream, pipeStreams), protocol: protocol}
	mk := func() *pipeEnd {
		ctx, cancel := context.WithCancelCause(context.Background())
		return &pipeEnd{link: l, ctx: ctx, cancel: cancel, dgrams: make(chan []byte, pipeDatagrams)}
	}
	client, server = mk(), mk()
	client.other, server.other = server, client
	return client, server
}

// errPipeClosed: a stream opened after the connection ended.
var errPipeClosed = errors.New("netsync: the in-process connection is closed")

// CloseWithError ends both ends: this one's context with a local
// application error, the other's with the same as a remote one (the
// client explains a server's close as for QUIC).
func (e *pipeEnd) CloseWithError(code quic.ApplicationErrorCode, reason string) error {
	l := e.link
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	opened := l.opened
	l.opened = nil
	l.mu.Unlock()
	e.cancel(&quic.ApplicationError{ErrorCode: code, ErrorMessage: reason})
	e.other.cancel(&quic.ApplicationError{Remote: true, ErrorCode: code, ErrorMessage: reason})
	for _, c := range opened {
		_ = c.Close() // unblocks both ends' readers and writers
	}
	return nil
}

func (e *pipeEnd) Context() context.Context { return e.ctx }

func (e *pipeEnd) SendDatagram(b []byte) error {
	if e.ctx.Err() != nil {
		return context.Cause(e.ctx)
	}
	select {
	case e.other.dgrams <- append([]byte(nil), b...):
		e.sent.Add(uint64(len(b)))
	default: // the other end is behind: lost, as on the network
	}
	return nil
}

func (e *pipeEnd) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	select {
	case b := <-e.dgrams:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-e.ctx.Done():
		return nil, context.Cause(e.ctx)
	}
}

// pipeStream is one end's half of a stream: it counts what the end
// writes, and once the connection is closed its errors are the close's
// (as a QUIC stream's are), so the reader explains a kick, not a pipe.
type pipeStream struct {
	net.Conn
	end *pipeEnd
}

func (s pipeStream) Write(b []byte) (int, error) {
	n, err := s.Conn.Write(b)
	s.end.sent.Add(uint64(n))
	return n, s.why(err)
}

func (s pipeStream) Read(b []byte) (int, error) {
	n, err := s.Conn.Read(b)
	return n, s.why(err)
}

func (s pipeStream) why(err error) error {
	if err != nil && s.end.ctx.Err() != nil { // cancelled before the pipes close
		return context.Cause(s.end.ctx)
	}
	return err
}

// pipeClient is the client's end (clientConn).
type pipeClient struct{ *pipeEnd }

func (c pipeClient) OpenStream(ctx context.Context) (peerStream, error) {
	a, b := net.Pipe()
	l := c.link
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errPipeClosed
	}
	l.opened = append(l.opened, a, b)
	l.mu.Unlock()
	select {
	case l.streams <- pipeStream{Conn: b, end: c.other}:
		return pipeStream{Conn: a, end: c.pipeEnd}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, context.Cause(c.ctx)
	}
}

func (c pipeClient) Traffic() Traffic {
	return Traffic{BytesIn: c.other.sent.Load(), BytesOut: c.sent.Load()}
}

func (c pipeClient) release() error { return nil }

// pipeServer is the server's end (peerConn).
type pipeServer struct{ *pipeEnd }

func (s pipeServer) AcceptStream(ctx context.Context) (peerStream, error) {
	select {
	case st := <-s.link.streams:
		return st, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, context.Cause(s.ctx)
	}
}

func (s pipeServer) RemoteAddr() net.Addr { return pipeAddr{} }
func (s pipeServer) Protocol() string     { return s.link.protocol }

func (s pipeServer) ConnectionStats() quic.ConnectionStats {
	return quic.ConnectionStats{BytesSent: s.sent.Load(), BytesReceived: s.other.sent.Load()}
}

// dialPipe joins s through memory: the server side goes through the
// handshake pool and handshake as a network connection does.
func (s *Server) dialPipe(version uint32) (clientConn, error) {
	if s.ln != nil {
		return nil, errors.New("netsync: ClientConfig.InProcess names a server that listens on the network: dial its address")
	}
	if s.ctx.Err() != nil {
		return nil, ErrClosed
	}
	client, server := newPipe(transport.ALPN(version))
	conn := pipeServer{server}
	s.admitConn(addrKey(conn.RemoteAddr()), conn.RemoteAddr(), conn.CloseWithError, func(key string, helloIn func()) {
		s.handshake(conn, key, time.Now().Add(s.cfg.HelloTimeout), helloIn)
	})
	return pipeClient{client}, nil
}
