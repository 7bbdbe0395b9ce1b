// Package natstest runs real NATS servers in-process for tests: a cluster
// of nodes with JetStream on, routed to each other on loopback, each with
// its own store directory, which a test can stop and restart. StartSecure
// runs them as cmd/cluster.sh does: TLS for clients and routes, nkey
// users only, from the configuration natssec writes.
package natstest

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"citydrive/netsync/cluster/natssec"
)

// nodeReady is how long a node may take to start: under the race detector,
// with the suite's other packages on the same two cores, 10 s was once too
// short (CI saw it) while the node itself was fine, and 30 s once with
// three headless browsers beside it.
const nodeReady = 60 * time.Second

// Cluster is n JetStream nodes routed together.
type Cluster struct {
	t     testing.TB
	opts  []*server.Options
	nodes []*server.Server
	tls   natssec.TLS // StartSecure's
	// StartStallable's: each node's stall switch, and the proxy port its
	// clients dial
	gates      []*gate
	clientAddr []int
}

// Start runs an n-node cluster and stops it when the test ends. Ports are
// fixed at start so a restarted node comes back where its peers and
// clients look for it.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	return startFresh(t, func() *Cluster { return newCluster(t, n) })
}

// startAttempts is how many times a cluster's first start is tried on
// fresh ports: a port found free can be taken by another package's test
// before the node listens on it (the suite runs packages side by side).
const startAttempts = 3

// startFresh starts the cluster build makes, on fresh ports again if a
// node could not listen, and stops it when the test ends.
func startFresh(t testing.TB, build func() *Cluster) *Cluster {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c := build()
		err := c.run()
		if err == nil {
			return c
		}
		if !errors.Is(err, errListen) || attempt == startAttempts {
			t.Fatalf("natstest: %v", err)
		}
		t.Logf("natstest: %v; again on fresh ports", err)
	}
}

// newCluster is Start's cluster, not started.
func newCluster(t testing.TB, n int) *Cluster {
	dir := t.TempDir()
	client := freePorts(t, n)
	route := freePorts(t, n)
	var routes []string
	for _, p := range route {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	c := &Cluster{t: t}
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1", Port: client[i],
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: 256 << 20,
			NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "citydrive", Host: "127.0.0.1", Port: route[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		}
		if n == 1 {
			o.Cluster, o.Routes = server.ClusterOpts{}, nil
		}
		c.opts = append(c.opts, o)
		c.nodes = append(c.nodes, nil)
	}
	return c
}

// run starts every node and stops them when the test ends; if one does
// not start, it stops those that did.
func (c *Cluster) run() error {
	for i := range c.nodes {
		if err := c.start(i); err != nil {
			for j := range i {
				c.Stop(j)
			}
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	c.t.Cleanup(func() {
		for i := range c.nodes {
			c.Stop(i)
		}
	})
	return nil
}

// StartSecure runs an n-node cluster as cmd/cluster.sh configures one
// (natssec.Node.Config): clients and routes on TLS with a fresh CA
// (CAFile), and only users may connect, each with its permissions, in one
// account with JetStream.
func StartSecure(t testing.TB, n int, users ...natssec.User) *Cluster {
	t.Helper()
	return startFresh(t, func() *Cluster { return newSecureCluster(t, n, users) })
}

// newSecureCluster is StartSecure's cluster, not started.
func newSecureCluster(t testing.TB, n int, users []natssec.User) *Cluster {
	dir := t.TempDir()
	files, err := natssec.WriteTLS(filepath.Join(dir, "tls"), []string{"127.0.0.1", "localhost"})
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	client := freePorts(t, n)
	route := freePorts(t, n)
	var routes []string
	for _, p := range route {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	c := &Cluster{t: t, tls: files}
	for i := range n {
		node := natssec.Node{
			Name: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: client[i],
			StoreDir:  filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			MaxMemory: 64 << 20, MaxStore: 256 << 20,
			TLS: &files, Account: "CITYDRIVE", Users: users,
		}
		if n > 1 {
			node.Cluster, node.ClusterPort, node.Routes = "citydrive", route[i], routes
		}
		conf := filepath.Join(dir, node.Name+".conf")
		if err := node.WriteConfig(conf); err != nil {
			t.Fatalf("natstest: %v", err)
		}
		o, err := server.ProcessConfigFile(conf)
		if err != nil {
			t.Fatalf("natstest: node %d's configuration: %v", i, err)
		}
		o.NoLog, o.NoSigs = true, true
		c.opts = append(c.opts, o)
		c.nodes = append(c.nodes, nil)
	}
	return c
}

// CAFile is the CA certificate StartSecure's nodes are signed by ("" for
// Start's).
func (c *Cluster) CAFile() string { return c.tls.CA }

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ps []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("natstest: free port: %v", err)
		}
		ls = append(ls, l)
		ps = append(ps, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ps
}

// URL is node i's client URL.
func (c *Cluster) URL(i int) string {
	if c.clientAddr != nil {
		return fmt.Sprintf("nats://127.0.0.1:%d", c.clientAddr[i])
	}
	return fmt.Sprintf("nats://127.0.0.1:%d", c.opts[i].Port)
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	return u
}

// URLs lists every node's client URL, node i first (so a client prefers
// it) when i is in range.
func (c *Cluster) URLs(i int) []string {
	var us []string
	if i >= 0 && i < len(c.opts) {
		us = append(us, c.URL(i))
	}
	for j := range c.opts {
		if j != i {
			us = append(us, c.URL(j))
		}
	}
	return us
}

// Stop shuts node i down (its clients reconnect to the others) and waits.
func (c *Cluster) Stop(i int) {
	if s := c.nodes[i]; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.nodes[i] = nil
	}
}

// Restart starts node i again on its ports and store (a no-op while it
// runs) and waits until it accepts clients.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	if err := c.start(i); err != nil {
		c.t.Fatalf("natstest: node %d: %v", i, err)
	}
}

// errListen is a node's failure to listen on one of its ports.
var errListen = errors.New("could not listen")

// start starts node i (a no-op while it runs) and waits until it accepts
// clients, or until it reports that it cannot listen.
func (c *Cluster) start(i int) error {
	if c.nodes[i] != nil {
		return nil
	}
	o := c.opts[i].Clone()
	s, err := server.NewServer(o)
	if err != nil {
		return err
	}
	fatal := make(chan string, 1)
	s.SetLogger(fatalLogger(fatal), false, false)
	go s.Start()
	for deadline := time.Now().Add(nodeReady); !s.ReadyForConnections(readyPoll); {
		select {
		case msg := <-fatal:
			s.Shutdown()
			if strings.Contains(msg, "listen") {
				return fmt.Errorf("%w: %s", errListen, msg)
			}
			return errors.New(msg)
		default:
		}
		if time.Now().After(deadline) {
			s.Shutdown()
			return fmt.Errorf("not ready within %v", nodeReady)
		}
	}
	c.nodes[i] = s
	return nil
}

// readyPoll is how often start looks for a fatal error while it waits.
const readyPoll = 250 * time.Millisecond

// fatalLogger passes a node's fatal errors on (the first one) and drops
// the rest of its log.
type fatalLogger chan string

func (f fatalLogger) Fatalf(format string, v ...any) {
	select {
	case f <- fmt.Sprintf(format, v...):
	default:
	}
}
func (fatalLogger) Noticef(string, ...any) {}
func (fatalLogger) Warnf(string, ...any)   {}
func (fatalLogger) Errorf(string, ...any)  {}
func (fatalLogger) Debugf(string, ...any)  {}
func (fatalLogger) Tracef(string, ...any)  {}

// LastSeq is the last sequence of stream in node i's own copy (false while
// the node is stopped or holds no copy): a restarted node has caught up
// when it matches the others'.
func (c *Cluster) LastSeq(i int, stream string) (uint64, bool) {
	s := c.nodes[i]
	if s == nil {
		return 0, false
	}
	info, err := s.Jsz(&server.JSzOptions{Accounts: true, Streams: true})
	if err != nil {
		return 0, false
	}
	for _, a := range info.AccountDetails {
		for _, st := range a.Streams {
			if st.Name == stream {
				return st.State.LastSeq, true
			}
		}
	}
	return 0, false
}

// Leaders names the nodes (by index, -1: none known) leading JetStream's
// meta group and stream (of the default account): tests log where the
// leaders were, as a fault on a leader's node plays out differently.
func (c *Cluster) Leaders(stream string) (meta, streamLeader int) {
	meta, streamLeader = -1, -1
	for i, s := range c.nodes {
		if s == nil {
			continue
		}
		if s.JetStreamIsLeader() {
			meta = i
		}
		if s.JetStreamIsStreamLeader("$G", stream) {
			streamLeader = i
		}
	}
	return meta, streamLeader
}
