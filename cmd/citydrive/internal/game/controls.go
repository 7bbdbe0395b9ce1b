package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render/input"
	"citydrive/render/scene"
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
	Debug                        scene.DebugFlags // debug views toggled this frame
}

// ReadControls reads the keyboard: W/S or arrows throttle and brake (hold
// brake to reverse), A/D steer, Backspace puts the car back on its lane,
// Esc pauses.
func ReadControls(k Keys) Controls {
	var c Controls
	if k.Down(input.KeyW) || k.Down(input.KeyUp) {
		c.Drive.Throttle = 1
	}
	if k.Down(input.KeyS) || k.Down(input.KeyDown) || k.Down(input.KeySpace) {
		c.Drive.Brake = 1
	}
	if k.Down(input.KeyA) || k.Down(input.KeyLeft) {
		c.Drive.Steer++
	}
	if k.Down(input.KeyD) || k.Down(input.KeyRight) {
		c.Drive.Steer--
	}
	c.Pause = k.Pressed(input.KeyEscape)
	c.Confirm = k.Pressed(input.KeyEnter) || k.Pressed(input.KeyKPEnter)
	c.MenuUp = k.Pressed(input.KeyUp) || k.Pressed(input.KeyW)
	c.MenuDown = k.Pressed(input.KeyDown) || k.Pressed(input.KeyS)
	c.Screenshot = k.Pressed(input.KeyF12)
	c.Reset = k.Pressed(input.KeyBackspace)
	c.ToggleHUD = k.Pressed(input.KeyH)
	c.ToggleAutopilot = k.Pressed(input.KeyP)
	c.ToggleWeather = k.Pressed(input.KeyR)
	c.ToggleTopView = k.Pressed(input.KeyC)
	c.ToggleMinimap = k.Pressed(input.KeyM)
	c.NextTimeOfDay = k.Pressed(input.KeyF1)
	c.Dig, c.Build = k.Pressed(input.KeyE), k.Pressed(input.KeyQ)
	c.Leave = c.Build // Q builds while driving and quits from the pause menu
	if k.Down(input.KeyLeftCtrl) || k.Down(input.KeyLeftShift) {
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
	key  input.Key
	flag scene.DebugFlags
}{{input.Key1, scene.DebugWireframe}, {input.Key2, scene.DebugBoxes}, {input.Key3, scene.DebugBuildAge}}

// controlReader reads Controls once a frame. It keeps the gamepad's
// previous buttons, so that a button press is an edge like a key press.
type controlReader struct {
	pad input.Gamepad
}

func (r *controlReader) read(k Keys) Controls {
	c := ReadControls(k)
	p, ok := k.Gamepad()
	if !ok {
		r.pad = input.Gamepad{} // a zero pad reads half-pulled triggers: not merged
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
func mergePad(c *Controls, now, before input.Gamepad) {
	c.Drive.Throttle = math.Max(c.Drive.Throttle, padTrigger(now.Axes[input.PadRightTrigger]))
	c.Drive.Brake = math.Max(c.Drive.Brake, padTrigger(now.Axes[input.PadLeftTrigger]))
	// Stick right is +x; Steer +1 is left.
	c.Drive.Steer = math.Max(-1, math.Min(1, c.Drive.Steer-padStick(now.Axes[input.PadLeftX])))
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
	case input.PadY:
		c.Reset = true
	case input.PadX:
		c.ToggleAutopilot = true
	case input.PadBack:
		c.ToggleMinimap = true
	case input.PadStart:
		c.Pause = true
	case input.PadA:
		c.Confirm = true
	case input.PadB:
		c.Back = true
	case input.PadDpadUp:
		c.MenuUp = true
	case input.PadDpadDown:
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
