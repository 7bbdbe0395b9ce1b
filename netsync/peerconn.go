package netsync

import (
	"context"
	"io"
	"net"
	"time"

	"github.com/quic-go/quic-go"
)

// peerConn is a player's connection as the server uses it: a native QUIC
// connection (nativeConn) or a WebTransport session (webtransport.go).
// Both carry the same streams, frames and datagrams, and every limit of
// the server applies to both alike.
type peerConn interface {
	AcceptStream(ctx context.Context) (peerStream, error)
	ReceiveDatagram(ctx context.Context) ([]byte, error)
	SendDatagram(b []byte) error
	// CloseWithError ends the connection (or session) with a code the
	// client reads, and reason.
	CloseWithError(code quic.ApplicationErrorCode, reason string) error
	// Context ends when the connection (or session) does.
	Context() context.Context
	RemoteAddr() net.Addr
	// Protocol is the citydrive protocol the client asked for
	// (transport.ALPN form, "citydrive/7").
	Protocol() string
	// ConnectionStats are the underlying QUIC connection's.
	ConnectionStats() quic.ConnectionStats
}

// peerStream is one of a peer's two streams (control and chunk).
type peerStream interface {
	io.ReadWriteCloser
	SetReadDeadline(time.Time) error
}

// nativeConn is a citydrive client's own QUIC connection.
type nativeConn struct{ *quic.Conn }

func (c nativeConn) AcceptStream(ctx context.Context) (peerStream, error) {
	st, err := c.Conn.AcceptStream(ctx)
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (c nativeConn) Protocol() string { return c.ConnectionState().TLS.NegotiatedProtocol }
