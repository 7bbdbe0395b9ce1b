package natstest

import (
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node whose port another has taken says so at once (not after
// nodeReady), and Start's first start tries fresh ports again.
func TestANodeOnATakenPortFailsAtOnceAndStartTriesFreshPorts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	c := newCluster(t, 1)
	c.opts[0].Port = l.Addr().(*net.TCPAddr).Port
	err = c.run()
	require.Error(t, err)
	assert.True(t, errors.Is(err, errListen), "%v", err)
	assert.Nil(t, c.nodes[0], "nothing left running")

	taken := 0
	s := startFresh(t, func() *Cluster {
		c := newCluster(t, 1)
		if taken == 0 { // the first attempt's port is taken
			c.opts[0].Port = l.Addr().(*net.TCPAddr).Port
		}
		taken++
		return c
	})
	assert.Equal(t, 2, taken, "a second attempt")
	require.NotNil(t, s.nodes[0])
	assert.NotEqual(t, l.Addr().(*net.TCPAddr).Port, s.opts[0].Port)
}
