package webmap_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
)

// clusterRig is one server of a cluster on nc, with the cluster's shared
// access rules; Close it (or the test's end does).
func clusterRig(t *testing.T, nc *natstest.Cluster, mod func(*host.Options)) (*host.Host, *webmap.Access) {
	t.Helper()
	var access *webmap.Access
	opt := host.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Seed: testSeed, Logger: quiet(),
		Cluster: nc.URLs(0), Replicas: 1,
		OpenGate: func(shared *cluster.Rules) (netsync.Gate, error) {
			require.NotNil(t, shared, "a cluster's server has its shared rules")
			access = webmap.OpenSharedAccess(shared, quiet())
			return access, nil
		}}
	if mod != nil {
		mod(&opt)
	}
	h, err := host.Start(context.Background(), opt)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h, access
}

// In a cluster the bans and the allow-list are the cluster's: a key
// banned on server A (through A's admin API) is refused joining server B,
// and by a server started after both are gone; lifted on B, A lets it in.
func TestClusterBanHoldsOnEveryServer(t *testing.T) {
	nc := natstest.Start(t, 1)
	a, accessA := clusterRig(t, nc, nil)
	b, accessB := clusterRig(t, nc, nil)
	require.True(t, accessA.Shared())
	web := mapRig(t, a, accessA, func() {})
	defer web.Close()

	c, err := join(t, b, 42, "")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	code, body := post(t, web.URL()+"api/admin/ban", "test-token-0123456789", `{"key":"000000000000002a","reason":"griefing"}`)
	require.Equal(t, 200, code, body)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	require.NoError(t, accessB.Sync(ctx))
	assert.True(t, accessB.Banned(42))
	_, err = join(t, b, 42, "")
	assert.Equal(t, "you are banned from this server: griefing", refusal(t, err))

	// The allow-list too, set on B, holds on A.
	require.NoError(t, accessB.SetAllowOnly(true))
	require.NoError(t, accessB.Allow(7, true))
	require.NoError(t, accessA.Sync(ctx))
	_, err = join(t, a, 8, "")
	assert.Contains(t, refusal(t, err), "allow-list")
	c, err = join(t, a, 7, "")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, accessA.SetAllowOnly(false))

	// Both gone, a new server has the ban from the start.
	require.NoError(t, web.Close())
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	d, accessD := clusterRig(t, nc, nil)
	assert.True(t, accessD.Banned(42))
	assert.False(t, accessD.State().AllowOnly)
	_, err = join(t, d, 42, "")
	assert.Equal(t, "you are banned from this server: griefing", refusal(t, err))
	require.NoError(t, accessD.Unban(42))
	c, err = join(t, d, 42, "")
	require.NoError(t, err)
	require.NoError(t, c.Close())
}
