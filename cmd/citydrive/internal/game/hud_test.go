package game

import (
	"image"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/render/input"
)

// lineStarts are the first words of the HUD's lines, one per line.
func lineStarts(lines []string) []string {
	var w []string
	for _, l := range lines {
		w = append(w, strings.Fields(l)[0])
	}
	return w
}

// What the HUD holds in each mode: by default the player's (speed in the
// settings' units, the time of day, the minimap, the notice line) with no
// developer lines; F3 adds the developer's figures top left; H hides
// everything.
func TestHUDModes(t *testing.T) {
	developer := []string{"FPS", "GPU", "SLOTS", "FAR", "STALE", "WORKERS", "TERRAIN"}
	for _, tc := range []struct {
		name     string
		keys     []input.Key
		mode     hudMode
		lines    []string // first words
		player   bool     // speed, time, notice
		minimap  bool
		unitWant string
	}{
		{name: "default", mode: hudPlayer, player: true, minimap: true, unitWant: "KM/H"},
		{name: "F3", keys: []input.Key{input.KeyF3}, mode: hudDeveloper, lines: developer, player: true, minimap: true, unitWant: "KM/H"},
		{name: "F3 twice", keys: []input.Key{input.KeyF3, input.KeyF3}, mode: hudPlayer, player: true, minimap: true, unitWant: "KM/H"},
		{name: "H", keys: []input.Key{input.KeyH}, mode: hudHidden},
		{name: "F3 then H", keys: []input.Key{input.KeyF3, input.KeyH}, mode: hudHidden},
		{name: "H twice", keys: []input.Key{input.KeyH, input.KeyH}, mode: hudPlayer, player: true, minimap: true, unitWant: "KM/H"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, d := smallSession(t, Options{TimeOfDay: 17.5})
			d.keys.down[input.KeyW] = true
			for range 60 {
				require.NoError(t, s.Frame(1.0/60))
			}
			for _, k := range tc.keys {
				d.press(k)
				require.NoError(t, s.Frame(1.0/60))
			}
			assert.Equal(t, tc.mode, s.hudMode())
			f := &s.frame
			assert.Equal(t, tc.lines, lineStarts(f.HUD), "%q", f.HUD)
			assert.Equal(t, tc.minimap, f.Minimap != nil, "minimap")
			if !tc.player {
				assert.Nil(t, f.Player)
				return
			}
			require.NotNil(t, f.Player)
			_, want := speedText(s.car.Speed() * 3.6)
			assert.Equal(t, want, f.Player.Speed)
			assert.NotEqual(t, "0", f.Player.Speed, "the car is moving")
			assert.Equal(t, tc.unitWant, f.Player.Unit)
			assert.Equal(t, "17:30", f.Player.Clock)
			assert.Empty(t, f.Player.Notice)
		})
	}
}

// The speed in the settings' units: whole km/h or mph, reversing shown
// as forward.
func TestHUDSpeedUnits(t *testing.T) {
	kmh, mph := settings.Defaults(), settings.Defaults()
	mph.Units = settings.MPH
	for _, tc := range []struct {
		ms   float64
		s    *settings.Settings
		want string
		unit string
	}{
		{0, &kmh, "0", "KM/H"},
		{100 / 3.6, &kmh, "100", "KM/H"},
		{100 / 3.6, &mph, "62", "MPH"},
		{26.8224, &mph, "60", "MPH"},
		{-5 / 3.6, &kmh, "5", "KM/H"},
		{0.2, &kmh, "1", "KM/H"},
		{150, &kmh, "540", "KM/H"}, // past the table
	} {
		p := newPlayerHUD()
		v := p.update(tc.s.SpeedIn(tc.ms), tc.s.UnitLabel(), 12, "")
		assert.Equal(t, tc.want, v.Speed, "%g m/s in %s", tc.ms, tc.s.Units)
		assert.Equal(t, tc.unit, v.Unit)
	}
}

func TestHUDClock(t *testing.T) {
	for h, want := range map[float64]string{0: "00:00", 17.5: "17:30", 23.999: "23:59", 9.25: "09:15", 24: "00:00"} {
		_, got := clockText(h)
		assert.Equal(t, want, got, "%g h", h)
	}
}

// The player's lines are formatted only when what they show changes: a
// drive allocates nothing for them, once a minute at most for the clock.
func TestPlayerHUDAllocatesNothingPerFrame(t *testing.T) {
	p := newPlayerHUD()
	p.update(10, "KM/H", 17.5, "")
	speed := 0.0
	assert.Zero(t, testing.AllocsPerRun(200, func() {
		speed += 0.7 // a new whole speed most frames
		p.update(speed, "KM/H", 17.5, "SETTINGS SAVED")
	}))

	s, d := smallSession(t, Options{TimeOfDay: 17.5})
	d.keys.down[input.KeyW] = true
	for range 30 {
		require.NoError(t, s.Frame(1.0/60))
	}
	v := s.view()
	assert.Zero(t, testing.AllocsPerRun(20, func() { s.buildHUD(&v, nil) }), "the player's HUD, minimap included")
}

// The notice area: a lost server while it is lost, else the latest brief
// notice (the link's news among them), else nothing.
func TestNoticeLine(t *testing.T) {
	s := &Session{slowdown: 1}
	assert.Empty(t, s.noticeLine())
	s.notices.say("SETTINGS SAVED")
	assert.Equal(t, "SETTINGS SAVED", s.noticeLine())
	s.notices.tick(noticeSeconds + 0.1)
	assert.Empty(t, s.noticeLine(), "a brief notice goes")

	s.slowdown = 0.5
	assert.Equal(t, slowMotion, s.noticeLine(), "frames too slow for real time")
	s.slowdown = 1

	s.link = &link{}
	assert.Equal(t, reconnecting, s.noticeLine(), "while the server is lost")
	s.link.tell("EDIT 3 REFUSED: TOO FAR")
	s.takeNews()
	assert.Equal(t, "EDIT 3 REFUSED: TOO FAR", s.notices.text, "the link's news is a notice")
	assert.Equal(t, "EDIT 3 REFUSED: TOO FAR", s.link.status, "and the developer's connection line")
	s.notices.tick(1)
	s.takeNews()
	assert.InDelta(t, noticeSeconds-1, s.notices.left, 1e-9, "each piece of news is shown once")
}

// pictureDisplay is a headless display that takes screenshots.
type pictureDisplay struct{ *scriptedDisplay }

func (pictureDisplay) Screenshot() (*image.RGBA, error) {
	return image.NewRGBA(image.Rect(0, 0, 4, 4)), nil
}

// F12 says in the notice area where the screenshot went, or that it
// failed.
func TestScreenshotNotice(t *testing.T) {
	s, d := smallSession(t, Options{})
	d.press(input.KeyF12)
	require.NoError(t, s.Frame(1.0/60))
	require.NoError(t, s.Frame(1.0/60))
	assert.True(t, hudHas(s, "SCREENSHOT FAILED"), "a headless display takes none: %+v", s.frame.Player)

	s.r = pictureDisplay{d}
	dir := filepath.Join(t.TempDir(), "Pictures")
	t.Setenv("XDG_PICTURES_DIR", dir)
	d.press(input.KeyF12)
	require.NoError(t, s.Frame(1.0/60))
	require.NoError(t, s.Frame(1.0/60))
	assert.True(t, hudHas(s, "SCREENSHOT SAVED: "+filepath.Join(dir, "citydrive-")), "in the pictures folder, the whole path: %+v", s.frame.Player)
	s.pngs.close() // written before the directory goes
	s.pngs = newPNGWriter(s.opt.Log)
	shots, _ := filepath.Glob(filepath.Join(dir, "citydrive-*.png"))
	assert.Len(t, shots, 1)
}
