package store

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"citydrive/voxel"
	"citydrive/voxel/backup"
)

const roundTripEdits = 10_000

// backupEdit is edit k of a world of many chunks, by 40 players with
// increasing sequences, some blocks edited twice (the later wins).
func backupEdit(k int) Edit {
	rng := rand.New(rand.NewPCG(uint64(k), 11))
	return Edit{
		BlockEdit: voxel.BlockEdit{
			Pos:   voxel.ChunkPos{X: int32(rng.IntN(40)) - 20, Y: int32(rng.IntN(3)) - 1, Z: int32(rng.IntN(40)) - 20},
			Index: uint16(rng.IntN(voxel.ChunkVolume / 8)),
			Block: voxel.Block(rng.IntN(int(voxel.NumBlocks))),
		},
		Player: uint64(1 + k%40),
		Seq:    uint32(1 + k),
	}
}

// filled is a store in a new directory with n edits applied, in batches
// of 100 (one transaction each).
func filled(t testing.TB, n int) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), testSeed, testGen)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	for k := 0; k < n; k += 100 {
		batch := make([]Edit, 0, 100)
		for j := k; j < min(k+100, n); j++ {
			batch = append(batch, backupEdit(j))
		}
		_, err := s.ApplyEdits(batch)
		require.NoError(t, err)
	}
	return s
}

// raw is every key and value of the edits and stamps buckets.
func raw(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, s.db.View(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketEdits, bucketStamps} {
			if err := tx.Bucket(name).ForEach(func(k, v []byte) error {
				out[string(name)+"/"+string(k)] = string(v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}))
	return out
}

func restore(s *Store, b []byte) error {
	r, err := backup.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Restore(r)
}

// 10,000 edits out and back in: the restored store holds the same bytes,
// reads the same through Overlay and EditedChunks, still knows which
// requests it applied, and exports to the very same file.
func TestExportRestoreRoundTrip(t *testing.T) {
	src := filled(t, roundTripEdits)
	var b bytes.Buffer
	start := time.Now()
	h, err := src.Export(&b)
	took := time.Since(start)
	require.NoError(t, err)
	t.Logf("export of %d edits (%d chunks, %d distinct blocks): %d bytes in %v", roundTripEdits, h.Chunks, h.Edits, b.Len(), took)
	assert.EqualValues(t, testSeed, h.Seed)
	assert.EqualValues(t, testGen, h.Generator)

	dst, err := Open(t.TempDir(), testSeed, testGen)
	require.NoError(t, err)
	defer dst.Close()
	start = time.Now()
	require.NoError(t, restore(dst, b.Bytes()))
	t.Logf("restore: %v", time.Since(start))
	assert.Equal(t, raw(t, src), raw(t, dst), "the same keys and values")

	var srcChunks, dstChunks []voxel.ChunkPos
	require.NoError(t, src.EditedChunks(func(p voxel.ChunkPos) { srcChunks = append(srcChunks, p) }))
	require.NoError(t, dst.EditedChunks(func(p voxel.ChunkPos) { dstChunks = append(dstChunks, p) }))
	require.Equal(t, srcChunks, dstChunks)
	require.EqualValues(t, len(srcChunks), h.Chunks)
	var blocks uint64
	for _, p := range srcChunks {
		want, err := src.Overlay(p)
		require.NoError(t, err)
		got, err := dst.Overlay(p)
		require.NoError(t, err)
		require.Equal(t, want, got, "chunk %v", p)
		blocks += uint64(len(got))
	}
	assert.Equal(t, h.Edits, blocks)
	for k := roundTripEdits - 50; k < roundTripEdits; k++ {
		e := backupEdit(k)
		o, err := dst.Overlay(e.Pos)
		require.NoError(t, err)
		_, ok := o.Get(e.Index)
		assert.True(t, ok, "edit %d restored", k)
	}

	// A client's resend after the restore is still a retry.
	last := backupEdit(roundTripEdits - 1)
	dup, err := dst.ApplyEdits([]Edit{last})
	require.NoError(t, err)
	assert.Equal(t, []bool{true}, dup, "the stamps came along")

	var again bytes.Buffer
	_, err = dst.Export(&again)
	require.NoError(t, err)
	assert.Equal(t, b.Bytes(), again.Bytes(), "the restored world exports to the same file")
}

func TestRestoreRefusals(t *testing.T) {
	src := filled(t, 300)
	var b bytes.Buffer
	_, err := src.Export(&b)
	require.NoError(t, err)
	good := b.Bytes()

	err = restore(src, good)
	assert.ErrorIs(t, err, ErrNotEmpty, "never merged into a world with edits")

	other, err := Open(t.TempDir(), testSeed+1, testGen)
	require.NoError(t, err)
	defer other.Close()
	err = restore(other, good)
	assert.ErrorIs(t, err, ErrMismatch)
	assert.ErrorContains(t, err, "seed 42's world")

	newer, err := Open(t.TempDir(), testSeed, testGen+1)
	require.NoError(t, err)
	defer newer.Close()
	err = restore(newer, good)
	assert.ErrorIs(t, err, ErrMismatch)
	assert.ErrorContains(t, err, "generator version 3")

	compat, err := Open(t.TempDir(), testSeed, testGen+1, testGen)
	require.NoError(t, err)
	defer compat.Close()
	assert.NoError(t, restore(compat, good), "a compatible generator's edits apply")

	// Damage anywhere in the body: nothing is committed, and the same
	// store then takes the good file.
	empty, err := Open(t.TempDir(), testSeed, testGen)
	require.NoError(t, err)
	defer empty.Close()
	for _, bad := range [][]byte{
		good[:len(good)-1],
		good[:backup.HeaderSize+len(good)/2],
		func() []byte { d := slices.Clone(good); d[len(d)-5] ^= 0x40; return d }(),
	} {
		err := restore(empty, bad)
		assert.ErrorIs(t, err, backup.ErrDamaged)
		assert.Empty(t, raw(t, empty), "a failed restore leaves nothing")
	}
	require.NoError(t, restore(empty, good))
	assert.Equal(t, raw(t, src), raw(t, empty))
}

func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenReadOnly(dir)
	assert.ErrorIs(t, err, ErrNoWorld)

	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	_, err = s.ApplyEdits([]Edit{backupEdit(1)})
	require.NoError(t, err)
	_, err = OpenReadOnly(dir)
	assert.ErrorIs(t, err, ErrInUse, "the server's lock is exclusive: a reader is refused at once")
	require.NoError(t, s.Close())

	r1, err := OpenReadOnly(dir)
	require.NoError(t, err)
	defer r1.Close()
	r2, err := OpenReadOnly(dir)
	require.NoError(t, err, "readers share the lock")
	defer r2.Close()
	seed, gen, err := r1.World()
	require.NoError(t, err)
	assert.EqualValues(t, testSeed, seed)
	assert.EqualValues(t, testGen, gen)
	h, err := r1.Export(io.Discard)
	require.NoError(t, err)
	assert.EqualValues(t, 1, h.Edits)
	_, err = Open(dir, testSeed, testGen)
	assert.ErrorIs(t, err, ErrInUse, "no server starts under a reader")
}

// serving is a store and its export server, closed in order.
func serving(t *testing.T, s *Store) *ExportServer {
	t.Helper()
	e, err := s.ServeExports()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

func fetch(t *testing.T, dir string) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := FetchExport(ctx, dir, &b)
	return b.Bytes(), err
}

// An export over the socket is the export the store makes itself.
func TestFetchExportIsTheStoresExport(t *testing.T) {
	s := filled(t, 500)
	e := serving(t, s)
	dir := filepath.Dir(s.path)
	assert.Equal(t, filepath.Join(dir, SocketName), e.Path())
	st, err := os.Stat(e.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "only the owner connects")

	got, err := fetch(t, dir)
	require.NoError(t, err)
	var want bytes.Buffer
	_, err = s.Export(&want)
	require.NoError(t, err)
	assert.Equal(t, want.Bytes(), got)
}

// The snapshot is one committed state while a writer commits as fast as it
// can: every transaction writes the same block index into two chunks and
// counts itself in a third, so a torn read would show unequal halves or a
// count that disagrees with them. A megabyte of other chunks makes each
// export take long enough for commits to land while it is read.
func TestExportWhileWritingIsOneSnapshot(t *testing.T) {
	s := bulk(t, 300, 1000)
	serving(t, s)
	dir := filepath.Dir(s.path)
	a, b, counter := voxel.ChunkPos{X: -3}, voxel.ChunkPos{X: -2}, voxel.ChunkPos{X: -1}

	var done atomic.Int64 // transactions committed
	tick := make(chan struct{}, 1)
	stop := make(chan struct{})
	finished := make(chan error)
	go func() {
		var err error
		defer func() { finished <- err }()
		for i := 0; i < voxel.ChunkVolume; i++ {
			select {
			case <-stop:
				return
			default:
			}
			blk := voxel.Block(1 + i%int(voxel.NumBlocks-1))
			if err = s.ApplyBatch([]voxel.BlockEdit{
				{Pos: a, Index: uint16(i), Block: blk}, {Pos: b, Index: uint16(i), Block: blk},
				{Pos: counter, Index: uint16(i), Block: 1},
			}); err != nil {
				return
			}
			done.Add(1)
			select {
			case tick <- struct{}{}:
			default:
			}
		}
	}()
	// waitFor blocks until more than n transactions are in.
	waitFor := func(n int64) {
		for done.Load() <= n {
			<-tick
		}
	}
	var seen []int
	for range 5 {
		waitFor(done.Load() + 2)
		// Take the header, so the export's transaction is open (the rest
		// of the megabyte waits in the server), let two more transactions
		// commit, then read on.
		c, err := dialUnix(context.Background(), filepath.Join(dir, SocketName))
		require.NoError(t, err)
		head := make([]byte, backup.HeaderSize)
		_, err = io.ReadFull(c, head)
		require.NoError(t, err)
		during := done.Load()
		waitFor(during + 2)
		rest, err := io.ReadAll(c)
		require.NoError(t, err)
		require.NoError(t, c.Close())
		_, cs, err := backup.ReadAll(io.MultiReader(bytes.NewReader(head), bytes.NewReader(rest)))
		require.NoError(t, err, "every export is whole")
		require.Len(t, cs, 303)
		assert.Equal(t, cs[0].Overlay, cs[1].Overlay, "both halves of every transaction, or neither")
		assert.Len(t, cs[2].Overlay, len(cs[0].Overlay), "the counter agrees")
		n := len(cs[0].Overlay)
		assert.LessOrEqual(t, int64(n), during+1, "the state when the export began (a commit may be in, not yet counted)")
		assert.Less(t, int64(n), done.Load(), "commits landed while it was read, and are not in it")
		seen = append(seen, n)
	}
	close(stop)
	require.NoError(t, <-finished)
	assert.True(t, slices.IsSorted(seen), "later exports see later states: %v", seen)
	assert.Less(t, seen[0], seen[len(seen)-1], "the states differ: %v", seen)
	assert.LessOrEqual(t, int64(seen[len(seen)-1]), done.Load())
	t.Logf("%d transactions committed; the exports saw %v", done.Load(), seen)
}

// bulk is a store with chunks chunks of edits edits each (X = 0, 1, …),
// written in a few transactions.
func bulk(t testing.TB, chunks, edits int) *Store {
	s := filled(t, 0)
	var batch []voxel.BlockEdit
	for i := range chunks {
		for j := range edits {
			batch = append(batch, voxel.BlockEdit{Pos: voxel.ChunkPos{X: int32(i)}, Index: uint16(j), Block: 1})
		}
		if len(batch) >= 50_000 || i == chunks-1 {
			require.NoError(t, s.ApplyBatch(batch))
			batch = batch[:0]
		}
	}
	return s
}

func TestServeExportsSocketFile(t *testing.T) {
	s := filled(t, 10)
	dir := filepath.Dir(s.path)
	_, err := fetch(t, dir)
	assert.ErrorIs(t, err, ErrNoExporter, "no socket")

	// A crashed server's socket: nobody answers, and the next server
	// replaces it.
	ln, err := net.Listen("unix", filepath.Join(dir, SocketName))
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())
	_, err = fetch(t, dir)
	assert.ErrorIs(t, err, ErrNoExporter, "a stale socket")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "export-7.spool"), []byte("a crash's"), 0o600))
	e, err := s.ServeExports()
	require.NoError(t, err)
	_, err = fetch(t, dir)
	assert.NoError(t, err)
	spools, err := filepath.Glob(filepath.Join(dir, spoolPattern))
	require.NoError(t, err)
	assert.Empty(t, spools, "no spool file stays, and a crash's is removed")
	require.NoError(t, e.Close())
	_, err = os.Lstat(filepath.Join(dir, SocketName))
	assert.ErrorIs(t, err, os.ErrNotExist, "Close removes the socket")

	require.NoError(t, os.WriteFile(filepath.Join(dir, SocketName), []byte("mine"), 0o644))
	_, err = s.ServeExports()
	assert.ErrorContains(t, err, "is not a socket")
	b, _ := os.ReadFile(filepath.Join(dir, SocketName))
	assert.Equal(t, "mine", string(b), "someone else's file is left alone")
}

// A data directory deeper than a socket address can name still serves.
func TestServeExportsOnALongPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	defer s.Close()
	require.Greater(t, len(filepath.Join(dir, SocketName)), maxSocketPath)
	serving(t, s)
	got, err := fetch(t, dir)
	require.NoError(t, err)
	_, err = backup.Verify(bytes.NewReader(got))
	assert.NoError(t, err)
}

// A store that cannot be read says so down the socket instead of sending
// a stream that just stops.
func TestServedExportOfADamagedStoreSaysWhy(t *testing.T) {
	s := filled(t, 10)
	k := Key(voxel.ChunkPos{X: 99})
	require.NoError(t, s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketEdits).Put(k[:], []byte{1, 2}) }))
	serving(t, s)
	_, err := fetch(t, filepath.Dir(s.path))
	assert.ErrorContains(t, err, "could not export: voxel store: database unreadable")
	assert.ErrorContains(t, err, "chunk (99,0,0)")
}

// Closing the server while a client stalls mid-export neither hangs nor
// leaves the read transaction open (the store then closes).
func TestCloseCutsAStalledExport(t *testing.T) {
	s := bulk(t, 300, 1000) // ~1 MB: more than the socket's buffers
	e, err := s.ServeExports()
	require.NoError(t, err)
	c, err := dialUnix(context.Background(), e.Path())
	require.NoError(t, err)
	defer c.Close()
	var first [8]byte
	_, err = io.ReadFull(c, first[:]) // the export has begun, and then stalls
	require.NoError(t, err)
	require.NoError(t, e.Close())
	rest, _ := io.ReadAll(c)
	_, err = backup.Verify(io.MultiReader(bytes.NewReader(first[:]), bytes.NewReader(rest)))
	assert.ErrorIs(t, err, backup.ErrTruncated, "the client sees it cut off")
	require.NoError(t, s.Close())
}

// A crash leaves the export socket (and maybe a spool) behind; with
// edits.db moved away, the directory still counts as empty.
func TestExportLeftoversDoNotMakeADirectoryForeign(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, SocketName))
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "export-1.spool"), nil, 0o600))
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, fileName)))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes"), nil, 0o600))
	_, err = Open(dir, testSeed, testGen)
	assert.ErrorIs(t, err, ErrForeign, "anything else still is")
}
