package netsync

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// wtClientConfig is the page's ClientConfig: the session URL and the
// offer from /play/config, the pin from the join code.
func (s *testServer) wtClientConfig(t *testing.T) ClientConfig {
	t.Helper()
	offer, ok, err := s.WebCertificates()
	require.NoError(t, err)
	require.True(t, ok)
	cfg := s.clientConfig()
	cfg.WebTransport = &WebTransportTarget{URL: s.wtURL(s.WebTransportPath()), Offer: offer}
	return cfg
}

// The client over WebTransport is the native client: the same handshake,
// cars both ways, edits acknowledged and broadcast, Traffic counted.
func TestClientOverWebTransportPlaysWithANativeOne(t *testing.T) {
	s := startWTServer(t, func(c *ServerConfig) { c.SpawnRadius = 0 })
	native := dial(t, s.clientConfig())
	firstDefault(t, native)
	web := dial(t, s.wtClientConfig(t))
	assert.NotEqual(t, native.Player(), web.Player())
	assert.Equal(t, uint64(42), web.Welcome().Seed)
	firstDefault(t, web)

	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(testTimeout)
	heard := func(c *Client, player uint32) bool {
		for _, s := range c.Cars(nil) {
			if s.Player == player {
				return true
			}
		}
		return false
	}
	for !heard(native, web.Player()) || !heard(web, native.Player()) {
		web.SendCar(wire.QuantiseCar(0, 0, 12, 1, 21, 0.25, 0))
		native.SendCar(wire.QuantiseCar(0, 0, 3, 1, 4, 0, 0))
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the cars never crossed")
		}
	}
	seq, err := web.RequestEdit(voxel.ChunkPos{}, 99, 5)
	require.NoError(t, err)
	want := &wire.EditBroadcast{Pos: voxel.ChunkPos{}, Index: 99, Block: 5}
	assert.Equal(t, want, nextOf[*wire.EditBroadcast](t, native))
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, web))
	tr := web.Traffic()
	assert.Positive(t, tr.BytesIn)
	assert.Positive(t, tr.BytesOut)
	assert.Equal(t, 2, s.Players())
}

// The server's close reaches the WebTransport client as the native one's
// does: a kick is ErrKicked with the operator's reason.
func TestClientOverWebTransportExplainsAKick(t *testing.T) {
	s := startWTServer(t, nil)
	cfg := s.wtClientConfig(t)
	cfg.Identity = NewIdentity()
	web := dial(t, cfg)
	firstDefault(t, web)
	require.Equal(t, 1, s.Kick(cfg.Identity.Key(), "kicked by the operator"))
	select {
	case <-web.Done():
	case <-time.After(testTimeout):
		t.Fatal("the kick never ended the session")
	}
	require.ErrorIs(t, web.Err(), ErrKicked)
	assert.Contains(t, web.Err().Error(), "kicked by the operator")
}

// A page's target is checked before anything is dialled: the join code's
// pin must vouch for the offer, the URL must be a session URL.
func TestWebTransportTargetIsChecked(t *testing.T) {
	s := startWTServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	forged := s.wtClientConfig(t)
	flip := map[byte]string{'0': "1"}[forged.Fingerprint[0]] // another first digit, whatever the pin's
	if flip == "" {
		flip = "0"
	}
	forged.Fingerprint = flip + forged.Fingerprint[1:]
	_, err := Dial(ctx, forged)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "browser certificates")

	bad := s.wtClientConfig(t)
	bad.WebTransport.URL = "http://" + s.WebTransportAddr().String() + s.WebTransportPath()
	_, err = Dial(ctx, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "want https://")

	other := s.wtClientConfig(t)
	other.WebTransport.Offer.Certs = nil
	_, err = Dial(ctx, other)
	require.Error(t, err, "an offer with no certificate is no offer")
}

// A client of another protocol over WebTransport gets the native refusal.
func TestClientOverWebTransportVersionMismatchIsRefused(t *testing.T) {
	s := startWTServer(t, nil)
	cfg := s.wtClientConfig(t)
	cfg.Protocol = wire.ProtocolVersion + 1
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := Dial(ctx, cfg)
	var re *RefusedError
	require.True(t, errors.As(err, &re), "got %v", err)
	assert.Contains(t, re.Reason, "protocol")
}

// A page's client is not handed between a cluster's servers: it could
// dial only its own session URL again.
func TestClientOverWebTransportRefusesAHandover(t *testing.T) {
	s := startWTServer(t, nil)
	web := dial(t, s.wtClientConfig(t))
	_, err := AdoptHandover(web, HandoverConfig{}, &wire.Owners{}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stays on its server")
}
