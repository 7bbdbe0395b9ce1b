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
//
// The menu has pages: the main one (resume, options, quit), the options
// screen (options.go) and the quit confirmation. Q, which builds a block
// while driving, only asks there: quitting takes a second, deliberate
// choice.

// menuPage is one page of the pause menu.
type menuPage int

const (
	pageMain    menuPage = iota
	pageOptions          // and its key and gamepad pages (optionsScreen)
	pageQuit             // "quit citydrive?"
)

// pauseItem is an entry of the main page.
type pauseItem int

const (
	itemResume pauseItem = iota
	itemOptions
	itemQuit
)

var pauseItems = []string{itemResume: "RESUME", itemOptions: "OPTIONS", itemQuit: "QUIT"}

// The quit confirmation's items: No first and selected, so that a hurried
// Enter keeps driving.
const (
	quitNo = iota
	quitYes
)

var quitItems = []string{quitNo: "NO, KEEP DRIVING", quitYes: "YES, QUIT"}

// menuEvent is what a step of the menu asks of the session.
type menuEvent int

const (
	menuNone          menuEvent = iota
	menuQuit                    // quit the game
	menuOptionsOpened           // fill the options screen with the live settings
	menuChanged                 // the options screen changed a setting: apply it
	menuOptionsLeft             // the player left the options screen: save
)

// pauseMenu is the menu's state; step is its whole policy.
type pauseMenu struct {
	open    bool
	page    menuPage
	sel     pauseItem // on the main page
	quitSel int       // on the quit page
	opts    optionsScreen
}

// step applies a frame's controls. Closed: Pause opens it on Resume.
// Main page: Pause or Back resumes; Leave (Q) or Quit asks to quit;
// MenuUp/MenuDown move the selection; Confirm picks it. Quit page: only
// Confirm on Yes quits; Pause, Back or No go back to the main page.
func (m *pauseMenu) step(in Controls) menuEvent {
	if !m.open {
		if in.Pause {
			m.open, m.page, m.sel = true, pageMain, itemResume
		}
		return menuNone
	}
	switch m.page {
	case pageMain:
		switch {
		case in.Leave:
			m.askQuit()
		case in.Pause || in.Back:
			m.open = false
		case in.Confirm:
			switch m.sel {
			case itemResume:
				m.open = false
			case itemOptions:
				m.page = pageOptions
				return menuOptionsOpened
			case itemQuit:
				m.askQuit()
			}
		case in.MenuUp:
			m.sel = max(itemResume, m.sel-1)
		case in.MenuDown:
			m.sel = min(itemQuit, m.sel+1)
		}
	case pageQuit:
		switch {
		case in.Confirm && m.quitSel == quitYes:
			return menuQuit
		case in.Confirm || in.Pause || in.Back:
			m.page, m.sel = pageMain, itemQuit
		case in.MenuUp:
			m.quitSel = quitNo
		case in.MenuDown:
			m.quitSel = quitYes
		}
	case pageOptions:
		switch m.opts.step(in) {
		case optionsLeft:
			m.page, m.sel = pageMain, itemOptions
			return menuOptionsLeft
		case optionsChanged:
			return menuChanged
		}
	}
	return menuNone
}

func (m *pauseMenu) askQuit() { m.page, m.quitSel = pageQuit, quitNo }

// capturing reports whether the options screen waits for a key or button.
func (m *pauseMenu) capturing() bool { return m.open && m.page == pageOptions && m.opts.capture }

// pauseHint is the main page's key help; quitHint the confirmation's.
const (
	pauseHint = "ESC RESUME   ENTER SELECT   Q QUIT"
	quitHint  = "UP/DOWN CHOOSE   ENTER SELECT   ESC BACK"
)

// pausedFrame runs the menu for this frame's controls and, while it is
// open, the paused frame: network, streams and the frame description,
// no simulation. It reports whether the frame was a paused one.
func (s *Session) pausedFrame(in Controls, dt float64) bool {
	switch s.pause.step(in) {
	case menuQuit:
		s.quit = true
	case menuOptionsOpened:
		s.pause.opts.show(s.liveSettings(), s.started)
	case menuChanged:
		s.applySettings(&s.pause.opts.cur)
	case menuOptionsLeft:
		s.saveSettings()
	}
	s.input.capture = s.pause.capturing()
	s.notices.tick(dt)
	s.takeNews()
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
	switch s.pause.page {
	case pageMain:
		s.menu = hud.Menu{Title: "PAUSED", Items: pauseItems, Selected: int(s.pause.sel), Hint: pauseHint}
	case pageQuit:
		s.menu = hud.Menu{Title: "QUIT CITYDRIVE?", Items: quitItems, Selected: s.pause.quitSel, Hint: quitHint}
	case pageOptions:
		s.menu = s.pause.opts.menu()
	}
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
