package netsync

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// An in-process server has no socket and no identity on disk; clients
// join it through memory and play as over the network: the chunk, an
// edit broadcast and acknowledged, cars relayed, and a kick explained.
func TestInProcessServerIsJoinedThroughMemory(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.InProcess, c.DataDir, c.Addr = true, "", "" })
	assert.Equal(t, "in-process", s.Addr().String())
	cfg := ClientConfig{InProcess: s.Server, Seed: 42, Generator: 3, Radius: 1, MaxBlock: 200, Logger: quietLog()}
	a := dial(t, cfg)
	b := dial(t, cfg)
	origin := voxel.ChunkPos{}
	for _, c := range []*Client{a, b} {
		assert.Equal(t, origin, firstDefault(t, c))
	}
	seq, err := a.RequestEdit(origin, 1234, 9)
	require.NoError(t, err)
	want := &wire.EditBroadcast{Pos: origin, Index: 1234, Block: 9}
	assert.Equal(t, want, nextOf[*wire.EditBroadcast](t, a))
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, a))
	assert.Equal(t, want, nextOf[*wire.EditBroadcast](t, b))
	assert.NotZero(t, a.Traffic().BytesIn)
	assert.NotZero(t, a.Traffic().BytesOut)

	require.True(t, s.KickPlayer(a.Player(), "the test says go"))
	<-a.Done()
	assert.True(t, errors.Is(a.Err(), ErrKicked), "%v", a.Err())
	assert.Contains(t, a.Err().Error(), "the test says go")

	// A server on the network is dialled at its address, not in process.
	net := startServer(t, nil)
	dial(t, net.clientConfig()) // Run has started (Close racing a Run not begun is another matter)
	_, err = net.dialPipe(wire.ProtocolVersion)
	assert.ErrorContains(t, err, "dial its address")
}
