package game

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/render/hud"
	"citydrive/render/input"
	"citydrive/render/scale"
	"citydrive/render/scene"
)

// The options screen of the pause menu: the settings (settings.Settings)
// with their live values, changed with Left/Right (or Enter), and two
// pages of bindings where Enter waits for the new key or button. Sound,
// units, HUD, camera, weather, time and bindings apply at once; window
// size, fullscreen and the render profile at the next start (the window
// is made once), which their lines say. Leaving the screen saves the
// settings the player changed on it (Options.SaveSettings), and only
// those: a flag given for this run is not written into the file.

// optPage is a page of the options screen.
type optPage int

const (
	optMain optPage = iota
	optKeys
	optPad
)

// optItem is a line of the options screen's main page.
type optItem int

const (
	optResolution optItem = iota
	optFullscreen
	optProfile
	optVolume
	optMute
	optUnits
	optHUD
	optCamera
	optWeather
	optTime
	optKeyBindings
	optPadBindings
	optBack
	numOptItems
)

// optionsResult is what a step of the screen did.
type optionsResult int

const (
	optionsNothing optionsResult = iota
	optionsChanged               // cur changed: the session applies it
	optionsLeft                  // the player left the screen
)

// screenActions are the actions the screen rebinds, in their order.
var screenActions = func() []settings.Action {
	var v []settings.Action
	for a := range settings.NumActions {
		if a.OnScreen() {
			v = append(v, a)
		}
	}
	return v
}()

// resolutions the screen offers (the window's own size is added when it
// is none of them).
var resolutions = [][2]int{{1280, 720}, {1366, 768}, {1600, 900}, {1920, 1080}, {2560, 1440}, {3840, 2160}}

// optionsScreen is the screen's state.
type optionsScreen struct {
	cur     settings.Settings // as shown and applied
	before  settings.Settings // when the screen opened: what changed is saved
	started settings.Settings // what the game started with
	page    optPage
	sel     int // on the page shown
	mainSel int // the main page's, kept while a bindings page is shown
	capture bool
}

// show opens the screen on its main page with the live settings.
func (o *optionsScreen) show(live, started settings.Settings) {
	*o = optionsScreen{cur: live.Clone(), before: live.Clone(), started: started}
}

func (o *optionsScreen) items() int {
	if o.page == optMain {
		return int(numOptItems)
	}
	return len(screenActions) + 2 // the actions, reset to defaults, back
}

// step applies a frame's controls.
func (o *optionsScreen) step(in Controls) optionsResult {
	if o.capture {
		return o.captured(in)
	}
	n := o.items()
	switch {
	case in.Pause || in.Back:
		if o.page == optMain {
			return optionsLeft
		}
		o.page, o.sel = optMain, o.mainSel
	case in.MenuUp:
		o.sel = max(0, o.sel-1)
	case in.MenuDown:
		o.sel = min(n-1, o.sel+1)
	case o.page == optMain && (in.MenuLeft || in.MenuRight || in.Confirm):
		it := optItem(o.sel)
		switch {
		case it == optKeyBindings && in.Confirm:
			o.page, o.mainSel, o.sel = optKeys, o.sel, 0
		case it == optPadBindings && in.Confirm:
			o.page, o.mainSel, o.sel = optPad, o.sel, 0
		case it == optBack && in.Confirm:
			return optionsLeft
		case o.change(it, dirOf(in)):
			return optionsChanged
		}
	case in.Confirm: // a bindings page
		switch o.sel {
		case n - 1: // back
			o.page, o.sel = optMain, o.mainSel
		case n - 2: // reset to defaults
			def := settings.DefaultBindings()
			if o.page == optKeys {
				o.cur.Bindings.Keys = def.Keys
			} else {
				o.cur.Bindings.Pad = def.Pad
			}
			return optionsChanged
		default:
			o.capture = true
		}
	}
	return optionsNothing
}

func dirOf(in Controls) int {
	if in.MenuLeft {
		return -1
	}
	return 1
}

// captured takes the key or button pressed for the selected action: it
// replaces the action's bindings. Esc (or the pause button) cancels.
func (o *optionsScreen) captured(in Controls) optionsResult {
	a := screenActions[o.sel]
	switch {
	case in.Pause || (in.KeyPressed && in.Key == input.KeyEscape):
		o.capture = false
	case o.page == optKeys && in.KeyPressed:
		o.cur.Bindings.Keys[a] = []input.Key{in.Key}
		o.capture = false
		return optionsChanged
	case o.page == optPad && in.ButtonPushed:
		o.cur.Bindings.Pad[a] = []int{in.Button}
		o.capture = false
		return optionsChanged
	}
	return optionsNothing
}

// change steps setting it by dir (±1) and reports whether it changed.
func (o *optionsScreen) change(it optItem, dir int) bool {
	c := &o.cur
	switch it {
	case optResolution:
		sizes := slices.Clone(resolutions)
		at := slices.Index(sizes, [2]int{c.Width, c.Height})
		if at < 0 {
			sizes = append(sizes, [2]int{c.Width, c.Height})
			slices.SortFunc(sizes, func(a, b [2]int) int { return a[0]*a[1] - b[0]*b[1] })
			at = slices.Index(sizes, [2]int{c.Width, c.Height})
		}
		s := sizes[(at+dir+len(sizes))%len(sizes)]
		c.Width, c.Height = s[0], s[1]
	case optFullscreen:
		c.Fullscreen = !c.Fullscreen
	case optProfile:
		at := slices.IndexFunc(scale.Profiles, func(p scale.Profile) bool { return p.Name == c.Profile })
		c.Profile = scale.Profiles[(at+dir+len(scale.Profiles))%len(scale.Profiles)].Name
	case optVolume:
		c.Volume = math.Max(0, math.Min(1, math.Round(c.Volume*10+float64(dir))/10))
	case optMute:
		c.Mute = !c.Mute
	case optUnits:
		c.Units = map[string]string{settings.KMH: settings.MPH, settings.MPH: settings.KMH}[c.Units]
	case optHUD:
		c.HUD = !c.HUD
	case optCamera:
		c.Camera = map[string]string{settings.Chase: settings.Top, settings.Top: settings.Chase}[c.Camera]
	case optWeather:
		c.Weather = map[string]string{"dry": "wet", "wet": "dry"}[c.Weather]
	case optTime:
		c.Time = math.Mod(c.Time+0.5*float64(dir)+24, 24)
	default:
		return false
	}
	return true
}

// Option labels are padded to one column, so the values line up (the
// HUD's font is fixed-width).
const optLabelWidth = 13

// menu is the page as the HUD draws it.
func (o *optionsScreen) menu() hud.Menu {
	m := hud.Menu{Selected: o.sel, Compact: true}
	c := &o.cur
	line := func(label, value string) string {
		return fmt.Sprintf("%-*s %s", optLabelWidth, label, value)
	}
	next := func(changed bool) string {
		if changed {
			return "  (NEXT START)"
		}
		return ""
	}
	switch o.page {
	case optMain:
		m.Title = "OPTIONS"
		st := &o.started
		m.Items = []string{
			optResolution:  line("RESOLUTION", fmt.Sprintf("%d X %d", c.Width, c.Height)+next(c.Width != st.Width || c.Height != st.Height)),
			optFullscreen:  line("FULLSCREEN", onOff(c.Fullscreen)+next(c.Fullscreen != st.Fullscreen)),
			optProfile:     line("PROFILE", strings.ToUpper(c.Profile)+next(c.Profile != st.Profile)),
			optVolume:      line("VOLUME", fmt.Sprintf("%.0f%%", c.Volume*100)),
			optMute:        line("MUTE", onOff(c.Mute)+next(st.Mute && !c.Mute)), // muted, the game opened no sound device
			optUnits:       line("UNITS", strings.ToUpper(c.Units)),
			optHUD:         line("HUD", onOff(c.HUD)),
			optCamera:      line("CAMERA", strings.ToUpper(c.Camera)),
			optWeather:     line("WEATHER", strings.ToUpper(c.Weather)),
			optTime:        line("TIME OF DAY", clockTime(c.Time)),
			optKeyBindings: "KEY BINDINGS >",
			optPadBindings: "GAMEPAD BINDINGS >",
			optBack:        "BACK",
		}
		m.Hint = "UP/DOWN SELECT   LEFT/RIGHT CHANGE   ESC BACK (SAVES)"
	case optKeys, optPad:
		m.Title = "KEY BINDINGS"
		label := c.Bindings.KeysLabel
		m.Hint = "ENTER REBIND   ESC BACK"
		if o.page == optPad {
			m.Title = "GAMEPAD BINDINGS"
			label = c.Bindings.PadLabel
			m.Hint = "TRIGGERS AND LEFT STICK DRIVE   ENTER REBIND   ESC BACK"
		}
		for i, a := range screenActions {
			v := label(a)
			if o.capture && i == o.sel {
				v = "..."
			}
			m.Items = append(m.Items, fmt.Sprintf("%-24s %s", a.Label(), v))
		}
		m.Items = append(m.Items, "RESET TO DEFAULTS", "BACK")
		if o.capture {
			a := screenActions[o.sel]
			m.Hint = "PRESS A KEY FOR " + a.Label() + "   ESC CANCELS"
			if o.page == optPad {
				m.Hint = "PRESS A BUTTON FOR " + a.Label() + "   START OR ESC CANCELS"
			}
		}
	}
	return m
}

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}

// clockTime writes hours as 17:30.
func clockTime(h float64) string {
	m := int(math.Round(h*60)) % (24 * 60)
	return fmt.Sprintf("%02d:%02d", m/60, m%60)
}

// initSettings takes Options.Settings (New calls it).
func (s *Session) initSettings() {
	st := settings.Defaults()
	if s.opt.Settings != nil {
		st = s.opt.Settings.Clone()
	}
	s.started = st.Clone()
	s.settings = st
	s.showHUD = st.HUD
	s.topView = st.Camera == settings.Top
	s.input.bind = &s.settings.Bindings
}

// liveSettings are the settings with what the player changed while
// driving (HUD, camera, weather and time keys).
func (s *Session) liveSettings() settings.Settings {
	st := s.settings.Clone()
	st.HUD = s.showHUD
	st.Camera = settings.Chase
	if s.topView {
		st.Camera = settings.Top
	}
	st.Weather = "dry"
	if s.frame.Weather == scene.Wet {
		st.Weather = "wet"
	}
	st.Time = s.frame.TimeOfDay
	return st
}

// applySettings makes st the session's settings: everything but the
// window and the profile takes effect now.
func (s *Session) applySettings(st *settings.Settings) {
	s.settings = st.Clone()
	s.showHUD = st.HUD
	s.topView = st.Camera == settings.Top
	s.frame.Weather = scene.Dry
	if st.Weather == "wet" {
		s.frame.Weather = scene.Wet
	}
	s.frame.TimeOfDay = st.Time
	s.input.bind = &s.settings.Bindings
}

// saveSettings hands what the player changed on the options screen to
// Options.SaveSettings and says how it went.
func (s *Session) saveSettings() {
	o := &s.pause.opts
	changed := settings.Changed(&o.before, &o.cur)
	if len(changed) == 0 || s.opt.SaveSettings == nil {
		return
	}
	if err := s.opt.SaveSettings(o.cur.Clone(), changed); err != nil {
		s.opt.Log.Error("settings not saved", "err", err)
		s.notices.say("SETTINGS NOT SAVED: " + err.Error())
		return
	}
	s.notices.say("SETTINGS SAVED")
}

// Settings are the session's settings now (the options screen's changes
// included).
func (s *Session) Settings() settings.Settings { return s.liveSettings() }

// OpenMenu opens the pause menu on a page, as the player would reach it
// (pictures of it, tests): "main", "options", "keys", "gamepad" or
// "quit".
func (s *Session) OpenMenu(page string) error {
	if !slices.Contains(MenuPages, page) {
		return fmt.Errorf("no menu page %q (want one of %s)", page, strings.Join(MenuPages, ", "))
	}
	s.pause.open, s.pause.page, s.pause.sel = true, pageMain, itemResume
	switch page {
	case "options", "keys", "gamepad":
		s.pause.page, s.pause.sel = pageOptions, itemOptions
		s.pause.opts.show(s.liveSettings(), s.started)
		if page == "keys" {
			s.pause.opts.page, s.pause.opts.mainSel = optKeys, int(optKeyBindings)
		} else if page == "gamepad" {
			s.pause.opts.page, s.pause.opts.mainSel = optPad, int(optPadBindings)
		}
	case "quit":
		s.pause.page, s.pause.sel = pageQuit, itemQuit
		s.pause.quitSel = quitNo
	}
	s.pausedFrame(Controls{}, 0)
	return nil
}

// MenuPages are OpenMenu's pages.
var MenuPages = []string{"main", "options", "keys", "gamepad", "quit"}
