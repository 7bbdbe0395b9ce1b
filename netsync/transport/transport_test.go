package transport

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestIdentityCreatedOnceAndReused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	c1, fp1, err := LoadOrCreateIdentity(dir, log)
	require.NoError(t, err)
	assert.Contains(t, logs.String(), fp1, "fingerprint is logged")
	assert.Equal(t, fp1, Fingerprint(c1.Certificate[0]))
	st, err := os.Stat(filepath.Join(dir, IdentityFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	c2, fp2, err := LoadOrCreateIdentity(dir, quiet())
	require.NoError(t, err)
	assert.Equal(t, fp1, fp2, "restart keeps the identity")
	assert.Equal(t, c1.Certificate[0], c2.Certificate[0])
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary files left behind")
}

func TestCorruptIdentityIsAnErrorAndKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, IdentityFile)
	garbage := []byte("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
	require.NoError(t, os.WriteFile(path, garbage, 0o600))
	_, _, err := LoadOrCreateIdentity(dir, quiet())
	require.ErrorIs(t, err, ErrCorruptIdentity)
	assert.Contains(t, err.Error(), path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, garbage, got, "a corrupt identity is never overwritten")
}

func TestNormalizeFingerprint(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	got, err := NormalizeFingerprint(strings.ToUpper(strings.Join(strings.SplitAfterN(fp, "", 64), "")))
	require.NoError(t, err)
	assert.Equal(t, fp, got)
	colons := strings.TrimSuffix(strings.Repeat("AB:", 32), ":")
	got, err = NormalizeFingerprint(colons)
	require.NoError(t, err)
	assert.Equal(t, fp, got)
	for _, bad := range []string{"", "abc", strings.Repeat("zz", 32), strings.Repeat("ab", 31)} {
		_, err := NormalizeFingerprint(bad)
		assert.Error(t, err, bad)
	}
	_, err = ClientTLS("", 1)
	assert.Error(t, err, "a client without a pin is refused")
}

// TestPinning dials a real QUIC listener on loopback with the right and a
// wrong pin.
func TestPinning(t *testing.T) {
	cert, fp, err := LoadOrCreateIdentity(t.TempDir(), quiet())
	require.NoError(t, err)
	ep, ln, err := Listen("127.0.0.1:0", ServerTLS(cert, 1, quiet()), ServerQUIC(), nil)
	require.NoError(t, err)
	defer ep.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	accepted := make(chan *quic.Conn, 1)
	go func() {
		for {
			c, err := ln.Accept(ctx)
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()

	good, err := ClientTLS(fp, 1)
	require.NoError(t, err)
	cep, conn, err := Dial(ctx, ln.Addr().String(), good, ClientQUIC())
	require.NoError(t, err)
	defer cep.Close()
	assert.Equal(t, ALPN(1), conn.ConnectionState().TLS.NegotiatedProtocol)
	assert.True(t, conn.ConnectionState().SupportsDatagrams.Remote)
	// The largest datagram citydrive sends fits a fresh connection.
	require.NoError(t, conn.SendDatagram(make([]byte, 1200)))
	sc := <-accepted
	require.NoError(t, conn.CloseWithError(0, ""))
	<-sc.Context().Done()

	wrong, err := ClientTLS(strings.Repeat("00", 32), 1)
	require.NoError(t, err)
	_, _, err = Dial(ctx, ln.Addr().String(), wrong, ClientQUIC())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not match the pinned fingerprint")

	// Another protocol version still completes TLS, with its own ALPN, so
	// the application handshake can explain the mismatch.
	v2, err := ClientTLS(fp, 2)
	require.NoError(t, err)
	cep2, conn2, err := Dial(ctx, ln.Addr().String(), v2, ClientQUIC())
	require.NoError(t, err)
	defer cep2.Close()
	assert.Equal(t, ALPN(2), conn2.ConnectionState().TLS.NegotiatedProtocol)
	sc2 := <-accepted
	assert.Equal(t, ALPN(2), sc2.ConnectionState().TLS.NegotiatedProtocol)
	require.NoError(t, conn2.CloseWithError(0, ""))
	<-sc2.Context().Done()
	require.NoError(t, ln.Close())
	cancel()
	for range accepted {
	}
	require.NoError(t, cep.Close())
	require.NoError(t, cep2.Close())
	require.NoError(t, ep.Close())
}

func TestResetKeyFollowsTheIdentity(t *testing.T) {
	dir := t.TempDir()
	a, _, err := LoadOrCreateIdentity(dir, quiet())
	require.NoError(t, err)
	again, _, err := LoadOrCreateIdentity(dir, quiet())
	require.NoError(t, err)
	other, _, err := LoadOrCreateIdentity(t.TempDir(), quiet())
	require.NoError(t, err)
	ka, err := ResetKey(a)
	require.NoError(t, err)
	kAgain, err := ResetKey(again)
	require.NoError(t, err)
	kOther, err := ResetKey(other)
	require.NoError(t, err)
	assert.Equal(t, *ka, *kAgain, "a restarted server (same identity file) keeps its reset key")
	assert.NotEqual(t, *ka, *kOther, "another identity, another key")
	assert.NotEqual(t, quic.StatelessResetKey{}, *ka)
}

func TestWebTransportQUICIsTheNativeLimitsPlusHTTP3s(t *testing.T) {
	native, web := ServerQUIC(), WebTransportQUIC()
	assert.Equal(t, int64(2), native.MaxIncomingStreams, "the native client's two streams")
	assert.Equal(t, int64(-1), native.MaxIncomingUniStreams)
	assert.False(t, native.EnableStreamResetPartialDelivery)
	assert.Equal(t, native.MaxIncomingStreams+1, web.MaxIncomingStreams, "plus the CONNECT")
	assert.Equal(t, int64(3), web.MaxIncomingUniStreams, "HTTP/3's control and QPACK streams")
	assert.True(t, web.EnableStreamResetPartialDelivery && web.EnableDatagrams)
	assert.Equal(t, native.MaxStreamReceiveWindow, web.MaxStreamReceiveWindow)
	assert.Equal(t, native.MaxConnectionReceiveWindow, web.MaxConnectionReceiveWindow)
	assert.Equal(t, native.MaxIdleTimeout, web.MaxIdleTimeout)
}
