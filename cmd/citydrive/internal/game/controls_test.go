package game

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render"
)

// fakeKeys is a keyboard and gamepad in the test's hands.
type fakeKeys struct {
	down, pressed map[render.Key]bool
	pad           *render.Gamepad
}

func (k *fakeKeys) Down(key render.Key) bool    { return k.down[key] }
func (k *fakeKeys) Pressed(key render.Key) bool { return k.pressed[key] }
func (k *fakeKeys) Gamepad() (render.Gamepad, bool) {
	if k.pad == nil {
		return render.Gamepad{}, false
	}
	return *k.pad, true
}

// restingPad is a connected gamepad nobody touches: triggers released.
func restingPad() render.Gamepad {
	var p render.Gamepad
	p.Axes[render.PadLeftTrigger], p.Axes[render.PadRightTrigger] = -1, -1
	return p
}

func TestPadMapping(t *testing.T) {
	with := func(f func(*render.Gamepad)) render.Gamepad {
		p := restingPad()
		f(&p)
		return p
	}
	cases := []struct {
		name string
		kb   car.Input
		pad  render.Gamepad
		want car.Input
	}{
		{"resting pad does nothing", car.Input{}, restingPad(), car.Input{}},
		{"right trigger is throttle", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadRightTrigger] = 1 }), car.Input{Throttle: 1}},
		{"half a trigger is about half", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadRightTrigger] = 0 }), car.Input{Throttle: (0.5 - triggerDeadZone) / (1 - triggerDeadZone)}},
		{"a trigger barely touched is nothing", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadRightTrigger] = -0.95 }), car.Input{}},
		{"left trigger is brake", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadLeftTrigger] = 1 }), car.Input{Brake: 1}},
		{"stick right steers right", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadLeftX] = 1 }), car.Input{Steer: -1}},
		{"stick left steers left", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadLeftX] = -0.575 }), car.Input{Steer: 0.5}},
		{"stick in the dead zone is straight", car.Input{}, with(func(p *render.Gamepad) { p.Axes[render.PadLeftX] = 0.14 }), car.Input{}},
		{"the keyboard's full throttle wins over a light trigger", car.Input{Throttle: 1}, with(func(p *render.Gamepad) { p.Axes[render.PadRightTrigger] = -0.5 }), car.Input{Throttle: 1}},
		{"steering adds and clamps", car.Input{Steer: 1}, with(func(p *render.Gamepad) { p.Axes[render.PadLeftX] = -1 }), car.Input{Steer: 1}},
		{"keyboard and stick against each other cancel", car.Input{Steer: 1}, with(func(p *render.Gamepad) { p.Axes[render.PadLeftX] = 1 }), car.Input{}},
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
	assert.True(t, press(render.PadY, true).Reset, "Y resets")
	assert.False(t, press(render.PadY, true).Reset, "held: once")
	assert.False(t, press(render.PadY, false).Reset)
	assert.True(t, press(render.PadStart, true).Pause, "Start pauses")
	assert.True(t, press(render.PadA, true).Confirm)
	assert.True(t, press(render.PadB, true).Back)
	assert.True(t, press(render.PadDpadDown, true).MenuDown)
	assert.True(t, press(render.PadBack, true).ToggleMinimap)

	// Unplugged: a zero state would read half-pulled triggers; it is not
	// merged at all.
	keys.pad = nil
	c := r.read(keys)
	assert.Zero(t, c.Drive)
}

func TestKeyboardControls(t *testing.T) {
	k := &fakeKeys{
		down:    map[render.Key]bool{render.KeyW: true, render.KeyA: true},
		pressed: map[render.Key]bool{render.KeyEscape: true, render.KeyM: true, render.KeyQ: true, render.KeyKPEnter: true},
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
	k := &fakeKeys{down: map[render.Key]bool{}, pressed: map[render.Key]bool{}, pad: &p}
	var r controlReader
	assert.Zero(t, testing.AllocsPerRun(50, func() { _ = r.read(k) }))
}
