//go:build !(js && wasm)

package netsync

import (
	"context"
	"crypto/sha256"
	"errors"
)

// errNoWebTransport: outside a browser the client dials native QUIC.
var errNoWebTransport = errors.New("netsync: WebTransport sessions are opened by the browser build (GOOS=js); this client dials native QUIC (ClientConfig.Addr)")

func dialWebTransport(context.Context, string, [][sha256.Size]byte) (clientConn, error) {
	return nil, errNoWebTransport
}
