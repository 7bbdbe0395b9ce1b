package cluster

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/backup"
)

const backupSeed = 91

// backupWorld is 500 chunks of 20 edits (10,000 in all) over four
// regions, some with stamps, in backup order.
func backupWorld() []backup.Chunk {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []backup.Chunk
	for i := range 500 {
		c := backup.Chunk{Pos: voxel.ChunkPos{X: int32(i/25) - 10, Y: int32(i%5) - 2, Z: int32(i%25/5)*7 - 14}}
		for c.Overlay == nil || len(c.Overlay) < 20 {
			c.Overlay = c.Overlay.With(uint16(rng.IntN(voxel.ChunkVolume)), voxel.Block(rng.IntN(int(voxel.NumBlocks))))
		}
		for p := range i % 3 {
			c.Stamps = append(c.Stamps, backup.Stamp{Player: uint64(100 + p), Seq: uint32(i)})
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b backup.Chunk) int { return backup.Compare(a.Pos, b.Pos) })
	return out
}

func encodeBackup(t *testing.T, seed uint64, cs []backup.Chunk) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := backup.Encode(&b, seed, 2, func(yield func(backup.Chunk) error) error {
		for _, c := range cs {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return b.Bytes()
}

func reader(t *testing.T, b []byte) *backup.Reader {
	t.Helper()
	r, err := backup.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	return r
}

// jsOf is a JetStream connection to the cluster for the test's own reads
// and writes, closed when it ends.
func jsOf(t *testing.T, opt Options) jetstream.JetStream {
	t.Helper()
	nc, js, err := toolConn(testCtx(t), opt, "test")
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return js
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// 10,000 edits into a bucket no server made yet, and out again; a server
// that then joins reads them through its watches, and a client's retry
// is still a retry.
func TestImportExportRoundTrip(t *testing.T) {
	nc := natstest.Start(t, 1)
	opt := Options{URLs: nc.URLs(0), Seed: backupSeed, Replicas: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := testCtx(t)
	want := backupWorld()
	file := encodeBackup(t, backupSeed, want)

	_, _, err := Export(ctx, opt)
	assert.ErrorIs(t, err, ErrNoWorld)

	start := time.Now()
	n, err := Import(ctx, opt, reader(t, file))
	require.NoError(t, err)
	assert.Equal(t, len(want), n)
	t.Logf("import of %d chunks (10,000 edits): %v", n, time.Since(start))

	start = time.Now()
	got, rev, err := Export(ctx, opt)
	require.NoError(t, err)
	t.Logf("export: %v", time.Since(start))
	assert.Equal(t, want, got)
	assert.EqualValues(t, len(want), rev, "one revision per chunk")
	assert.Equal(t, file, encodeBackup(t, backupSeed, got), "the same file again")

	node, err := Join(ctx, opt)
	require.NoError(t, err)
	defer node.Close()
	w := node.World()
	var all []voxel.ChunkPos
	for _, c := range want {
		all = append(all, c.Pos)
	}
	w.UnionChanged(all, nil)
	require.Eventually(t, w.Ready, 30*time.Second, 5*time.Millisecond, "the regions' watches load")
	for _, c := range want {
		o, ready := w.Chunk(c.Pos)
		require.True(t, ready)
		require.Equal(t, c.Overlay, o, "chunk %v", c.Pos)
	}
	// The last stamp of a chunk makes the same request a retry.
	c := want[2]
	s := c.Stamps[len(c.Stamps)-1]
	v, _ := w.latest(c.Pos)
	_, done, err := v.with(voxel.BlockEdit{Pos: c.Pos, Index: 1, Block: 1}, s.Player, s.Seq)
	require.NoError(t, err)
	assert.Equal(t, duplicate, done)
	// An older one: the backup kept no window, so it is refused, not
	// acknowledged as if stored.
	_, _, err = v.with(voxel.BlockEdit{Pos: c.Pos, Index: 1, Block: 1}, s.Player, s.Seq-1)
	assert.ErrorIs(t, err, errEditTooOld)

	_, err = Import(ctx, opt, reader(t, file))
	assert.ErrorIs(t, err, ErrNotEmpty, "never merged into a world with edits")
	other := opt
	other.Seed++
	_, err = Import(ctx, other, reader(t, file))
	assert.ErrorContains(t, err, "seed 91's world, not 92's")
}

// A backup that fails midway (here: damaged at its end, which only the
// last read finds) is reported with what was written.
func TestImportReportsAPartialRestore(t *testing.T) {
	nc := natstest.Start(t, 1)
	opt := Options{URLs: nc.URLs(0), Seed: backupSeed, Replicas: 1}
	file := encodeBackup(t, backupSeed, backupWorld())
	file = append(file, 0)
	n, err := Import(testCtx(t), opt, reader(t, file))
	assert.ErrorIs(t, err, backup.ErrDamaged)
	assert.Equal(t, 500, n, "what was read is written")
	assert.ErrorContains(t, err, "bucket citydrive-91 is partly restored: 500 of 500 chunks")
}

// The export is the bucket at one revision while a writer updates it as
// fast as it can: the writer puts i into chunk i mod 50, one acknowledged
// write after another, so a state that existed is a prefix of its writes:
// every chunk holds the newest i of its own below the largest i seen.
func TestExportWhileWritingIsOneRevision(t *testing.T) {
	nc := natstest.Start(t, 1)
	opt := Options{URLs: nc.URLs(0), Seed: backupSeed, Replicas: 1}
	ctx := testCtx(t)
	js := jsOf(t, opt)
	kv, err := js.CreateKeyValue(ctx, bucketConfig(backupSeed, 1))
	require.NoError(t, err)

	const keys = 50
	pos := func(i int) voxel.ChunkPos { return voxel.ChunkPos{X: int32(i % keys)} }
	put := func(i int) error {
		b, err := chunkValue{pos: pos(i), overlay: voxel.Overlay{{Index: uint16(i), Block: 1}}}.encode(wire.NewEncoder())
		if err != nil {
			return err
		}
		_, err = kv.Put(ctx, chunkKey(pos(i)), b)
		return err
	}
	for i := range 200 { // a few values behind every key, and deletions' markers aside
		require.NoError(t, put(i))
	}
	var done atomic.Int64 // writes acknowledged
	tick := make(chan struct{}, 1)
	stop, finished := make(chan struct{}), make(chan error)
	go func() {
		for i := 200; i < voxel.ChunkVolume; i++ {
			select {
			case <-stop:
				finished <- nil
				return
			default:
			}
			if err := put(i); err != nil {
				finished <- err
				return
			}
			done.Add(1)
			select {
			case tick <- struct{}{}:
			default:
			}
		}
		finished <- nil
	}()
	// waitFor blocks until more than n writes are in (no sleeping: each
	// write signals).
	waitFor := func(n int64) {
		for done.Load() <= n {
			<-tick
		}
	}
	var revs []uint64
	for range 5 {
		waitFor(done.Load() + 2) // the writer is writing between exports
		cs, rev, err := Export(ctx, opt)
		require.NoError(t, err)
		require.Len(t, cs, keys)
		top := 0
		for _, c := range cs {
			top = max(top, int(c.Overlay[0].Index))
		}
		for _, c := range cs {
			k := int(c.Pos.X)
			newest := top - ((top-k)%keys+keys)%keys
			assert.EqualValues(t, newest, c.Overlay[0].Index, "chunk %d: the newest write below %d", k, top)
		}
		revs = append(revs, rev)
	}
	close(stop)
	require.NoError(t, <-finished)
	t.Logf("exports at revisions %v", revs)
	assert.Greater(t, revs[len(revs)-1], revs[0], "the writer was writing")
}

// Deleted keys are not in the export (a bucket edited by hand), and other
// keys (the server counter) never are.
func TestExportLeavesOutDeletedAndOtherKeys(t *testing.T) {
	nc := natstest.Start(t, 1)
	opt := Options{URLs: nc.URLs(0), Seed: backupSeed, Replicas: 1}
	ctx := testCtx(t)
	node, err := Join(ctx, opt) // writes the server counter
	require.NoError(t, err)
	defer node.Close()
	file := encodeBackup(t, backupSeed, backupWorld()[:3])
	_, err = Import(ctx, opt, reader(t, file))
	require.NoError(t, err, "the counter is not an edit: the bucket is empty")
	js := jsOf(t, opt)
	kv, err := js.KeyValue(ctx, bucketName(backupSeed))
	require.NoError(t, err)
	require.NoError(t, kv.Delete(ctx, chunkKey(backupWorld()[1].Pos)))
	cs, _, err := Export(ctx, opt)
	require.NoError(t, err)
	assert.Equal(t, []backup.Chunk{backupWorld()[0], backupWorld()[2]}, cs)
	_, err = kv.Get(ctx, serversKey)
	assert.NoError(t, err)
	assert.NotErrorIs(t, err, jetstream.ErrKeyNotFound)
}
