package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
	"citydrive/voxel/authority"
)

// A player's refusal reads the same whichever world answers: the solo
// authority, a cluster's world, or the memory world tools use. The wire
// sends err.Error() as the reason, so equal errors are equal sentences.
func TestEditRefusalsReadTheSameEverywhere(t *testing.T) {
	nc := natstest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node, err := cluster.Join(ctx, cluster.Options{URLs: nc.URLs(0), Seed: seed, Replicas: 1, Logger: quietLog()})
	require.NoError(t, err)
	solo, err := authority.Open(t.TempDir(), seed, quietLog())
	require.NoError(t, err)
	worlds := map[string]netsync.World{"solo": solo, "cluster": node.World()}

	p := voxel.ChunkPos{X: 1}
	refused := map[string]struct {
		e    voxel.BlockEdit
		want error
	}{
		"index": {voxel.BlockEdit{Pos: p, Index: voxel.ChunkVolume, Block: voxel.Stone}, voxel.ErrBadIndex},
		"block": {voxel.BlockEdit{Pos: p, Block: voxel.NumBlocks}, voxel.ErrBadBlock},
	}
	for name, tc := range refused {
		want := tc.e.Check()
		require.ErrorIs(t, want, tc.want, name)
		for wn, w := range worlds {
			err := w.SubmitEdit(1, tc.e)
			require.ErrorIs(t, err, tc.want, "%s through %s", name, wn)
			assert.Equal(t, want.Error(), err.Error(), "%s through %s", name, wn)
		}
	}
	mem := netsync.NewMemoryWorld() // no block table: it judges the index alone
	assert.Equal(t, refused["index"].e.Check().Error(), mem.SubmitEdit(1, refused["index"].e).Error())

	// Closed worlds refuse with one sentence too.
	require.NoError(t, solo.Close())
	require.NoError(t, node.Close())
	ok := voxel.BlockEdit{Pos: p, Block: voxel.Stone}
	for wn, w := range worlds {
		err := w.SubmitEdit(2, ok)
		require.Error(t, err, wn)
		assert.Equal(t, voxel.ErrClosed.Error(), err.Error(), wn)
	}
}
