package transport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
)

// IdentityFile is the name of the server's certificate-and-key PEM file
// inside its data directory.
const IdentityFile = "server-identity.pem"

// ErrCorruptIdentity wraps every failure to load an existing identity file.
// The file is never overwritten: replacing it would change the fingerprint
// every client has pinned.
var ErrCorruptIdentity = errors.New("transport: server identity file is unusable")

// Fingerprint returns the lowercase hex SHA-256 of a DER certificate.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// NormalizeFingerprint accepts a fingerprint in hex, with or without colons
// or spaces, in either case, and returns it as 64 lowercase hex digits.
func NormalizeFingerprint(s string) (string, error) {
	s = strings.ToLower(strings.NewReplacer(":", "", " ", "", "-", "").Replace(strings.TrimSpace(s)))
	if b, err := hex.DecodeString(s); err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("transport: fingerprint %q is not a SHA-256 in hex (64 hex digits)", s)
	}
	return s, nil
}

// LoadOrCreateIdentity loads the server's certificate from dir, or creates
// a self-signed ECDSA P-256 one there (mode 0600) on first start. It logs
// the fingerprint clients must pin. A present but unreadable, corrupt or
// mismatched file is an error wrapping ErrCorruptIdentity.
func LoadOrCreateIdentity(dir string, log *slog.Logger) (tls.Certificate, string, error) {
	if log == nil {
		log = slog.Default()
	}
	path := filepath.Join(dir, IdentityFile)
	data, err := os.ReadFile(path)
	created := false
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		data, err = createIdentity(dir, path)
		if err != nil {
			return tls.Certificate{}, "", err
		}
		created = true
	default:
		return tls.Certificate{}, "", fmt.Errorf("%w: %s: %v", ErrCorruptIdentity, path, err)
	}
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("%w: %s: %v (restore it from a backup, or move it away to create a new identity; clients will then need the new fingerprint)", ErrCorruptIdentity, path, err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return tls.Certificate{}, "", fmt.Errorf("%w: %s: %v", ErrCorruptIdentity, path, err)
		}
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		log.Warn("server identity file is readable by others; chmod 600 it", "path", path, "mode", st.Mode().Perm().String())
	}
	fp := Fingerprint(cert.Certificate[0])
	log.Info("server identity", "fingerprint", fp, "path", path, "created", created)
	return cert, fp, nil
}

func createIdentity(dir, path string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "citydrive server"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(20, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"citydrive"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	data = append(data, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})...)

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("transport: data directory: %w", err)
	}
	// Write a temporary file and hard-link it into place: a crash never
	// leaves a half-written identity, and a file created meanwhile by
	// another process is never replaced.
	tmp, err := os.CreateTemp(dir, ".identity-*")
	if err != nil {
		return nil, fmt.Errorf("transport: creating identity: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return os.ReadFile(path)
		}
		return nil, fmt.Errorf("transport: creating identity: %w", err)
	}
	return data, nil
}

// resetKeyLabel separates the stateless-reset key from any other use of
// the identity's private key.
const resetKeyLabel = "citydrive stateless reset key v1\x00"

// ResetKey derives the QUIC stateless-reset key from the server identity's
// private key, so a restarted server (same identity file) answers packets
// of its old connections with a reset the client recognises at once,
// instead of the client waiting out its idle timeout.
func ResetKey(cert tls.Certificate) (*quic.StatelessResetKey, error) {
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("transport: stateless reset key: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(resetKeyLabel))
	h.Write(der)
	var k quic.StatelessResetKey
	copy(k[:], h.Sum(nil))
	return &k, nil
}
