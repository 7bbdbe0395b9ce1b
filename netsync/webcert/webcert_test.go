package webcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// identity is a long-lived self-signed certificate like the server's.
func identity(t testing.TB) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "citydrive server"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(0, 0).AddDate(100, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	sum := sha256.Sum256(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, hex.EncodeToString(sum[:])
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestRotationKeepsEveryRuleOverTwoMonths(t *testing.T) {
	id, pin := identity(t)
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	r, err := NewRotator(id, clk.now)
	require.NoError(t, err)
	start := clk.t
	type fetched struct {
		at     time.Time
		hashes [][sha256.Size]byte
	}
	var pages []fetched // offers a page fetched, still within a Period
	presented := map[[sha256.Size]byte]bool{}
	for clk.t.Sub(start) < 60*24*time.Hour {
		cur, err := r.Certificate()
		require.NoError(t, err)
		h := sha256.Sum256(cur.Certificate[0])
		presented[h] = true
		require.NoError(t, browserUsable(cur.Leaf, clk.t), "the presented certificate is usable at %v", clk.t)
		assert.GreaterOrEqual(t, cur.Leaf.NotAfter.Sub(clk.t), MinLeft, "rotated before it ends")

		o, err := r.Offer()
		require.NoError(t, err)
		require.Len(t, o.Certs, 2, "old and new both offered")
		hashes, err := Verify(pin, o, clk.t)
		require.NoError(t, err, "every offered certificate passes the page's check")
		assert.Contains(t, hashes, h, "the presented certificate is offered")
		for _, der := range o.Certs {
			c, err := x509.ParseCertificate(der)
			require.NoError(t, err)
			assert.LessOrEqual(t, c.NotAfter.Sub(c.NotBefore), MaxValidity, "nothing valid for more than 14 days")
		}
		// A page that fetched the offer up to a Period ago still finds
		// the presented certificate among its hashes.
		pages = append(pages, fetched{clk.t, hashes})
		pages = slices.DeleteFunc(pages, func(p fetched) bool { return clk.t.Sub(p.at) > Period })
		for _, p := range pages {
			assert.Contains(t, p.hashes, h, "an offer fetched at %v is stale at %v", p.at, clk.t)
		}
		clk.t = clk.t.Add(97 * time.Minute) // not a divisor of Period: the steps fall all over it
	}
	// One presented certificate per Period (plus the first).
	assert.InDelta(t, 60*24*time.Hour/Period+1, len(presented), 1)
}

func TestClockJumpReplacesAnExpiredCertificate(t *testing.T) {
	id, pin := identity(t)
	clk := &fakeClock{t: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	r, err := NewRotator(id, clk.now)
	require.NoError(t, err)
	clk.t = clk.t.Add(40 * 24 * time.Hour) // the machine slept
	cur, err := r.Certificate()
	require.NoError(t, err)
	require.NoError(t, browserUsable(cur.Leaf, clk.t))
	o, err := r.Offer()
	require.NoError(t, err)
	_, err = Verify(pin, o, clk.t)
	require.NoError(t, err)
}

// forged issues a certificate by hand: key, signer and validity chosen.
func forged(t *testing.T, parent *x509.Certificate, signer any, pub any, from time.Time, valid time.Duration) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), NotBefore: from, NotAfter: from.Add(valid)}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	require.NoError(t, err)
	return der
}

func TestVerifyRefuses(t *testing.T) {
	id, pin := identity(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	r, err := NewRotator(id, func() time.Time { return now })
	require.NoError(t, err)
	good, err := r.Offer()
	require.NoError(t, err)
	_, err = Verify(pin, good, now)
	require.NoError(t, err)

	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	idKey := id.PrivateKey
	from := now.Add(-time.Hour)
	otherID, otherPin := identity(t)
	impostor := new(x509.Certificate) // the identity's name, another key
	*impostor = *id.Leaf
	impostor.PublicKey = &other.PublicKey
	cases := map[string]struct {
		pin   string
		offer Offer
		at    time.Time
	}{
		"pin is not hex":          {"zz", good, now},
		"another server's pin":    {otherPin, good, now},
		"identity swapped":        {pin, Offer{Identity: otherID.Certificate[0], Certs: good.Certs}, now},
		"signed by another key":   {pin, Offer{Identity: good.Identity, Certs: [][]byte{forged(t, impostor, other, &other.PublicKey, from, 24*time.Hour)}}, now},
		"valid for 15 days":       {pin, Offer{Identity: good.Identity, Certs: [][]byte{forged(t, id.Leaf, idKey, &other.PublicKey, from, 15*24*time.Hour)}}, now},
		"an RSA key":              {pin, Offer{Identity: good.Identity, Certs: [][]byte{forged(t, id.Leaf, idKey, &rsaKey.PublicKey, from, 24*time.Hour)}}, now},
		"expired":                 {pin, good, now.Add(15 * 24 * time.Hour)},
		"not yet valid":           {pin, good, now.Add(-2 * time.Hour)},
		"no certificates":         {pin, Offer{Identity: good.Identity}, now},
		"too many certificates":   {pin, Offer{Identity: good.Identity, Certs: slices.Repeat(good.Certs, 3)}, now},
		"garbage certificate":     {pin, Offer{Identity: good.Identity, Certs: [][]byte{{0x30, 0x03, 1, 2, 3}}}, now},
		"tampered signature byte": {pin, Offer{Identity: good.Identity, Certs: [][]byte{flipLast(good.Certs[0])}}, now},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Verify(c.pin, c.offer, c.at)
			require.ErrorIs(t, err, ErrUntrusted)
		})
	}
}

func flipLast(b []byte) []byte {
	b = slices.Clone(b)
	b[len(b)-1] ^= 1
	return b
}

func TestNewRotatorNeedsASigningIdentity(t *testing.T) {
	_, err := NewRotator(tls.Certificate{}, nil)
	require.Error(t, err)
	id, _ := identity(t)
	id.PrivateKey = nil
	_, err = NewRotator(id, nil)
	require.Error(t, err)
}
