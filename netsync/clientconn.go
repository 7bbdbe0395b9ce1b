package netsync

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/transport"
	"citydrive/netsync/webcert"
)

// clientConn is the client's connection to a server as Client uses it:
// native QUIC (quicClient) or, in a browser, a WebTransport session
// (webtransport_js.go). Both carry the same two streams, frames and
// datagrams, and every limit of the client applies to both alike (the
// server side's counterpart is peerConn).
type clientConn interface {
	OpenStream(ctx context.Context) (peerStream, error)
	ReceiveDatagram(ctx context.Context) ([]byte, error)
	SendDatagram(b []byte) error
	// CloseWithError ends the connection (or session) with a code the
	// server reads, and reason.
	CloseWithError(code quic.ApplicationErrorCode, reason string) error
	// Context ends when the connection (or session) does; its cause is a
	// remote *quic.ApplicationError when the server closed it.
	Context() context.Context
	Traffic() Traffic
	// release frees what outlives the connection (the native client's UDP
	// socket), once the client's goroutines are done.
	release() error
}

// WebTransportTarget is a server's WebTransport session as a page learns
// it from /play/config.
type WebTransportTarget struct {
	URL   string        // https://HOST:PORT/citydrive/N
	Offer webcert.Offer // the identity and the certificates the page may accept
}

// dialConn opens the connection cfg names: memory to an in-process
// server, WebTransport when it has a target (in a browser), else native
// QUIC.
func dialConn(ctx context.Context, cfg ClientConfig) (clientConn, error) {
	if s := cfg.InProcess; s != nil {
		return s.dialPipe(cfg.Protocol)
	}
	if t := cfg.WebTransport; t != nil {
		u, err := url.Parse(t.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("netsync: WebTransport session URL %q: want https://HOST:PORT/PATH", t.URL)
		}
		// The join code's pin vouches for the certificates: a forged offer
		// is refused here, before the browser is asked to trust it.
		hashes, err := webcert.Verify(cfg.Fingerprint, t.Offer, time.Now())
		if err != nil {
			return nil, fmt.Errorf("netsync: the server's browser certificates: %w", err)
		}
		return dialWebTransport(ctx, t.URL, hashes)
	}
	tlsConf, err := transport.ClientTLS(cfg.Fingerprint, cfg.Protocol)
	if err != nil {
		return nil, err
	}
	qc := transport.ClientQUIC()
	if cfg.IdleTimeout > 0 {
		qc.MaxIdleTimeout = cfg.IdleTimeout
		qc.KeepAlivePeriod = min(qc.KeepAlivePeriod, cfg.IdleTimeout/4)
	}
	ep, conn, err := transport.Dial(ctx, cfg.Addr, tlsConf, qc)
	if err != nil {
		if refusedByQUIC(err) {
			return nil, fmt.Errorf("netsync: connecting to %s: %w: %w", cfg.Addr, ErrBusy, err)
		}
		return nil, fmt.Errorf("netsync: connecting to %s: %w", cfg.Addr, err)
	}
	return quicClient{Conn: conn, ep: ep}, nil
}

// quicClient is the native client's QUIC connection and its endpoint.
type quicClient struct {
	*quic.Conn
	ep *transport.Endpoint
}

func (c quicClient) OpenStream(ctx context.Context) (peerStream, error) {
	st, err := c.Conn.OpenStreamSync(ctx)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Traffic is counted by QUIC: every stream and datagram byte plus its
// packet overhead.
func (c quicClient) Traffic() Traffic {
	st := c.ConnectionStats()
	return Traffic{BytesIn: st.BytesReceived, BytesOut: st.BytesSent}
}

func (c quicClient) release() error { return c.ep.Close() }
