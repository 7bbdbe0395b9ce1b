package game

import (
	"fmt"
	"math"
	"strconv"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/render/hud"
)

// The HUD has three modes. By default it is the player's: the speed in
// the settings' units, the time of day, the minimap and the notice line
// (notice.go). F3 adds the developer's figures top left (frame time, GPU
// per pass, slots, far tier, builds, terrain, the connection), as
// Minecraft does. H hides all of it.
type hudMode int

const (
	hudHidden hudMode = iota
	hudPlayer
	hudDeveloper
)

func (m hudMode) String() string {
	return [...]string{"hidden", "player", "developer"}[m]
}

// hudMode is the mode the HUD is drawn in.
func (s *Session) hudMode() hudMode {
	switch {
	case !s.showHUD:
		return hudHidden
	case s.devHUD:
		return hudDeveloper
	}
	return hudPlayer
}

// SetDevOverlay shows or hides the developer's figures (F3).
func (s *Session) SetDevOverlay(on bool) { s.devHUD = on }

// Notify shows text in the notice area for a few seconds.
func (s *Session) Notify(text string) { s.notices.say(text) }

// playerHUD keeps the player's HUD strings, formatted only when what they
// show changes: a frame whose speed, units, time and notice are the last
// frame's allocates nothing.
type playerHUD struct {
	view   hud.Player
	speed  int    // the speed view.Speed shows, in units; -1 none yet
	units  string // the units view.Unit shows
	minute int    // the minute of the day view.Clock shows; -1 none yet
}

func newPlayerHUD() playerHUD { return playerHUD{speed: -1, minute: -1} }

// speedTexts are the speeds a car reaches, written once: the speed
// changes nearly every frame while driving.
var speedTexts = func() (t [400]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return
}()

// speedText is the speed v (in any unit) as the HUD shows it: whole
// units, reversing shown as forward.
func speedText(v float64) (int, string) {
	n := int(math.Round(math.Abs(v)))
	if !(n >= 0) { // NaN
		n = 0
	}
	if n < len(speedTexts) {
		return n, speedTexts[n]
	}
	return n, strconv.Itoa(n)
}

// clockText is a time of day in hours as the HUD shows it ("17:30"), with
// the minute of the day it shows.
func clockText(hours float64) (int, string) {
	m := int(math.Floor(math.Mod(hours, 24) * 60))
	if m < 0 || m >= 24*60 { // NaN, or a negative hour
		m = 0
	}
	return m, fmt.Sprintf("%02d:%02d", m/60, m%60)
}

// update fills the view: speed ms in m/s shown in the settings' units,
// the time of day, and the notice.
func (p *playerHUD) update(speed float64, unit string, hours float64, notice string) *hud.Player {
	if n, _ := speedText(speed); n != p.speed || p.view.Speed == "" {
		p.speed, p.view.Speed = speedText(speed)
	}
	if unit != p.units {
		p.units, p.view.Unit = unit, unit
	}
	if m := int(math.Floor(math.Mod(hours, 24) * 60)); m != p.minute || p.view.Clock == "" {
		p.minute, p.view.Clock = clockText(hours)
	}
	p.view.Notice = notice
	return &p.view
}

// buildHUD fills the frame's HUD for its mode: the player's view and
// the minimap around the car as drawn (v), with the other cars, and the
// developer's lines under F3.
func (s *Session) buildHUD(v *car.Car, others []remote.Pose) {
	s.frame.HUD = s.hud[:0]
	s.frame.Minimap = nil
	s.frame.Player = nil
	if s.photo.on && !s.photo.overlay { // the notice line alone, and not in the picture
		if !s.photo.shoot {
			s.photoView.Notice = s.noticeLine()
			s.frame.Player = &s.photoView
		}
		return
	}
	mode := s.hudMode()
	if mode == hudHidden {
		return
	}
	s.frame.Minimap = s.mini.fill(s.stream.Graph(), v.Pos, v.Heading, others)
	s.frame.Player = s.player.update(s.settings.SpeedIn(s.car.Speed()), s.settings.UnitLabel(), s.frame.TimeOfDay, s.noticeLine())
	if mode == hudDeveloper {
		s.frame.HUD = s.appendDeveloperHUD(s.frame.HUD, len(others))
	}
	s.frame.HUD = s.appendReplayHUD(s.frame.HUD)
	s.hud = s.frame.HUD
}

// appendDeveloperHUD appends the developer's figures (F3).
func (s *Session) appendDeveloperHUD(lines []string, others int) []string {
	st := s.stream.Stats()
	fallback := "WORKERS OK"
	if st.Fallback != "" {
		fallback = "MAIN BUILDS: " + st.Fallback
	}
	fps := 0.0
	if s.frameMS > 0 {
		fps = 1000 / math.Max(s.frameMS, 1000.0/240)
	}
	lines = append(lines,
		fmt.Sprintf("FPS %.0f  CPU FRAME %.1f MS  SCALE %.2f", fps, s.frameMS, s.r.RenderScale()),
		s.gpuHUD(),
		fmt.Sprintf("SLOTS %d/%d  PENDING %d  IN FLIGHT %d", st.Used, st.Total, st.Pending, st.InFlight),
		s.farHUD(),
		fmt.Sprintf("STALE %d  OVERFLOWS %d  BUILDS %d", st.StaleDropped, st.Overflows, st.Builds),
		fallback,
	)
	if s.slowdown < slowNotice {
		lines = append(lines, fmt.Sprintf("SLOW MOTION x%.2f: UNDER %d FPS", s.slowdown, int(1/maxFrameTime)))
	}
	ts := s.ground3.Stats()
	lines = append(lines, fmt.Sprintf("TERRAIN %d CHUNKS  GEN %d  MESH %d", ts.Meshed, ts.Generating, ts.MeshPending))
	if s.link != nil {
		lines = append(lines, fmt.Sprintf("PLAYER %d  CARS %d  EDITS %d  %s", s.link.player, others, s.link.edits, s.link.status))
	}
	return lines
}
