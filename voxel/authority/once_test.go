package authority

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// TestRetryIsAcknowledgedNotApplied: player 1's request, replayed after
// player 2 edited the same block, and resent again after a restart, comes
// back as voxel.ErrAlreadyApplied and leaves player 2's block.
func TestRetryIsAcknowledgedNotApplied(t *testing.T) {
	dir := t.TempDir()
	p := voxel.ChunkPos{X: 3}
	mine := voxel.BlockEdit{Pos: p, Index: 9, Block: voxel.Stone}
	theirs := voxel.BlockEdit{Pos: p, Index: 9, Block: voxel.Sand}
	w, err := open(dir, 7, quiet(), Options{})
	require.NoError(t, err)
	w.UnionChanged([]voxel.ChunkPos{p}, nil)
	w.pass()
	require.NoError(t, w.SubmitEditOnce(1, 11, 5, mine))
	require.NoError(t, w.SubmitEditOnce(2, 22, 5, theirs))
	require.NoError(t, w.SubmitEditOnce(3, 11, 5, mine)) // the replay, in the same batch
	commitAll(w)
	w.pass() // a first edit: the loop reads the chunk's overlay again
	got := committed(w)
	require.Len(t, got, 3)
	assert.NoError(t, got[0].err)
	assert.NoError(t, got[1].err)
	assert.ErrorIs(t, got[2].err, voxel.ErrAlreadyApplied)
	o, ready := w.Chunk(p)
	require.True(t, ready)
	assert.Equal(t, voxel.Overlay{{Index: 9, Block: voxel.Sand}}, o)
	require.NoError(t, w.Close())

	w, err = open(dir, 7, quiet(), Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, w.Close()) }()
	w.UnionChanged([]voxel.ChunkPos{p}, nil)
	w.pass()
	require.NoError(t, w.SubmitEditOnce(4, 11, 5, mine)) // the resend after a restart
	commitAll(w)
	got = committed(w)
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0].err, voxel.ErrAlreadyApplied)
	o, _ = w.Chunk(p)
	assert.Equal(t, voxel.Overlay{{Index: 9, Block: voxel.Sand}}, o)
}
