package game

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/render/input"
	"citydrive/render/scene"
	"citydrive/roadgraph/world"
)

// The options screen's policy: Left/Right change the selected value
// within its range, Enter opens the bindings pages, where Enter waits for
// the new key (Esc cancels), and Esc leaves.
func TestOptionsScreen(t *testing.T) {
	var o optionsScreen
	start := settings.Defaults()
	o.show(start, start)
	down := func(n int) {
		for range n {
			assert.Equal(t, optionsNothing, o.step(Controls{MenuDown: true}))
		}
	}
	left, right, enter := Controls{MenuLeft: true}, Controls{MenuRight: true}, Controls{Confirm: true}

	assert.Equal(t, optionsChanged, o.step(right), "resolution")
	assert.Equal(t, [2]int{1366, 768}, [2]int{o.cur.Width, o.cur.Height})
	assert.Contains(t, o.menu().Items[optResolution], "1366 X 768  (NEXT START)")
	o.step(left)
	assert.NotContains(t, o.menu().Items[optResolution], "NEXT START", "back to what the window is")
	down(int(optVolume))
	o.step(left)
	assert.InDelta(t, 0.9, o.cur.Volume, 1e-9)
	o.step(right)
	o.step(right)
	assert.Equal(t, 1.0, o.cur.Volume, "the volume stops at 100%")
	assert.Contains(t, o.menu().Items[optVolume], "100%")
	down(2)
	assert.Equal(t, optionsChanged, o.step(enter), "Enter changes a value too")
	assert.Equal(t, settings.MPH, o.cur.Units)
	down(int(optTime - optUnits))
	o.step(left)
	assert.Equal(t, 17.0, o.cur.Time)
	assert.Contains(t, o.menu().Items[optTime], "17:00")

	down(int(optKeyBindings - optTime))
	assert.Equal(t, optionsNothing, o.step(enter))
	require.Equal(t, optKeys, o.page)
	m := o.menu()
	assert.Equal(t, "KEY BINDINGS", m.Title)
	assert.True(t, strings.HasPrefix(m.Items[0], "THROTTLE") && strings.HasSuffix(m.Items[0], "W / UP"), m.Items[0])
	assert.Equal(t, optionsNothing, o.step(enter), "Enter waits for a key")
	assert.True(t, o.capture)
	assert.Contains(t, o.menu().Hint, "PRESS A KEY FOR THROTTLE")
	assert.Equal(t, optionsNothing, o.step(Controls{ButtonPushed: true, Button: input.PadA}), "a button is not a key")
	assert.Equal(t, optionsChanged, o.step(Controls{KeyPressed: true, Key: input.KeyI, MenuUp: true}))
	assert.Equal(t, []input.Key{input.KeyI}, o.cur.Bindings.Keys[settings.Throttle], "the new key replaces the old ones")
	assert.False(t, o.capture)
	o.step(enter)
	assert.Equal(t, optionsNothing, o.step(Controls{Pause: true, KeyPressed: true, Key: input.KeyEscape}), "Esc cancels")
	assert.Equal(t, []input.Key{input.KeyI}, o.cur.Bindings.Keys[settings.Throttle])
	assert.Equal(t, optionsNothing, o.step(Controls{Back: true}), "back to the main page")
	assert.Equal(t, optMain, o.page)
	assert.Equal(t, int(optKeyBindings), o.sel)

	down(1)
	o.step(enter)
	require.Equal(t, optPad, o.page)
	down(len(screenActions) - 1) // the last action: screenshot
	assert.Equal(t, settings.Screenshot, screenActions[o.sel])
	o.step(enter)
	assert.Equal(t, optionsNothing, o.step(Controls{KeyPressed: true, Key: input.KeyF12}), "a key is not a button")
	assert.Equal(t, optionsChanged, o.step(Controls{ButtonPushed: true, Button: input.PadY}))
	assert.Equal(t, []int{input.PadY}, o.cur.Bindings.Pad[settings.Screenshot])
	down(1)
	assert.Equal(t, optionsChanged, o.step(enter), "reset to defaults")
	assert.Equal(t, settings.DefaultBindings().Pad, o.cur.Bindings.Pad)
	assert.Equal(t, []input.Key{input.KeyI}, o.cur.Bindings.Keys[settings.Throttle], "the keys are not the pad's page")
	down(1)
	o.step(enter)
	assert.Equal(t, optMain, o.page, "Back")

	assert.Equal(t, optionsLeft, o.step(Controls{Pause: true}))
	assert.Equal(t, []settings.Field{settings.FieldUnits, settings.FieldTime, settings.FieldKeys},
		settings.Changed(&o.before, &o.cur), "what changed, and only that (resolution, volume and pad went back)")
}

// A real session, headless: the options screen applies what the player
// changes at once (units on the HUD, the engine's volume, a rebound
// throttle), saves the changed fields when left, and says so.
func TestOptionsScreenAppliesAndSaves(t *testing.T) {
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots, cfg.Workers = 48, 1
	w := world.New(412)
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	d := &scriptedDisplay{Headless: NewHeadless(), keys: fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}}}
	snd := &recordSound{}
	st := settings.Defaults()
	st.Volume = 0.5
	type save struct {
		s       settings.Settings
		changed []settings.Field
	}
	var saved []save
	s, err := New(Options{
		Streaming: cfg, World: w, Display: d, TerrainRadius: 1, Sound: snd, Settings: &st,
		SaveSettings: func(s settings.Settings, changed []settings.Field) error {
			saved = append(saved, save{s, changed})
			return nil
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
	})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())
	const frame = 1.0 / 60
	keys := func(ks ...input.Key) {
		t.Helper()
		for _, k := range ks {
			d.press(k)
			require.NoError(t, s.Frame(frame))
		}
	}
	d.keys.down[input.KeyW] = true
	keys(input.KeyNone)
	assert.InDelta(t, engineVolume*0.5, snd.last.Volume, 1e-9, "the settings' volume")
	assert.True(t, hudHas(s, "KM/H"))
	d.keys.down[input.KeyW] = false

	// Esc, Options, down to Units, Enter: mph; up to Volume, right: 60%.
	keys(input.KeyEscape, input.KeyDown, input.KeyEnter)
	require.Equal(t, "OPTIONS", s.frame.Menu.Title)
	assert.True(t, s.frame.Menu.Compact)
	for range optUnits {
		keys(input.KeyDown)
	}
	keys(input.KeyEnter, input.KeyUp, input.KeyUp, input.KeyRight)
	assert.Equal(t, settings.MPH, s.settings.Units, "applied at once")
	// Key bindings: Enter on throttle, then I.
	for range optKeyBindings - optVolume {
		keys(input.KeyDown)
	}
	keys(input.KeyEnter)
	require.Equal(t, "KEY BINDINGS", s.frame.Menu.Title)
	keys(input.KeyEnter)
	assert.True(t, s.input.capture, "every key is asked while the screen waits for one")
	keys(input.KeyI)
	assert.False(t, s.input.capture)
	assert.Contains(t, s.frame.Menu.Items[0], "THROTTLE")
	assert.True(t, strings.HasSuffix(s.frame.Menu.Items[0], " I"), s.frame.Menu.Items[0])
	assert.Empty(t, saved, "nothing is saved before the screen is left")
	keys(input.KeyEscape, input.KeyEscape) // keys page → options → main page
	require.Len(t, saved, 1)
	assert.Equal(t, []settings.Field{settings.FieldVolume, settings.FieldUnits, settings.FieldKeys}, saved[0].changed)
	assert.Equal(t, 0.6, saved[0].s.Volume)
	assert.Equal(t, "PAUSED", s.frame.Menu.Title)
	keys(input.KeyEscape) // resume
	assert.False(t, s.Paused())
	assert.True(t, hudHas(s, "SETTINGS SAVED"), "the notice says so")
	assert.True(t, hudHas(s, "MPH"))

	d.keys.down[input.KeyW] = true
	for range 30 {
		keys(input.KeyNone)
	}
	assert.Zero(t, s.car.Speed(), "W no longer throttles")
	d.keys.down[input.KeyW], d.keys.down[input.KeyI] = false, true
	for range 30 {
		keys(input.KeyNone)
	}
	assert.Greater(t, s.car.Speed(), 1.0, "I does")
	assert.InDelta(t, engineVolume*0.6, snd.last.Volume, 1e-9)
	for range int(noticeSeconds/frame) + 1 {
		keys(input.KeyNone)
	}
	assert.False(t, hudHas(s, "SETTINGS SAVED"), "a notice goes after a while")

	// Leaving without a change saves nothing.
	keys(input.KeyEscape, input.KeyDown, input.KeyEnter, input.KeyEscape)
	assert.Len(t, saved, 1)
}

// hudHas reports whether a HUD line or the player's HUD (the speed, its
// unit, the time, the notice) holds text.
func hudHas(s *Session, text string) bool {
	if p := s.frame.Player; p != nil {
		for _, l := range []string{p.Speed, p.Unit, p.Clock, p.Notice} {
			if strings.Contains(l, text) {
				return true
			}
		}
	}
	for _, l := range s.frame.HUD {
		if strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// The gamepad's new buttons: the bumpers dig and build, and a binding
// table moves any action to any button.
func TestPadBindings(t *testing.T) {
	keys := &fakeKeys{}
	var r controlReader
	push := func(b int) Controls {
		p := restingPad()
		keys.pad = &p
		r.read(keys)
		p.Buttons[b] = true
		return r.read(keys)
	}
	assert.True(t, push(input.PadLeftBumper).Dig, "left bumper digs")
	assert.True(t, push(input.PadRightBumper).Build, "right bumper builds")
	assert.True(t, push(input.PadDpadDown).Screenshot)
	assert.True(t, push(input.PadDpadUp).ToggleHUD)
	b := settings.DefaultBindings()
	b.Pad[settings.Throttle] = []int{input.PadA}
	r.bind = &b
	p := restingPad()
	p.Buttons[input.PadA] = true
	keys.pad = &p
	c := r.read(keys)
	assert.Equal(t, 1.0, c.Drive.Throttle, "a button held is full throttle")
	r.capture = true
	p.Buttons[input.PadB] = true
	keys.pad = &p
	c = r.read(keys)
	assert.True(t, c.ButtonPushed)
	assert.Equal(t, input.PadB, c.Button, "the button that went down, not the one held")
}

// Keys are read through the table: a rebound key acts, the old one does
// not, and the developer views still want Ctrl.
func TestKeyBindings(t *testing.T) {
	b := settings.DefaultBindings()
	b.Keys[settings.Dig] = []input.Key{input.KeyX}
	k := &fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{input.KeyX: true, input.KeyE: true, input.Key1: true}}
	c := readKeys(k, &b)
	assert.True(t, c.Dig)
	assert.Zero(t, c.Debug, "1 without Ctrl is nothing")
	k.pressed = map[input.Key]bool{input.KeyE: true, input.Key1: true}
	k.down[input.KeyLeftCtrl] = true
	c = readKeys(k, &b)
	assert.False(t, c.Dig, "E no longer digs")
	assert.Equal(t, scene.DebugWireframe, c.Debug)
}
