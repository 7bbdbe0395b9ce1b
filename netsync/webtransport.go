package netsync

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"citydrive/netsync/transport"
	"citydrive/netsync/webcert"
	"citydrive/netsync/wire"
)

// Browsers join over WebTransport (HTTP/3 on QUIC): one session per QUIC
// connection, whose two streams and datagrams carry exactly the native
// client's frames, and the session goes through the same handshake pool,
// handshake and peer code (peerConn). It listens on its own UDP port: a
// QUIC server's transport parameters (stream limits among them) are fixed
// before the ALPN is known, and HTTP/3 needs more streams than the
// native limit of two, which stays as it is.

const (
	// maxWTPath bounds the session URL's path ("/citydrive/7").
	maxWTPath = 32
	// maxWTHeader bounds the CONNECT request's header block.
	maxWTHeader = 4 << 10
	// maxCloseReason is WebTransport's limit on a close reason.
	maxCloseReason = 1024
)

// wtListener is the WebTransport side of a Server.
type wtListener struct {
	ep      *transport.Endpoint
	ln      *quic.Listener
	srv     *webtransport.Server
	certs   *webcert.Rotator
	pending sync.Map // *quic.Conn → *wtPending, until its session opens

	liveMu   sync.Mutex
	draining bool
	live     sync.WaitGroup // serveWebTransport calls running
}

// wtPendingKey carries a connection's *wtPending in its requests' context.
type wtPendingKey struct{}

// wtPending is a connection waiting for its session.
type wtPending struct {
	mu      sync.Mutex
	claimed bool
	got     chan wtSession // one, buffered
}

type wtSession struct {
	sess     *webtransport.Session
	protocol string
}

// claim reports whether this is the connection's first session request.
func (p *wtPending) claim() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := !p.claimed
	p.claimed = true
	return first
}

func listenWebTransport(addr string, identity tls.Certificate, resetKey *quic.StatelessResetKey) (*wtListener, error) {
	certs, err := webcert.NewRotator(identity, nil)
	if err != nil {
		return nil, err
	}
	tlsConf := &tls.Config{
		MinVersion: tls.VersionTLS13,
		NextProtos: []string{http3.NextProtoH3},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return certs.Certificate()
		},
	}
	ep, ln, err := transport.Listen(addr, tlsConf, transport.WebTransportQUIC(), resetKey)
	if err != nil {
		return nil, err
	}
	w := &wtListener{ep: ep, ln: ln, certs: certs}
	w.srv = &webtransport.Server{
		H3: &http3.Server{
			MaxHeaderBytes: maxWTHeader,
			ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
				p, _ := w.pending.Load(c)
				return context.WithValue(ctx, wtPendingKey{}, p)
			},
		},
		// A game session carries no browser credentials (no cookies, no
		// HTTP auth), so any page may open one; the handshake's rules
		// (password, bans) apply as for every client.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	w.srv.H3.Handler = http.HandlerFunc(w.connect)
	return w, nil
}

// connect answers a session request: the path names the protocol
// ("/citydrive/7"), so that a mismatch reaches the handshake and is
// explained there, as for a native client.
func (w *wtListener) connect(rw http.ResponseWriter, r *http.Request) {
	p, _ := r.Context().Value(wtPendingKey{}).(*wtPending)
	proto, _ := strings.CutPrefix(r.URL.Path, "/")
	if p == nil || r.Method != http.MethodConnect || len(r.URL.Path) > maxWTPath || !strings.HasPrefix(proto, transport.ALPNPrefix) {
		http.NotFound(rw, r)
		return
	}
	if !p.claim() {
		http.Error(rw, "one session per connection", http.StatusTooManyRequests)
		return
	}
	sess, err := w.srv.Upgrade(rw, r)
	if err != nil {
		http.Error(rw, "webtransport: "+err.Error(), http.StatusBadRequest)
		return
	}
	p.got <- wtSession{sess: sess, protocol: proto}
}

// enter counts a connection in, unless the server is shutting down.
func (w *wtListener) enter() bool {
	w.liveMu.Lock()
	defer w.liveMu.Unlock()
	if w.draining {
		return false
	}
	w.live.Add(1)
	return true
}

// drain waits for every connection to have told its page why it ends (at
// most refuseLinger after the server's peers were failed), and takes no
// more.
func (w *wtListener) drain() {
	w.liveMu.Lock()
	w.draining = true
	w.liveMu.Unlock()
	w.live.Wait()
}

func (w *wtListener) close() error {
	err := w.srv.Close()
	err = errors.Join(err, w.ln.Close())
	return errors.Join(err, w.ep.Close())
}

// serveWebTransport runs one WebTransport connection: HTTP/3 until its
// session opens, then the handshake, then the peer until the session
// ends; then it closes the connection. It holds the connection's
// handshake slot like the native path, and the session must open and its
// Hello arrive within HelloTimeout of the connection's arrival.
func (s *Server) serveWebTransport(conn *quic.Conn, key string, helloIn func()) {
	accepted := time.Now()
	if !s.wt.enter() {
		_ = conn.CloseWithError(quic.ApplicationErrorCode(CodeShutdown), "server shutting down")
		return
	}
	defer s.wt.live.Done()
	p := &wtPending{got: make(chan wtSession, 1)}
	s.wt.pending.Store(conn, p)
	defer s.wt.pending.Delete(conn)
	s.spawn(func() { _ = s.wt.srv.ServeQUICConn(conn) }) // ends with the connection
	defer func() { _ = conn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "") }()

	timer := time.NewTimer(s.cfg.HelloTimeout)
	defer timer.Stop()
	var ws wtSession
	select {
	case ws = <-p.got:
	case <-timer.C:
		reason := fmt.Sprintf("no WebTransport session within %v", s.cfg.HelloTimeout)
		s.log.Warn("handshake failed", "remote", conn.RemoteAddr(), "reason", reason)
		s.observe(Event{Kind: EventLeft, Remote: conn.RemoteAddr(), Code: CodeTimeout, Reason: reason})
		return
	case <-conn.Context().Done():
		return
	case <-s.ctx.Done():
		return
	}
	c := newWTConn(ws, conn)
	// The native limits allow no unidirectional stream; HTTP/3 needs
	// QUIC's, so a session's own are refused here.
	s.spawn(func() {
		if _, err := ws.sess.AcceptUniStream(c.ctx); err == nil {
			c.CloseWithError(CodeProtocol, "unidirectional streams are not allowed")
		}
	})
	s.handshake(c, key, accepted.Add(s.cfg.HelloTimeout), helloIn)
	select {
	case <-c.closing:
	case <-ws.sess.Context().Done(): // the page closed it
	case <-s.ctx.Done():
		c.CloseWithError(CodeShutdown, "server shutting down")
	}
	c.mu.Lock()
	code, reason := c.code, c.reason
	c.mu.Unlock()
	_ = ws.sess.CloseWithError(webtransport.SessionErrorCode(code), clipReason(reason))
	// Let the close capsule reach the page (it closes the connection on
	// reading it) before CONNECTION_CLOSE discards unsent stream data;
	// at a shutdown too, which waits for this (wtListener.drain).
	linger := time.NewTimer(refuseLinger)
	defer linger.Stop()
	select {
	case <-conn.Context().Done():
	case <-linger.C:
	}
}

// asAppError is a session's close as QUIC's application error (the
// native client's close codes and reasons are the session's).
func asAppError(err error) error {
	var se *webtransport.SessionError
	if errors.As(err, &se) {
		return &quic.ApplicationError{Remote: se.Remote, ErrorCode: quic.ApplicationErrorCode(se.ErrorCode), ErrorMessage: se.Message}
	}
	return err
}

// clipReason cuts a reason to WebTransport's limit, on a rune boundary.
func clipReason(s string) string {
	if len(s) <= maxCloseReason {
		return s
	}
	s = s[:maxCloseReason]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// wtConn is a WebTransport session as a peerConn. Closing it ends its
// Context at once; serveWebTransport sends the close to the page.
type wtConn struct {
	sess     *webtransport.Session
	conn     *quic.Conn
	protocol string
	ctx      context.Context
	cancel   context.CancelCauseFunc

	once    sync.Once
	closing chan struct{}
	mu      sync.Mutex
	code    quic.ApplicationErrorCode
	reason  string
}

func newWTConn(ws wtSession, conn *quic.Conn) *wtConn {
	ctx, cancel := context.WithCancelCause(ws.sess.Context())
	return &wtConn{sess: ws.sess, conn: conn, protocol: ws.protocol, ctx: ctx, cancel: cancel, closing: make(chan struct{})}
}

func (c *wtConn) AcceptStream(ctx context.Context) (peerStream, error) {
	st, err := c.sess.AcceptStream(ctx)
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (c *wtConn) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	return c.sess.ReceiveDatagram(ctx)
}

func (c *wtConn) SendDatagram(b []byte) error { return c.sess.SendDatagram(b) }

func (c *wtConn) CloseWithError(code quic.ApplicationErrorCode, reason string) error {
	c.once.Do(func() {
		c.mu.Lock()
		c.code, c.reason = code, reason
		c.mu.Unlock()
		c.cancel(fmt.Errorf("closed by the server (code %d): %s", code, reason))
		close(c.closing)
	})
	return nil
}

func (c *wtConn) Context() context.Context              { return c.ctx }
func (c *wtConn) RemoteAddr() net.Addr                  { return c.conn.RemoteAddr() }
func (c *wtConn) Protocol() string                      { return c.protocol }
func (c *wtConn) ConnectionStats() quic.ConnectionStats { return c.conn.ConnectionStats() }

// WebTransportAddr is the UDP address browsers' WebTransport sessions
// reach the server at (nil without ServerConfig.WebTransportAddr).
func (s *Server) WebTransportAddr() net.Addr {
	if s.wt == nil {
		return nil
	}
	return s.wt.ln.Addr()
}

// WebTransportPath is the session URL's path for this server's protocol:
// https://HOST:PORT/citydrive/N.
func (s *Server) WebTransportPath() string { return "/" + transport.ALPN(wire.ProtocolVersion) }

// WebCertificates is what a page needs to open a session: the identity
// (the join code's pin) and the certificates it may accept now
// (webcert.Verify). ok is false without WebTransport.
func (s *Server) WebCertificates() (o webcert.Offer, ok bool, err error) {
	if s.wt == nil {
		return o, false, nil
	}
	o, err = s.wt.certs.Offer()
	return o, err == nil, err
}
