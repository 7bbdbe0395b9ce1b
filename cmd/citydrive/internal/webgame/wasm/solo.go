//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"syscall/js"

	"citydrive/cmd/citydrive/internal/webgame/pageworld"
	"citydrive/netsync"
	"citydrive/voxel/gen"
	"citydrive/voxel/ground"
)

// Solo play in the page is the desktop's: a server in the page (an
// InProcess netsync server: no socket, joined through memory) whose world
// keeps its edits in IndexedDB (idb.go), and the game joined to it as to
// any server.

type soloServer struct {
	srv   *netsync.Server
	world *pageworld.World
	seed  uint64
	stop  context.CancelFunc
	done  chan struct{}
}

func startSolo(seed uint64, log *slog.Logger) (*soloServer, error) {
	st, err := openIDB(seed)
	if err != nil {
		return nil, err
	}
	w, err := pageworld.Open(st, log)
	if err != nil {
		return nil, err
	}
	cfg := netsync.DefaultServerConfig()
	cfg.InProcess, cfg.Addr = true, ""
	cfg.World, cfg.Seed, cfg.Generator, cfg.Logger = w, seed, gen.Version, log
	srv, err := netsync.NewServer(cfg)
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &soloServer{srv: srv, world: w, seed: seed, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := srv.Run(ctx); err != nil {
			log.Error("the page's solo server stopped", "err", err)
		}
	}()
	return s, nil
}

// dial joins the solo server as the page's player.
func (s *soloServer) dial(id *netsync.Identity, name string, log *slog.Logger) (*netsync.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	c, err := netsync.Dial(ctx, netsync.ClientConfig{InProcess: s.srv, Seed: s.seed, Generator: gen.Version,
		Radius: ground.DefaultRadius, Logger: log, Identity: id, Name: name})
	if err != nil {
		return nil, fmt.Errorf("joining the page's solo server: %w", err)
	}
	return c, nil
}

func (s *soloServer) close() {
	s.stop()
	<-s.done
	_ = s.srv.Close()
	_ = s.world.Close()
}

// hooks is window.citydrive.solo: edited (blocks kept in this browser for
// the world) and block(x, y, z) (the kept block at world block x, y, z,
// or null where none was edited).
func (s *soloServer) hooks() (js.Value, func()) {
	o := js.Global().Get("Object").New()
	block := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v [3]int64
		if len(args) != 3 {
			return js.Null()
		}
		for i, a := range args {
			if a.Type() != js.TypeNumber || a.Float() != math.Trunc(a.Float()) || math.Abs(a.Float()) > 1<<53 {
				return js.Null()
			}
			v[i] = int64(a.Float())
		}
		if b, ok := s.world.Block(v[0], v[1], v[2]); ok {
			return int(b)
		}
		return js.Null()
	})
	o.Set("block", block)
	o.Set("edited", s.world.Edited())
	return o, block.Release
}
