package input

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStandardPadIsTheDesktopsLayout(t *testing.T) {
	released := func() Gamepad {
		var g Gamepad
		g.Axes[PadLeftTrigger], g.Axes[PadRightTrigger] = -1, -1
		return g
	}
	press := func(i int) []StandardButton {
		b := make([]StandardButton, 17)
		b[i] = StandardButton{Pressed: true, Value: 1}
		return b
	}
	for _, tc := range []struct {
		name    string
		axes    []float64
		buttons []StandardButton
		want    func(*Gamepad)
	}{
		{"nothing connected reads released", nil, nil, func(*Gamepad) {}},
		{"sticks as they are", []float64{0.5, -1, 0.25, 0.75}, nil, func(g *Gamepad) {
			g.Axes[PadLeftX], g.Axes[PadLeftY], g.Axes[PadRightX], g.Axes[PadRightY] = 0.5, -1, 0.25, 0.75
		}},
		{"out of range and NaN clamped", []float64{3, math.NaN(), -7}, nil, func(g *Gamepad) {
			g.Axes[PadLeftX], g.Axes[PadRightX] = 1, -1
		}},
		{"a half-pulled right trigger", nil, []StandardButton{7: {Value: 0.5}}, func(g *Gamepad) { g.Axes[PadRightTrigger] = 0 }},
		{"a full left trigger", nil, []StandardButton{6: {Pressed: true, Value: 1}}, func(g *Gamepad) { g.Axes[PadLeftTrigger] = 1 }},
		{"a NaN trigger is released", nil, []StandardButton{7: {Value: math.NaN()}}, func(*Gamepad) {}},
		{"A", nil, press(0), func(g *Gamepad) { g.Buttons[PadA] = true }},
		{"Y", nil, press(3), func(g *Gamepad) { g.Buttons[PadY] = true }},
		{"select is Back", nil, press(8), func(g *Gamepad) { g.Buttons[PadBack] = true }},
		{"start", nil, press(9), func(g *Gamepad) { g.Buttons[PadStart] = true }},
		{"d-pad down", nil, press(13), func(g *Gamepad) { g.Buttons[PadDpadDown] = true }},
		{"d-pad right", nil, press(15), func(g *Gamepad) { g.Buttons[PadDpadRight] = true }},
		{"the home button is Guide", nil, press(16), func(g *Gamepad) { g.Buttons[PadGuide] = true }},
		{"a trigger is no button", nil, press(7), func(g *Gamepad) { g.Axes[PadRightTrigger] = 1 }},
		{"extra buttons ignored", nil, append(make([]StandardButton, 20), StandardButton{Pressed: true}), func(*Gamepad) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := released()
			tc.want(&want)
			assert.Equal(t, want, StandardPad(tc.axes, tc.buttons))
		})
	}
}

func TestTouchDragDrives(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		dx, dy, reach           float64
		steer, throttle, brake2 float32 // brake2: the left trigger axis
	}{
		{"resting", 0, 0, 100, 0, -1, -1},
		{"right half way", 50, 0, 100, 0.5, -1, -1},
		{"up full: throttle", 0, -100, 100, 0, 1, -1},
		{"up a quarter", 0, -25, 100, 0, -0.5, -1},
		{"down past reach: full brake", -300, 400, 100, -1, -1, 1},
		{"no reach: nothing", 50, 50, 0, 0, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := TouchDrive(tc.dx, tc.dy, tc.reach)
			assert.InDelta(t, tc.steer, g.Axes[PadLeftX], 1e-6)
			assert.InDelta(t, tc.throttle, g.Axes[PadRightTrigger], 1e-6)
			assert.InDelta(t, tc.brake2, g.Axes[PadLeftTrigger], 1e-6)
		})
	}
}
