package bots

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
	"citydrive/voxel/gen"
)

// checkerboard owns the regions whose coordinates add up even to one
// server and the others to the other: every region border is a handover.
type checkerboard struct {
	mu   sync.Mutex
	addr [2]string
}

func (d *checkerboard) Owner(rx, rz int32) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.addr[(rx+rz)&1]
	return a, a != ""
}

// startClusterServer is one server of the world on nc, telling its
// players the owners dir names.
func startClusterServer(t *testing.T, nc *natstest.Cluster, via int, dir netsync.OwnerDirectory) *netsync.Server {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node, err := cluster.Join(ctx, cluster.Options{URLs: nc.URLs(via), Seed: 42, Replicas: 3, Logger: quiet})
	require.NoError(t, err)
	cfg := netsync.DefaultServerConfig()
	cfg.DataDir, cfg.Seed, cfg.Generator, cfg.Logger = t.TempDir(), 42, gen.Version, quiet
	cfg.World, cfg.Cars, cfg.FirstPlayer, cfg.Owners = node.World(), node.Cars(), node.FirstPlayer(), dir
	cfg.TickBudget, cfg.MaxPlayersPerAddr, cfg.SpawnRadius, cfg.MaxCarSpeed = 0, 10000, 0, 0 // the bots drive at 60 m/s
	s, err := netsync.NewServer(cfg)
	require.NoError(t, err)
	node.SetAdvertise(s.Addr().String())
	require.NoError(t, node.AnswerWhois(s.HasPlayerKey))
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, <-done)
		require.NoError(t, node.Close())
	})
	return s
}

// Bots near the corner of four regions owned in turn by two cluster
// servers are handed over as they drive across the borders; they go on
// seeing each other's car across each switch, and every edit they had
// acknowledged is stored, answered once.
func TestBotsAreHandedOverAcrossRegionBorders(t *testing.T) {
	nc := natstest.Start(t, 3)
	dir := &checkerboard{}
	a, b := startClusterServer(t, nc, 0, dir), startClusterServer(t, nc, 1, dir)
	dir.mu.Lock()
	dir.addr = [2]string{a.Addr().String(), b.Addr().String()}
	dir.mu.Unlock()

	rep, err := Run(context.Background(), Options{
		Addr: a.Addr().String() + "," + b.Addr().String(), Fingerprint: a.Fingerprint() + "," + b.Fingerprint(),
		Seed: 42, N: 3, Duration: 12 * time.Second, Speed: 60, Radius: 4, Spread: 40,
		EditEvery: 400 * time.Millisecond, RecordEdits: true,
	})
	require.NoError(t, err)
	handovers := 0
	var edits []Edit
	for _, bot := range rep.Bots {
		require.NoError(t, bot.Err, "bot %d", bot.ID)
		assert.Zero(t, bot.Failovers, "bot %d: handed over, not failed over", bot.ID)
		handovers += bot.Handovers
		acked := 0
		for _, e := range bot.Edits {
			if e.Acked {
				acked++
			}
		}
		assert.Equal(t, acked, bot.EditsAcked, "bot %d: each edit answered once", bot.ID)
		assert.Zero(t, bot.EditsRejected, "bot %d: %s", bot.ID, bot.LastReject)
		edits = append(edits, bot.Edits...)
		t.Logf("bot %d: %d handovers, %d cars watched across them, gaps %v s, %d lost, %d left the view, %d edits acked, %.0f m",
			bot.ID, bot.Handovers, bot.HandoverWatched, bot.HandoverGaps, bot.HandoverCarsLost, bot.HandoverLeftView, bot.EditsAcked, bot.DistanceM)
	}
	require.Positive(t, handovers, "the bots crossed a border and were handed over")
	// Where another car was in view at a switch (the bots drive apart,
	// so not in every run), it was seen again across it, soon.
	for _, bot := range rep.Bots {
		assert.Zero(t, bot.HandoverCarsLost, "bot %d: a car seen before a switch and not after", bot.ID)
		for _, gap := range bot.HandoverGaps {
			assert.Less(t, gap, 1.0, "bot %d: seconds", bot.ID)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	chunks, _, err := cluster.Export(ctx, cluster.Options{URLs: nc.URLs(0), Seed: 42})
	require.NoError(t, err)
	world := map[voxel.ChunkPos]voxel.Overlay{}
	for _, c := range chunks {
		world[c.Pos] = c.Overlay
	}
	l := CheckEdits(edits, func(p voxel.ChunkPos, i uint16) (voxel.Block, bool) { return world[p].Get(i) })
	assert.Positive(t, l.Acked)
	assert.Empty(t, l.Lost, "acknowledged edits not stored")
}
