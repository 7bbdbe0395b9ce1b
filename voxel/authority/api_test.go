package authority

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/store"
)

// The world as the server uses it, its own goroutines running: synctest
// lets the test wait until the loop and the committer have nothing left
// to do (the store's disk work included), with no sleeps.
func TestWorldThroughItsAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		w, err := Open(dir, 7, quiet())
		require.NoError(t, err)
		assert.Equal(t, uint64(7), w.Seed())
		assert.Equal(t, uint32(gen.Version), w.Generator())

		p, q := voxel.ChunkPos{X: 2}, voxel.ChunkPos{Z: -3}
		w.UnionChanged([]voxel.ChunkPos{p, q}, nil)
		synctest.Wait()
		assert.Equal(t, Stats{Wanted: 2, Ready: 2}, w.Stats(), "never edited: ready at once")

		e1 := voxel.BlockEdit{Pos: p, Index: 3, Block: voxel.Stone}
		e2 := voxel.BlockEdit{Pos: p, Index: 4, Block: voxel.Sand}
		e3 := voxel.BlockEdit{Pos: voxel.ChunkPos{Y: 9}, Index: 1, Block: voxel.Dirt} // not wanted by anyone
		require.NoError(t, w.SubmitEdit(1, e1))
		synctest.Wait()
		assert.Equal(t, []done{{1, e1, nil}}, committed(w))
		// The committer asked the loop for p's overlay (p is wanted), and
		// the loop has read it: the chunk is deliverable with the edit.
		o, ready := w.Chunk(p)
		require.True(t, ready)
		assert.Equal(t, voxel.Overlay{{Index: 3, Block: voxel.Stone}}, o)

		require.NoError(t, w.SubmitEdit(2, e2))
		require.NoError(t, w.SubmitEdit(3, e3))
		synctest.Wait()
		assert.Equal(t, []done{{2, e2, nil}, {3, e3, nil}}, committed(w))
		o, _ = w.Chunk(p)
		assert.Equal(t, voxel.Overlay{{Index: 3, Block: voxel.Stone}, {Index: 4, Block: voxel.Sand}}, o)
		_, ready = w.Chunk(e3.Pos)
		assert.False(t, ready, "edited, not wanted: its overlay is not read")
		assert.Equal(t, Stats{Wanted: 2, Ready: 2, Edited: 2}, w.Stats())

		w.UnionChanged(nil, []voxel.ChunkPos{p})
		synctest.Wait()
		_, ready = w.Chunk(p)
		assert.False(t, ready, "left the union: the overlay is forgotten")
		assert.Equal(t, Stats{Wanted: 1, Ready: 1, Edited: 2}, w.Stats())

		require.NoError(t, w.Close())
		require.NoError(t, w.Close(), "Close twice")
		assert.ErrorIs(t, w.SubmitEdit(4, voxel.BlockEdit{Pos: q, Block: voxel.Stone}), voxel.ErrClosed)
		assert.Empty(t, committed(w))
	})
}

// The loop reads at most OverlaysPerPass overlays per pass, near-first
// order of the union kept; a chunk that left before its turn is not read.
func TestOverlaysPerPass(t *testing.T) {
	dir := t.TempDir()
	chunks := []voxel.ChunkPos{{X: 1}, {X: 2}, {X: 3}, {X: 4}}
	func() {
		w, err := open(dir, 7, quiet(), Options{CommitQueue: 8, CommitBatch: 8})
		require.NoError(t, err)
		defer func() { require.NoError(t, w.Close()) }()
		for i, p := range chunks {
			require.NoError(t, w.SubmitEdit(uint64(i), voxel.BlockEdit{Pos: p, Block: voxel.Stone}))
		}
		commitAll(w)
		require.Len(t, committed(w), len(chunks))
	}()
	w := openStill(t, dir, Options{OverlaysPerPass: 2})
	assert.Equal(t, len(chunks), w.Stats().Edited, "the index is loaded at open")
	w.UnionChanged(chunks, nil)
	ready := func() []bool {
		var out []bool
		for _, p := range chunks {
			_, ok := w.Chunk(p)
			out = append(out, ok)
		}
		return out
	}
	w.pass()
	assert.Equal(t, []bool{true, true, false, false}, ready(), "two per pass, in the order they entered")
	assert.Equal(t, Stats{Wanted: 4, Ready: 2, Waiting: 2, Edited: 4}, w.Stats())
	w.UnionChanged(nil, chunks[2:3])
	w.pass()
	assert.Equal(t, []bool{true, true, false, true}, ready(), "the one that left is skipped")
	assert.Equal(t, Stats{Wanted: 3, Ready: 3, Edited: 4}, w.Stats())
	assert.Empty(t, w.needQ)
}

// A union change that repeats what the world knows changes nothing:
// adding a chunk already wanted does not forget its overlay, removing one
// never wanted is ignored.
func TestRepeatedUnionChanges(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{})
	p := voxel.ChunkPos{X: 1}
	w.UnionChanged([]voxel.ChunkPos{p}, nil)
	w.pass()
	require.NoError(t, w.SubmitEdit(1, voxel.BlockEdit{Pos: p, Block: voxel.Stone}))
	commitAll(w)
	w.pass()
	_, ready := w.Chunk(p)
	require.True(t, ready)

	w.UnionChanged([]voxel.ChunkPos{p}, []voxel.ChunkPos{{X: 50}})
	w.UnionChanged(nil, nil)
	w.pass()
	o, ready := w.Chunk(p)
	assert.True(t, ready)
	assert.Len(t, o, 1)
	assert.Equal(t, Stats{Wanted: 1, Ready: 1, Edited: 1}, w.Stats())
}

// A batch takes at most CommitBatch edits; the rest wait for the next.
func TestCommitBatchBound(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{CommitQueue: 8, CommitBatch: 2})
	for i := range uint16(5) {
		require.NoError(t, w.SubmitEdit(uint64(i), voxel.BlockEdit{Pos: voxel.ChunkPos{X: int32(i)}, Block: voxel.Stone}))
	}
	var sizes []int
	for len(w.commits) > 0 {
		commitAll(w)
		sizes = append(sizes, len(committed(w)))
	}
	assert.Equal(t, []int{2, 2, 1}, sizes)
}

func TestRegisterExportsTheGauges(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{})
	reg := prometheus.NewRegistry()
	require.NoError(t, w.Register(reg))
	w.UnionChanged([]voxel.ChunkPos{{X: 1}, {X: 2}}, nil)
	w.pass()
	require.NoError(t, w.SubmitEdit(1, voxel.BlockEdit{Pos: voxel.ChunkPos{X: 1}, Block: voxel.Stone}))
	commitAll(w)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		switch {
		case m.GetGauge() != nil:
			got[mf.GetName()] = m.GetGauge().GetValue()
		case m.GetHistogram() != nil:
			got[mf.GetName()] = float64(m.GetHistogram().GetSampleCount())
		}
	}
	assert.Equal(t, map[string]float64{
		"citydrive_voxel_ready_chunks":      2,
		"citydrive_voxel_wanted_chunks":     2,
		"citydrive_voxel_edited_chunks":     1,
		"citydrive_edit_commit_seconds":     1,
		"citydrive_edit_commit_batch_edits": 1,
	}, got)
	assert.Error(t, w.Register(reg), "registered twice")
}

// Open reports a store it cannot use, naming the directory, and takes a
// nil logger as the default one.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, 7, nil)
	require.NoError(t, err, "nil logger")
	require.NoError(t, w.Close())
	_, err = Open(dir, 8, quiet())
	require.Error(t, err, "another world's store")
	assert.Contains(t, err.Error(), "voxel world in "+dir)
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = OpenWith(file, 7, quiet(), Options{})
	assert.ErrorContains(t, err, "voxel world in "+file)
}

func TestOptionDefaults(t *testing.T) {
	want := Options{PassEvery: 10 * time.Millisecond, CommitQueue: 1024, CommitBatch: 256, OverlaysPerPass: 1024}
	for _, o := range []Options{{}, {PassEvery: -1, CommitQueue: -1, CommitBatch: -1, OverlaysPerPass: -1}} {
		o.defaults()
		assert.Equal(t, want, o)
	}
	set := Options{PassEvery: 1, CommitQueue: 1, CommitBatch: 1, OverlaysPerPass: 1}
	o := set
	o.defaults()
	assert.Equal(t, set, o, "set values are kept")
}

func TestUnknownBlockSaysWhichAreValid(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{})
	err := w.SubmitEdit(0, voxel.BlockEdit{Block: voxel.NumBlocks})
	assert.ErrorIs(t, err, voxel.ErrBadBlock)
	assert.ErrorContains(t, err, fmt.Sprintf("valid blocks are 0..%d", voxel.NumBlocks-1))
}

// A batch that fails as a whole (one chunk's stored overlay is corrupt) is
// retried edit by edit: the good edits commit, the bad one is reported.
func TestFailedBatchIsRetriedEditByEdit(t *testing.T) {
	dir := t.TempDir()
	bad := voxel.ChunkPos{X: 9}
	w, err := open(dir, 7, quiet(), Options{})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	db, err := bolt.Open(filepath.Join(dir, "edits.db"), 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		k := store.Key(bad)
		return tx.Bucket([]byte("edits")).Put(k[:], []byte{1, 2}) // not a whole overlay entry
	}))
	require.NoError(t, db.Close())

	w = openStill(t, dir, Options{})
	good1 := voxel.BlockEdit{Pos: voxel.ChunkPos{X: 1}, Index: 1, Block: voxel.Stone}
	worse := voxel.BlockEdit{Pos: bad, Index: 2, Block: voxel.Stone}
	good2 := voxel.BlockEdit{Pos: voxel.ChunkPos{X: 2}, Index: 3, Block: voxel.Stone}
	w.commitQueued([]commit{{tag: 1, e: good1}, {tag: 2, e: worse}, {tag: 3, e: good2}})
	got := committed(w)
	require.Len(t, got, 3)
	assert.NoError(t, got[0].err)
	assert.ErrorContains(t, got[1].err, "could not save that edit")
	assert.NoError(t, got[2].err)
	assert.Equal(t, 3, w.Stats().Edited, "the two good chunks and the corrupt one")

	// A batch of one that fails is reported, not retried.
	w.commitQueued([]commit{{tag: 4, e: worse}})
	got = committed(w)
	require.Len(t, got, 1)
	assert.ErrorContains(t, got[0].err, "could not save that edit")
}
