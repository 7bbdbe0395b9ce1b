package game

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render/input"
	"citydrive/render/scene"
)

// fakeKeys is a keyboard and gamepad in the test's hands.
type fakeKeys struct {
	down, pressed map[input.Key]bool
	pad           *input.Gamepad
}

func (k *fakeKeys) Down(key input.Key) bool    { return k.down[key] }
func (k *fakeKeys) Pressed(key input.Key) bool { return k.pressed[key] }
func (k *fakeKeys) Gamepad() (input.Gamepad, bool) {
	if k.pad == nil {
		return input.Gamepad{}, false
	}
	return *k.pad, true
}

// restingPad is a connected gamepad nobody touches: triggers released.
func restingPad() input.Gamepad {
	var p input.Gamepad
	p.Axes[input.PadLeftTrigger], p.Axes[input.PadRightTrigger] = -1, -1
	return p
}

func TestPadMapping(t *testing.T) {
	with := func(f func(*input.Gamepad)) input.Gamepad {
		p := restingPad()
		f(&p)
		return p
	}
	cases := []struct {
		name string
		kb   car.Input
		pad  input.Gamepad
		want car.Input
	}{
		{"resting pad does nothing", car.Input{}, restingPad(), car.Input{}},
		{"right trigger is throttle", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadRightTrigger] = 1 }), car.Input{Throttle: 1}},
		{"half a trigger is about half", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadRightTrigger] = 0 }), car.Input{Throttle: (0.5 - triggerDeadZone) / (1 - triggerDeadZone)}},
		{"a trigger barely touched is nothing", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadRightTrigger] = -0.95 }), car.Input{}},
		{"left trigger is brake", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadLeftTrigger] = 1 }), car.Input{Brake: 1}},
		{"stick right steers right", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadLeftX] = 1 }), car.Input{Steer: -1}},
		{"stick left steers left", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadLeftX] = -0.575 }), car.Input{Steer: 0.5}},
		{"stick in the dead zone is straight", car.Input{}, with(func(p *input.Gamepad) { p.Axes[input.PadLeftX] = 0.14 }), car.Input{}},
		{"the keyboard's full throttle wins over a light trigger", car.Input{Throttle: 1}, with(func(p *input.Gamepad) { p.Axes[input.PadRightTrigger] = -0.5 }), car.Input{Throttle: 1}},
		{"steering adds and clamps", car.Input{Steer: 1}, with(func(p *input.Gamepad) { p.Axes[input.PadLeftX] = -1 }), car.Input{Steer: 1}},
		{"keyboard and stick against each other cancel", car.Input{Steer: 1}, with(func(p *input.Gamepad) { p.Axes[input.PadLeftX] = 1 }), car.Input{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctl := Controls{Drive: c.kb}
			mergePad(&ctl, c.pad, restingPad())
			assert.InDelta(t, c.want.Throttle, ctl.Drive.Throttle, 1e-6)
			assert.InDelta(t, c.want.Brake, ctl.Drive.Brake, 1e-6)
			assert.InDelta(t, c.want.Steer, ctl.Drive.Steer, 1e-6)
		})
	}
}

func TestPadButtonsAreEdges(t *testing.T) {
	keys := &fakeKeys{}
	var r controlReader
	press := func(b int, on bool) Controls {
		p := restingPad()
		if keys.pad != nil {
			p = *keys.pad
		}
		p.Buttons[b] = on
		keys.pad = &p
		return r.read(keys)
	}
	assert.True(t, press(input.PadY, true).Reset, "Y resets")
	assert.False(t, press(input.PadY, true).Reset, "held: once")
	assert.False(t, press(input.PadY, false).Reset)
	assert.True(t, press(input.PadStart, true).Pause, "Start pauses")
	assert.True(t, press(input.PadA, true).Confirm)
	assert.True(t, press(input.PadB, true).Back)
	assert.True(t, press(input.PadDpadDown, true).MenuDown)
	assert.True(t, press(input.PadBack, true).ToggleMinimap)

	// Unplugged: a zero state would read half-pulled triggers; it is not
	// merged at all.
	keys.pad = nil
	c := r.read(keys)
	assert.Zero(t, c.Drive)
}

func TestKeyboardControls(t *testing.T) {
	k := &fakeKeys{
		down:    map[input.Key]bool{input.KeyW: true, input.KeyA: true},
		pressed: map[input.Key]bool{input.KeyEscape: true, input.KeyM: true, input.KeyQ: true, input.KeyKPEnter: true},
	}
	c := ReadControls(k)
	assert.Equal(t, car.Input{Throttle: 1, Steer: 1}, c.Drive)
	assert.True(t, c.Pause, "Esc pauses, it does not quit")
	assert.True(t, c.ToggleMinimap)
	assert.True(t, c.Build && c.Leave, "Q builds, and quits from the menu")
	assert.True(t, c.Confirm)
}

func TestReadingControlsAllocatesNothing(t *testing.T) {
	p := restingPad()
	k := &fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{}, pad: &p}
	var r controlReader
	assert.Zero(t, testing.AllocsPerRun(50, func() { _ = r.read(k) }))
}

// The default bindings are the README's key list, key by key.
func TestDefaultKeysAreTheREADMEs(t *testing.T) {
	held := []struct {
		key  input.Key
		want car.Input
	}{
		{input.KeyW, car.Input{Throttle: 1}}, {input.KeyUp, car.Input{Throttle: 1}},
		{input.KeyS, car.Input{Brake: 1}}, {input.KeyDown, car.Input{Brake: 1}}, {input.KeySpace, car.Input{Brake: 1}},
		{input.KeyA, car.Input{Steer: 1}}, {input.KeyLeft, car.Input{Steer: 1}},
		{input.KeyD, car.Input{Steer: -1}}, {input.KeyRight, car.Input{Steer: -1}},
	}
	for _, h := range held {
		c := ReadControls(&fakeKeys{down: map[input.Key]bool{h.key: true}})
		assert.Equal(t, h.want, c.Drive, "key %d", h.key)
	}
	pressed := []struct {
		key  input.Key
		want func(Controls) bool
	}{
		{input.KeyBackspace, func(c Controls) bool { return c.Reset && c.Back }},
		{input.KeyP, func(c Controls) bool { return c.ToggleAutopilot }},
		{input.KeyR, func(c Controls) bool { return c.ToggleWeather }},
		{input.KeyC, func(c Controls) bool { return c.ToggleTopView }},
		{input.KeyF1, func(c Controls) bool { return c.NextTimeOfDay }},
		{input.KeyH, func(c Controls) bool { return c.ToggleHUD }},
		{input.KeyM, func(c Controls) bool { return c.ToggleMinimap }},
		{input.KeyE, func(c Controls) bool { return c.Dig }},
		{input.KeyQ, func(c Controls) bool { return c.Build && c.Leave }},
		{input.KeyF12, func(c Controls) bool { return c.Screenshot }},
		{input.KeyF3, func(c Controls) bool { return c.ToggleDevOverlay }},
		{input.KeyF2, func(c Controls) bool { return c.TogglePhoto }},
		{input.KeyEscape, func(c Controls) bool { return c.Pause }},
		{input.KeyEnter, func(c Controls) bool { return c.Confirm }},
		{input.KeyUp, func(c Controls) bool { return c.MenuUp }},
		{input.KeyDown, func(c Controls) bool { return c.MenuDown }},
		{input.KeyLeft, func(c Controls) bool { return c.MenuLeft }},
		{input.KeyRight, func(c Controls) bool { return c.MenuRight }},
	}
	for _, p := range pressed {
		c := ReadControls(&fakeKeys{down: map[input.Key]bool{}, pressed: map[input.Key]bool{p.key: true}})
		assert.True(t, p.want(c), "key %d", p.key)
	}
	c := ReadControls(&fakeKeys{down: map[input.Key]bool{input.KeyLeftCtrl: true},
		pressed: map[input.Key]bool{input.Key1: true, input.Key2: true, input.Key3: true}})
	assert.Equal(t, scene.DebugWireframe|scene.DebugBoxes|scene.DebugBuildAge, c.Debug, "Ctrl+1/2/3")
}
