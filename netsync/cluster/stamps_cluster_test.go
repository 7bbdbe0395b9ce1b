package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
)

// A handover's out-of-order pair: a player's newer edit commits through
// the server it switched to (b, forwarding to the owner a) before its
// older edit of the same chunk, still on its way through a, arrives. The
// older one is acknowledged and must then be in the bucket (the first
// stamp format acknowledged it as a duplicate and never stored it).
func TestAnOlderEditArrivingAfterANewerOneIsStored(t *testing.T) {
	nc := natstest.Start(t, 1)
	a := joinLeased(t, nc, 0, 1, "a:1", nil)
	b := joinLeased(t, nc, 0, 1, "b:1", nil)
	a.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	b.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	r := cluster.RegionOf(home)
	// a takes the region with another player's edit.
	require.NoError(t, <-edit(t, a.World(), 1, 1, voxel.BlockEdit{Pos: home, Index: 0, Block: voxel.Stone}))
	waitFor(t, "b sees a own the region", deadline, func() bool { return owner(b, r) == a.Slot() })

	const player = 7
	require.NoError(t, <-edit(t, b.World(), player, 11, voxel.BlockEdit{Pos: home, Index: 5, Block: voxel.Stone}))
	require.Equal(t, float64(1), cluster.Forwarded(b), "b forwarded the newer edit to the owner")
	err := <-edit(t, a.World(), player, 10, voxel.BlockEdit{Pos: home, Index: 6, Block: voxel.Sand})
	require.NoError(t, err, "acknowledged as stored now, not as a duplicate")

	for _, n := range []*cluster.Node{a, b} {
		waitFor(t, "both edits in the bucket", deadline, func() bool {
			return block(n.World(), home, 5) == voxel.Stone && block(n.World(), home, 6) == voxel.Sand
		})
	}
	// Its retry is a duplicate now, whichever server it reaches.
	require.ErrorIs(t, <-edit(t, b.World(), player, 10, voxel.BlockEdit{Pos: home, Index: 6, Block: voxel.Sand}), voxel.ErrAlreadyApplied)
}
