// Package webcert is the server's short-lived certificate for browsers.
//
// A page that opens a WebTransport session to a self-signed server passes
// the certificate's SHA-256 in serverCertificateHashes, and browsers then
// accept only an ECDSA P-256 certificate valid for at most 14 days. The
// server's long-lived identity (the join code's pin) cannot be that
// certificate, so the server issues short-lived ones signed by the
// identity key and rotates them (Rotator); a page checks the ones it is
// offered against the pin with Verify.
//
// The package uses the standard library only, so the browser client
// (GOOS=js) can import it.
package webcert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"
)

const (
	// MaxValidity is the longest validity (NotAfter - NotBefore) that
	// browsers accept with serverCertificateHashes.
	MaxValidity = 14 * 24 * time.Hour
	// Skew backdates NotBefore, for clients whose clocks run behind; it
	// counts within MaxValidity.
	Skew = time.Hour
	// Period is how long a certificate is announced before it is
	// presented, and how long it is presented: issued at t, presented from
	// t+Period to t+2·Period, which ends Skew before its NotAfter.
	Period = (MaxValidity - 2*Skew) / 2
	// MinLeft is the least validity a presented certificate has left.
	MinLeft = Skew
)

// Rotator issues and rotates the browser certificates. Safe for
// concurrent use; every method rotates first when due, so no timer runs.
type Rotator struct {
	parent *x509.Certificate
	key    crypto.Signer
	now    func() time.Time

	mu      sync.Mutex
	current *tls.Certificate // presented
	next    *tls.Certificate // announced, presented from next.issued+Period
}

// NewRotator issues certificates signed by identity (the server's
// long-lived certificate and key) on the clock now (nil: time.Now).
func NewRotator(identity tls.Certificate, now func() time.Time) (*Rotator, error) {
	if now == nil {
		now = time.Now
	}
	if len(identity.Certificate) == 0 {
		return nil, errors.New("webcert: the identity has no certificate")
	}
	parent := identity.Leaf
	if parent == nil {
		var err error
		if parent, err = x509.ParseCertificate(identity.Certificate[0]); err != nil {
			return nil, fmt.Errorf("webcert: identity: %w", err)
		}
	}
	key, ok := identity.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New("webcert: the identity's key cannot sign")
	}
	r := &Rotator{parent: parent, key: key, now: now}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.rotateLocked(); err != nil {
		return nil, err
	}
	return r, nil
}

// Certificate is the certificate to present now (for
// tls.Config.GetCertificate).
func (r *Rotator) Certificate() (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.rotateLocked(); err != nil {
		return nil, err
	}
	return r.current, nil
}

// Offer is what a page is given: the identity certificate and the
// certificates whose hashes it may pass, presented one first.
type Offer struct {
	Identity []byte   // DER; its SHA-256 is the join code's pin
	Certs    [][]byte // DER, presented first, then the next one
}

// Hashes are the SHA-256 of each of o.Certs, for serverCertificateHashes.
func (o Offer) Hashes() [][sha256.Size]byte {
	out := make([][sha256.Size]byte, len(o.Certs))
	for i, c := range o.Certs {
		out[i] = sha256.Sum256(c)
	}
	return out
}

// Offer is the identity and the certificates a page may accept now.
func (r *Rotator) Offer() (Offer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.rotateLocked(); err != nil {
		return Offer{}, err
	}
	return Offer{Identity: r.parent.Raw, Certs: [][]byte{r.current.Certificate[0], r.next.Certificate[0]}}, nil
}

// rotateLocked moves to the next certificate once it has been announced
// for a Period. The schedule is fixed at the first certificate: the k-th
// is issued (NotBefore+Skew) at start+k·Period even when no call came at
// that moment, so a late rotation never stretches a certificate's
// presented time past its end. After a long sleep it jumps ahead.
func (r *Rotator) rotateLocked() error {
	now := r.now()
	if r.current == nil {
		return r.restartLocked(now)
	}
	steps := now.Sub(issued(r.next)) / Period
	switch {
	case steps <= 0:
		return nil
	case steps == 1:
		next, err := r.issue(issued(r.next).Add(Period))
		if err != nil {
			return err
		}
		r.current, r.next = r.next, next
		return nil
	default: // both stale: a clock that jumped, a machine that slept
		return r.restartLocked(issued(r.next).Add((steps - 1) * Period))
	}
}

// restartLocked issues a current certificate at start and the next one
// (both are presented within their validity: see Period).
func (r *Rotator) restartLocked(start time.Time) error {
	cur, err := r.issue(start)
	if err != nil {
		return err
	}
	next, err := r.issue(start)
	if err != nil {
		return err
	}
	r.current, r.next = cur, next
	return nil
}

// issued is when c was due (its NotBefore is Skew earlier).
func issued(c *tls.Certificate) time.Time { return c.Leaf.NotBefore.Add(Skew) }

// issue makes a certificate issued at t (valid from t-Skew for
// MaxValidity), for a fresh ECDSA P-256 key, signed by the identity.
func (r *Rotator) issue(t time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	// x509 keeps whole seconds: truncate so the validity is exactly
	// MaxValidity, never a fraction over.
	from := t.Add(-Skew).Truncate(time.Second)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "citydrive webtransport"},
		NotBefore:             from,
		NotAfter:              from.Add(MaxValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"citydrive"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, r.parent, &key.PublicKey, r.key)
	if err != nil {
		return nil, fmt.Errorf("webcert: issuing: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// ErrUntrusted wraps every reason Verify refuses an offer.
var ErrUntrusted = errors.New("webcert: offer not trusted")

// MaxOffer bounds the certificates Verify looks at.
const MaxOffer = 4

// Verify checks an offer against the join code's pin (the identity
// certificate's SHA-256, 64 hex digits) at time now: the identity must
// hash to the pin, and each certificate be signed by it, ECDSA P-256,
// valid now and for at most MaxValidity. It returns the certificates'
// hashes, for serverCertificateHashes.
func Verify(pin string, o Offer, now time.Time) ([][sha256.Size]byte, error) {
	want, err := hex.DecodeString(pin)
	if err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("%w: pin %q is not 64 hex digits", ErrUntrusted, pin)
	}
	if got := sha256.Sum256(o.Identity); string(got[:]) != string(want) {
		return nil, fmt.Errorf("%w: the identity certificate does not match the join code's pin", ErrUntrusted)
	}
	if len(o.Certs) == 0 || len(o.Certs) > MaxOffer {
		return nil, fmt.Errorf("%w: %d certificates (want 1..%d)", ErrUntrusted, len(o.Certs), MaxOffer)
	}
	id, err := x509.ParseCertificate(o.Identity)
	if err != nil {
		return nil, fmt.Errorf("%w: identity: %v", ErrUntrusted, err)
	}
	for i, der := range o.Certs {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("%w: certificate %d: %v", ErrUntrusted, i, err)
		}
		// CheckSignature, not CheckSignatureFrom: the identity is no CA.
		if err := id.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature); err != nil {
			return nil, fmt.Errorf("%w: certificate %d is not signed by the identity: %v", ErrUntrusted, i, err)
		}
		if err := browserUsable(c, now); err != nil {
			return nil, fmt.Errorf("%w: certificate %d: %v", ErrUntrusted, i, err)
		}
	}
	return o.Hashes(), nil
}

// browserUsable is the browsers' rule for serverCertificateHashes.
func browserUsable(c *x509.Certificate, now time.Time) error {
	pub, ok := c.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return errors.New("not an ECDSA P-256 key")
	}
	if c.NotAfter.Sub(c.NotBefore) > MaxValidity {
		return fmt.Errorf("valid for %v, more than %v", c.NotAfter.Sub(c.NotBefore), MaxValidity)
	}
	if now.Before(c.NotBefore) || now.After(c.NotAfter) {
		return fmt.Errorf("not valid at %v (valid %v to %v)", now.UTC(), c.NotBefore.UTC(), c.NotAfter.UTC())
	}
	return nil
}

// Hex is h as lower-case hex (the form /play/config gives).
func Hex(h [sha256.Size]byte) string { return hex.EncodeToString(h[:]) }
