package netsync

import (
	"fmt"
	"strconv"
	"strings"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
)

// admittance is the server's side of the handshake rule: what a client
// must match to join, and how many players fit.
type admittance struct {
	protocol   uint32
	seed       uint64
	generator  uint32
	maxPlayers int
}

// refusal returns why a client that negotiated ALPN alpn and sent hello
// may not join while players are connected, as the sentence the player is
// shown (it says what to change), or "" to welcome it. The first mismatch
// wins, in the order a player has to fix them.
func (a admittance) refusal(alpn string, hello *wire.Hello, players int) string {
	switch {
	case alpn != transport.ALPN(a.protocol) || hello.Protocol != a.protocol:
		theirs := strings.TrimPrefix(alpn, transport.ALPNPrefix)
		if hello.Protocol != a.protocol {
			theirs = strconv.FormatUint(uint64(hello.Protocol), 10)
		}
		return fmt.Sprintf("protocol version mismatch: this server speaks citydrive protocol %d, your client speaks %s; install the citydrive release the server runs", a.protocol, theirs)
	case hello.Seed != a.seed:
		return fmt.Sprintf("world seed mismatch: the server's world has seed %d, your client has %d; start the client with -seed %d", a.seed, hello.Seed, a.seed)
	case hello.Generator != a.generator:
		return fmt.Sprintf("terrain generator mismatch: the server runs generator version %d, your client %d; install the citydrive release the server runs", a.generator, hello.Generator)
	case players >= a.maxPlayers:
		return fmt.Sprintf("server full (%d players); try again later", a.maxPlayers)
	}
	return ""
}
