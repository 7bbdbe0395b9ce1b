package transport

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
)

// ALPNPrefix starts every citydrive ALPN name.
const ALPNPrefix = "citydrive/"

// ALPN returns the ALPN name for a protocol version.
func ALPN(version uint32) string { return fmt.Sprintf("%s%d", ALPNPrefix, version) }

// ServerName is the TLS server name clients send. Authentication is by pin,
// not by name.
const ServerName = "citydrive"

// ErrFingerprintMismatch is returned (wrapped) when the server presents a
// certificate other than the pinned one.
var ErrFingerprintMismatch = errors.New("server certificate does not match the pinned fingerprint")

// ServerTLS returns the server's TLS configuration. Besides its own ALPN it
// accepts any other citydrive/<n> a client offers, so that the application
// handshake can tell a client of another version what to do instead of the
// TLS layer failing with "no application protocol". Other ALPNs are refused.
func ServerTLS(cert tls.Certificate, version uint32, log *slog.Logger) *tls.Config {
	if log == nil {
		log = slog.Default()
	}
	own := ALPN(version)
	base := &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{own},
	}
	base.GetConfigForClient = func(chi *tls.ClientHelloInfo) (*tls.Config, error) {
		if slices.Contains(chi.SupportedProtos, own) {
			return nil, nil
		}
		for _, p := range chi.SupportedProtos {
			if strings.HasPrefix(p, ALPNPrefix) {
				log.Info("client speaks another protocol version; it will be refused in the handshake",
					"remote", chi.Conn.RemoteAddr(), "client_alpn", p, "server_alpn", own)
				c := base.Clone()
				c.GetConfigForClient = nil
				c.NextProtos = []string{p}
				return c, nil
			}
		}
		return nil, nil // no citydrive ALPN: TLS fails with no_application_protocol
	}
	return base
}

// ClientTLS returns a client TLS configuration that accepts exactly the
// server certificate whose SHA-256 fingerprint is pin. Chain verification
// is skipped only because the pin replaces it; TLS 1.3 still proves the
// server holds the certificate's private key.
func ClientTLS(pin string, version uint32) (*tls.Config, error) {
	want, err := NormalizeFingerprint(pin)
	if err != nil {
		return nil, err
	}
	wantRaw, _ := hex.DecodeString(want)
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		ServerName:         ServerName,
		NextProtos:         []string{ALPN(version)},
		InsecureSkipVerify: true, // replaced by the pin check below
		VerifyPeerCertificate: func(rawCerts [][]byte, _ [][]*x509.Certificate) error {
			if len(rawCerts) == 0 {
				return fmt.Errorf("%w: server sent no certificate", ErrFingerprintMismatch)
			}
			got := sha256.Sum256(rawCerts[0])
			if subtle.ConstantTimeCompare(got[:], wantRaw) != 1 {
				return fmt.Errorf("%w: server presented %s, pinned %s (wrong address, or the server's identity changed: ask its operator for the fingerprint it logs at start)",
					ErrFingerprintMismatch, hex.EncodeToString(got[:]), want)
			}
			return nil
		},
	}, nil
}

// Timeouts and windows shared by both ends.
const (
	HandshakeTimeout = 5 * time.Second
	IdleTimeout      = 15 * time.Second
	KeepAlive        = 5 * time.Second
)

// ServerQUIC is the server's QUIC configuration: datagrams on, a client may
// open exactly the two bidirectional streams citydrive uses (control and
// chunk) and no unidirectional ones, and receive windows are small, because
// clients only send small messages; this bounds what a hostile client can
// make the server buffer.
func ServerQUIC() *quic.Config {
	return &quic.Config{
		HandshakeIdleTimeout:           HandshakeTimeout,
		MaxIdleTimeout:                 IdleTimeout,
		KeepAlivePeriod:                KeepAlive,
		EnableDatagrams:                true,
		MaxIncomingStreams:             2,
		MaxIncomingUniStreams:          -1,
		InitialStreamReceiveWindow:     128 << 10,
		MaxStreamReceiveWindow:         256 << 10,
		InitialConnectionReceiveWindow: 256 << 10,
		MaxConnectionReceiveWindow:     512 << 10,
	}
}

// ClientQUIC is the client's QUIC configuration: datagrams on; the server
// opens no streams.
func ClientQUIC() *quic.Config {
	return &quic.Config{
		HandshakeIdleTimeout:  HandshakeTimeout,
		MaxIdleTimeout:        IdleTimeout,
		KeepAlivePeriod:       KeepAlive,
		EnableDatagrams:       true,
		MaxIncomingStreams:    -1,
		MaxIncomingUniStreams: -1,
	}
}

// WebTransport's share of a connection beyond the citydrive streams: the
// extended CONNECT request that opens the session (bidirectional) and
// HTTP/3's control and QPACK streams (unidirectional, RFC 9114 §6.2).
const (
	webTransportBidi = 1
	webTransportUni  = 3
)

// WebTransportQUIC is ServerQUIC for browsers' WebTransport connections
// (HTTP/3): the same windows and timeouts, with room for HTTP/3's own
// streams and the stream resets WebTransport needs. A browser's session
// still gets exactly the native client's two streams.
func WebTransportQUIC() *quic.Config {
	c := ServerQUIC()
	c.MaxIncomingStreams += webTransportBidi
	c.MaxIncomingUniStreams = webTransportUni
	c.EnableStreamResetPartialDelivery = true
	return c
}
