package game

import (
	"fmt"

	"citydrive/netsync/wire"
)

// The notice area: one line under the HUD for what the player should
// know now: the server slowed time, the settings were saved (or not).
// A brief notice stays noticeSeconds of wall time, paused or not; the
// server's rate shows for as long as it is slowed.

// noticeSeconds is how long a brief notice stays.
const noticeSeconds = 4.0

type notices struct {
	text string
	left float64 // seconds the text stays
}

// say shows text for noticeSeconds.
func (n *notices) say(text string) { n.text, n.left = text, noticeSeconds }

// tick takes dt seconds of wall time off the notice.
func (n *notices) tick(dt float64) {
	if n.left > 0 {
		n.left -= dt
		if n.left <= 0 {
			n.text = ""
		}
	}
}

// appendNotices appends the notice lines to the HUD's lines.
func (s *Session) appendNotices(hud []string) []string {
	if s.link != nil && s.link.slowed() {
		if s.link.slowedLine == "" || s.link.slowedHz != s.link.hz { // formatted once per rate
			s.link.slowedHz = s.link.hz
			s.link.slowedLine = fmt.Sprintf("SERVER SLOWED TO %d HZ: THE CITY RUNS AT %.0f%% SPEED", s.link.hz, 100*s.link.rate())
		}
		hud = append(hud, s.link.slowedLine)
	}
	if s.notices.text != "" {
		hud = append(hud, s.notices.text)
	}
	return hud
}

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
