package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel/store"
)

// runServer is `citydrive server`: a dedicated server until SIGINT/SIGTERM.
func runServer(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("server", stdout, "server [flags]", serverAbout)
	addr := fs.String("addr", ":4242", "UDP `address` to listen on (QUIC)")
	pubHost := fs.String("public-host", "", "the `host` name or IP players reach this server at, for the join code (default: the -addr IP, else this machine's first non-loopback address)")
	defDir, _ := store.DefaultDir()
	data := fs.String("data", defDir, "data `directory`: the server identity (certificate) and every world's edits (worlds/<seed>/)")
	seed := fs.Uint64("seed", defaultSeed, "world seed: players must start with the same -seed")
	def := netsync.DefaultServerConfig()
	tickHz := fs.Int("tick-hz", def.TickHz, "server ticks per second")
	maxRadius := fs.Uint("max-radius", uint(def.MaxRadius), fmt.Sprintf("largest subscription radius in chunks (1..%d)", wire.AbsMaxRadius))
	deliveries := fs.Int("deliveries", def.DeliveriesPerTick, "edited-chunk deliveries per client per tick")
	budget := fs.Duration("delivery-budget", def.DeliveryBudget, "wall time one tick may spend delivering chunks to all clients (0: count only)")
	reach := fs.Float64("reach", def.Reach, "how far from their car (metres) players may edit blocks (0: anywhere in their area)")
	maxPlayers := fs.Int("max-players", def.MaxPlayers, "connected players at most; more are refused \"server full\"")
	maxHS := fs.Int("max-handshakes", def.MaxHandshakes, "concurrent handshakes at most; more are refused busy (close code 5)")
	maxHSAddr := fs.Int("max-handshakes-per-addr", def.MaxHandshakesPerAddr, "concurrent handshakes from one address (IPv4, or IPv6 /64) at most; more are refused busy")
	maxPlayersAddr := fs.Int("max-players-per-addr", def.MaxPlayersPerAddr, "players connected from one address (IPv4, or IPv6 /64) at most: a household or NAT gets several; more are refused")
	idleLimit := fs.Duration("idle-limit", def.IdleLimit, "how long a player may send neither car nor edit before it is let go")
	clockRate := fs.Float64("clock-pings-per-second", def.ClockPingsPerSecond, "world-clock pings read per client per second (also the burst); faster ones wait")
	carRate := fs.Float64("cars-per-second", def.CarsPerSecond, "car datagrams taken per client per second (also the burst); the rest are dropped unread")
	resetEvery := fs.Duration("reset-every", def.ResetEvery, "shortest time between two granted car resets (Backspace) of a player")
	resetReach := fs.Float64("reset-reach", def.ResetReach, "how far (metres) a reset may move a car from where the server has it")
	var spawn pointFlag
	spawn.p.X, spawn.p.Z = def.SpawnX, def.SpawnZ
	fs.Var(&spawn, "spawn", "where new players' cars start: `x,z` metres (default 0,0)")
	spawnRadius := fs.Float64("spawn-radius", def.SpawnRadius, "how far (metres) from -spawn a new player's first car position may be (0: anywhere, for load tools such as citydrive bots)")
	subRate := fs.Float64("subscribes-per-second", def.SubscribesPerSecond, "Subscribes applied per client per second (also the burst); faster ones are coalesced, the newest kept")
	subChunks := fs.Int("subscribe-chunks-per-tick", def.SubscribeChunksPerTick, "cylinder changes (chunks entered plus left) applied per tick for all clients; later Subscribes wait a tick")
	helloTimeout := fs.Duration("hello-timeout", def.HelloTimeout, "time from accepting a connection to a complete Hello")
	frameTimeout := fs.Duration("frame-timeout", def.FrameTimeout, "time a client's frame may take from its first byte")
	subTimeout := fs.Duration("subscribe-timeout", def.SubscribeTimeout, "time a client may stay connected before its first Subscribe")
	tickBudget := fs.Duration("tick-budget", def.TickBudget, "work one tick may take before the server slows time (lowers the tick rate; 0: never)")
	tickFloor := fs.Int("tick-floor-hz", def.TickFloorHz, "lowest tick rate time may slow to")
	carSpeed := fs.Float64("max-car-speed", def.MaxCarSpeed, "fastest a player's car may move (m/s); faster moves and jumps are dropped (0: not checked)")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at http://`host:port`/metrics (e.g. :9100; empty: off)")
	clusterURLs := fs.String("cluster", "", "share the world with other servers through NATS: `nats://host:port[,…]` (edits in JetStream, not -data; empty: a single server)")
	replicas := fs.Int("replicas", 3, "with -cluster: replicas of the edit bucket (1 for a single NATS node)")
	natsAuth := addNATSAuthFlags(fs)
	webAddr := fs.String("web", "", "serve the live web map, the admin API and the health probes at http://`host:port`/ (e.g. 127.0.0.1:8080; empty: off)")
	wtAddr := fs.String("webtransport-addr", "", "UDP `address` for browser players (WebTransport over HTTP/3); default with -web: the -addr host, port+1 (\"off\": none)")
	webPublic := fs.Bool("web-public", false, "with -web: take admin requests from other machines too, with the map served over TLS (the server's identity certificate)")
	// The environment is read after parsing: a default would print the secret in -h.
	adminToken := fs.String("admin-token", "", "the admin `token` (default $CITYDRIVE_ADMIN_TOKEN, else the one generated into -data/admin-token on first start)")
	verbose := fs.Bool("v", false, "debug logging")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the server's whole run to this `file`")
	if err := fs.parse(args); err != nil {
		return err
	}
	switch {
	case *addr == "":
		return fmt.Errorf("-addr must not be empty (e.g. :4242)")
	case *data == "":
		return fmt.Errorf("-data is required: no default data directory could be found (set $HOME or $XDG_DATA_HOME)")
	case *tickHz < 1 || *tickHz > wire.MaxTickHz:
		return fmt.Errorf("-tick-hz must be in 1..%d, got %d", wire.MaxTickHz, *tickHz)
	case *maxRadius < 1 || *maxRadius > wire.AbsMaxRadius:
		return fmt.Errorf("-max-radius must be in 1..%d chunks, got %d", wire.AbsMaxRadius, *maxRadius)
	case *deliveries < 1 || *deliveries > 4096:
		return fmt.Errorf("-deliveries must be in 1..4096, got %d", *deliveries)
	case *budget < 0 || *budget > time.Second:
		return fmt.Errorf("-delivery-budget must be in [0, 1s], got %v", *budget)
	case !(*reach >= 0 && *reach <= 1e6):
		return fmt.Errorf("-reach must be in [0, 1e6] metres, got %g", *reach)
	case *maxPlayers < 1, *maxHS < 1, *maxHSAddr < 1, *maxPlayersAddr < 1:
		return fmt.Errorf("-max-players, -max-handshakes, -max-handshakes-per-addr and -max-players-per-addr must be at least 1")
	case *idleLimit <= 0, *resetEvery <= 0:
		return fmt.Errorf("-idle-limit and -reset-every must be positive")
	case !(*clockRate >= 1 && *clockRate <= 1000), !(*carRate >= 1 && *carRate <= 1e4):
		return fmt.Errorf("-clock-pings-per-second must be in [1, 1000] and -cars-per-second in [1, 1e4], got %g and %g", *clockRate, *carRate)
	case !(*resetReach >= 0 && *resetReach <= 1e6), !(*spawnRadius >= 0 && *spawnRadius <= 1e9):
		return fmt.Errorf("-reset-reach must be in [0, 1e6] and -spawn-radius in [0, 1e9] metres, got %g and %g", *resetReach, *spawnRadius)
	case *subChunks < 1:
		return fmt.Errorf("-subscribe-chunks-per-tick must be at least 1, got %d", *subChunks)
	case !(*subRate >= 1 && *subRate <= 1000):
		return fmt.Errorf("-subscribes-per-second must be in [1, 1000], got %g", *subRate)
	case *tickBudget < 0 || *tickBudget > time.Second:
		return fmt.Errorf("-tick-budget must be in [0, 1s], got %v", *tickBudget)
	case *tickFloor < 1 || *tickFloor > wire.MaxTickHz:
		return fmt.Errorf("-tick-floor-hz must be in 1..%d (above -tick-hz it means -tick-hz), got %d", wire.MaxTickHz, *tickFloor)
	case !(*carSpeed >= 0 && *carSpeed <= 1e4):
		return fmt.Errorf("-max-car-speed must be in [0, 1e4] m/s, got %g", *carSpeed)
	case *helloTimeout <= 0, *frameTimeout <= 0, *subTimeout <= 0:
		return fmt.Errorf("-hello-timeout, -frame-timeout and -subscribe-timeout must be positive")
	}
	urls, err := parseNATS(*clusterURLs)
	if err != nil {
		return err
	}
	if err := natsAuth.check(urls); err != nil {
		return err
	}
	if *replicas < 1 || *replicas > 5 {
		return fmt.Errorf("-replicas must be in 1..5 (JetStream's limit), got %d", *replicas)
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return fmt.Errorf("-addr %q: want host:port or :port: %v", *addr, err)
	}
	if *metricsAddr != "" {
		if _, _, err := net.SplitHostPort(*metricsAddr); err != nil {
			return fmt.Errorf("-metrics-addr %q: want host:port or :port: %v", *metricsAddr, err)
		}
	}
	if *webAddr != "" {
		if _, _, err := net.SplitHostPort(*webAddr); err != nil {
			return fmt.Errorf("-web %q: want host:port or :port: %v", *webAddr, err)
		}
	} else if *webPublic {
		return fmt.Errorf("-web-public needs -web")
	}
	wt, err := webTransportAddr(*wtAddr, *addr, *webAddr != "")
	if err != nil {
		return err
	}
	if *adminToken == "" {
		*adminToken = os.Getenv("CITYDRIVE_ADMIN_TOKEN")
	}
	if *adminToken != "" {
		if err := webmap.CheckToken(*adminToken); err != nil {
			return fmt.Errorf("-admin-token: %v", err)
		}
	}
	if *pubHost != "" {
		if err := checkHost(*pubHost); err != nil {
			return fmt.Errorf("-public-host %q: %v (a host name or IP, no port)", *pubHost, err)
		}
	}
	if err := checkOptionalFile("cpuprofile", *cpuprofile); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	tuning := def.Tuning
	tuning.TickHz, tuning.MaxRadius, tuning.DeliveriesPerTick = *tickHz, uint32(*maxRadius), *deliveries
	tuning.DeliveryBudget, tuning.Reach = *budget, *reach
	tuning.MaxPlayers, tuning.MaxHandshakes, tuning.MaxHandshakesPerAddr = *maxPlayers, *maxHS, *maxHSAddr
	tuning.SubscribesPerSecond, tuning.MaxCarSpeed = *subRate, *carSpeed
	tuning.SubscribeChunksPerTick = *subChunks
	tuning.TickBudget, tuning.TickFloorHz = *tickBudget, *tickFloor
	tuning.HelloTimeout, tuning.FrameTimeout, tuning.SubscribeTimeout = *helloTimeout, *frameTimeout, *subTimeout
	tuning.MaxPlayersPerAddr, tuning.IdleLimit = *maxPlayersAddr, *idleLimit
	tuning.ClockPingsPerSecond, tuning.CarsPerSecond = *clockRate, *carRate
	tuning.ResetEvery, tuning.ResetReach = *resetEvery, *resetReach
	tuning.SpawnX, tuning.SpawnZ, tuning.SpawnRadius = spawn.p.X, spawn.p.Z, *spawnRadius
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var access *webmap.Access
	h, err := host.Start(ctx, host.Options{
		Addr: *addr, WebTransportAddr: wt, DataDir: *data, Seed: *seed, Tuning: tuning, MetricsAddr: *metricsAddr, Logger: log,
		Cluster: urls, Replicas: *replicas, ClusterCreds: *natsAuth.creds, ClusterCA: *natsAuth.ca, OpenGate: func(shared *cluster.Rules) (netsync.Gate, error) {
			a, err := openAccess(*data, shared, log)
			if err != nil {
				return nil, err
			}
			access = a
			return a, nil
		},
	})
	if err != nil {
		return clusterHint(alreadyRunning(err, *data))
	}
	access.KickBanned(h.Server(), log) // in a cluster: a ban made on another server
	var web *webmap.Server
	if *webAddr != "" {
		if web, err = startWeb(h, access, *data, *webAddr, *webPublic, *adminToken, *seed, stop, stdout, log); err != nil {
			_ = h.Close()
			return err
		}
		defer web.Close()
	}
	code := serverJoinCode(h, *pubHost, *seed, log)
	if n := h.Node(); n != nil {
		// Players are sent to the owner of their region at the address
		// the join code names (-public-host).
		n.SetAdvertise(net.JoinHostPort(code.host, strconv.Itoa(code.port)))
	}
	if web != nil && h.Server().WebTransportAddr() != nil {
		link := web.PlayURL(code.host, code.String())
		log.Info("browser players open the link", "url", link, "webtransport", h.Server().WebTransportAddr().String())
		fmt.Fprintf(stdout, "play in a browser: %s\n", link)
		if insecureForBrowsers(*webPublic, code.host) {
			log.Warn("browsers allow WebTransport only on localhost or HTTPS: players on other machines need -web-public (or the web endpoint behind a TLS proxy) for the link to work", "url", link)
		}
	}
	log.Info("citydrive server ready; give players the join code",
		"addr", h.Addr().String(), "fingerprint", h.Fingerprint(), "seed", *seed, "join", code.String())
	// The join code is for players; the lines after it are for scripts
	// (cmd/cluster.sh reads the fingerprint line).
	fmt.Fprintf(stdout, "join code: %s\nplayers run: citydrive join %s\naddress: %s\nfingerprint: %s\nseed: %d\n",
		code, shellQuote(code.String()), h.Addr(), h.Fingerprint(), *seed)
	<-h.Done()
	log.Info("shutting down")
	return h.Close()
}

const serverAbout = `A dedicated server until SIGINT or SIGTERM: it owns the world's edits
(kept in -data) and the cars. At start it prints a join code; players run
  citydrive join CODE
(or citydrive client -addr HOST:PORT -server-fingerprint FP -seed SEED).`

// webTransportAddr is -webtransport-addr: "off", an address, or by
// default with the web endpoint the game's host with the next port (a
// random one when the game's is).
func webTransportAddr(flagAddr, gameAddr string, web bool) (string, error) {
	switch {
	case flagAddr == "off", flagAddr == "" && !web:
		return "", nil
	case flagAddr != "":
		if _, _, err := net.SplitHostPort(flagAddr); err != nil {
			return "", fmt.Errorf("-webtransport-addr %q: want host:port or :port: %v", flagAddr, err)
		}
		return flagAddr, nil
	}
	host, port, err := net.SplitHostPort(gameAddr)
	if err != nil {
		return "", fmt.Errorf("-addr %q: %v", gameAddr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p >= 65535 {
		return "", fmt.Errorf("-addr %q: the port must be 0..65534 for the default -webtransport-addr (the next port); give -webtransport-addr", gameAddr)
	}
	if p > 0 {
		p++
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

// insecureForBrowsers reports whether a link to play at host over plain
// HTTP (tls false) lacks WebTransport in browsers: they offer it only to
// secure contexts, HTTPS or a loopback host.
func insecureForBrowsers(tls bool, host string) bool {
	if tls || host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// openAccess is the server's join rules: a cluster's shared ones, or the
// data directory's access.json on a single server. In a cluster a
// leftover access.json is not read, and the log says so.
func openAccess(data string, shared *cluster.Rules, log *slog.Logger) (*webmap.Access, error) {
	if shared == nil {
		return webmap.OpenAccess(data)
	}
	if _, err := os.Stat(filepath.Join(data, webmap.AccessFile)); err == nil {
		log.Warn("in a cluster the bans, allow-list and password are the cluster's (its access bucket); this access.json is not used",
			"file", filepath.Join(data, webmap.AccessFile))
	}
	return webmap.OpenSharedAccess(shared, log), nil
}

// serverJoinCode is the code players join h with: its port and the host
// they can reach it at (see publicHost).
func serverJoinCode(h *host.Host, pubHost string, seed uint64, log *slog.Logger) joinCode {
	var listen net.IP
	port := 0
	if ua, ok := h.Addr().(*net.UDPAddr); ok {
		listen, port = ua.IP, ua.Port
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		log.Warn("listing this machine's addresses for the join code", "err", err)
	}
	name, ok := publicHost(pubHost, listen, addrs)
	if !ok {
		log.Warn("the join code names a loopback address, which only this machine can reach: give -public-host", "host", name)
	}
	return joinCode{host: name, port: port, seed: seed, fingerprint: h.Fingerprint()}
}

// shellQuote quotes s for a POSIX shell when it holds anything a shell
// would take apart (an IPv6 code's brackets are globs).
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":/.-_", r)) {
			return "'" + s + "'"
		}
	}
	return s
}

// alreadyRunning says what a locked data directory means: another
// citydrive has it open. (The store's own error names a file and a lock
// timeout, which reads like damage to a player.)
func alreadyRunning(err error, dir string) error {
	if !errors.Is(err, store.ErrInUse) {
		return err
	}
	return inUseError{dir: dir, err: err}
}

type inUseError struct {
	dir string
	err error
}

func (e inUseError) Error() string {
	return fmt.Sprintf("already running: another citydrive (a game or a server) is using the data directory %s; quit it first, or give this one another directory with -data", e.dir)
}

func (e inUseError) Unwrap() error { return e.err }

// parseNATS splits -cluster's comma-separated NATS URLs, each
// nats://host:port.
func parseNATS(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, u := range strings.Split(s, ",") {
		u = strings.TrimSpace(u)
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme != "nats" || pu.Port() == "" {
			return nil, fmt.Errorf("-cluster: %q: want nats://host:port", u)
		}
		out = append(out, u)
	}
	return out, nil
}

// startWeb serves the web map, the admin API and the probes for h. The
// admin token is the flag's (or environment's), else the one kept in the
// data directory, printed once when it is first generated.
func startWeb(h *host.Host, access *webmap.Access, data, addr string, public bool, token string, seed uint64,
	shutdown func(), stdout io.Writer, log *slog.Logger) (*webmap.Server, error) {
	if token == "" {
		var created bool
		var err error
		if token, created, err = webmap.LoadOrCreateToken(data); err != nil {
			return nil, err
		}
		if created {
			fmt.Fprintf(stdout, "admin token (shown once; kept in %s): %s\n", filepath.Join(data, webmap.TokenFile), token)
		}
	}
	opt := webmap.Options{Addr: addr, Public: public, Seed: seed, Source: h.Server(), Access: access, Token: token,
		Ready: h.Ready, Shutdown: shutdown, Logger: log, Game: h.Server(), GameFiles: gameFiles()}
	if w := h.World(); w != nil {
		opt.Edited = w.EditedChunks
	}
	if n := h.Node(); n != nil { // every server's players on the map
		fleet, err := n.WatchFleet()
		if err != nil {
			return nil, err
		}
		opt.Cluster = &webmap.Cluster{Fleet: fleet, Self: n.Slot()}
		log.Info("web map shows the whole cluster", "this_server", cluster.ServerName(n.FirstPlayer()))
	}
	fail := func(err error) (*webmap.Server, error) {
		if opt.Cluster != nil {
			_ = opt.Cluster.Fleet.Close()
		}
		return nil, err
	}
	if public {
		cert, _, err := transport.LoadOrCreateIdentity(data, log)
		if err != nil {
			return fail(err)
		}
		opt.Cert = cert
	}
	web, err := webmap.Start(opt)
	if err != nil {
		return fail(err)
	}
	log.Info("web map", "url", web.URL())
	fmt.Fprintf(stdout, "web map: %s\n", web.URL())
	return web, nil
}
