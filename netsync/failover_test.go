package netsync

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailoverDialsTheNextServerWithTheSameIdentity(t *testing.T) {
	a, b := startServer(t, nil), startServer(t, nil)
	cfg := a.clientConfig()
	_, err := NewFailover(cfg, []string{"x:1", "y:2", "z:3"}, []string{"f1", "f2"}, 0)
	require.Error(t, err, "two pins for three servers")
	f, err := NewFailover(cfg, []string{a.Addr().String(), b.Addr().String()}, []string{a.Fingerprint(), b.Fingerprint()}, 1)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var remotes []string
	for range 3 { // each Dial means the last connection was lost: take the next server
		c, err := f.Dial(ctx)
		require.NoError(t, err)
		remotes = append(remotes, c.conn.(quicClient).RemoteAddr().String())
		assert.Same(t, f.Identity(), c.cfg.Identity)
		assert.Equal(t, FailoverIdle, c.cfg.IdleTimeout)
		require.NoError(t, c.Close())
	}
	assert.Equal(t, []string{b.Addr().String(), a.Addr().String(), b.Addr().String()}, remotes, "start at 1, then in turn")
}
