package cluster_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// nats-server keeps a few process-wide goroutines after its last
		// node shuts down.
		goleak.IgnoreAnyFunction("github.com/nats-io/nats-server/v2/server.(*Server).startGoRoutine.func1"),
		goleak.IgnoreTopFunction("github.com/nats-io/nats-server/v2/server.ipQueue[...].pop"),
	)
}

const (
	seed      = 77
	generator = 3
	deadline  = 15 * time.Second
)

func quietLog() *slog.Logger {
	if os.Getenv("CLUSTER_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// server is one citydrive server joined to the NATS cluster through node
// `via` (the others are its fallbacks).
type server struct {
	*netsync.Server
	node   *cluster.Node
	done   chan error
	closed bool
}

func startServer(t *testing.T, nc *natstest.Cluster, via int) *server {
	t.Helper()
	return startServerWith(t, nc, via, nil)
}

// startServerWith is startServer with mod applied to the server's
// configuration.
func startServerWith(t *testing.T, nc *natstest.Cluster, via int, mod func(*netsync.ServerConfig)) *server {
	t.Helper()
	return startServerOpt(t, cluster.Options{URLs: nc.URLs(via), Seed: seed, Replicas: 3, Logger: quietLog()}, mod)
}

// startServerOpt is startServerWith joining with opt.
func startServerOpt(t *testing.T, opt cluster.Options, mod func(*netsync.ServerConfig)) *server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node, err := cluster.Join(ctx, opt)
	require.NoError(t, err)
	cfg := netsync.DefaultServerConfig()
	cfg.DataDir, cfg.Seed, cfg.Generator, cfg.Logger = t.TempDir(), seed, generator, quietLog()
	cfg.World, cfg.Cars, cfg.FirstPlayer = node.World(), node.Cars(), node.FirstPlayer()
	cfg.MaxRadius, cfg.TickHz = 4, 60
	cfg.Reach, cfg.MaxCarSpeed, cfg.TickBudget, cfg.EditsPerSecond = 0, 0, 0, 1000
	if mod != nil {
		mod(&cfg)
	}
	s, err := netsync.NewServer(cfg)
	require.NoError(t, err)
	node.SetAdvertise(s.Addr().String())
	require.NoError(t, node.AnswerWhois(s.HasPlayerKey))
	srv := &server{Server: s, node: node, done: make(chan error, 1)}
	go func() { srv.done <- s.Run(context.Background()) }()
	t.Cleanup(func() { srv.stop(t, false) })
	return srv
}

// stop closes the server (abruptly: no client is told) and its node.
func (s *server) stop(t *testing.T, abrupt bool) {
	if s.closed {
		return
	}
	s.closed = true
	if abrupt {
		require.NoError(t, s.CloseAbruptly())
	} else {
		require.NoError(t, s.Close())
	}
	require.NoError(t, <-s.done)
	require.NoError(t, s.node.Close())
}

func (s *server) clientConfig() netsync.ClientConfig {
	return netsync.ClientConfig{Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: seed,
		Generator: generator, Radius: 2, Logger: quietLog()}
}

// player is a client and what it has been told, checked as it arrives:
// a broadcast must follow the chunk it belongs to.
type player struct {
	t       *testing.T
	c       *netsync.Client
	held    map[voxel.ChunkPos]voxel.Overlay
	heard   []voxel.BlockEdit // broadcasts, in order
	acked   map[uint32]bool
	refused map[uint32]string
}

func join(t *testing.T, cfg netsync.ClientConfig) *player {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := netsync.Dial(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return newPlayer(t, c)
}

// newPlayer keeps the player's car on the air (30 Hz, like the game)
// until the test ends.
func newPlayer(t *testing.T, c *netsync.Client) *player {
	p := &player{t: t, c: c, held: map[voxel.ChunkPos]voxel.Overlay{}, acked: map[uint32]bool{}, refused: map[uint32]string{}}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Second / 30)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				c.SendCar(wire.QuantiseCar(0, 0, 16, 40, 16, 0, 0))
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-stopped
	})
	return p
}

func (p *player) handle(m wire.Message) {
	switch m := m.(type) {
	case *wire.ChunkDefaults:
		for _, pos := range m.Pos {
			p.held[pos] = nil
		}
	case *wire.ChunkEdits:
		p.held[m.Pos] = m.Edits
	case *wire.EditBroadcast:
		o, ok := p.held[m.Pos]
		require.True(p.t, ok, "an edit of %v arrived before the chunk", m.Pos)
		p.held[m.Pos] = o.With(m.Index, m.Block)
		p.heard = append(p.heard, voxel.BlockEdit{Pos: m.Pos, Index: m.Index, Block: m.Block})
	case *wire.EditAck:
		p.acked[m.Seq] = true
	case *wire.EditReject:
		p.refused[m.Seq] = m.Reason
	}
}

// until handles messages until cond holds.
func (p *player) until(what string, cond func() bool) {
	p.t.Helper()
	p.within(what, deadline, cond)
}

// within handles messages until cond holds, failing the test if it does
// not within d.
func (p *player) within(what string, d time.Duration, cond func() bool) {
	p.t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	end := time.After(d)
	for !cond() {
		select {
		case m := <-p.c.Messages():
			p.handle(m)
		case <-tick.C: // cars arrive on their own goroutine
		case <-p.c.Done():
			p.t.Fatalf("waiting for %s: connection ended: %v", what, p.c.Err())
		case <-end:
			p.t.Fatalf("waiting for %s: nothing within %v", what, d)
		}
	}
}

// block is what the player holds at (pos, idx), if it holds the chunk.
func (p *player) block(pos voxel.ChunkPos, idx uint16) (voxel.Block, bool) {
	o, ok := p.held[pos]
	if !ok {
		return 0, false
	}
	b, _ := o.Get(idx)
	return b, true
}

func (p *player) seesCar(from uint32) bool {
	for _, c := range p.c.Cars(nil) {
		if c.Player == from {
			return true
		}
	}
	return false
}

var home = voxel.ChunkPos{X: 0, Y: 1, Z: 0}

func TestPlayersOnTwoServersSeeEachOthersCarsAndEditsInOrder(t *testing.T) {
	nc := natstest.Start(t, 3)
	a, b := startServer(t, nc, 0), startServer(t, nc, 1)
	pa, pb := join(t, a.clientConfig()), join(t, b.clientConfig())
	require.NotEqual(t, pa.c.Player(), pb.c.Player(), "servers of one cluster hand out distinct player ids")
	// home's neighbour across the origin lives in another region
	// (negative coordinates).
	west := voxel.ChunkPos{X: -1, Y: 1, Z: 0}
	require.NotEqual(t, cluster.RegionOf(home), cluster.RegionOf(west))
	for _, p := range []*player{pa, pb} {
		p.until("the chunks around home", func() bool {
			_, h := p.held[home]
			_, w := p.held[west]
			return h && w
		})
	}
	pa.until("b's car on a", func() bool { return pa.seesCar(pb.c.Player()) })
	pb.until("a's car on b", func() bool { return pb.seesCar(pa.c.Player()) })

	// a edits one block three times and b's neighbouring chunk once. The
	// bucket keeps one value per chunk, so a watch that falls behind sees
	// only the latest: b may hear fewer than three, but what it hears
	// follows a's order and ends on a's last edit, and a hears b's.
	sent := []voxel.Block{voxel.Stone, voxel.Sand, voxel.Gravel}
	var seqs []uint32
	for _, blk := range sent {
		seq, err := pa.c.RequestEdit(home, 7, blk)
		require.NoError(t, err)
		seqs = append(seqs, seq)
	}
	sb, err := pb.c.RequestEdit(west, 9, voxel.Stone)
	require.NoError(t, err)
	pa.until("a's acks", func() bool { return pa.acked[seqs[0]] && pa.acked[seqs[1]] && pa.acked[seqs[2]] })
	pb.until("b's ack", func() bool { return pb.acked[sb] })
	pb.until("a's last edit on b", func() bool { blk, _ := pb.block(home, 7); return blk == voxel.Gravel })
	var order []voxel.Block
	for _, e := range pb.heard {
		if e.Pos == home {
			order = append(order, e.Block)
		}
	}
	require.True(t, inOrder(order, sent), "b hears a's edits in a's order: heard %v of %v", order, sent)
	pa.until("b's edit on a", func() bool { blk, _ := pa.block(west, 9); return blk == voxel.Stone })

	// A player joining later gets both chunks with their edits.
	pc := join(t, b.clientConfig())
	pc.until("the edited chunks", func() bool {
		x, _ := pc.block(home, 7)
		y, _ := pc.block(west, 9)
		return x == voxel.Gravel && y == voxel.Stone
	})
}

func TestOneChunkEditedThroughTwoServersConverges(t *testing.T) {
	nc := natstest.Start(t, 3)
	a, b := startServer(t, nc, 0), startServer(t, nc, 2)
	pa, pb := join(t, a.clientConfig()), join(t, b.clientConfig())
	for _, p := range []*player{pa, pb} {
		p.until("home", func() bool { _, ok := p.held[home]; return ok })
	}
	// Both edit the same 16 blocks with different blocks, at once.
	const n = 16
	for i := range n {
		_, err := pa.c.RequestEdit(home, uint16(i), voxel.Stone)
		require.NoError(t, err)
		_, err = pb.c.RequestEdit(home, uint16(i), voxel.Air)
		require.NoError(t, err)
	}
	pa.until("a's acks", func() bool { return len(pa.acked) == n })
	pb.until("b's acks", func() bool { return len(pb.acked) == n })
	require.Empty(t, pa.refused)
	require.Empty(t, pb.refused)
	// A third player, joining after every ack, sees the stored state;
	// both others must converge on it.
	pc := join(t, a.clientConfig())
	pc.until("home", func() bool { _, ok := pc.held[home]; return ok })
	want := pc.held[home]
	require.Len(t, want, n)
	pa.until("a converged", func() bool { return equalOverlay(pa.held[home], want) })
	pb.until("b converged", func() bool { return equalOverlay(pb.held[home], want) })
}

func equalOverlay(a, b voxel.Overlay) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// inOrder reports whether heard is sent with some values left out: the
// same order, nothing repeated, nothing new.
func inOrder(heard, sent []voxel.Block) bool {
	i := 0
	for _, h := range heard {
		for i < len(sent) && sent[i] != h {
			i++
		}
		if i == len(sent) {
			return false
		}
		i++
	}
	return true
}

func TestInOrder(t *testing.T) {
	sent := []voxel.Block{voxel.Stone, voxel.Sand, voxel.Gravel}
	assert.True(t, inOrder(sent, sent))
	assert.True(t, inOrder([]voxel.Block{voxel.Stone, voxel.Gravel}, sent))
	assert.True(t, inOrder(nil, sent))
	assert.False(t, inOrder([]voxel.Block{voxel.Gravel, voxel.Stone}, sent), "swapped")
	assert.False(t, inOrder([]voxel.Block{voxel.Sand, voxel.Sand}, sent), "repeated")
	assert.False(t, inOrder([]voxel.Block{voxel.Dirt}, sent), "never sent")
}
