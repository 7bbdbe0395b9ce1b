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
