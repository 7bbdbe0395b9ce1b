package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClusterFlagTakesNATSURLs(t *testing.T) {
	urls, err := parseNATS("nats://127.0.0.1:4222, nats://10.0.0.2:4223")
	require.NoError(t, err)
	assert.Equal(t, []string{"nats://127.0.0.1:4222", "nats://10.0.0.2:4223"}, urls)
	none, err := parseNATS("")
	require.NoError(t, err)
	assert.Empty(t, none, "no -cluster: a single server")
	for _, bad := range []string{"127.0.0.1:4222", "nats://host", "http://h:1", "nats://a:1,,"} {
		_, err := parseNATS(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, []string{"a:1", "b:2"}, splitList(" a:1 ,b:2,"))
}
