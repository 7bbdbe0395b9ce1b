package render

import (
	"github.com/go-gl/glfw/v3.3/glfw"

	"citydrive/render/input"
)

// glfwKeys maps the game's keys (render/input) to GLFW's.
var glfwKeys = [input.NumKeys]glfw.Key{
	input.KeyNone:         glfw.KeyUnknown,
	input.KeyW:            glfw.KeyW,
	input.KeyA:            glfw.KeyA,
	input.KeyS:            glfw.KeyS,
	input.KeyD:            glfw.KeyD,
	input.KeyE:            glfw.KeyE,
	input.KeyQ:            glfw.KeyQ,
	input.KeyUp:           glfw.KeyUp,
	input.KeyDown:         glfw.KeyDown,
	input.KeyLeft:         glfw.KeyLeft,
	input.KeyRight:        glfw.KeyRight,
	input.KeySpace:        glfw.KeySpace,
	input.KeyBackspace:    glfw.KeyBackspace,
	input.KeyEscape:       glfw.KeyEscape,
	input.KeyH:            glfw.KeyH,
	input.KeyM:            glfw.KeyM,
	input.KeyEnter:        glfw.KeyEnter,
	input.KeyKPEnter:      glfw.KeyKPEnter,
	input.KeyC:            glfw.KeyC,
	input.KeyR:            glfw.KeyR,
	input.KeyP:            glfw.KeyP,
	input.KeyF1:           glfw.KeyF1,
	input.KeyF12:          glfw.KeyF12,
	input.Key1:            glfw.Key1,
	input.Key2:            glfw.Key2,
	input.Key3:            glfw.Key3,
	input.KeyLeftShift:    glfw.KeyLeftShift,
	input.KeyLeftCtrl:     glfw.KeyLeftControl,
	input.KeyB:            glfw.KeyB,
	input.KeyF:            glfw.KeyF,
	input.KeyG:            glfw.KeyG,
	input.KeyI:            glfw.KeyI,
	input.KeyJ:            glfw.KeyJ,
	input.KeyK:            glfw.KeyK,
	input.KeyL:            glfw.KeyL,
	input.KeyN:            glfw.KeyN,
	input.KeyO:            glfw.KeyO,
	input.KeyT:            glfw.KeyT,
	input.KeyU:            glfw.KeyU,
	input.KeyV:            glfw.KeyV,
	input.KeyX:            glfw.KeyX,
	input.KeyY:            glfw.KeyY,
	input.KeyZ:            glfw.KeyZ,
	input.Key0:            glfw.Key0,
	input.Key4:            glfw.Key4,
	input.Key5:            glfw.Key5,
	input.Key6:            glfw.Key6,
	input.Key7:            glfw.Key7,
	input.Key8:            glfw.Key8,
	input.Key9:            glfw.Key9,
	input.KeyF2:           glfw.KeyF2,
	input.KeyF3:           glfw.KeyF3,
	input.KeyF4:           glfw.KeyF4,
	input.KeyF5:           glfw.KeyF5,
	input.KeyF6:           glfw.KeyF6,
	input.KeyF7:           glfw.KeyF7,
	input.KeyF8:           glfw.KeyF8,
	input.KeyF9:           glfw.KeyF9,
	input.KeyF10:          glfw.KeyF10,
	input.KeyF11:          glfw.KeyF11,
	input.KeyKP0:          glfw.KeyKP0,
	input.KeyKP1:          glfw.KeyKP1,
	input.KeyKP2:          glfw.KeyKP2,
	input.KeyKP3:          glfw.KeyKP3,
	input.KeyKP4:          glfw.KeyKP4,
	input.KeyKP5:          glfw.KeyKP5,
	input.KeyKP6:          glfw.KeyKP6,
	input.KeyKP7:          glfw.KeyKP7,
	input.KeyKP8:          glfw.KeyKP8,
	input.KeyKP9:          glfw.KeyKP9,
	input.KeyKPDecimal:    glfw.KeyKPDecimal,
	input.KeyKPDivide:     glfw.KeyKPDivide,
	input.KeyKPMultiply:   glfw.KeyKPMultiply,
	input.KeyKPSubtract:   glfw.KeyKPSubtract,
	input.KeyKPAdd:        glfw.KeyKPAdd,
	input.KeyKPEqual:      glfw.KeyKPEqual,
	input.KeyTab:          glfw.KeyTab,
	input.KeyInsert:       glfw.KeyInsert,
	input.KeyDelete:       glfw.KeyDelete,
	input.KeyPageUp:       glfw.KeyPageUp,
	input.KeyPageDown:     glfw.KeyPageDown,
	input.KeyHome:         glfw.KeyHome,
	input.KeyEnd:          glfw.KeyEnd,
	input.KeyApostrophe:   glfw.KeyApostrophe,
	input.KeyComma:        glfw.KeyComma,
	input.KeyMinus:        glfw.KeyMinus,
	input.KeyPeriod:       glfw.KeyPeriod,
	input.KeySlash:        glfw.KeySlash,
	input.KeySemicolon:    glfw.KeySemicolon,
	input.KeyEqual:        glfw.KeyEqual,
	input.KeyLeftBracket:  glfw.KeyLeftBracket,
	input.KeyBackslash:    glfw.KeyBackslash,
	input.KeyRightBracket: glfw.KeyRightBracket,
	input.KeyGrave:        glfw.KeyGraveAccent,
	input.KeyLeftAlt:      glfw.KeyLeftAlt,
	input.KeyRightShift:   glfw.KeyRightShift,
	input.KeyRightCtrl:    glfw.KeyRightControl,
	input.KeyRightAlt:     glfw.KeyRightAlt,
}

// glfwKey is k's GLFW key; KeyUnknown for no key or one out of range
// (which GLFW must never be asked about: go-gl/glfw panics on its error).
func glfwKey(k input.Key) glfw.Key {
	if k >= input.NumKeys {
		return glfw.KeyUnknown
	}
	return glfwKeys[k]
}

func (r *Renderer) onKey(_ *glfw.Window, k glfw.Key, _ int, action glfw.Action, _ glfw.ModifierKey) {
	if action == glfw.Press {
		r.keys[k] = true
	}
}

// Down reports whether a key is held now.
func (r *Renderer) Down(k input.Key) bool {
	g := glfwKey(k)
	return g != glfw.KeyUnknown && r.win.GetKey(g) == glfw.Press
}

// Pressed reports whether a key went down since the previous Present
// (edge-triggered: toggles, screenshots).
func (r *Renderer) Pressed(k input.Key) bool {
	g := glfwKey(k)
	return g != glfw.KeyUnknown && r.keys[g]
}

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
func (r *Renderer) Gamepad() (input.Gamepad, bool) {
	var g input.Gamepad
	if r.pad == noPad {
		return g, false
	}
	st := r.pad.GetGamepadState()
	if st == nil {
		return g, false
	}
	g.Axes = st.Axes // input's layout is GLFW's (input_test.go)
	for i, a := range st.Buttons {
		g.Buttons[i] = a == glfw.Press
	}
	return g, true
}

// Mouse is the cursor's position in window pixels and whether the left
// button is held (photo mode looks around by dragging).
func (r *Renderer) Mouse() (x, y float64, left bool) {
	x, y = r.win.GetCursorPos()
	return x, y, r.win.GetMouseButton(glfw.MouseButtonLeft) == glfw.Press
}
