package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/authority"
)

// onceServer serves the voxel world the real server uses (voxel/authority
// over the bbolt store in dir). The world is closed after the server.
func onceServer(t *testing.T, dir string) (*testServer, *authority.World) {
	t.Helper()
	w, err := authority.Open(dir, 42, quietLog())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return startServer(t, func(c *ServerConfig) { c.World = w }), w
}

// TestReplayedEditIsAppliedOnce (issue 23, defect 3): the same player key
// and sequence sent again is acknowledged and changes nothing: not the
// block another player set since, not the other players' view (no
// broadcast), and not after a restart, where the client's own resend of
// an edit whose acknowledgement it never saw takes the same path.
func TestReplayedEditIsAppliedOnce(t *testing.T) {
	dir := t.TempDir()
	s, w := onceServer(t, dir)
	id := NewIdentity()
	cfgA := s.clientConfig()
	cfgA.Identity = id
	a, b := dial(t, cfgA), dial(t, s.clientConfig())
	origin := voxel.ChunkPos{}
	firstDefault(t, a)
	firstDefault(t, b)

	seq, err := a.RequestEdit(origin, 1234, voxel.Stone)
	require.NoError(t, err)
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, a))
	_, err = b.RequestEdit(origin, 1234, voxel.Sand)
	require.NoError(t, err)
	nextOf[*wire.EditAck](t, b)
	assert.Equal(t, &wire.EditBroadcast{Pos: origin, Index: 1234, Block: voxel.Sand}, nextOf[*wire.EditBroadcast](t, a))

	replay := wire.EditRequest{Player: id.Key(), Seq: seq, Pos: origin, Index: 1234, Block: voxel.Stone}
	require.NoError(t, a.queue(&replay))
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, a), "a replay is answered as done")
	// b's next broadcast is a's next edit: the replay was not announced.
	_, err = a.RequestEdit(origin, 1, voxel.Dirt)
	require.NoError(t, err)
	assert.Equal(t, &wire.EditBroadcast{Pos: origin, Index: 1, Block: voxel.Dirt}, nextOf[*wire.EditBroadcast](t, b))
	nextOf[*wire.EditAck](t, a)
	want := &wire.ChunkEdits{Pos: origin, Edits: []voxel.Edit{{Index: 1, Block: voxel.Dirt}, {Index: 1234, Block: voxel.Sand}}}
	assert.Equal(t, want, nextOf[*wire.ChunkEdits](t, dial(t, s.clientConfig())), "the replay left b's block")

	// Restart (the store reopened) with a's first request unanswered as
	// far as a knows: its next connection resends it once the chunk is in.
	require.NoError(t, a.Close())
	require.NoError(t, s.Close())
	require.NoError(t, w.Close())
	id.mu.Lock()
	id.pending[seq] = replay
	id.mu.Unlock()
	s, _ = onceServer(t, dir)
	cfgA = s.clientConfig()
	cfgA.Identity = id
	a = dial(t, cfgA)
	assert.Equal(t, want, nextOf[*wire.ChunkEdits](t, a))
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, a), "the resend is answered")
	assert.Zero(t, id.Unanswered())
	assert.Equal(t, want, nextOf[*wire.ChunkEdits](t, dial(t, s.clientConfig())), "the resend after a restart changed nothing")
}
