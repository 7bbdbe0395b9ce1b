package authority_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/authority"
	"citydrive/voxel/gen"
	"citydrive/voxel/store"
	"citydrive/voxel/store/lazyfs"
)

const (
	diskSeed    = 42
	diskTimeout = 10 * time.Second
	carEvery    = 5 * time.Millisecond // as the game sends its car, every frame
)

// syncBuffer is a log the committer writes and the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func nextOf[T wire.Message](t *testing.T, c *netsync.Client) T {
	t.Helper()
	deadline := time.After(diskTimeout)
	for {
		select {
		case m := <-c.Messages():
			if v, ok := m.(T); ok {
				return v
			}
		case <-c.Done():
			t.Fatalf("connection ended: %v", c.Err())
		case <-deadline:
			var zero T
			t.Fatalf("timed out waiting for a %T", zero)
		}
	}
}

// TestFullDiskRefusesEditsAndTheServerGoesOn (issue 23): the server's
// edit store on a disk that fills up. An edit is refused with a sentence
// the player can act on, the operator is told once, players still get
// chunks (with every acknowledged edit) and each other's cars, edits are
// saved again when space returns, and nothing acknowledged is lost.
func TestFullDiskRefusesEditsAndTheServerGoesOn(t *testing.T) {
	if err := lazyfs.Available(); err != nil {
		t.Skipf("skipping the full-disk test: %v", err)
	}
	m := lazyfs.Start(t, filepath.Join(t.TempDir(), "mnt"))
	var logged syncBuffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	w, err := authority.Open(m.Dir, diskSeed, log)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() }) // after the server's cleanup

	cfg := netsync.DefaultServerConfig()
	cfg.Addr, cfg.DataDir, cfg.Seed, cfg.Generator, cfg.World = "127.0.0.1:0", t.TempDir(), diskSeed, gen.Version, w
	cfg.MaxRadius, cfg.Reach, cfg.TickBudget, cfg.Logger = 4, 0, 0, log
	s, err := netsync.NewServer(cfg)
	require.NoError(t, err)
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, <-ran)
	})
	dial := func() *netsync.Client {
		ctx, cancel := context.WithTimeout(context.Background(), diskTimeout)
		defer cancel()
		c, err := netsync.Dial(ctx, netsync.ClientConfig{Addr: s.Addr().String(), Fingerprint: s.Fingerprint(),
			Seed: diskSeed, Generator: gen.Version, Radius: 1, MaxBlock: voxel.NumBlocks - 1, Logger: log})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	origin := voxel.ChunkPos{}
	a := dial()
	nextOf[*wire.ChunkDefaults](t, a)
	seq, err := a.RequestEdit(origin, 1, voxel.Stone)
	require.NoError(t, err)
	assert.Equal(t, seq, nextOf[*wire.EditAck](t, a).Seq)

	m.Full(true)
	seq, err = a.RequestEdit(origin, 2, voxel.Sand)
	require.NoError(t, err)
	rej := nextOf[*wire.EditReject](t, a)
	assert.Equal(t, seq, rej.Seq)
	assert.Equal(t, authority.ErrDiskFull.Error(), rej.Reason)
	t.Logf("the player sees: %s", rej.Reason)

	// Reads go on: a player joining gets the chunk with the saved edit;
	// and cars: a's reaches b.
	b := dial()
	assert.Equal(t, []voxel.Edit{{Index: 1, Block: voxel.Stone}}, nextOf[*wire.ChunkEdits](t, b).Edits)
	frame := time.NewTicker(carEvery)
	defer frame.Stop()
	deadline := time.After(diskTimeout)
	for len(b.Cars(nil)) == 0 {
		a.SendCar(wire.QuantiseCar(0, 0, 10, 1, 20, 0.5, 10))
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("cars stopped with the disk full")
		}
	}

	m.Full(false)
	seq, err = a.RequestEdit(origin, 2, voxel.Sand)
	require.NoError(t, err)
	assert.Equal(t, seq, nextOf[*wire.EditAck](t, a).Seq, "space is back: edits are saved again")
	require.NoError(t, s.Close())
	require.NoError(t, w.Close())
	assert.Contains(t, logged.String(), "the disk is full")
	assert.Contains(t, logged.String(), "the disk has space again")

	// Nothing acknowledged was lost, power cut included.
	m.Remount()
	st, err := store.Open(m.Dir, diskSeed, gen.Version)
	require.NoError(t, err)
	defer st.Close()
	o, err := st.Overlay(origin)
	require.NoError(t, err)
	assert.Equal(t, voxel.Overlay{{Index: 1, Block: voxel.Stone}, {Index: 2, Block: voxel.Sand}}, o)
}
