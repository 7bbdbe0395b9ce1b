//go:build !(js && wasm)

package netsync

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// Outside a browser a WebTransport session is opened with webtransport-go,
// trusting the offered hashes as a browser's serverCertificateHashes do:
// the client's WebTransport path runs in Go tests (and under the race
// detector) the way a page runs it, and a native tool can reach a server
// by its browser port alone.

// pinnedTLS accepts exactly the certificates whose SHA-256 is in hashes.
func pinnedTLS(hashes [][sha256.Size]byte) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		NextProtos:         []string{http3.NextProtoH3},
		InsecureSkipVerify: true, // replaced by the hash check, as serverCertificateHashes does
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !slices.Contains(hashes, sha256.Sum256(raw[0])) {
				return errors.New("the server's certificate is not among the offered hashes")
			}
			return nil
		},
	}
}

// wtSessionClient is a webtransport-go session as a clientConn.
type wtSessionClient struct {
	tr     *webtransport.Transport
	sess   *webtransport.Session
	conn   *quic.Conn // the session's, for its counters
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   func() bool
}

func dialWebTransport(ctx context.Context, url string, hashes [][sha256.Size]byte) (clientConn, error) {
	var mu sync.Mutex
	var conn *quic.Conn
	tr := &webtransport.Transport{TLSClientConfig: pinnedTLS(hashes),
		DialAddr: func(ctx context.Context, addr string, tlsConf *tls.Config, qc *quic.Config) (*quic.Conn, error) {
			c, err := quic.DialAddrEarly(ctx, addr, tlsConf, qc)
			mu.Lock()
			conn = c
			mu.Unlock()
			return c, err
		}}
	_, sess, err := tr.Dial(ctx, url, nil)
	if err != nil {
		_ = tr.Close()
		return nil, fmt.Errorf("netsync: opening a WebTransport session at %s: %w", url, err)
	}
	mu.Lock()
	c := &wtSessionClient{tr: tr, sess: sess, conn: conn}
	mu.Unlock()
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	// The session's end, as the client explains a native connection's.
	// Its context carries no cause; a closed session answers OpenStream
	// with why it closed (the server's code and reason), without opening.
	c.stop = context.AfterFunc(sess.Context(), func() {
		cause := context.Cause(sess.Context())
		if st, err := sess.OpenStream(); err != nil {
			cause = err
		} else {
			_ = st.Close()
		}
		c.cancel(asAppError(cause))
	})
	return c, nil
}

func (c *wtSessionClient) OpenStream(ctx context.Context) (peerStream, error) {
	st, err := c.sess.OpenStreamSync(ctx)
	if err != nil {
		return nil, asAppError(err)
	}
	return st, nil
}

func (c *wtSessionClient) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	return c.sess.ReceiveDatagram(ctx)
}

func (c *wtSessionClient) SendDatagram(b []byte) error { return c.sess.SendDatagram(b) }

func (c *wtSessionClient) CloseWithError(code quic.ApplicationErrorCode, reason string) error {
	return c.sess.CloseWithError(webtransport.SessionErrorCode(code), clipReason(reason))
}

func (c *wtSessionClient) Context() context.Context { return c.ctx }

func (c *wtSessionClient) Traffic() Traffic {
	if c.conn == nil {
		return Traffic{}
	}
	st := c.conn.ConnectionStats()
	return Traffic{BytesIn: st.BytesReceived, BytesOut: st.BytesSent}
}

func (c *wtSessionClient) release() error {
	c.stop()
	c.cancel(ErrClosed)
	if c.conn != nil {
		_ = c.conn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
	}
	return c.tr.Close()
}
