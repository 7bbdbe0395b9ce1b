package host

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
)

// With Cluster set the host keeps no edit store in its data directory,
// joins the bucket (one NATS node, one replica) and serves its metrics.
func TestClusterHostUsesNATSNotTheDataDirectory(t *testing.T) {
	nc := natstest.Start(t, 1)
	dir := t.TempDir()
	h := startHost(t, dir, func(o *Options) { o.Cluster, o.Replicas = []string{nc.URL(0)}, 1 })
	require.Nil(t, h.World(), "no bbolt world in a cluster")
	_, err := os.Stat(filepath.Join(WorldDir(dir, testSeed), "edits.db"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	cfg := h.ClientConfig()
	cfg.Radius, cfg.Logger = testRadius, quietLog()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := netsync.Dial(ctx, cfg)
	require.NoError(t, err)
	defer c.Close()
	assert.Greater(t, c.Player(), uint32(1)<<20, "the player id carries the server's slot")
	m := next(t, c) // tick-rate notices passed over
	var owners *wire.Owners
	for o, isOwners := m.(*wire.Owners); isOwners; o, isOwners = m.(*wire.Owners) {
		owners, m = o, next(t, c) // the lease directory's word on the regions around
	}
	_, ok := m.(*wire.ChunkDefaults)
	assert.True(t, ok, "the area arrives once the region's watch is in: %T", m)
	for owners == nil { // the host hands the server the lease directory: the player is told the owners around it
		owners, _ = next(t, c).(*wire.Owners)
	}

	resp, err := http.Get("http://" + h.MetricsAddr().String() + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Contains(t, string(body), "citydrive_cluster_edit_commit_seconds")
}
