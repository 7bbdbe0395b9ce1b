package webmap

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/wire"
)

type nobody struct{}

func (nobody) Snapshot(context.Context, uint64) (netsync.Snapshot, error) {
	return netsync.Snapshot{At: time.Now()}, nil
}
func (nobody) Kick(uint64, string) int                          { return 0 }
func (nobody) Notify(context.Context, wire.Notice) (int, error) { return 0, nil }

// Admin requests from another machine are refused without -web-public,
// and with it unless they came over TLS.
func TestAdminRefusesOtherMachinesUnlessPublicOverTLS(t *testing.T) {
	access, err := OpenAccess(t.TempDir())
	require.NoError(t, err)
	for _, c := range []struct {
		public bool
		tls    bool
		remote string
		want   int
	}{
		{false, false, "127.0.0.1:5000", 200},
		{false, false, "[::1]:5000", 200},
		{false, false, "203.0.113.7:5000", 403},
		{false, true, "203.0.113.7:5000", 403},
		{true, false, "203.0.113.7:5000", 403},
		{true, true, "203.0.113.7:5000", 200},
	} {
		s := &Server{opt: Options{Public: c.public, Token: "test-token-0123456789", Access: access, Source: nobody{}},
			limit: newFailLimiter(), log: quietLog()}
		req := httptest.NewRequest(http.MethodGet, "/api/admin/state", nil)
		req.RemoteAddr = c.remote
		req.Header.Set("Authorization", "Bearer test-token-0123456789")
		if c.tls {
			req.TLS = &tls.ConnectionState{}
		}
		rec := httptest.NewRecorder()
		s.admin(s.adminState)(rec, req)
		assert.Equal(t, c.want, rec.Code, "%+v: %s", c, rec.Body.String())
	}
}

// The wrong-token table is bounded, and an address gets its tries back
// with time.
func TestFailLimiterBoundedAndRefills(t *testing.T) {
	l := newFailLimiter()
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	a := netip.MustParsePrefix("198.51.100.1/32")
	for range failBurst {
		assert.False(t, l.blocked(a))
		l.failed(a)
	}
	assert.True(t, l.blocked(a))
	now = now.Add(failEvery)
	assert.False(t, l.blocked(a))
	for i := range maxFailAddrs + 10 {
		now = now.Add(time.Millisecond)
		l.failed(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32))
	}
	assert.LessOrEqual(t, len(l.addr), maxFailAddrs)
}

// The admin token is made once, kept private, and a bad one in the file
// is an error, not a silent new token.
func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	tok, created, err := LoadOrCreateToken(dir)
	require.NoError(t, err)
	assert.True(t, created)
	st, err := os.Stat(filepath.Join(dir, TokenFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	again, created, err := LoadOrCreateToken(dir)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, tok, again)
	require.NoError(t, os.WriteFile(filepath.Join(dir, TokenFile), []byte("short\n"), 0o600))
	_, _, err = LoadOrCreateToken(dir)
	assert.ErrorContains(t, err, "16 to 256")
	assert.Error(t, CheckToken(strings.Repeat("x", 15)))
	assert.Error(t, CheckToken(strings.Repeat("x", 20)+" "))
}

// FuzzOpenAccess: whatever is in access.json, opening it does not panic,
// and rules it accepts are written back as rules it accepts again.
func FuzzOpenAccess(f *testing.F) {
	f.Add([]byte(`{"bans":{"00000000000000ff":{"reason":"x","at":"2026-01-01T00:00:00Z"}},"allow":["0000000000000001"],"allow_only":true}`))
	f.Add([]byte(`{"password_sha256":"zz"}`))
	f.Add([]byte(`{"bans":{"1":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, AccessFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := OpenAccess(dir)
		if err != nil {
			return
		}
		want := a.State()
		if err := a.SetAllowOnly(want.AllowOnly); err != nil { // writes the file again
			t.Fatal(err)
		}
		again, err := OpenAccess(dir)
		if err != nil {
			t.Fatalf("rewritten rules do not load: %v", err)
		}
		if got := again.State(); got.AllowOnly != want.AllowOnly || got.Password != want.Password || len(got.Bans) != len(want.Bans) || len(got.Allow) != len(want.Allow) {
			t.Fatalf("rules changed: %+v → %+v", want, got)
		}
	})
}

// encodeCars is about 10 bytes a car (before base64): the budget behind
// the stream's 4 kB/s per viewer at 100 players.
func TestCarsEncodingSize(t *testing.T) {
	var ps []netsync.PlayerInfo
	for i := range 100 {
		ps = append(ps, netsync.PlayerInfo{ID: uint32(i + 1), HasCar: true, X: -3000 + float64(i)*61, Z: 2000, Heading: 1, Speed: 27.5})
	}
	ps = append(ps, netsync.PlayerInfo{ID: 999}) // no car yet: not sent
	b := encodeCars(nil, ps)
	assert.Equal(t, byte(carsFormat), b[0])
	assert.LessOrEqual(t, len(b), 100*11+3)
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
