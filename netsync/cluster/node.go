// Package cluster lets several citydrive servers share one world through
// NATS: edits live in a replicated JetStream key-value bucket (World), cars
// travel on per-region core NATS subjects (Cars). A Node is one server's
// membership: its connections, the bucket, and the player id range it
// hands out. See docs/scaling.md.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"citydrive/netsync"
)

// Options configure Join.
type Options struct {
	// URLs of NATS servers of the cluster ("nats://127.0.0.1:4222"); the
	// client knows the others from them and reconnects between them.
	URLs []string
	Seed uint64 // the world: its bucket is citydrive-<seed>
	// Replicas of the edit bucket (3: a 3-node cluster keeps acking with
	// one node down). 1 for a single NATS node.
	Replicas int
	Logger   *slog.Logger
	World    WorldOptions
	Lease    LeaseOptions
	Name     string // connection name shown by NATS monitoring
	// Creds is the file of this server's NATS user: an nkey seed file
	// (a line "SU…", as citydrive cluster-keys writes) or a credentials
	// file (.creds: a user JWT and its seed). Empty: no user (a NATS
	// without authentication). A NATS refusing it fails Join with
	// ErrNotAuthorized.
	Creds string
	// CA is a PEM file of the certificate authority the NATS nodes'
	// certificates are checked against; set, every connection is TLS.
	// Empty: TLS only if NATS asks for it, checked against the system's
	// roots. A failed check fails Join with ErrTLS.
	CA string
	// Advertise is the QUIC address players dial for this server, as the
	// ownership directory hands it out (SetAdvertise changes it later,
	// once the server listens). Until it is set the server owns nothing:
	// nobody could be sent to it.
	Advertise string
	// CarRule is the rule other servers' cars pass before this server's
	// players are shown them: the one its own players' cars pass
	// (netsync.Tuning.CarRule). Zero: not checked.
	CarRule netsync.CarRule

	pause *Pause // tests: stops the heartbeat and the owner's writes
}

// Node is one server's part in a cluster. Close releases it.
type Node struct {
	js, cars *nats.Conn
	kv       jetstream.KeyValue
	rules    *Rules
	world    *World
	carsX    *Cars
	dir      *Directory
	lease    *leaser
	fwd      *forwarder
	first    uint32
	whois    *nats.Subscription // AnswerWhois's, if called
}

// PlayerBits is how many low bits of a player id a server numbers its own
// players with; the bits above name the server (a counter in the bucket),
// so ids stay distinct across the servers of a cluster.
const PlayerBits = 20

const serversKey = "meta.servers"

// maxServerSlot wraps the server counter (4,095 server starts).
const maxServerSlot = 1<<(32-PlayerBits) - 1

// Join connects to the cluster, creates the world's bucket if it is
// missing (retrying while JetStream elects its leaders) and claims a player
// id range. ctx bounds the whole join.
func Join(ctx context.Context, opt Options) (*Node, error) {
	if len(opt.URLs) == 0 {
		return nil, errors.New("cluster: no NATS URL")
	}
	if opt.Replicas <= 0 {
		opt.Replicas = 3
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	url := strings.Join(opt.URLs, ",")
	sec, err := securityOptions(opt)
	if err != nil {
		return nil, err
	}
	if opt.CA == "" {
		log.Warn("NATS connections without a CA: plain text unless NATS asks for TLS (give the CA to require it)")
	}
	opt.Lease.defaults()
	connect := func(name string, extra ...nats.Option) (*nats.Conn, error) {
		// dial retries NATS nodes starting alongside this server, which
		// may not listen yet; the join's ctx bounds the wait.
		o := append([]nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond),
			// A node stopped (SIGSTOP, a hung host) keeps its TCP
			// connections open: only unanswered PINGs tell. The library's
			// default (every 2 min, 2 outstanding) kept this server on it
			// for minutes, its heartbeats, writes and forwards all timing
			// out. Pinging every TTL/4 with 2 outstanding leaves a silent
			// node within stallWithin (3/4 TTL, 1.5 s) and reconnects to
			// another; the next heartbeat is then stored about when the
			// others would count this server dead (TTL), so its leases
			// are kept or lapse only for moments.
			nats.PingInterval(pingInterval(opt.Lease.TTL)), nats.MaxPingsOutstanding(maxPingsOut),
			nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
				if err != nil {
					log.Warn("NATS connection lost; reconnecting", "conn", name, "err", err)
				}
			}),
			nats.ReconnectHandler(func(c *nats.Conn) { log.Info("NATS reconnected", "conn", name, "url", c.ConnectedUrl()) }),
			// A permissions violation (a NATS user allowed less than
			// ServerPermissions) would otherwise pass unseen.
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
				log.Warn("NATS refused an operation", "conn", name, "err", err)
			}),
		}, sec...)
		return dial(ctx, url, opt, append(o, extra...)...)
	}
	name := opt.Name
	if name == "" {
		name = "citydrive"
	}
	jsConn, err := connect(name + "-edits")
	if err != nil {
		return nil, err
	}
	carConn, err := connect(name+"-cars", nats.NoEcho())
	if err != nil {
		jsConn.Close()
		return nil, err
	}
	fail := func(err error) (*Node, error) {
		carConn.Close()
		jsConn.Close()
		return nil, err
	}
	js, err := jetstream.New(jsConn)
	if err != nil {
		return fail(err)
	}
	bucket := bucketName(opt.Seed)
	kv, err := createBucket(ctx, js, bucketConfig(opt.Seed, opt.Replicas))
	if err != nil {
		return fail(err)
	}
	rules, err := openRules(ctx, js, opt.Seed, opt.Replicas, log)
	if err != nil {
		return fail(err)
	}
	slot, err := claimSlot(ctx, kv)
	if err != nil {
		rules.close()
		return fail(err)
	}
	prefix := "citydrive." + strconv.FormatUint(opt.Seed, 10)
	n := &Node{js: jsConn, cars: carConn, kv: kv, rules: rules, first: slot << PlayerBits}
	n.dir = newDirectory(slot, opt.Lease.TTL, time.Now)
	n.world = newWorld(js, kv, n.dir, slot, log, opt.World)
	n.carsX = newCars(carConn, prefix, opt.CarRule, log)
	n.world.follow = n.carsX.follow
	n.lease = newLeaser(kv, n.dir, n.world, slot, opt.Advertise, opt.Lease, log, n.carsX.regionCounts)
	n.world.lease = n.lease
	if p := opt.pause; p != nil {
		n.world.testHookWrite, n.lease.testHookBeat = p.write, p.beat
	}
	if n.fwd, err = newForwarder(jsConn, prefix, n.world); err == nil {
		n.world.fwd = n.fwd
		// The first heartbeat before anything may commit.
		err = n.lease.beat(ctx)
	}
	if err != nil {
		n.carsX.close()
		rules.close()
		return fail(fmt.Errorf("cluster: joining: %w", err))
	}
	n.world.start()
	n.lease.start()
	log.Info("joined the cluster", "nats", jsConn.ConnectedUrl(), "bucket", bucket, "replicas", opt.Replicas, "server_slot", slot)
	return n, nil
}

// A NATS connection is pinged every pingInterval and given up (and made
// to another node) once maxPingsOut pings are unanswered at the next:
// within stallWithin of its node going silent.
const maxPingsOut = 2

func pingInterval(ttl time.Duration) time.Duration { return ttl / 4 }

func stallWithin(ttl time.Duration) time.Duration {
	return time.Duration(maxPingsOut+1) * pingInterval(ttl)
}

// claimSlot increments the server counter by compare-and-set and returns
// this server's slot (1..maxServerSlot).
func claimSlot(ctx context.Context, kv jetstream.KeyValue) (uint32, error) {
	for {
		e, err := kv.Get(ctx, serversKey)
		var n uint64
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			if ctx.Err() != nil {
				return 0, fmt.Errorf("cluster: reading the server counter: %w", err)
			}
			time.Sleep(100 * time.Millisecond) // JetStream settling; ctx bounds it
			continue
		default:
			if n, err = strconv.ParseUint(string(e.Value()), 10, 32); err != nil {
				return 0, fmt.Errorf("cluster: server counter %q: %w", e.Value(), err)
			}
			rev = e.Revision()
		}
		next := n%maxServerSlot + 1
		v := []byte(strconv.FormatUint(next, 10))
		if rev == 0 {
			_, err = kv.Create(ctx, serversKey, v)
		} else {
			_, err = kv.Update(ctx, serversKey, v, rev)
		}
		if err == nil {
			return uint32(next), nil
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("cluster: claiming a server slot: %w", err)
		}
	}
}

// World is the shared voxel world (the server's netsync.World).
func (n *Node) World() *World { return n.world }

// Cars is the car exchange (the server's netsync.CarExchange).
func (n *Node) Cars() *Cars { return n.carsX }

// Rules are the cluster's shared access rules.
func (n *Node) Rules() *Rules { return n.rules }

// FirstPlayer is the server's player id offset (netsync.ServerConfig).
func (n *Node) FirstPlayer() uint32 { return n.first }

// Owners is the ownership directory: which server owns which region.
func (n *Node) Owners() *Directory { return n.dir }

// SetAdvertise sets the address players dial for this server (the next
// heartbeat carries it).
func (n *Node) SetAdvertise(addr string) { n.lease.setAddr(addr) }

// Register adds the cluster metrics to r.
func (n *Node) Register(r prometheus.Registerer) error {
	w := n.world
	return errors.Join(r.Register(w.commitSeconds), r.Register(w.casRetries), r.Register(w.chunkWrites), r.Register(w.watchedGauge),
		r.Register(w.fenced), r.Register(w.forwarded), r.Register(w.consumerStarts), r.Register(n.lease.ownedGauge),
		r.Register(n.carsX.rejected))
}

// Close stops the world and the car exchange, hands this server's regions
// back (the others take them at once) and closes the connections. Call it
// after the server has stopped ticking.
func (n *Node) Close() error {
	if n.whois != nil {
		_ = n.whois.Unsubscribe()
	}
	n.fwd.close()
	n.world.close()
	n.lease.close()
	n.carsX.close()
	n.rules.close()
	n.cars.Close()
	n.js.Close()
	return nil
}

// Connected reports whether both of the node's NATS connections are up
// (a server's readiness: edits and cars both need them).
func (n *Node) Connected() bool { return n.js.IsConnected() && n.cars.IsConnected() }
