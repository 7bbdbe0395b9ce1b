package authority

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/voxel"
	"citydrive/voxel/store/lazyfs"
)

func TestMain(m *testing.M) {
	lazyfs.RunIfHelper() // the full-disk test's file system, in a process of its own
	goleak.VerifyTestMain(m)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// openStill opens a world whose loop and committer do not run: the test
// takes their steps (pass, commitQueued) itself.
func openStill(t *testing.T, dir string, opt Options) *World {
	t.Helper()
	opt.defaults()
	w, err := open(dir, 7, quiet(), opt)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return w
}

type done struct {
	tag uint64
	e   voxel.BlockEdit
	err error
}

func committed(w *World) []done {
	var out []done
	w.CommittedEdits(func(tag uint64, e voxel.BlockEdit, err error) { out = append(out, done{tag, e, err}) })
	return out
}

// commitAll runs the committer's step over everything queued.
func commitAll(w *World) {
	select {
	case c := <-w.commits:
		w.commitQueued([]commit{c})
	default:
	}
}

func TestUneditedChunksAreReadyWithoutGeneration(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{})
	o, ready := w.Chunk(voxel.ChunkPos{X: 3, Y: -1})
	assert.True(t, ready, "never edited: ready before the world heard of it")
	assert.Empty(t, o)
}

func TestEditLifecycle(t *testing.T) {
	dir := t.TempDir()
	w := openStill(t, dir, Options{})
	p := voxel.ChunkPos{X: 1}
	e1 := voxel.BlockEdit{Pos: p, Index: 5, Block: voxel.Stone}
	e2 := voxel.BlockEdit{Pos: p, Index: 9, Block: voxel.Sand}
	w.UnionChanged([]voxel.ChunkPos{p}, nil)
	w.pass()

	require.NoError(t, w.SubmitEdit(11, e1))
	assert.Empty(t, committed(w), "not acknowledged before the commit")
	o, _ := w.Chunk(p)
	assert.Empty(t, o, "an edit being committed is shown to nobody")
	commitAll(w)
	assert.Equal(t, []done{{11, e1, nil}}, committed(w))
	assert.Empty(t, committed(w), "handed back once")

	// A first edit: the chunk's overlay has to be read before it is
	// deliverable again, and edits wait for it.
	_, ready := w.Chunk(p)
	assert.False(t, ready)
	assert.ErrorIs(t, w.SubmitEdit(12, e2), voxel.ErrLoading)
	w.pass()
	o, ready = w.Chunk(p)
	require.True(t, ready)
	assert.Equal(t, voxel.Overlay{{Index: 5, Block: voxel.Stone}}, o)

	// Later edits update the loaded overlay as they commit.
	require.NoError(t, w.SubmitEdit(12, e2))
	commitAll(w)
	o, _ = w.Chunk(p)
	assert.Equal(t, voxel.Overlay{{Index: 5, Block: voxel.Stone}, {Index: 9, Block: voxel.Sand}}, o)

	// Leaving the union forgets the overlay; coming back reads it again.
	w.UnionChanged(nil, []voxel.ChunkPos{p})
	w.pass()
	_, ready = w.Chunk(p)
	assert.False(t, ready)
	w.UnionChanged([]voxel.ChunkPos{p}, nil)
	w.pass()
	o, ready = w.Chunk(p)
	assert.True(t, ready)
	assert.Len(t, o, 2)
	assert.Equal(t, Stats{Wanted: 1, Ready: 1, Edited: 1}, w.Stats())
}

func TestEditsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	p := voxel.ChunkPos{Z: -4}
	func() {
		w, err := open(dir, 7, quiet(), Options{CommitQueue: 4, CommitBatch: 4})
		require.NoError(t, err)
		defer func() { require.NoError(t, w.Close()) }()
		require.NoError(t, w.SubmitEdit(1, voxel.BlockEdit{Pos: p, Index: 1, Block: voxel.Dirt}))
		commitAll(w)
		require.Len(t, committed(w), 1)
	}()
	w := openStill(t, dir, Options{})
	_, ready := w.Chunk(p)
	assert.False(t, ready, "edited on disk: not ready until its overlay is read")
	w.UnionChanged([]voxel.ChunkPos{p}, nil)
	w.pass()
	o, ready := w.Chunk(p)
	assert.True(t, ready)
	assert.Equal(t, voxel.Overlay{{Index: 1, Block: voxel.Dirt}}, o)
}

func TestSubmitRefuses(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{CommitQueue: 1})
	p := voxel.ChunkPos{}
	cases := []struct {
		name string
		e    voxel.BlockEdit
		want error
	}{
		{name: "unknown block", e: voxel.BlockEdit{Pos: p, Block: voxel.NumBlocks}, want: voxel.ErrBadBlock},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.ErrorIs(t, w.SubmitEdit(0, tc.e), tc.want) })
	}
	assert.Error(t, w.SubmitEdit(0, voxel.BlockEdit{Pos: p, Index: voxel.ChunkVolume}), "index out of range")
	require.NoError(t, w.SubmitEdit(1, voxel.BlockEdit{Pos: p, Block: voxel.Stone}))
	assert.ErrorIs(t, w.SubmitEdit(2, voxel.BlockEdit{Pos: p, Index: 1, Block: voxel.Stone}), voxel.ErrBusy, "queue of one is full")
}

func TestQueuedEditsCommitTogetherInOrder(t *testing.T) {
	w := openStill(t, t.TempDir(), Options{CommitQueue: 8, CommitBatch: 8})
	var want []done
	for i := range uint16(3) {
		e := voxel.BlockEdit{Pos: voxel.ChunkPos{X: int32(i)}, Index: i, Block: voxel.Grass}
		require.NoError(t, w.SubmitEdit(uint64(i), e))
		want = append(want, done{uint64(i), e, nil})
	}
	commitAll(w)
	assert.Equal(t, want, committed(w))
	assert.Equal(t, 3, w.Stats().Edited)
}
