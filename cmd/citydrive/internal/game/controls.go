package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/render/input"
	"citydrive/render/scene"
)

// Controls is one frame's input, read from the keyboard and the gamepad
// once at the start of the frame; nothing later in the frame looks at a
// key or a button. Keys and buttons mean what the bindings
// (settings.Bindings) say; the defaults are the README's.
type Controls struct {
	Drive car.Input // what the player's hands do (the autopilot overrides it)

	// The pause menu (pause.go): Pause opens and closes it, Confirm picks
	// the selected item, Back goes back a page, MenuUp/MenuDown move the
	// selection, MenuLeft/MenuRight change a value, Leave (Q) asks to quit.
	Pause, Confirm, Back, MenuUp, MenuDown, Leave bool
	MenuLeft, MenuRight                           bool

	Screenshot, Reset            bool
	ToggleHUD, ToggleAutopilot   bool
	ToggleWeather, ToggleTopView bool
	ToggleMinimap                bool
	ToggleDevOverlay             bool       // F3: the developer's figures
	TogglePhoto                  bool       // F2: photo mode (photo.go)
	Photo                        photoInput // photo mode's camera controls, read only in photo mode
	NextTimeOfDay                bool
	Dig, Build                   bool
	Debug                        scene.DebugFlags // debug views toggled this frame

	// While the options screen waits for a new binding (controlReader's
	// capture): the first named key, or gamepad button, pressed this frame.
	Key          input.Key
	KeyPressed   bool
	Button       int
	ButtonPushed bool
}

// defaultBindings are the README's keys (ReadControls, tests).
var defaultBindings = settings.DefaultBindings()

// ReadControls reads the keyboard with the default bindings: W/S or
// arrows throttle and brake (hold brake to reverse), A/D steer, Backspace
// puts the car back on its lane, Esc pauses.
func ReadControls(k Keys) Controls { return readKeys(k, &defaultBindings) }

func readKeys(k Keys, b *settings.Bindings) Controls {
	var c Controls
	if anyDown(k, b.Keys[settings.Throttle]) {
		c.Drive.Throttle = 1
	}
	if anyDown(k, b.Keys[settings.Brake]) {
		c.Drive.Brake = 1
	}
	if anyDown(k, b.Keys[settings.SteerLeft]) {
		c.Drive.Steer++
	}
	if anyDown(k, b.Keys[settings.SteerRight]) {
		c.Drive.Steer--
	}
	ctrl := k.Down(input.KeyLeftCtrl) || k.Down(input.KeyLeftShift)
	for a := range settings.NumActions {
		if isDebug(a) && !ctrl {
			continue // the developer views want Ctrl (or Shift) held
		}
		for _, key := range b.Keys[a] {
			if k.Pressed(key) {
				press(&c, a)
				break
			}
		}
	}
	return c
}

func anyDown(k Keys, keys []input.Key) bool {
	for _, key := range keys {
		if k.Down(key) {
			return true
		}
	}
	return false
}

func isDebug(a settings.Action) bool {
	return a == settings.Wireframe || a == settings.SlotBoxes || a == settings.BuildAge
}

// press acts on an action's key or button going down (a switch rather
// than a table of functions: a function value would make every Controls
// escape).
func press(c *Controls, a settings.Action) {
	switch a {
	case settings.Reset:
		c.Reset = true
	case settings.Autopilot:
		c.ToggleAutopilot = true
	case settings.Camera:
		c.ToggleTopView = true
	case settings.HUD:
		c.ToggleHUD = true
	case settings.Minimap:
		c.ToggleMinimap = true
	case settings.Weather:
		c.ToggleWeather = true
	case settings.TimeOfDay:
		c.NextTimeOfDay = true
	case settings.Dig:
		c.Dig = true
	case settings.Build:
		c.Build = true
	case settings.Screenshot:
		c.Screenshot = true
	case settings.Pause:
		c.Pause = true
	case settings.MenuUp:
		c.MenuUp = true
	case settings.MenuDown:
		c.MenuDown = true
	case settings.MenuLeft:
		c.MenuLeft = true
	case settings.MenuRight:
		c.MenuRight = true
	case settings.MenuSelect:
		c.Confirm = true
	case settings.MenuBack:
		c.Back = true
	case settings.Quit:
		c.Leave = true
	case settings.PhotoMode:
		c.TogglePhoto = true
	case settings.DevOverlay:
		c.ToggleDevOverlay = true
	case settings.Wireframe:
		c.Debug ^= scene.DebugWireframe
	case settings.SlotBoxes:
		c.Debug ^= scene.DebugBoxes
	case settings.BuildAge:
		c.Debug ^= scene.DebugBuildAge
	}
}

// controlReader reads Controls once a frame. It keeps the gamepad's
// previous buttons, so that a button press is an edge like a key press.
type controlReader struct {
	pad  input.Gamepad
	bind *settings.Bindings // nil: the defaults
	// photo: photo mode reads its camera controls (photo.go).
	photo bool
	// capture: the options screen waits for a key or button to bind, so
	// every named key is asked whether it was pressed (only then: that is
	// a hundred questions a frame).
	capture bool
}

func (r *controlReader) bindings() *settings.Bindings {
	if r.bind == nil {
		return &defaultBindings
	}
	return r.bind
}

func (r *controlReader) read(k Keys) Controls {
	b := r.bindings()
	c := readKeys(k, b)
	if r.capture {
		for _, key := range settings.NameableKeys() {
			if k.Pressed(key) {
				c.Key, c.KeyPressed = key, true
				break
			}
		}
	}
	if r.photo {
		c.Photo = readPhotoKeys(k)
	}
	p, ok := k.Gamepad()
	if !ok {
		r.pad = input.Gamepad{} // a zero pad reads half-pulled triggers: not merged
		return c
	}
	mergePadWith(&c, p, r.pad, b)
	if r.photo {
		c.Photo.addPad(p)
	}
	if r.capture {
		for i := range p.Buttons {
			if p.Buttons[i] && !r.pad.Buttons[i] {
				c.Button, c.ButtonPushed = i, true
				break
			}
		}
	}
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

// mergePad adds a gamepad to the keyboard's controls with the default
// bindings (mergePadWith).
func mergePad(c *Controls, now, before input.Gamepad) {
	mergePadWith(c, now, before, &defaultBindings)
}

// mergePadWith adds a gamepad to the keyboard's controls: right trigger
// throttle, left trigger brake, left stick steering (the stronger of the
// keyboard and pad wins for the pedals, the steering adds and clamps);
// the buttons as b binds them (by default Y resets the car, X the
// autopilot, Back the minimap, Start pauses; in the menu A confirms, B
// goes back and the d-pad selects). now and before are this frame's and
// the last frame's states.
func mergePadWith(c *Controls, now, before input.Gamepad, b *settings.Bindings) {
	c.Drive.Throttle = math.Max(c.Drive.Throttle, padTrigger(now.Axes[input.PadRightTrigger]))
	c.Drive.Brake = math.Max(c.Drive.Brake, padTrigger(now.Axes[input.PadLeftTrigger]))
	steer := -padStick(now.Axes[input.PadLeftX]) // stick right is +x; Steer +1 is left
	held := func(a settings.Action) bool {
		for _, btn := range b.Pad[a] {
			if btn >= 0 && btn < len(now.Buttons) && now.Buttons[btn] {
				return true
			}
		}
		return false
	}
	if held(settings.Throttle) {
		c.Drive.Throttle = 1
	}
	if held(settings.Brake) {
		c.Drive.Brake = 1
	}
	if held(settings.SteerLeft) {
		steer++
	}
	if held(settings.SteerRight) {
		steer--
	}
	c.Drive.Steer = math.Max(-1, math.Min(1, c.Drive.Steer+steer))
	for a := range settings.NumActions {
		for _, btn := range b.Pad[a] {
			if btn >= 0 && btn < len(now.Buttons) && now.Buttons[btn] && !before.Buttons[btn] {
				press(c, a)
				break
			}
		}
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
