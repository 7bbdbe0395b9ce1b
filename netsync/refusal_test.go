package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
)

func TestRefusalSaysWhatToChange(t *testing.T) {
	rule := admittance{protocol: 2, seed: 42, generator: 3, maxPlayers: 2}
	good := wire.Hello{Protocol: 2, Seed: 42, Generator: 3}
	alpn := transport.ALPN(2)
	with := func(f func(*wire.Hello)) *wire.Hello { h := good; f(&h); return &h }
	cases := []struct {
		name    string
		alpn    string
		hello   *wire.Hello
		players int
		want    string // "" welcomes
	}{
		{name: "match", alpn: alpn, hello: &good, players: 1},
		{name: "old ALPN", alpn: transport.ALPN(1), hello: &good,
			want: "protocol version mismatch: this server speaks citydrive protocol 2, your client speaks 1; install the citydrive release the server runs"},
		{name: "old Hello", alpn: alpn, hello: with(func(h *wire.Hello) { h.Protocol = 7 }),
			want: "protocol version mismatch: this server speaks citydrive protocol 2, your client speaks 7; install the citydrive release the server runs"},
		{name: "seed", alpn: alpn, hello: with(func(h *wire.Hello) { h.Seed = 7 }),
			want: "world seed mismatch: the server's world has seed 42, your client has 7; start the client with -seed 42"},
		{name: "generator", alpn: alpn, hello: with(func(h *wire.Hello) { h.Generator = 4 }),
			want: "terrain generator mismatch: the server runs generator version 3, your client 4; install the citydrive release the server runs"},
		{name: "protocol before seed", alpn: alpn, hello: with(func(h *wire.Hello) { h.Protocol, h.Seed = 1, 7 }),
			want: "protocol version mismatch: this server speaks citydrive protocol 2, your client speaks 1; install the citydrive release the server runs"},
		{name: "full", alpn: alpn, hello: &good, players: 2, want: "server full (2 players); try again later"},
		{name: "mismatch before full", alpn: alpn, hello: with(func(h *wire.Hello) { h.Seed = 7 }), players: 2,
			want: "world seed mismatch: the server's world has seed 42, your client has 7; start the client with -seed 42"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, rule.refusal(tc.alpn, tc.hello, tc.players))
		})
	}
}
