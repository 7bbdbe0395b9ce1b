package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebTransportAddrDefaultsBesideTheGamePort(t *testing.T) {
	for _, c := range []struct {
		flag, game string
		web        bool
		want       string
	}{
		{"", ":4242", true, ":4243"},
		{"", "10.0.0.5:4242", true, "10.0.0.5:4243"},
		{"", "127.0.0.1:0", true, "127.0.0.1:0"}, // a random game port: a random one too
		{"", ":4242", false, ""},                 // no web endpoint, no page: off
		{"off", ":4242", true, ""},
		{":9000", ":4242", false, ":9000"},
	} {
		got, err := webTransportAddr(c.flag, c.game, c.web)
		require.NoError(t, err, c)
		assert.Equal(t, c.want, got, c)
	}
	_, err := webTransportAddr("nonsense", ":4242", true)
	require.ErrorContains(t, err, "-webtransport-addr")
	_, err = webTransportAddr("", ":65535", true)
	require.ErrorContains(t, err, "give -webtransport-addr")
}

func TestInsecureForBrowsersIsPlainHTTPOffLoopback(t *testing.T) {
	assert.False(t, insecureForBrowsers(false, "127.0.0.1"))
	assert.False(t, insecureForBrowsers(false, "::1"))
	assert.False(t, insecureForBrowsers(false, "localhost"))
	assert.True(t, insecureForBrowsers(false, "192.0.2.2"))
	assert.True(t, insecureForBrowsers(false, "game.example.org"))
	assert.False(t, insecureForBrowsers(true, "192.0.2.2"))
}
