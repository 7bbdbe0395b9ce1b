package settings

import (
	"fmt"
	"slices"
	"strings"

	"citydrive/render/input"
)

// Action is something the player does with a key or a button. The game's
// controls (game/controls.go) read actions, never keys: the Bindings say
// which keys and buttons do what.
type Action int

// The actions, in the order the options screen and the settings file list
// them: driving first, then the menus, then the developer views.
const (
	Throttle Action = iota
	Brake
	SteerLeft
	SteerRight
	Reset
	Autopilot
	Camera
	HUD
	Minimap
	Weather
	TimeOfDay
	Dig
	Build
	Screenshot
	Pause
	MenuUp
	MenuDown
	MenuLeft
	MenuRight
	MenuSelect
	MenuBack
	Quit
	PhotoMode  // a free camera for pictures (F2)
	DevOverlay // the developer's figures over the player's HUD (F3)
	Wireframe  // with Ctrl or Shift held, as are the two below
	SlotBoxes
	BuildAge
	NumActions
)

// actionInfo names an action in the file and on the options screen.
type actionInfo struct {
	name, label string
	// screen: the options screen may rebind it. The menu's own keys, pause
	// and the developer views are rebound in the file only, so a player
	// cannot lock themselves out of the menu from inside it.
	screen bool
}

var actions = [NumActions]actionInfo{
	Throttle:   {"throttle", "THROTTLE", true},
	Brake:      {"brake", "BRAKE / REVERSE", true},
	SteerLeft:  {"steer-left", "STEER LEFT", true},
	SteerRight: {"steer-right", "STEER RIGHT", true},
	Reset:      {"reset", "BACK ON THE ROAD", true},
	Autopilot:  {"autopilot", "AUTOPILOT", true},
	Camera:     {"camera", "TOP VIEW", true},
	HUD:        {"hud", "HUD", true},
	Minimap:    {"minimap", "MINIMAP NORTH / HEADING", true},
	Weather:    {"weather", "WEATHER", true},
	TimeOfDay:  {"time-of-day", "TIME OF DAY", true},
	Dig:        {"dig", "DIG", true},
	Build:      {"build", "BUILD", true},
	Screenshot: {"screenshot", "SCREENSHOT", true},
	Pause:      {"pause", "PAUSE", false},
	MenuUp:     {"menu-up", "MENU UP", false},
	MenuDown:   {"menu-down", "MENU DOWN", false},
	MenuLeft:   {"menu-left", "MENU LEFT", false},
	MenuRight:  {"menu-right", "MENU RIGHT", false},
	MenuSelect: {"menu-select", "MENU SELECT", false},
	MenuBack:   {"menu-back", "MENU BACK", false},
	Quit:       {"quit", "QUIT (FROM THE MENU)", false},
	PhotoMode:  {"photo-mode", "PHOTO MODE", false},
	DevOverlay: {"developer-overlay", "DEVELOPER OVERLAY", false},
	Wireframe:  {"wireframe", "WIREFRAME (CTRL)", false},
	SlotBoxes:  {"slot-boxes", "SLOT BOXES (CTRL)", false},
	BuildAge:   {"build-age", "BUILD AGE (CTRL)", false},
}

// Name is the action's name in the settings file ("steer-left").
func (a Action) Name() string { return actions[a].name }

// Label is the action as the options screen shows it.
func (a Action) Label() string { return actions[a].label }

// OnScreen reports whether the options screen may rebind the action.
func (a Action) OnScreen() bool { return actions[a].screen }

// Bindings is the table from action to keys and gamepad buttons. An
// action may have several keys (W and Up both throttle) or none; a key
// may serve several actions (W throttles and moves up in the menu: the
// two never act at once).
type Bindings struct {
	Keys [NumActions][]input.Key
	Pad  [NumActions][]int // gamepad buttons, GLFW's numbering (input.PadA …)
}

// The gamepad's triggers and left stick drive (throttle, brake, steer) and
// are not bound here: an axis is not a button.

// DefaultBindings are the keys of the README and citydrive play -h, and
// the gamepad buttons of the README plus the ones the issue asked for
// (dig, build, HUD, camera, screenshot).
func DefaultBindings() Bindings {
	var b Bindings
	k := func(a Action, keys ...input.Key) { b.Keys[a] = keys }
	k(Throttle, input.KeyW, input.KeyUp)
	k(Brake, input.KeyS, input.KeyDown, input.KeySpace)
	k(SteerLeft, input.KeyA, input.KeyLeft)
	k(SteerRight, input.KeyD, input.KeyRight)
	k(Reset, input.KeyBackspace)
	k(Autopilot, input.KeyP)
	k(Camera, input.KeyC)
	k(HUD, input.KeyH)
	k(Minimap, input.KeyM)
	k(Weather, input.KeyR)
	k(TimeOfDay, input.KeyF1)
	k(Dig, input.KeyE)
	k(Build, input.KeyQ)
	k(Screenshot, input.KeyF12)
	k(Pause, input.KeyEscape)
	k(MenuUp, input.KeyUp, input.KeyW)
	k(MenuDown, input.KeyDown, input.KeyS)
	k(MenuLeft, input.KeyLeft, input.KeyA)
	k(MenuRight, input.KeyRight, input.KeyD)
	k(MenuSelect, input.KeyEnter, input.KeyKPEnter)
	k(MenuBack, input.KeyBackspace)
	k(Quit, input.KeyQ)
	k(PhotoMode, input.KeyF2)
	k(DevOverlay, input.KeyF3)
	k(Wireframe, input.Key1)
	k(SlotBoxes, input.Key2)
	k(BuildAge, input.Key3)
	p := func(a Action, buttons ...int) { b.Pad[a] = buttons }
	p(Reset, input.PadY)
	p(Autopilot, input.PadX)
	p(Minimap, input.PadBack)
	p(Pause, input.PadStart)
	p(MenuSelect, input.PadA)
	p(MenuBack, input.PadB)
	p(MenuUp, input.PadDpadUp)
	p(MenuDown, input.PadDpadDown)
	p(MenuLeft, input.PadDpadLeft)
	p(MenuRight, input.PadDpadRight)
	p(Dig, input.PadLeftBumper)
	p(Build, input.PadRightBumper)
	p(Camera, input.PadRightThumb)
	p(HUD, input.PadDpadUp)
	p(Screenshot, input.PadDpadDown)
	p(Weather, input.PadDpadLeft)
	p(TimeOfDay, input.PadDpadRight)
	p(PhotoMode, input.PadLeftThumb)
	return b
}

// Clone is a deep copy: the options screen edits one while the other is
// what was saved.
func (b Bindings) Clone() Bindings {
	for a := range NumActions {
		b.Keys[a] = slices.Clone(b.Keys[a])
		b.Pad[a] = slices.Clone(b.Pad[a])
	}
	return b
}

// Equal reports whether two tables bind the same things.
func (b *Bindings) Equal(o *Bindings) bool {
	for a := range NumActions {
		if !slices.Equal(b.Keys[a], o.Keys[a]) || !slices.Equal(b.Pad[a], o.Pad[a]) {
			return false
		}
	}
	return true
}

// maxPerAction bounds the keys (and the buttons) of one action.
const maxPerAction = 4

// numPadButtons is the count of gamepad buttons.
const numPadButtons = len(input.Gamepad{}.Buttons)

// KeyName is a key's name in the settings file ("W", "Up", "F1"), and
// "key 123" for one that has none.
func KeyName(k input.Key) string {
	for _, n := range keyNames {
		if n.key == k {
			return n.name
		}
	}
	return fmt.Sprintf("key %d", int(k))
}

// ParseKey is KeyName's inverse, case-insensitive.
func ParseKey(name string) (input.Key, bool) {
	for _, n := range keyNames {
		if strings.EqualFold(n.name, name) {
			return n.key, true
		}
	}
	return 0, false
}

// NameableKeys lists every key that has a name, in the table's order (the
// options screen asks each of them whether it was pressed).
func NameableKeys() []input.Key { return nameable }

var nameable = func() []input.Key {
	ks := make([]input.Key, len(keyNames))
	for i, n := range keyNames {
		ks[i] = n.key
	}
	return ks
}()

// ButtonName is a gamepad button's name in the settings file ("A",
// "DpadUp", "LeftBumper").
func ButtonName(b int) string {
	if b >= 0 && b < numPadButtons {
		return padNames[b]
	}
	return fmt.Sprintf("button %d", b)
}

// ParseButton is ButtonName's inverse, case-insensitive.
func ParseButton(name string) (int, bool) {
	for b, n := range padNames {
		if strings.EqualFold(n, name) {
			return b, true
		}
	}
	return 0, false
}

var padNames = [numPadButtons]string{
	input.PadA: "A", input.PadB: "B", input.PadX: "X", input.PadY: "Y",
	input.PadLeftBumper: "LeftBumper", input.PadRightBumper: "RightBumper",
	input.PadBack: "Back", input.PadStart: "Start", input.PadGuide: "Guide",
	input.PadLeftThumb: "LeftThumb", input.PadRightThumb: "RightThumb",
	input.PadDpadUp: "DpadUp", input.PadDpadRight: "DpadRight",
	input.PadDpadDown: "DpadDown", input.PadDpadLeft: "DpadLeft",
}

type keyName struct {
	name string
	key  input.Key
}

// keyNames are the keys a binding may name: every key of render/input
// (TestEveryKeyHasAName).
var keyNames = []keyName{
	{"A", input.KeyA}, {"B", input.KeyB}, {"C", input.KeyC}, {"D", input.KeyD}, {"E", input.KeyE}, {"F", input.KeyF},
	{"G", input.KeyG}, {"H", input.KeyH}, {"I", input.KeyI}, {"J", input.KeyJ}, {"K", input.KeyK}, {"L", input.KeyL},
	{"M", input.KeyM}, {"N", input.KeyN}, {"O", input.KeyO}, {"P", input.KeyP}, {"Q", input.KeyQ}, {"R", input.KeyR},
	{"S", input.KeyS}, {"T", input.KeyT}, {"U", input.KeyU}, {"V", input.KeyV}, {"W", input.KeyW}, {"X", input.KeyX},
	{"Y", input.KeyY}, {"Z", input.KeyZ}, {"0", input.Key0}, {"1", input.Key1}, {"2", input.Key2}, {"3", input.Key3},
	{"4", input.Key4}, {"5", input.Key5}, {"6", input.Key6}, {"7", input.Key7}, {"8", input.Key8}, {"9", input.Key9},
	{"F1", input.KeyF1}, {"F2", input.KeyF2}, {"F3", input.KeyF3}, {"F4", input.KeyF4}, {"F5", input.KeyF5}, {"F6", input.KeyF6},
	{"F7", input.KeyF7}, {"F8", input.KeyF8}, {"F9", input.KeyF9}, {"F10", input.KeyF10}, {"F11", input.KeyF11}, {"F12", input.KeyF12},
	{"KP0", input.KeyKP0}, {"KP1", input.KeyKP1}, {"KP2", input.KeyKP2}, {"KP3", input.KeyKP3}, {"KP4", input.KeyKP4}, {"KP5", input.KeyKP5},
	{"KP6", input.KeyKP6}, {"KP7", input.KeyKP7}, {"KP8", input.KeyKP8}, {"KP9", input.KeyKP9}, {"Space", input.KeySpace}, {"Apostrophe", input.KeyApostrophe},
	{"Comma", input.KeyComma}, {"Minus", input.KeyMinus}, {"Period", input.KeyPeriod}, {"Slash", input.KeySlash}, {"Semicolon", input.KeySemicolon}, {"Equal", input.KeyEqual},
	{"LeftBracket", input.KeyLeftBracket}, {"Backslash", input.KeyBackslash}, {"RightBracket", input.KeyRightBracket}, {"Grave", input.KeyGrave}, {"Escape", input.KeyEscape}, {"Enter", input.KeyEnter},
	{"Tab", input.KeyTab}, {"Backspace", input.KeyBackspace}, {"Insert", input.KeyInsert}, {"Delete", input.KeyDelete}, {"Right", input.KeyRight}, {"Left", input.KeyLeft},
	{"Down", input.KeyDown}, {"Up", input.KeyUp}, {"PageUp", input.KeyPageUp}, {"PageDown", input.KeyPageDown}, {"Home", input.KeyHome}, {"End", input.KeyEnd},
	{"KPDecimal", input.KeyKPDecimal}, {"KPDivide", input.KeyKPDivide}, {"KPMultiply", input.KeyKPMultiply}, {"KPSubtract", input.KeyKPSubtract}, {"KPAdd", input.KeyKPAdd}, {"KPEnter", input.KeyKPEnter},
	{"KPEqual", input.KeyKPEqual}, {"LeftShift", input.KeyLeftShift}, {"LeftCtrl", input.KeyLeftCtrl}, {"LeftAlt", input.KeyLeftAlt}, {"RightShift", input.KeyRightShift}, {"RightCtrl", input.KeyRightCtrl},
	{"RightAlt", input.KeyRightAlt},
}

// KeysLabel is an action's keys as the options screen shows them
// ("W / UP", "NONE").
func (b *Bindings) KeysLabel(a Action) string {
	return label(b.Keys[a], func(k input.Key) string { return KeyName(k) })
}

// PadLabel is an action's gamepad buttons as the options screen shows
// them ("LB", "D-PAD UP").
func (b *Bindings) PadLabel(a Action) string {
	return label(b.Pad[a], func(btn int) string {
		if btn >= 0 && btn < numPadButtons {
			return padLabels[btn]
		}
		return ButtonName(btn)
	})
}

var padLabels = [numPadButtons]string{
	input.PadA: "A", input.PadB: "B", input.PadX: "X", input.PadY: "Y",
	input.PadLeftBumper: "LB", input.PadRightBumper: "RB", input.PadBack: "BACK", input.PadStart: "START",
	input.PadGuide: "GUIDE", input.PadLeftThumb: "LEFT STICK CLICK", input.PadRightThumb: "RIGHT STICK CLICK",
	input.PadDpadUp: "D-PAD UP", input.PadDpadRight: "D-PAD RIGHT",
	input.PadDpadDown: "D-PAD DOWN", input.PadDpadLeft: "D-PAD LEFT",
}

func label[T any](v []T, name func(T) string) string {
	if len(v) == 0 {
		return "NONE"
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strings.ToUpper(name(x))
	}
	return strings.Join(parts, " / ")
}
