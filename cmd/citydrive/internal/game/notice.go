package game

import (
	"fmt"

	"citydrive/netsync/wire"
)

// Notice shows the server operator's notice (a broadcast, or how long is
// left before a shutdown) on the HUD's status line, where the server's
// other answers go (netsync.NoticeSink).
func (s sink) Notice(n wire.Notice) {
	if n.Shutdown > 0 && n.Text == "" {
		s.l.status = fmt.Sprintf("SERVER: SHUTTING DOWN IN %d S", n.Shutdown)
		return
	}
	s.l.status = "SERVER: " + n.Text
}
