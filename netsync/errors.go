package netsync

import (
	"errors"
	"fmt"

	"github.com/quic-go/quic-go"
)

// Application error codes carried in QUIC CONNECTION_CLOSE frames.
const (
	CodeOK           quic.ApplicationErrorCode = 0 // normal close
	CodeRefused      quic.ApplicationErrorCode = 1 // handshake refused (version, seed, generator)
	CodeProtocol     quic.ApplicationErrorCode = 2 // malformed, oversized, out-of-range or out-of-order input
	CodeSlowConsumer quic.ApplicationErrorCode = 3 // the peer stopped reading; its queue passed the bound
	CodeShutdown     quic.ApplicationErrorCode = 4 // server shutting down
	CodeBusy         quic.ApplicationErrorCode = 5 // too many handshakes (from everyone, or from this address); retry later
	CodeTimeout      quic.ApplicationErrorCode = 6 // the client was too slow: Hello, a frame, or its first Subscribe
	CodeKicked       quic.ApplicationErrorCode = 7 // the server's operator removed the player (kick or ban)
)

// ErrBusy is wrapped by Dial's error when the server refused the
// connection as busy (CodeBusy); trying again later may succeed.
var ErrBusy = errors.New("netsync: server busy")

// ErrTimedOut is wrapped when the server let the connection go as too
// slow (CodeTimeout): during Dial, a Hello that did not arrive in time,
// which on a starved client machine is worth another try.
var ErrTimedOut = errors.New("netsync: timed out by the server")

// RefusedError is returned by Dial when the handshake was refused, by the
// server or by the client itself. Reason tells the player what to do.
type RefusedError struct {
	Reason   string
	ByServer bool
}

func (e *RefusedError) Error() string {
	who := "client"
	if e.ByServer {
		who = "server"
	}
	return fmt.Sprintf("connection refused by %s: %s", who, e.Reason)
}

// ErrKicked is wrapped when the server's operator removed this player
// (CodeKicked): a kick or a ban. Reconnecting at once is not the answer.
var ErrKicked = errors.New("netsync: removed by the server's operator")

// ErrQueueFull is returned when a client's outbound queue is full; the
// caller may retry on a later frame.
var ErrQueueFull = errors.New("netsync: outbound queue full")

// ErrClosed is returned after the connection has ended.
var ErrClosed = errors.New("netsync: connection closed")

// remoteAppError extracts the application error the peer closed with.
// A WebTransport session's close (a stream's error after it) carries the
// same codes.
func remoteAppError(err error) (*quic.ApplicationError, bool) {
	var ae *quic.ApplicationError
	if errors.As(err, &ae) {
		return ae, true
	}
	if se, ok := asAppError(err).(*quic.ApplicationError); ok {
		return se, true
	}
	return nil, false
}
