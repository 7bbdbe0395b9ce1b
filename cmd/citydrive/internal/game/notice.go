package game

import (
	"fmt"

	"citydrive/netsync/wire"
)

// The notice area: one line of the player's HUD (hud.go) for what the
// player should know now: the server is lost or slowed time, an edit was
// refused, a screenshot or the settings were saved (or not).
// A brief notice stays noticeSeconds of wall time, paused or not; the
// server's rate shows for as long as it is slowed.

// noticeSeconds is how long a brief notice stays.
const noticeSeconds = 4.0

type notices struct {
	text string
	left float64 // seconds the text stays
}

// say shows text for noticeSeconds.
func (n *notices) say(text string) { n.sayFor(text, noticeSeconds) }

// sayFor shows text for secs seconds.
func (n *notices) sayFor(text string, secs float64) { n.text, n.left = text, secs }

// takeNews has the link's latest news shown (once a frame, the HUD shown
// or not).
func (s *Session) takeNews() {
	if s.link != nil && s.link.newsSeq != s.newsSeen {
		s.newsSeen = s.link.newsSeq
		s.notices.say(s.link.news)
	}
}

// tick takes dt seconds of wall time off the notice.
func (n *notices) tick(dt float64) {
	if n.left > 0 {
		n.left -= dt
		if n.left <= 0 {
			n.text = ""
		}
	}
}

// reconnecting is the notice while the server is lost and redialled.
const reconnecting = "SERVER LOST: RECONNECTING"

// noticeLine is the notice area's one line now, the most pressing
// first: the lost server while it is lost, then a brief notice (the
// link's news among them: edits and resets refused, reconnected, the
// operator's notices; screenshots; settings saved), then the server's
// slowed rate while it lasts, then slow motion (this machine's frames
// too slow). Nothing is formatted unless it changed.
func (s *Session) noticeLine() string {
	if s.link != nil && s.link.c == nil {
		return reconnecting
	}
	if s.notices.text != "" {
		return s.notices.text
	}
	if s.link != nil && s.link.slowed() {
		if s.link.slowedLine == "" || s.link.slowedHz != s.link.hz { // formatted once per rate
			s.link.slowedHz = s.link.hz
			s.link.slowedLine = fmt.Sprintf("SERVER SLOWED TO %d HZ: THE CITY RUNS AT %.0f%% SPEED", s.link.hz, 100*s.link.rate())
		}
		return s.link.slowedLine
	}
	if s.slowdown < slowNotice {
		return slowMotion
	}
	return ""
}

// slowMotion is the notice while frames are too slow for real time
// (stepClock); the developer's overlay has the factor.
const slowMotion = "SLOW MOTION: THE GAME RUNS UNDER 5 FPS"

// Notice shows the server operator's notice (a broadcast, or how long is
// left before a shutdown) in the notice area and on the developer's
// connection line, where the server's other answers go
// (netsync.NoticeSink).
func (s sink) Notice(n wire.Notice) {
	if n.Shutdown > 0 && n.Text == "" {
		s.l.tell(fmt.Sprintf("SERVER: SHUTTING DOWN IN %d S", n.Shutdown))
		return
	}
	s.l.tell("SERVER: " + n.Text)
}
