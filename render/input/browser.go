package input

import "math"

// A browser's gamepad and touch screen, as the browser build reads them
// (render/webgl). The game's own dead zones and mapping (game's
// mergePadWith) then apply to the Gamepad as to the desktop's, so a pad
// drives the same in both.

// StandardButton is one button of a browser Gamepad: pressed, and how far
// (0..1: the triggers are analogue buttons in the standard mapping).
type StandardButton struct {
	Pressed bool
	Value   float64
}

// The W3C "standard" mapping's button indices where they differ from
// Gamepad's order (https://w3c.github.io/gamepad/#remapping).
const (
	stdLeftTrigger  = 6
	stdRightTrigger = 7
)

// standardButtons is Gamepad's button (PadA …) for each standard one;
// -1 for the triggers, which are axes here.
var standardButtons = [...]int{
	PadA, PadB, PadX, PadY, PadLeftBumper, PadRightBumper,
	-1, -1, // the triggers
	PadBack, PadStart, PadLeftThumb, PadRightThumb,
	PadDpadUp, PadDpadDown, PadDpadLeft, PadDpadRight,
	PadGuide,
}

// StandardPad is a gamepad in the browser's standard mapping as a
// Gamepad: axes 0-3 the sticks (up is -1 in both), the triggers from
// buttons 6 and 7 (0..1 of travel, to -1..1 as on the desktop), the rest
// reordered. Missing entries read released; values out of range or NaN
// are clamped (to rest, for NaN).
func StandardPad(axes []float64, buttons []StandardButton) Gamepad {
	var g Gamepad
	for i := range min(len(axes), PadRightY+1) {
		g.Axes[i] = clampAxis(axes[i], 0)
	}
	trigger := func(i int) float32 {
		if i >= len(buttons) {
			return -1
		}
		return float32(2*unit(buttons[i].Value) - 1)
	}
	g.Axes[PadLeftTrigger] = trigger(stdLeftTrigger)
	g.Axes[PadRightTrigger] = trigger(stdRightTrigger)
	for i, b := range buttons {
		if i < len(standardButtons) && standardButtons[i] >= 0 {
			g.Buttons[standardButtons[i]] = b.Pressed
		}
	}
	return g
}

// TouchDrive is a drag on a touch screen as a gamepad: the finger's
// offset (dx, dy pixels) from where it touched down, reach pixels being a
// full push. Right steers right (the left stick), up throttles (the right
// trigger) and down brakes (the left trigger).
func TouchDrive(dx, dy, reach float64) Gamepad {
	g := Gamepad{}
	g.Axes[PadLeftTrigger], g.Axes[PadRightTrigger] = -1, -1
	if !(reach > 0) {
		return g
	}
	g.Axes[PadLeftX] = clampAxis(dx/reach, 0)
	push := clampAxis(-dy/reach, 0) // up is -y on the screen
	if push > 0 {
		g.Axes[PadRightTrigger] = 2*push - 1
	} else {
		g.Axes[PadLeftTrigger] = -2*push - 1
	}
	return g
}

func clampAxis(v, rest float64) float32 {
	if math.IsNaN(v) {
		return float32(rest)
	}
	return float32(math.Max(-1, math.Min(1, v)))
}

func unit(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Max(0, math.Min(1, v))
}
