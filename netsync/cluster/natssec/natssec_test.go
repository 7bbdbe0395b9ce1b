package natssec

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The node certificate is signed by the CA, serves and is a route's
// client, names its hosts, and is kept across runs unless a host is new.
func TestWriteTLSKeepsAndReissues(t *testing.T) {
	dir := t.TempDir()
	f, err := WriteTLS(dir, []string{"127.0.0.1", "localhost"})
	require.NoError(t, err)
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	require.NoError(t, err)
	caPEM, err := os.ReadFile(f.CA)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(caPEM))
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		_, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", KeyUsages: []x509.ExtKeyUsage{usage}})
		assert.NoError(t, err, "usage %v", usage)
	}
	assert.NoError(t, pair.Leaf.VerifyHostname("127.0.0.1"))
	for _, key := range []string{f.Key, filepath.Join(dir, CAKeyFile)} {
		st, err := os.Stat(key)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), key)
	}

	before, _ := os.ReadFile(f.Cert)
	_, err = WriteTLS(dir, []string{"127.0.0.1"})
	require.NoError(t, err)
	kept, _ := os.ReadFile(f.Cert)
	assert.Equal(t, before, kept, "kept: it names the hosts")
	_, err = WriteTLS(dir, []string{"10.0.0.7"})
	require.NoError(t, err)
	again, _ := os.ReadFile(f.Cert)
	assert.NotEqual(t, before, again, "issued again for a new host")
	after, _ := os.ReadFile(f.CA)
	assert.Equal(t, caPEM, after, "by the same CA")

	_, err = WriteTLS(t.TempDir(), nil)
	assert.Error(t, err)
}

func TestWriteUserKeepsItsSeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "u.nk")
	pub, err := WriteUser(path)
	require.NoError(t, err)
	assert.Equal(t, byte('U'), pub[0])
	again, err := WriteUser(path)
	require.NoError(t, err)
	assert.Equal(t, pub, again)
	require.NoError(t, os.WriteFile(path, []byte("junk"), 0o600))
	_, err = WriteUser(path)
	assert.ErrorContains(t, err, path)
}

func TestConfigRefusesWhatItCannotQuote(t *testing.T) {
	n := Node{Name: "n1", Host: "127.0.0.1", Port: 4222, StoreDir: `/tmp/a"b`}
	_, err := n.Config()
	assert.Error(t, err)
	n.StoreDir = "/tmp/ab"
	c, err := n.Config()
	require.NoError(t, err)
	assert.Contains(t, c, `listen: "127.0.0.1:4222"`)
	assert.NotContains(t, c, "tls", "no TLS unless asked")
	assert.NotContains(t, c, "accounts", "no users unless asked")
}
