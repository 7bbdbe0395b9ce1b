package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

func blockAt(t *testing.T, s *Store, p voxel.ChunkPos, idx uint16) voxel.Block {
	t.Helper()
	o, err := s.Overlay(p)
	require.NoError(t, err)
	b, ok := o.Get(idx)
	require.True(t, ok, "chunk %v index %d has no edit", p, idx)
	return b
}

// TestReplayAfterAnotherPlayersEditChangesNothing: player 1's request,
// replayed after player 2 edited the same block, is reported as a retry
// and leaves player 2's block, also after a reopen (the stamps are on
// disk, written with the chunk).
func TestReplayAfterAnotherPlayersEditChangesNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	p := voxel.ChunkPos{X: 1, Y: -1, Z: 2}
	mine := Edit{BlockEdit: voxel.BlockEdit{Pos: p, Index: 77, Block: 3}, Player: 1, Seq: 5}
	theirs := Edit{BlockEdit: voxel.BlockEdit{Pos: p, Index: 77, Block: 4}, Player: 2, Seq: 5}
	dup, err := s.ApplyEdits([]Edit{mine})
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, dup)
	dup, err = s.ApplyEdits([]Edit{theirs})
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, dup)

	dup, err = s.ApplyEdits([]Edit{mine})
	require.NoError(t, err)
	assert.Equal(t, []bool{true}, dup, "a replay is a retry")
	assert.Equal(t, voxel.Block(4), blockAt(t, s, p, 77))

	require.NoError(t, s.Close())
	s, err = Open(dir, testSeed, testGen)
	require.NoError(t, err)
	defer s.Close()
	older := mine
	older.Seq = 4
	dup, err = s.ApplyEdits([]Edit{mine, older})
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true}, dup, "a resend across a restart is a retry")
	assert.Equal(t, voxel.Block(4), blockAt(t, s, p, 77))

	// Newer requests apply; one repeated within a batch applies once; the
	// anonymous player is never deduplicated.
	next := mine
	next.Seq, next.Block = 6, 1
	anon := Edit{BlockEdit: voxel.BlockEdit{Pos: p, Index: 78, Block: 2}}
	dup, err = s.ApplyEdits([]Edit{next, next, anon, anon})
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, false, false}, dup)
	assert.Equal(t, voxel.Block(1), blockAt(t, s, p, 77))
}

func TestStampsWrapAndStayBounded(t *testing.T) {
	var st stamps
	assert.True(t, st.stamp(7, 0xFFFFFFFF))
	assert.True(t, st.stamp(7, 0), "sequence numbers wrap: 0 follows 2^32-1")
	assert.False(t, st.stamp(7, 0xFFFFFFFF))
	for p := range uint64(2 * MaxStamps) {
		assert.True(t, st.stamp(100+p, 1))
	}
	assert.Len(t, st, MaxStamps, "oldest players are forgotten first")
	assert.True(t, st.stamp(7, 0), "player 7 was forgotten: its retry would apply again (documented limit)")

	got, err := decodeStamps(st.appendEncode(nil))
	require.NoError(t, err)
	assert.Equal(t, st, got)
	for _, bad := range [][]byte{{}, {1}, {MaxStamps + 1}, append([]byte{1}, make([]byte, stampSize+1)...)} {
		_, err := decodeStamps(bad)
		assert.Error(t, err, "%x", bad)
	}
}

// A store made before the stamps bucket existed gets it at open, and
// then deduplicates like a new one.
func TestStoreWithoutStampsGetsThem(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	require.NoError(t, s.db.Update(func(tx *boltTx) error { return tx.DeleteBucket(bucketStamps) }))
	require.NoError(t, s.Close())
	s, err = Open(dir, testSeed, testGen)
	require.NoError(t, err)
	defer s.Close()
	e := Edit{BlockEdit: voxel.BlockEdit{Pos: voxel.ChunkPos{}, Index: 1, Block: 2}, Player: 9, Seq: 1}
	dup, err := s.ApplyEdits([]Edit{e, e})
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true}, dup)
}
