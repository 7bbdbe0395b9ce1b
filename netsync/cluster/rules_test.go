package cluster_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
)

func joinNode(t *testing.T, nc *natstest.Cluster) *cluster.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	n, err := cluster.Join(ctx, cluster.Options{URLs: nc.URLs(0), Seed: seed, Replicas: 1, Logger: quietLog()})
	require.NoError(t, err)
	return n
}

// recorder is a Rules watcher that keeps what it was told.
type recorder struct {
	mu   sync.Mutex
	seen map[string]string
}

func (r *recorder) watch(k string, v []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v == nil {
		delete(r.seen, k)
		return
	}
	r.seen[k] = string(v)
}

func (r *recorder) get() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for k, v := range r.seen {
		out[k] = v
	}
	return out
}

// A rule written on one server is on every other once it syncs (its
// watcher told), an empty value removes it, and the rules outlive every
// server: a node joining later has them from the start.
func TestRulesAreSharedAndOutliveTheServers(t *testing.T) {
	nc := natstest.Start(t, 1)
	a, b := joinNode(t, nc), joinNode(t, nc)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	rec := &recorder{seen: map[string]string{}}
	b.Rules().Watch(rec.watch)

	require.NoError(t, a.Rules().Put(ctx, "ban.00000000000000aa", []byte(`{"reason":"griefing"}`)))
	require.NoError(t, a.Rules().Put(ctx, "allow_only", []byte("1")))
	assert.Equal(t, `{"reason":"griefing"}`, string(a.Rules().Snapshot()["ban.00000000000000aa"]), "the writer's copy has it on return")
	require.NoError(t, b.Rules().Sync(ctx))
	assert.Equal(t, map[string]string{"ban.00000000000000aa": `{"reason":"griefing"}`, "allow_only": "1"}, rec.get())

	require.NoError(t, b.Rules().Put(ctx, "allow_only", nil))
	require.NoError(t, a.Rules().Sync(ctx))
	assert.NotContains(t, a.Rules().Snapshot(), "allow_only")
	assert.Equal(t, map[string]string{"ban.00000000000000aa": `{"reason":"griefing"}`}, rec.get())

	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	c := joinNode(t, nc)
	defer c.Close()
	assert.Equal(t, map[string][]byte{"ban.00000000000000aa": []byte(`{"reason":"griefing"}`)}, c.Rules().Snapshot())

	assert.ErrorContains(t, c.Rules().Put(ctx, strings.Repeat("k", cluster.MaxRuleKeyLen+1), nil), "key")
	assert.ErrorContains(t, c.Rules().Put(ctx, "k", make([]byte, cluster.MaxRuleValueLen+1)), "at most")
}
