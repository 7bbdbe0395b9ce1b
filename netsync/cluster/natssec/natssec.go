// Package natssec makes what the NATS nodes of a citydrive cluster are
// secured with: a certificate authority and one certificate for the
// nodes (TLS for client connections and for the routes between nodes,
// which check each other's certificate), nkey users (a seed file each),
// and the nats-server configuration naming them, with the one account the
// servers' users share and what each user may publish and subscribe to.
//
// `citydrive cluster-keys` writes them for cmd/cluster.sh; natstest starts
// its in-process nodes from the same configuration, so the tests check
// the configuration the script runs.
package natssec

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nkeys"
)

// The files WriteTLS keeps in its directory.
const (
	CAFile    = "ca.pem"        // the CA's certificate: clients check the nodes against it
	CAKeyFile = "ca-key.pem"    // the CA's key (only to issue more certificates)
	CertFile  = "nats-cert.pem" // the nodes' certificate (server and route client)
	KeyFile   = "nats-key.pem"
)

const (
	caValidity   = 10 * 365 * 24 * time.Hour
	certValidity = 365 * 24 * time.Hour
	// renewBefore: a kept node certificate with less validity left is
	// issued again.
	renewBefore = 7 * 24 * time.Hour
)

// TLS names the files of a node's TLS setup.
type TLS struct {
	CA, Cert, Key string
}

// WriteTLS keeps in dir (made if missing) a CA and a certificate for
// hosts (IP addresses or DNS names) signed by it, for every node of the
// cluster: it serves clients and routes and is a route's client
// certificate. Files already there are kept (a node certificate not valid
// for hosts, or about to expire, is issued again); keys are written 0600.
func WriteTLS(dir string, hosts []string) (TLS, error) {
	files := TLS{CA: filepath.Join(dir, CAFile), Cert: filepath.Join(dir, CertFile), Key: filepath.Join(dir, KeyFile)}
	if len(hosts) == 0 {
		return files, errors.New("natssec: no host for the node certificate")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return files, err
	}
	ca, caKey, err := loadOrMakeCA(dir)
	if err != nil {
		return files, err
	}
	if certCovers(files, ca, hosts) {
		return files, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return files, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "citydrive NATS node"},
		NotBefore:    now.Add(-time.Hour), NotAfter: now.Add(certValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return files, fmt.Errorf("natssec: issuing the node certificate: %w", err)
	}
	if err := writeKey(files.Key, key); err != nil {
		return files, err
	}
	return files, writePEM(files.Cert, "CERTIFICATE", der, 0o644)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

func loadOrMakeCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPath, keyPath := filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile)
	if pair, err := tls.LoadX509KeyPair(certPath, keyPath); err == nil {
		key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
		if !ok {
			return nil, nil, fmt.Errorf("natssec: %s: not an ECDSA key", keyPath)
		}
		return pair.Leaf, key, nil
	} else if _, serr := os.Stat(certPath); serr == nil {
		return nil, nil, fmt.Errorf("natssec: the CA in %s: %w (remove %s and %s to make a new one)", dir, err, CAFile, CAKeyFile)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "citydrive NATS CA"},
		NotBefore:    now.Add(-time.Hour), NotAfter: now.Add(caValidity),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		IsCA:     true, BasicConstraintsValid: true, MaxPathLenZero: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("natssec: making the CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, nil, err
	}
	return cert, key, writePEM(certPath, "CERTIFICATE", der, 0o644)
}

// certCovers reports whether the node certificate in files is signed by
// ca, valid for a while yet and names every host (an unreadable one does
// not: it is issued again).
func certCovers(files TLS, ca *x509.Certificate, hosts []string) bool {
	pair, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		return false
	}
	c := pair.Leaf
	if c.CheckSignatureFrom(ca) != nil || time.Until(c.NotAfter) < renewBefore {
		return false
	}
	for _, h := range hosts {
		if c.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der, 0o600)
}

func writePEM(path, kind string, der []byte, mode os.FileMode) error {
	return writeFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode)
}

// writeFile replaces path with b (via a temporary file in its directory).
func writeFile(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteUser keeps an nkey user's seed in the file at path (made 0600 if
// missing: a line "SU…", what citydrive server -cluster-creds reads) and
// returns the user's public key ("U…"), which the NATS configuration
// names.
func WriteUser(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		kp, err := nkeys.ParseDecoratedUserNKey(b)
		if err != nil {
			return "", fmt.Errorf("natssec: %s: not an nkey user seed: %w", path, err)
		}
		return kp.PublicKey()
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", err
	}
	seed, err := kp.Seed()
	if err != nil {
		return "", err
	}
	if err := writeFile(path, append(seed, '\n'), 0o600); err != nil {
		return "", err
	}
	return kp.PublicKey()
}

// Permissions are the subjects a user may publish and subscribe to
// (NATS wildcards); Responses lets it answer the requests it receives
// (publish to their reply subjects) without naming those.
type Permissions struct {
	Publish, Subscribe []string
	Responses          bool
}

// User is one nkey user of the configuration.
type User struct {
	NKey        string // public key, "U…"
	Permissions Permissions
}

// Node is one NATS node's configuration.
type Node struct {
	Name     string // server_name, distinct in the cluster
	Host     string // the address clients, routes and monitoring listen on
	Port     int    // clients
	HTTPPort int    // monitoring (plain HTTP on Host); 0: none
	// Cluster is the cluster's name and ClusterPort this node's route
	// port; Routes are every node's route URLs (nats-route://h:p). An empty
	// Cluster: a single node.
	Cluster     string
	ClusterPort int
	Routes      []string
	StoreDir    string // JetStream's store
	// JetStream limits (0: the server's defaults).
	MaxMemory, MaxStore int64
	// TLS, if set (files made by WriteTLS), is required of every client,
	// and routes present and check certificates signed by the CA.
	TLS *TLS
	// Account is the account Users are in, with JetStream; users are
	// required once there is one: a connection without a user's key is
	// refused.
	Account string
	Users   []User
}

// Config is n's nats-server configuration file.
func (n Node) Config() (string, error) {
	var b strings.Builder
	var bad error
	q := func(s string) string {
		if strings.ContainsAny(s, "\"\\\n\r") {
			bad = errors.Join(bad, fmt.Errorf("natssec: %q cannot be quoted in a NATS configuration", s))
		}
		return `"` + s + `"`
	}
	list := func(ss []string) string {
		qs := make([]string, len(ss))
		for i, s := range ss {
			qs[i] = q(s)
		}
		return "[" + strings.Join(qs, ", ") + "]"
	}
	hp := func(p int) string { return q(net.JoinHostPort(n.Host, strconv.Itoa(p))) }
	fmt.Fprintf(&b, "# citydrive NATS node %s (written by citydrive cluster-keys; rewritten on each start)\n", n.Name)
	fmt.Fprintf(&b, "server_name: %s\nlisten: %s\n", q(n.Name), hp(n.Port))
	if n.HTTPPort > 0 {
		fmt.Fprintf(&b, "http: %s\n", hp(n.HTTPPort))
	}
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %s\n", q(n.StoreDir))
	if n.MaxMemory > 0 {
		fmt.Fprintf(&b, "  max_memory_store: %d\n", n.MaxMemory)
	}
	if n.MaxStore > 0 {
		fmt.Fprintf(&b, "  max_file_store: %d\n", n.MaxStore)
	}
	b.WriteString("}\n")
	tlsBlock := func(indent string, verify bool) {
		fmt.Fprintf(&b, "%stls {\n%s  cert_file: %s\n%s  key_file: %s\n%s  ca_file: %s\n%s  timeout: 5\n",
			indent, indent, q(n.TLS.Cert), indent, q(n.TLS.Key), indent, q(n.TLS.CA), indent)
		if verify {
			fmt.Fprintf(&b, "%s  verify: true\n", indent)
		}
		fmt.Fprintf(&b, "%s}\n", indent)
	}
	if n.TLS != nil {
		tlsBlock("", false) // clients: TLS required; they log in with a user's key
	}
	if n.Cluster != "" {
		fmt.Fprintf(&b, "cluster {\n  name: %s\n  listen: %s\n  routes: %s\n", q(n.Cluster), hp(n.ClusterPort), list(n.Routes))
		if n.TLS != nil {
			tlsBlock("  ", true) // routes: both ends show a certificate of the CA
		}
		b.WriteString("}\n")
	}
	if n.Account != "" {
		fmt.Fprintf(&b, "accounts {\n  %s {\n    jetstream: enabled\n    users: [\n", q(n.Account))
		for _, u := range n.Users {
			p := u.Permissions
			fmt.Fprintf(&b, "      {nkey: %s, permissions: {publish: {allow: %s}, subscribe: {allow: %s}",
				q(u.NKey), list(p.Publish), list(p.Subscribe))
			if p.Responses {
				b.WriteString(", allow_responses: true")
			}
			b.WriteString("}}\n")
		}
		b.WriteString("    ]\n  }\n}\n")
	}
	return b.String(), bad
}

// WriteConfig writes n's configuration to path.
func (n Node) WriteConfig(path string) error {
	c, err := n.Config()
	if err != nil {
		return err
	}
	return writeFile(path, []byte(c), 0o600)
}
