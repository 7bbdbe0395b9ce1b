package game

import (
	"time"

	"citydrive/render/hud"
)

// Pause: Esc (or a gamepad's Start) opens the pause menu instead of
// quitting. While it is open the simulation stands still: the step clock
// is not given the paused frames' time at all, so nothing is caught up on
// resume. The network keeps running (server messages drained, the car
// still sent at its rate so the server keeps the player), and so do the
// road and ground streams, which only catch up with where the car is.

// pauseItem is an entry of the pause menu.
type pauseItem int

const (
	itemResume pauseItem = iota
	itemQuit
)

var pauseItems = []string{itemResume: "RESUME", itemQuit: "QUIT"}

// pauseMenu is the menu's state; step is its whole policy.
type pauseMenu struct {
	open bool
	sel  pauseItem
}

// step applies a frame's controls and reports whether to quit. Closed:
// Pause opens it on Resume. Open: Pause or Back resumes; Leave (Q) quits;
// MenuUp/MenuDown move the selection; Confirm picks it.
func (m *pauseMenu) step(in Controls) (quit bool) {
	if !m.open {
		if in.Pause {
			m.open, m.sel = true, itemResume
		}
		return false
	}
	switch {
	case in.Leave:
		return true
	case in.Pause || in.Back:
		m.open = false
	case in.Confirm:
		if m.sel == itemQuit {
			return true
		}
		m.open = false
	case in.MenuUp:
		m.sel = max(itemResume, m.sel-1)
	case in.MenuDown:
		m.sel = min(itemQuit, m.sel+1)
	}
	return false
}

// pauseHint is the menu's key help.
const pauseHint = "ESC RESUME   ENTER SELECT   Q QUIT"

// pausedFrame runs the menu for this frame's controls and, while it is
// open, the paused frame: network, streams and the frame description,
// no simulation. It reports whether the frame was a paused one.
func (s *Session) pausedFrame(in Controls, dt float64) bool {
	if s.pause.step(in) {
		s.quit = true
	}
	if !s.pause.open {
		s.frame.Menu = nil
		return false
	}
	c := s.car
	s.stream.Update(0, c.Pos, c.Forward(), s.epoch.Add(time.Duration(s.clock*float64(time.Second))))
	if s.link != nil {
		// Wall time paces the car's sends: the server keeps hearing from us.
		s.link.update(s.clock, dt, c.Pos.X, c.Y, c.Pos.Z, c.Heading, 0)
	}
	s.ground3.Update(c.Pos, c.Y)
	s.setCamera()
	s.buildFrame()
	s.menu = hud.Menu{Title: "PAUSED", Items: pauseItems, Selected: int(s.pause.sel), Hint: pauseHint}
	s.frame.Menu = &s.menu
	s.feedSound(true)
	return true
}

// Paused reports whether the pause menu is open.
func (s *Session) Paused() bool { return s.pause.open }

// Pause opens the pause menu as Esc does (pictures of it, tests).
func (s *Session) Pause() {
	s.pausedFrame(Controls{Pause: !s.pause.open}, 0)
}
