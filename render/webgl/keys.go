//go:build js && wasm

package webgl

import (
	"syscall/js"

	"citydrive/render/input"
)

// codes maps KeyboardEvent.code to the game's keys (the desktop's GLFW
// table's counterpart): layout-independent, as GLFW's key codes are.
var codes = map[string]input.Key{
	"KeyW": input.KeyW, "KeyA": input.KeyA, "KeyS": input.KeyS, "KeyD": input.KeyD,
	"KeyE": input.KeyE, "KeyQ": input.KeyQ, "KeyH": input.KeyH, "KeyM": input.KeyM,
	"KeyC": input.KeyC, "KeyR": input.KeyR, "KeyP": input.KeyP, "KeyB": input.KeyB,
	"ArrowUp": input.KeyUp, "ArrowDown": input.KeyDown, "ArrowLeft": input.KeyLeft, "ArrowRight": input.KeyRight,
	"Space": input.KeySpace, "Backspace": input.KeyBackspace, "Escape": input.KeyEscape,
	"Enter": input.KeyEnter, "NumpadEnter": input.KeyKPEnter, "F1": input.KeyF1, "F2": input.KeyF2, "F3": input.KeyF3,
	"Digit1": input.Key1, "Digit2": input.Key2, "Digit3": input.Key3,
	"ShiftLeft": input.KeyLeftShift, "ControlLeft": input.KeyLeftCtrl,
}

// listen follows the page's key events (held keys, and presses until the
// next Present).
func (d *Display) listen() {
	on := func(down bool) js.Func {
		return js.FuncOf(func(_ js.Value, a []js.Value) any {
			k, ok := codes[a[0].Get("code").String()]
			if !ok {
				return nil
			}
			a[0].Call("preventDefault") // arrows and space must not scroll the page
			d.mu.Lock()
			if down && !d.down[k] {
				d.pressed[k] = true
			}
			d.down[k] = down
			d.mu.Unlock()
			return nil
		})
	}
	js.Global().Call("addEventListener", "keydown", on(true))
	js.Global().Call("addEventListener", "keyup", on(false))
}

// Down reports a held key.
func (d *Display) Down(k input.Key) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.down[k]
}

// Pressed reports a key that went down since the last Present.
func (d *Display) Pressed(k input.Key) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pressed[k]
}

// Gamepad is in pointer.go.
