// Package input is the game's keyboard and gamepad vocabulary: the keys it
// reads and a gamepad's state in the standard (SDL) layout. It has no
// window and no cgo, so the frame loop (and its headless display) speaks
// it without linking GLFW; render maps these to GLFW's keys and reads the
// gamepad into Gamepad.
package input

// Key is a keyboard key the game reads. The values are this package's own
// (render translates them); KeyNone is no key.
type Key uint8

// Keys.
const (
	KeyNone Key = iota
	KeyW
	KeyA
	KeyS
	KeyD
	KeyE
	KeyQ
	KeyUp
	KeyDown
	KeyLeft
	KeyRight
	KeySpace
	KeyBackspace
	KeyEscape
	KeyH
	KeyM
	KeyEnter
	KeyKPEnter
	KeyC
	KeyR
	KeyP
	KeyF1
	KeyF12
	Key1
	Key2
	Key3
	KeyLeftShift
	KeyLeftCtrl

	// The keys a player may bind (settings), beyond the ones above.
	KeyB
	KeyF
	KeyG
	KeyI
	KeyJ
	KeyK
	KeyL
	KeyN
	KeyO
	KeyT
	KeyU
	KeyV
	KeyX
	KeyY
	KeyZ
	Key0
	Key4
	Key5
	Key6
	Key7
	Key8
	Key9
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyKP0
	KeyKP1
	KeyKP2
	KeyKP3
	KeyKP4
	KeyKP5
	KeyKP6
	KeyKP7
	KeyKP8
	KeyKP9
	KeyKPDecimal
	KeyKPDivide
	KeyKPMultiply
	KeyKPSubtract
	KeyKPAdd
	KeyKPEqual
	KeyTab
	KeyInsert
	KeyDelete
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeyApostrophe
	KeyComma
	KeyMinus
	KeyPeriod
	KeySlash
	KeySemicolon
	KeyEqual
	KeyLeftBracket
	KeyBackslash
	KeyRightBracket
	KeyGrave
	KeyLeftAlt
	KeyRightShift
	KeyRightCtrl
	KeyRightAlt

	// NumKeys is one past the last key: a [NumKeys]T is indexed by Key.
	NumKeys
)

// Gamepad is one gamepad in the standard (SDL) layout, which GLFW also
// uses. Axes are in [-1, 1]; a released trigger reads -1.
type Gamepad struct {
	Axes    [6]float32 // PadLeftX, PadLeftY, PadRightX, PadRightY, PadLeftTrigger, PadRightTrigger
	Buttons [15]bool   // PadA … PadDpadLeft
}

// Gamepad axes (indices into Gamepad.Axes).
const (
	PadLeftX = iota
	PadLeftY
	PadRightX
	PadRightY
	PadLeftTrigger
	PadRightTrigger
)

// Gamepad buttons (indices into Gamepad.Buttons).
const (
	PadA = iota
	PadB
	PadX
	PadY
	PadLeftBumper
	PadRightBumper
	PadBack
	PadStart
	PadGuide
	PadLeftThumb
	PadRightThumb
	PadDpadUp
	PadDpadRight
	PadDpadDown
	PadDpadLeft
)
