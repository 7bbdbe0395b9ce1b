package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render"
)

// Controls is one frame's input, read from the keyboard and the gamepad
// once at the start of the frame; nothing later in the frame looks at a
// key or a button.
type Controls struct {
	Drive car.Input // what the player's hands do (the autopilot overrides it)

	// The pause menu (pause.go): Pause opens and closes it, Confirm picks
	// the selected item, Back closes it, MenuUp/MenuDown move the
	// selection, Leave (Q) quits from it.
	Pause, Confirm, Back, MenuUp, MenuDown, Leave bool

	Screenshot, Reset            bool
	ToggleHUD, ToggleAutopilot   bool
	ToggleWeather, ToggleTopView bool
	ToggleMinimap                bool
	NextTimeOfDay                bool
	Dig, Build                   bool
	Debug                        render.DebugFlags // debug views toggled this frame
}

// ReadControls reads the keyboard: W/S or arrows throttle and brake (hold
// brake to reverse), A/D steer, Backspace puts the car back on its lane,
// Esc pauses.
func ReadControls(k Keys) Controls {
	var c Controls
	if k.Down(render.KeyW) || k.Down(render.KeyUp) {
		c.Drive.Throttle = 1
	}
	if k.Down(render.KeyS) || k.Down(render.KeyDown) || k.Down(render.KeySpace) {
		c.Drive.Brake = 1
	}
	if k.Down(render.KeyA) || k.Down(render.KeyLeft) {
		c.Drive.Steer++
	}
	if k.Down(render.KeyD) || k.Down(render.KeyRight) {
		c.Drive.Steer--
	}
	c.Pause = k.Pressed(render.KeyEscape)
	c.Confirm = k.Pressed(render.KeyEnter) || k.Pressed(render.KeyKPEnter)
	c.MenuUp = k.Pressed(render.KeyUp) || k.Pressed(render.KeyW)
	c.MenuDown = k.Pressed(render.KeyDown) || k.Pressed(render.KeyS)
	c.Screenshot = k.Pressed(render.KeyF12)
	c.Reset = k.Pressed(render.KeyBackspace)
	c.ToggleHUD = k.Pressed(render.KeyH)
	c.ToggleAutopilot = k.Pressed(render.KeyP)
	c.ToggleWeather = k.Pressed(render.KeyR)
	c.ToggleTopView = k.Pressed(render.KeyC)
	c.ToggleMinimap = k.Pressed(render.KeyM)
	c.NextTimeOfDay = k.Pressed(render.KeyF1)
	c.Dig, c.Build = k.Pressed(render.KeyE), k.Pressed(render.KeyQ)
	c.Leave = c.Build // Q builds while driving and quits from the pause menu
	if k.Down(render.KeyLeftCtrl) || k.Down(render.KeyLeftShift) {
		for _, d := range debugKeys {
			if k.Pressed(d.key) {
				c.Debug ^= d.flag
			}
		}
	}
	return c
}

// debugKeys are Ctrl+1/2/3 (an array, so reading them allocates nothing).
var debugKeys = [...]struct {
	key  render.Key
	flag render.DebugFlags
}{{render.Key1, render.DebugWireframe}, {render.Key2, render.DebugBoxes}, {render.Key3, render.DebugBuildAge}}

// controlReader reads Controls once a frame. It keeps the gamepad's
// previous buttons, so that a button press is an edge like a key press.
type controlReader struct {
	pad render.Gamepad
}

func (r *controlReader) read(k Keys) Controls {
	c := ReadControls(k)
	p, ok := k.Gamepad()
	if !ok {
		r.pad = render.Gamepad{} // a zero pad reads half-pulled triggers: not merged
		return c
	}
	mergePad(&c, p, r.pad)
	r.pad = p
	return c
}

// Gamepad tuning.
const (
	// stickDeadZone: a resting stick reads up to about this much; inside
	// it steering is zero and outside it the range is rescaled, so the
	// smallest deliberate push is a small steer, not a jump.
	stickDeadZone = 0.15
	// triggerDeadZone: the same for the triggers, as a fraction of travel.
	triggerDeadZone = 0.05
)

// mergePad adds a gamepad to the keyboard's controls: right trigger
// throttle, left trigger brake, left stick steering (the stronger of the
// keyboard and pad wins for the pedals, the steering adds and clamps);
// Y resets the car, X the autopilot, Back the minimap, Start pauses;
// in the menu A confirms, B goes back and the d-pad selects. now and
// before are this frame's and the last frame's states.
func mergePad(c *Controls, now, before render.Gamepad) {
	c.Drive.Throttle = math.Max(c.Drive.Throttle, padTrigger(now.Axes[render.PadRightTrigger]))
	c.Drive.Brake = math.Max(c.Drive.Brake, padTrigger(now.Axes[render.PadLeftTrigger]))
	// Stick right is +x; Steer +1 is left.
	c.Drive.Steer = math.Max(-1, math.Min(1, c.Drive.Steer-padStick(now.Axes[render.PadLeftX])))
	for b := range now.Buttons {
		if now.Buttons[b] && !before.Buttons[b] {
			padPress(c, b)
		}
	}
}

// padPress acts on a button going down (a switch rather than a table of
// functions: a function value would make every Controls escape).
func padPress(c *Controls, b int) {
	switch b {
	case render.PadY:
		c.Reset = true
	case render.PadX:
		c.ToggleAutopilot = true
	case render.PadBack:
		c.ToggleMinimap = true
	case render.PadStart:
		c.Pause = true
	case render.PadA:
		c.Confirm = true
	case render.PadB:
		c.Back = true
	case render.PadDpadUp:
		c.MenuUp = true
	case render.PadDpadDown:
		c.MenuDown = true
	}
}

// padStick maps a stick axis in [-1, 1] through the dead zone.
func padStick(v float32) float64 {
	a := math.Abs(float64(v))
	if !(a > stickDeadZone) { // NaN too
		return 0
	}
	return math.Copysign(math.Min(1, (a-stickDeadZone)/(1-stickDeadZone)), float64(v))
}

// padTrigger maps a trigger axis (-1 released, +1 fully pulled) to [0, 1].
func padTrigger(v float32) float64 {
	t := (float64(v) + 1) / 2
	if !(t > triggerDeadZone) {
		return 0
	}
	return math.Min(1, (t-triggerDeadZone)/(1-triggerDeadZone))
}
