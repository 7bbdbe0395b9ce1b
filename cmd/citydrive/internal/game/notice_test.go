package game

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync"
	"citydrive/netsync/wire"
)

func TestServerNoticeShowsOnTheStatusLine(t *testing.T) {
	l := &link{}
	var _ netsync.NoticeSink = sink{l}
	netsync.Dispatch(sink{l}, &wire.Notice{Text: "The server shuts down in 30 s.", Shutdown: 30})
	assert.Equal(t, "SERVER: The server shuts down in 30 s.", l.status)
	netsync.Dispatch(sink{l}, &wire.Notice{Shutdown: 5})
	assert.Equal(t, "SERVER: SHUTTING DOWN IN 5 S", l.status)
}
