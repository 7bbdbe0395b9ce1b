package render

import "github.com/go-gl/glfw/v3.3/glfw"

// Key is a keyboard key; the constants below are the ones the game uses, so
// callers need not import GLFW.
type Key = glfw.Key

// Keys.
const (
	KeyW         = glfw.KeyW
	KeyA         = glfw.KeyA
	KeyS         = glfw.KeyS
	KeyD         = glfw.KeyD
	KeyE         = glfw.KeyE
	KeyQ         = glfw.KeyQ
	KeyUp        = glfw.KeyUp
	KeyDown      = glfw.KeyDown
	KeyLeft      = glfw.KeyLeft
	KeyRight     = glfw.KeyRight
	KeySpace     = glfw.KeySpace
	KeyBackspace = glfw.KeyBackspace
	KeyEscape    = glfw.KeyEscape
	KeyH         = glfw.KeyH
	KeyM         = glfw.KeyM
	KeyEnter     = glfw.KeyEnter
	KeyKPEnter   = glfw.KeyKPEnter
	KeyC         = glfw.KeyC
	KeyR         = glfw.KeyR
	KeyP         = glfw.KeyP
	KeyF1        = glfw.KeyF1
	KeyF12       = glfw.KeyF12
	Key1         = glfw.Key1
	Key2         = glfw.Key2
	Key3         = glfw.Key3
	KeyLeftShift = glfw.KeyLeftShift
	KeyLeftCtrl  = glfw.KeyLeftControl
)

func (r *Renderer) onKey(_ *glfw.Window, k glfw.Key, _ int, action glfw.Action, _ glfw.ModifierKey) {
	if action == glfw.Press {
		r.keys[k] = true
	}
}

// Down reports whether a key is held now.
func (r *Renderer) Down(k Key) bool { return r.win.GetKey(k) == glfw.Press }

// Pressed reports whether a key went down since the previous Present
// (edge-triggered: toggles, screenshots).
func (r *Renderer) Pressed(k Key) bool { return r.keys[k] }

// Gamepad is one gamepad in GLFW's standard (SDL) layout. Axes are in
// [-1, 1]; a released trigger reads -1.
type Gamepad struct {
	Axes    [6]float32 // PadLeftX, PadLeftY, PadRightX, PadRightY, PadLeftTrigger, PadRightTrigger
	Buttons [15]bool   // PadA … PadDpadLeft
}

// Gamepad axes and buttons (GLFW's numbering).
const (
	PadLeftX        = int(glfw.AxisLeftX)
	PadLeftY        = int(glfw.AxisLeftY)
	PadLeftTrigger  = int(glfw.AxisLeftTrigger)
	PadRightTrigger = int(glfw.AxisRightTrigger)

	PadA         = int(glfw.ButtonA)
	PadB         = int(glfw.ButtonB)
	PadX         = int(glfw.ButtonX)
	PadY         = int(glfw.ButtonY)
	PadBack      = int(glfw.ButtonBack)
	PadStart     = int(glfw.ButtonStart)
	PadDpadUp    = int(glfw.ButtonDpadUp)
	PadDpadDown  = int(glfw.ButtonDpadDown)
	PadDpadLeft  = int(glfw.ButtonDpadLeft)
	PadDpadRight = int(glfw.ButtonDpadRight)
)

// noPad marks that no gamepad is connected.
const noPad = glfw.Joystick(-1)

// findPad picks the first connected joystick that has a gamepad mapping.
func findPad() glfw.Joystick {
	for j := glfw.Joystick1; j <= glfw.JoystickLast; j++ {
		if j.Present() && j.IsGamepad() {
			return j
		}
	}
	return noPad
}

// onJoystick follows gamepads coming and going (GLFW calls it from
// PollEvents, on the main thread).
func (r *Renderer) onJoystick(j glfw.Joystick, e glfw.PeripheralEvent) {
	if e == glfw.Connected && r.pad == noPad && j.IsGamepad() {
		r.pad = j
	}
	if e == glfw.Disconnected && j == r.pad {
		r.pad = findPad()
	}
}

// Gamepad reads the connected gamepad, if any. GLFW's binding allocates
// its state (under 100 bytes) on each read, so it is read only while a
// gamepad is connected: no gamepad, no allocation.
func (r *Renderer) Gamepad() (Gamepad, bool) {
	var g Gamepad
	if r.pad == noPad {
		return g, false
	}
	st := r.pad.GetGamepadState()
	if st == nil {
		return g, false
	}
	g.Axes = st.Axes
	for i, a := range st.Buttons {
		g.Buttons[i] = a == glfw.Press
	}
	return g, true
}
