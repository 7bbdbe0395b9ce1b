// Package webmap is the operator's web front end of `citydrive server
// -web`: a live map whose roads, water, parks, buildings and traffic are
// computed in the browser from the seed (roadgraph/world compiled to
// WebAssembly, see wasm/), with only what the seed does not determine
// streamed to it (players' cars, edited chunks, the server's pace); the
// admin API (kick, ban, allow-list, join password, broadcast, graceful
// shutdown) behind a token; and the health probes.
//
// Everything the page needs is embedded in the binary (static/); the
// WebAssembly module is built by `go generate` (gen.go) into static/ and
// is not committed.
package webmap

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

//go:embed static
var embedded embed.FS

// Source is the running server as the map sees it (*netsync.Server).
type Source interface {
	Snapshot(ctx context.Context, since uint64) (netsync.Snapshot, error)
	Kick(key uint64, reason string) int
	Notify(ctx context.Context, n wire.Notice) (int, error)
}

// Options configure Start.
type Options struct {
	Addr string // TCP listen address, e.g. 127.0.0.1:8080
	// Public serves every address, over TLS with Cert (the server's
	// identity); without it admin requests from other machines are
	// refused.
	Public bool
	Cert   tls.Certificate
	Seed   uint64
	Source Source
	Access *Access
	Token  string // the admin token; required
	// Edited lists chunks with edits at page load (nil: none known).
	Edited func(max int, fn func(voxel.ChunkPos)) bool
	// Ready says why the server is not ready for players (nil: ready).
	Ready func() error
	// Shutdown stops the server (after a countdown).
	Shutdown func()
	// Assets overrides the embedded static files (tests serve a freshly
	// built map.wasm).
	Assets fs.FS
	// Game, if set, is told to game pages at /play/config; GameFiles is the
	// page itself, served at /play/ (nil: not in this build).
	Game      Game
	GameFiles fs.FS
	// Interval is how often cars are streamed (defaults to 500 ms).
	Interval time.Duration
	Logger   *slog.Logger
	// Cluster, in a cluster, puts every server's players on the map, each
	// with its server (nil: a single server's players). Close closes its
	// Fleet.
	Cluster *Cluster
}

// Cluster is the rest of a cluster as the map sees it.
type Cluster struct {
	Fleet *cluster.Fleet // every other server's cars
	Self  uint32         // this server's slot (cluster.Node.Slot)
}

// fleetSource is a cluster server's Source with the other servers' players
// in its snapshots: id, car, server and the name its server's roster gives
// (their keys and bytes are their servers'; kick them there, or ban
// anywhere: a ban holds on every server).
type fleetSource struct {
	Source
	c *Cluster
}

func (f fleetSource) Snapshot(ctx context.Context, since uint64) (netsync.Snapshot, error) {
	snap, err := f.Source.Snapshot(ctx, since)
	if err != nil {
		return snap, err
	}
	local := make(map[uint32]bool, len(snap.Players))
	for _, p := range snap.Players {
		local[p.ID] = true
	}
	for _, c := range f.c.Fleet.Cars(nil) {
		if local[c.Player] || cluster.ServerSlot(c.Player) == f.c.Self {
			continue // this server's own (a relay of one that left, say)
		}
		p := netsync.PlayerInfo{ID: c.Player, Name: f.c.Fleet.Name(c.Player), HasCar: true, Joined: snap.At,
			Heading: float64(c.Heading) / 65536 * 2 * math.Pi, Speed: float64(c.Speed) / 100}
		p.X, p.Y, p.Z = c.Position()
		snap.Players = append(snap.Players, p)
	}
	sort.Slice(snap.Players, func(i, j int) bool { return snap.Players[i].ID < snap.Players[j].ID })
	return snap, nil
}

// server is the name of the server player id is on ("this" outside a
// cluster) and whether it is another server.
func (o *Options) server(id uint32) (name string, remote bool) {
	if o.Cluster == nil {
		return "this", false
	}
	return cluster.ServerName(id), cluster.ServerSlot(id) != o.Cluster.Self
}

// Server is the running web front end.
type Server struct {
	opt   Options
	log   *slog.Logger
	ln    net.Listener
	http  *http.Server
	hub   *hub
	limit *failLimiter

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	shutMu   sync.Mutex
	shutting bool

	wasmOnce sync.Once
	wasmGz   []byte // map.wasm gzipped, once (it is a few MB, a third of that gzipped)
	wasmRaw  []byte
	wasmErr  error
}

// wasm serves the map's module, gzipped to browsers that take it.
func (s *Server) wasm(w http.ResponseWriter, r *http.Request) {
	s.wasmOnce.Do(func() {
		s.wasmRaw, s.wasmErr = fs.ReadFile(s.opt.Assets, "map.wasm")
		if s.wasmErr != nil {
			return
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(s.wasmRaw)
		_ = zw.Close()
		s.wasmGz = b.Bytes()
	})
	if s.wasmErr != nil {
		httpError(w, http.StatusNotFound, "map.wasm is not in this build: run go generate ./cmd/citydrive/internal/webmap before go build")
		return
	}
	w.Header().Set("Content-Type", "application/wasm")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	body := s.wasmRaw
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		body = s.wasmGz
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// Start listens on opt.Addr and serves until Close.
func Start(opt Options) (*Server, error) {
	if opt.Source == nil || opt.Access == nil || opt.Token == "" {
		return nil, errors.New("webmap: Source, Access and Token are required")
	}
	if opt.Interval <= 0 {
		opt.Interval = 500 * time.Millisecond
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Assets == nil {
		sub, err := fs.Sub(embedded, "static")
		if err != nil {
			return nil, err
		}
		opt.Assets = sub
	}
	if _, err := fs.Stat(opt.Assets, "map.wasm"); err != nil {
		// The page loads but draws no map: say so where the operator looks.
		opt.Logger.Warn("the web map's WebAssembly module is not in this build, so the page draws no map: run go generate ./cmd/citydrive/internal/webmap, then go build")
	}
	if opt.GameFiles != nil && !gameFilesOK(opt.GameFiles) {
		opt.Logger.Warn("the browser game's files have no index.html; /play/ will show none")
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		return nil, fmt.Errorf("web map on %s: %w", opt.Addr, err)
	}
	if opt.Public {
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{opt.Cert}, MinVersion: tls.VersionTLS13})
	}
	if opt.Cluster != nil {
		if opt.Cluster.Fleet == nil {
			_ = ln.Close()
			return nil, errors.New("webmap: Options.Cluster needs its Fleet")
		}
		opt.Source = fleetSource{Source: opt.Source, c: opt.Cluster}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opt: opt, log: opt.Logger, ln: ln, limit: newFailLimiter(), ctx: ctx, cancel: cancel}
	s.hub = newHub(ctx, opt.Source, opt.Interval, opt.Logger)
	s.hub.server = s.opt.server
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	s.wg.Go(func() { s.hub.run() })
	s.wg.Go(func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("web map stopped", "err", err)
		}
	})
	return s, nil
}

// Addr is the address the map is served at.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the page's address.
func (s *Server) URL() string {
	scheme := "http"
	if s.opt.Public {
		scheme = "https"
	}
	return scheme + "://" + s.ln.Addr().String() + "/"
}

// PlayURL is the link that opens the game straight into the world of
// code (a join code): the page reads it from the fragment, which the
// browser never sends to the server. host is the host players reach the
// web endpoint at.
func (s *Server) PlayURL(host, code string) string {
	scheme := "http"
	if s.opt.Public {
		scheme = "https"
	}
	port := "0"
	if _, p, err := net.SplitHostPort(s.ln.Addr().String()); err == nil {
		port = p
	}
	return scheme + "://" + net.JoinHostPort(host, port) + PlayPath + "#" + code
}

// Close stops serving, ends every stream and the countdown, and waits.
func (s *Server) Close() error {
	s.cancel() // ends the streams and the countdown first: Shutdown waits for open requests
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = s.http.Close()
	}
	s.wg.Wait()
	if s.opt.Cluster != nil {
		_ = s.opt.Cluster.Fleet.Close() // a second Close: already closed
	}
	return err
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(s.opt.Assets))
	mux.HandleFunc("GET /map.wasm", s.wasm)
	mux.Handle("GET /play/", s.play())
	mux.Handle("GET /play", http.RedirectHandler(PlayPath, http.StatusMovedPermanently)) // the fragment stays
	mux.HandleFunc("GET /play/config", s.playConfig)
	mux.HandleFunc("GET /healthz", Healthz)
	mux.HandleFunc("GET /readyz", Readyz(s.ready))
	mux.HandleFunc("GET /api/config", s.config)
	mux.HandleFunc("GET /api/stream", s.stream)
	mux.HandleFunc("GET /api/edited", s.edited)
	mux.HandleFunc("GET /api/players", s.players(false))
	mux.HandleFunc("GET /api/admin/players", s.admin(s.players(true)))
	mux.HandleFunc("GET /api/admin/state", s.admin(s.adminState))
	mux.HandleFunc("POST /api/admin/kick", s.admin(s.kick))
	mux.HandleFunc("POST /api/admin/ban", s.admin(s.ban))
	mux.HandleFunc("POST /api/admin/unban", s.admin(s.unban))
	mux.HandleFunc("POST /api/admin/allow", s.admin(s.allow))
	mux.HandleFunc("POST /api/admin/allow-only", s.admin(s.allowOnly))
	mux.HandleFunc("POST /api/admin/password", s.admin(s.password))
	mux.HandleFunc("POST /api/admin/broadcast", s.admin(s.broadcast))
	mux.HandleFunc("POST /api/admin/shutdown", s.admin(s.shutdown))
	return mux
}

func (s *Server) ready() error {
	s.shutMu.Lock()
	shutting := s.shutting
	s.shutMu.Unlock()
	if shutting {
		return errors.New("shutting down: not accepting players")
	}
	if s.opt.Ready != nil {
		return s.opt.Ready()
	}
	return nil
}
