// Package host runs a citydrive server in-process: the voxel world
// (voxel/authority: edit index and store) in a data directory, the netsync QUIC server on it,
// and optionally a Prometheus endpoint. `citydrive server` and solo play
// both use it; solo play then dials it over loopback with the pinned
// fingerprint like any remote player (one code path).
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/voxel/authority"
	"citydrive/voxel/gen"
)

// Options configure Start.
type Options struct {
	Addr string // UDP listen address ("": a free loopback port, for solo play)
	// WebTransportAddr, if set, takes browsers' WebTransport sessions on
	// this UDP address too (netsync.ServerConfig.WebTransportAddr).
	WebTransportAddr string
	DataDir          string // required: server identity here, edits under worlds/<seed>/
	Seed             uint64
	// Tuning is the server's budgets and limits; the zero value means
	// netsync.DefaultServerConfig's.
	Tuning netsync.Tuning
	// MetricsAddr, if set, serves Prometheus metrics at /metrics on this
	// TCP address (":9100", "127.0.0.1:0").
	MetricsAddr string
	// WorldClock overrides the server's world clock (nil: wall time,
	// netsync.WallWorldClock); a soak fixes it so its traffic repeats.
	WorldClock func() time.Duration
	Logger     *slog.Logger
	// Observer sees joins, departures and refusals (see netsync.Event).
	Observer func(netsync.Event)
	// World tunes the voxel world (pass rate, commit queue).
	World authority.Options
	// Cluster, if set, makes this server one of several sharing the world
	// through these NATS servers (netsync/cluster): edits in a replicated
	// JetStream bucket instead of the data directory, cars exchanged on
	// NATS subjects. Empty: a single server with its bbolt store, as ever.
	Cluster []string
	// Replicas of the cluster's edit bucket (0: 3).
	Replicas int
	// ClusterCreds and ClusterCA sign this server in to a secured NATS
	// (cluster.Options.Creds, CA).
	ClusterCreds, ClusterCA string
	// Gate, if set, decides who may join (the operator's bans, allow-list
	// and join password: webmap.Access).
	Gate netsync.Gate
	// OpenGate, if set (and Gate not), makes the Gate once the world is
	// open: with the cluster's shared access rules in a cluster, nil on a
	// single server (webmap.OpenSharedAccess or webmap.OpenAccess).
	OpenGate func(shared *cluster.Rules) (netsync.Gate, error)
}

// The voxel world speaks only voxel types and netsync.World asks for
// nothing else, so the authority plugs into the server as it is.
var _ netsync.World = (*authority.World)(nil)

// WorldDir is where the edits of seed's world live inside a data directory.
// Each seed has its own, so solo play with another -seed starts a fresh
// world instead of failing on the other world's store.
func WorldDir(dataDir string, seed uint64) string {
	return filepath.Join(dataDir, "worlds", strconv.FormatUint(seed, 10))
}

// Host is a running server. Close stops it.
type Host struct {
	opt     Options
	log     *slog.Logger
	world   *authority.World // nil in a cluster
	node    *cluster.Node    // nil without one
	srv     *netsync.Server
	reg     *prometheus.Registry
	httpSrv *http.Server
	httpLn  net.Listener

	cancel   context.CancelFunc
	runDone  chan struct{}
	httpDone chan struct{}
	// rosterDone: the cluster roster's publisher has stopped
	rosterDone chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

// Start opens the world in opt.DataDir, starts the server ticking and, if
// asked, the metrics endpoint. Cancelling ctx stops the server's tick (call
// Close to release everything). On error nothing is left running.
func Start(ctx context.Context, opt Options) (*Host, error) {
	if opt.DataDir == "" {
		return nil, errors.New("host: Options.DataDir is required")
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg := netsync.DefaultServerConfig()
	if opt.Addr != "" {
		cfg.Addr = opt.Addr
	}
	cfg.WebTransportAddr = opt.WebTransportAddr
	if opt.Tuning != (netsync.Tuning{}) {
		cfg.Tuning = opt.Tuning
	}
	reg := prometheus.NewRegistry()
	h := &Host{opt: opt, log: log, reg: reg, runDone: make(chan struct{}), httpDone: make(chan struct{})}
	var regErr error
	if len(opt.Cluster) > 0 {
		jctx, cancel := context.WithTimeout(ctx, joinTimeout)
		node, err := cluster.Join(jctx, cluster.Options{URLs: opt.Cluster, Seed: opt.Seed, Replicas: opt.Replicas, Logger: log,
			Creds: opt.ClusterCreds, CA: opt.ClusterCA,
			CarRule: cfg.CarRule()}) // other servers' cars pass this server's rule
		cancel()
		if err != nil {
			return nil, err
		}
		h.node = node
		cfg.World, cfg.Cars, cfg.FirstPlayer = node.World(), node.Cars(), node.FirstPlayer()
		cfg.Owners = node.Owners().Coords() // the region owners players are handed to
		regErr = node.Register(reg)
	} else {
		wopt := opt.World
		wopt.ServeExports = true // citydrive export reads a running world through it
		world, err := authority.OpenWith(WorldDir(opt.DataDir, opt.Seed), opt.Seed, log, wopt)
		if err != nil {
			return nil, err
		}
		h.world, cfg.World = world, world
		regErr = world.Register(reg)
	}
	if err := errors.Join(regErr,
		reg.Register(collectors.NewGoCollector()),
		reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))); err != nil {
		_ = h.closeWorld()
		return nil, err
	}
	cfg.DataDir, cfg.Seed, cfg.Generator = opt.DataDir, opt.Seed, gen.Version
	cfg.WorldClock = opt.WorldClock
	cfg.Registerer, cfg.Logger, cfg.Observer, cfg.Gate = reg, log, opt.Observer, opt.Gate
	if opt.OpenGate != nil && opt.Gate == nil {
		var shared *cluster.Rules
		if h.node != nil {
			shared = h.node.Rules()
		}
		gate, err := opt.OpenGate(shared)
		if err != nil {
			_ = h.closeWorld()
			return nil, err
		}
		cfg.Gate = gate
	}
	srv, err := netsync.NewServer(cfg)
	if err != nil {
		_ = h.closeWorld()
		return nil, err
	}
	h.srv = srv
	if h.node != nil {
		h.node.SetAdvertise(h.DialAddr()) // `citydrive server` names its public host instead
		// the other servers ask before showing a car handed over from here under its id
		if err := h.node.AnswerWhois(srv.HasPlayerKey); err != nil {
			_ = srv.Close()
			_ = h.closeWorld()
			return nil, fmt.Errorf("host: answering the cluster's vouches: %w", err)
		}
	}
	if opt.MetricsAddr != "" {
		ln, err := net.Listen("tcp", opt.MetricsAddr)
		if err != nil {
			_ = srv.Close()
			_ = h.closeWorld()
			return nil, fmt.Errorf("host: metrics endpoint on %s: %w", opt.MetricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
		// The probes also where the metrics are, for servers without -web.
		mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { probe(w, nil) })
		mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { probe(w, h.Ready()) })
		h.httpLn = ln
		h.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() {
			defer close(h.httpDone)
			if err := h.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics endpoint stopped", "err", err)
			}
		}()
		log.Info("metrics endpoint", "url", "http://"+ln.Addr().String()+"/metrics")
	} else {
		close(h.httpDone)
	}
	runCtx, cancel := context.WithCancel(ctx)
	h.cancel = cancel
	go func() {
		defer close(h.runDone)
		if err := srv.Run(runCtx); err != nil {
			log.Error("server stopped", "err", err)
		}
	}()
	h.rosterDone = make(chan struct{})
	if h.node != nil {
		go h.publishRoster(runCtx)
	} else {
		close(h.rosterDone)
	}
	return h, nil
}

// Addr is the UDP address the server listens on.
func (h *Host) Addr() net.Addr { return h.srv.Addr() }

// DialAddr is an address a client on this machine can dial: Addr with an
// unspecified IP (":4242") replaced by loopback.
func (h *Host) DialAddr() string {
	ua, ok := h.srv.Addr().(*net.UDPAddr)
	if !ok {
		return h.srv.Addr().String()
	}
	ip := ua.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(ua.Port))
}

// Fingerprint is the SHA-256 fingerprint of the server's certificate, the
// pin clients pass as ClientConfig.Fingerprint.
func (h *Host) Fingerprint() string { return h.srv.Fingerprint() }

// MetricsAddr is the metrics endpoint's TCP address (nil without one).
func (h *Host) MetricsAddr() net.Addr {
	if h.httpLn == nil {
		return nil
	}
	return h.httpLn.Addr()
}

// Server and World expose the parts (stats, tests); World is nil in a
// cluster.
func (h *Host) Server() *netsync.Server        { return h.srv }
func (h *Host) Node() *cluster.Node            { return h.node }
func (h *Host) World() *authority.World        { return h.world }
func (h *Host) Registry() *prometheus.Registry { return h.reg }

// ClientConfig is a netsync.ClientConfig that dials this host from the
// same machine: address, pinned fingerprint, seed and generator version
// filled in. Set Centre, Radius and Logger, then netsync.Dial.
func (h *Host) ClientConfig() netsync.ClientConfig {
	return netsync.ClientConfig{Addr: h.DialAddr(), Fingerprint: h.Fingerprint(),
		Seed: h.opt.Seed, Generator: gen.Version, Logger: h.log}
}

// Done is closed when the server has stopped ticking (ctx cancelled or
// Close).
func (h *Host) Done() <-chan struct{} { return h.runDone }

// Close stops the server (every client is told it is shutting down), the
// metrics endpoint and the world, and waits for all their goroutines.
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		// Stop the tick first (Run is certain to have been called, so
		// Server.Close then waits for everything it started).
		h.cancel()
		<-h.runDone
		<-h.rosterDone
		err := h.srv.Close()
		if h.httpSrv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err = errors.Join(err, h.httpSrv.Shutdown(ctx))
			cancel()
			_ = h.httpSrv.Close()
		}
		<-h.httpDone
		h.closeErr = errors.Join(err, h.closeWorld())
	})
	return h.closeErr
}

// publishRoster tells the cluster its players' names every
// cluster.RosterEvery until ctx ends (the other servers' maps show them).
func (h *Host) publishRoster(ctx context.Context) {
	defer close(h.rosterDone)
	t := time.NewTicker(cluster.RosterEvery)
	defer t.Stop()
	var ps []cluster.RosterEntry
	for {
		sctx, cancel := context.WithTimeout(ctx, cluster.RosterEvery)
		snap, err := h.srv.Snapshot(sctx, ^uint64(0)>>1) // no edits: players only
		cancel()
		if err == nil {
			ps = ps[:0]
			for _, p := range snap.Players {
				ps = append(ps, cluster.RosterEntry{ID: p.ID, Name: p.Name})
			}
			if err := h.node.PublishRoster(ps); err != nil {
				h.log.Debug("publishing the roster failed", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Ready says why the host should not be sent players now (nil: it
// should): its tick has stopped, its edit store is closed, it lost its
// cluster, or it is full. It is the /readyz probe.
func (h *Host) Ready() error {
	select {
	case <-h.runDone:
		return errors.New("server stopped")
	default:
	}
	if h.node != nil && !h.node.Connected() {
		return errors.New("cluster: not connected to NATS")
	}
	if h.world != nil && h.world.Closed() {
		return errors.New("edit store closed")
	}
	if n, most := h.srv.Players(), h.srv.MaxPlayers(); n >= most {
		return fmt.Errorf("full: %d of %d players", n, most)
	}
	return nil
}

// probe writes a Kubernetes probe's answer: 200 "ok", or 503 and why.
func probe(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "not ready: %v\n", err)
		return
	}
	fmt.Fprintln(w, "ok")
}

// joinTimeout bounds joining a cluster (JetStream may still be electing
// its leaders when every process starts at once).
const joinTimeout = 30 * time.Second

func (h *Host) closeWorld() error {
	if h.node != nil {
		return h.node.Close()
	}
	return h.world.Close()
}
