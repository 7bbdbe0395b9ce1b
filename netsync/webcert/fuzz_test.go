package webcert

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"os"
	"testing"
	"time"
)

// fixedIdentity is a test identity kept in testdata, so the fuzz corpus
// means the same thing on every run (a throwaway key, for tests only).
func fixedIdentity(f *testing.F) (tls.Certificate, string) {
	b, err := os.ReadFile("testdata/fuzz-identity.pem")
	if err != nil {
		f.Fatal(err)
	}
	c, err := tls.X509KeyPair(b, b)
	if err != nil {
		f.Fatal(err)
	}
	if c.Leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
		f.Fatal(err)
	}
	sum := sha256.Sum256(c.Certificate[0])
	return c, hex.EncodeToString(sum[:])
}

// FuzzVerify feeds Verify what a hostile /play/config could hold: it never
// panics, and passes nothing that is not signed by the pinned identity.
func FuzzVerify(f *testing.F) {
	id, pin := fixedIdentity(f)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	r, err := NewRotator(id, func() time.Time { return now })
	if err != nil {
		f.Fatal(err)
	}
	o, err := r.Offer()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(o.Identity, o.Certs[0], o.Certs[1])
	f.Add(o.Identity, o.Certs[0], []byte{})
	f.Add([]byte{0x30}, []byte{0x30, 0x80}, []byte{0xff})
	f.Fuzz(func(t *testing.T, identity, a, b []byte) {
		hashes, err := Verify(pin, Offer{Identity: identity, Certs: [][]byte{a, b}}, now)
		if err != nil {
			return
		}
		if len(hashes) != 2 || string(identity) != string(o.Identity) {
			t.Fatalf("an offer passed with another identity")
		}
	})
}
