package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"

	"github.com/quic-go/quic-go"
)

// Endpoint owns a UDP socket and the quic.Transport on it, so that closing
// it releases every goroutine and the socket synchronously.
type Endpoint struct {
	udp  *net.UDPConn
	tr   *quic.Transport
	once sync.Once
	err  error
}

func newEndpoint(laddr string, resetKey *quic.StatelessResetKey) (*Endpoint, error) {
	ua, err := net.ResolveUDPAddr("udp", laddr)
	if err != nil {
		return nil, err
	}
	udp, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	return &Endpoint{udp: udp, tr: &quic.Transport{Conn: udp, StatelessResetKey: resetKey}}, nil
}

// Addr is the local UDP address.
func (e *Endpoint) Addr() net.Addr { return e.udp.LocalAddr() }

// Close closes every connection on the endpoint, the transport and the
// socket.
// Close is idempotent.
func (e *Endpoint) Close() error {
	e.once.Do(func() { e.err = errors.Join(e.tr.Close(), e.udp.Close()) })
	return e.err
}

// Drop closes the socket before anything else, so no peer is told that
// the endpoint goes (what a killed process does to its peers), then
// releases the rest like Close. For fault drills and tests.
func (e *Endpoint) Drop() error {
	_ = e.udp.Close()
	e.once.Do(func() { e.err = e.tr.Close() })
	return e.err
}

// Listen opens a QUIC listener on addr (e.g. "127.0.0.1:0"). resetKey (see
// ResetKey; nil: none) makes stateless resets survive a restart.
func Listen(addr string, tlsConf *tls.Config, conf *quic.Config, resetKey *quic.StatelessResetKey) (*Endpoint, *quic.Listener, error) {
	e, err := newEndpoint(addr, resetKey)
	if err != nil {
		return nil, nil, err
	}
	ln, err := e.tr.Listen(tlsConf, conf)
	if err != nil {
		e.Close()
		return nil, nil, err
	}
	return e, ln, nil
}

// Dial connects to a QUIC server from a fresh local endpoint. The caller
// closes the endpoint after the connection.
func Dial(ctx context.Context, addr string, tlsConf *tls.Config, conf *quic.Config) (*Endpoint, *quic.Conn, error) {
	ra, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, nil, err
	}
	local := "0.0.0.0:0"
	if ra.IP.IsLoopback() {
		local = "127.0.0.1:0"
		if ra.IP.To4() == nil {
			local = "[::1]:0"
		}
	}
	e, err := newEndpoint(local, nil)
	if err != nil {
		return nil, nil, err
	}
	c, err := e.tr.Dial(ctx, ra, tlsConf, conf)
	if err != nil {
		e.Close()
		return nil, nil, err
	}
	return e, c, nil
}
