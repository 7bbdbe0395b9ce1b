package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natssec"
)

// natsAuthFlags are -cluster-creds and -cluster-ca, which server, export
// and import share: how a citydrive process signs in to a secured NATS.
type natsAuthFlags struct{ creds, ca *string }

func addNATSAuthFlags(fs *cmdFlags) natsAuthFlags {
	return natsAuthFlags{
		creds: fs.String("cluster-creds", "", "with -cluster: the NATS user to sign in as, an nkey seed `file` (citydrive cluster-keys writes one) or a .creds file (user JWT and seed); empty: no user, for a NATS without authentication"),
		ca:    fs.String("cluster-ca", "", "with -cluster: the CA certificate `file` (PEM) the NATS nodes' certificates are checked against; set, every NATS connection is TLS"),
	}
}

// check says what is wrong with the flags once parsed: given without
// -cluster, or a file that cannot be used.
func (a natsAuthFlags) check(urls []string) error {
	if len(urls) == 0 {
		if *a.creds != "" || *a.ca != "" {
			return usageError{errors.New("-cluster-creds and -cluster-ca need -cluster")}
		}
		return nil
	}
	if err := cluster.CheckSecurity(cluster.Options{Creds: *a.creds}); err != nil {
		return fmt.Errorf("-cluster-creds: %w", err)
	}
	if err := cluster.CheckSecurity(cluster.Options{CA: *a.ca}); err != nil {
		return fmt.Errorf("-cluster-ca: %w", err)
	}
	return nil
}

// options adds the flags to o.
func (a natsAuthFlags) options(o cluster.Options) cluster.Options {
	o.Creds, o.CA = *a.creds, *a.ca
	return o
}

// clusterHint adds to a refusal by NATS which flag to look at.
func clusterHint(err error) error {
	switch {
	case errors.Is(err, cluster.ErrNotAuthorized):
		return fmt.Errorf("%w; give this server's NATS user with -cluster-creds (cmd/cluster.sh writes it into DIR/keys/server.nk)", err)
	case errors.Is(err, cluster.ErrTLS):
		return fmt.Errorf("%w; give the NATS nodes' CA certificate with -cluster-ca (cmd/cluster.sh writes it into DIR/keys/ca.pem)", err)
	}
	return err
}

const clusterKeysAbout = `Writes what a secured NATS cluster for citydrive servers runs with, into
-dir: a CA and one certificate for the nodes (keys/ca.pem,
keys/nats-cert.pem; TLS for clients and for the routes between nodes, which
check each other's certificate), the servers' NATS user (keys/server.nk,
an nkey seed: citydrive server -cluster-creds), and each node's
nats-server configuration (natsN.conf; store in natsN/). Only that user may
connect, and it may use only the world's subjects and buckets (-seed).
Keys and certificates already there are kept; the configurations are
written again. cmd/cluster.sh runs it.`

// runClusterKeys is `citydrive cluster-keys`.
func runClusterKeys(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cluster-keys", stdout, "cluster-keys -dir DIR [flags]", clusterKeysAbout)
	dir := fs.String("dir", "", "`directory` to write into (required)")
	seed := fs.Uint64("seed", defaultSeed, "world seed the servers' user may use (its subjects and buckets)")
	nodes := fs.Int("nodes", 3, "NATS nodes (1..9)")
	host := fs.String("host", "127.0.0.1", "IP `address` the nodes listen on (clients, routes, monitoring)")
	port := fs.Int("port", 4222, "client port of the first node; node N listens on port+N-1")
	clusterPort := fs.Int("cluster-port", 6222, "route port of the first node (the others follow)")
	httpPort := fs.Int("http-port", 8222, "monitoring port of the first node (the others follow; 0: none)")
	certHosts := fs.String("cert-hosts", "", "`names` the node certificate is valid for, comma-separated (default: -host, and localhost for a loopback -host)")
	if err := fs.parse(args); err != nil {
		return err
	}
	ip := net.ParseIP(*host)
	switch {
	case *dir == "":
		return usageError{errors.New("-dir is required")}
	case *nodes < 1 || *nodes > 9:
		return fmt.Errorf("-nodes must be in 1..9, got %d", *nodes)
	case ip == nil:
		return fmt.Errorf("-host %q: want an IP address", *host)
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"port", *port}, {"cluster-port", *clusterPort}, {"http-port", *httpPort}} {
		if p.v < 0 || p.v+*nodes > 65536 || p.v == 0 && p.name != "http-port" {
			return fmt.Errorf("-%s must leave room for %d nodes in 1..65535, got %d", p.name, *nodes, p.v)
		}
	}
	if err := ready(); err != nil {
		return err
	}
	hosts := splitList(*certHosts)
	if len(hosts) == 0 {
		hosts = []string{*host}
		if ip.IsLoopback() {
			hosts = append(hosts, "localhost")
		}
	}
	keys := filepath.Join(*dir, "keys")
	files, err := natssec.WriteTLS(keys, hosts)
	if err != nil {
		return err
	}
	creds := filepath.Join(keys, "server.nk")
	pub, err := natssec.WriteUser(creds)
	if err != nil {
		return err
	}
	var routes []string
	for i := range *nodes {
		routes = append(routes, "nats-route://"+net.JoinHostPort(*host, strconv.Itoa(*clusterPort+i)))
	}
	user := natssec.User{NKey: pub, Permissions: cluster.ServerPermissions(*seed)}
	var confs []string
	for i := range *nodes {
		n := natssec.Node{
			Name: fmt.Sprintf("n%d", i+1), Host: *host, Port: *port + i,
			StoreDir: filepath.Join(*dir, fmt.Sprintf("nats%d", i+1)),
			TLS:      &files, Account: "CITYDRIVE", Users: []natssec.User{user},
		}
		if *httpPort > 0 {
			n.HTTPPort = *httpPort + i
		}
		if *nodes > 1 {
			n.Cluster, n.ClusterPort, n.Routes = "citydrive", *clusterPort+i, routes
		}
		conf := filepath.Join(*dir, fmt.Sprintf("nats%d.conf", i+1))
		if err := n.WriteConfig(conf); err != nil {
			return err
		}
		confs = append(confs, conf)
	}
	// For scripts: one "name: value" a line.
	fmt.Fprintf(stdout, "ca: %s\ncreds: %s\nuser: %s\nconfigs: %s\n", files.CA, creds, pub, strings.Join(confs, " "))
	return nil
}
