//go:build js && wasm

package webgl

import (
	"sync"
	"syscall/js"

	"citydrive/render/input"
)

// The gamepad and the pointer, read from the page; what they mean for the
// car is pure Go (input.StandardPad, input.TouchDrive) and the game's
// mapping, the desktop's. A mouse is a Mouser as the desktop's window is
// (photo mode looks around by dragging; driving has no mouse look, so no
// pointer lock); a finger dragged on the canvas drives, as a gamepad.

// touchReach is the drag (a fraction of the canvas's shorter side) that
// is a full push of stick or pedal.
const touchReach = 0.25

// pointerState is the page's pointers (one canvas a page). Written by the
// event handlers, read by the frame goroutine.
type pointerState struct {
	mu             sync.Mutex
	mouseX, mouseY float64
	left           bool
	touch          bool    // a finger is down
	touchID        int     // its pointerId
	x0, y0, x, y   float64 // where it touched down, where it is
	buttons        []input.StandardButton
	axes           []float64
}

var (
	pointers     pointerState
	pointersOnce sync.Once
)

// listenPointers follows canvas's pointer events (once a page).
func listenPointers(canvas js.Value) {
	pointersOnce.Do(func() {
		p := &pointers
		on := func(name string, f func(e js.Value)) {
			canvas.Call("addEventListener", name, js.FuncOf(func(_ js.Value, a []js.Value) any {
				p.mu.Lock()
				f(a[0])
				p.mu.Unlock()
				return nil
			}))
		}
		on("pointerdown", func(e js.Value) {
			x, y := e.Get("offsetX").Float(), e.Get("offsetY").Float()
			if e.Get("pointerType").String() == "touch" {
				if !p.touch {
					p.touch, p.touchID, p.x0, p.y0, p.x, p.y = true, e.Get("pointerId").Int(), x, y, x, y
					canvas.Call("setPointerCapture", p.touchID)
				}
				e.Call("preventDefault")
				return
			}
			p.mouseX, p.mouseY = x, y
			if e.Get("button").Int() == 0 {
				p.left = true
			}
		})
		on("pointermove", func(e js.Value) {
			x, y := e.Get("offsetX").Float(), e.Get("offsetY").Float()
			if p.touch && e.Get("pointerId").Int() == p.touchID {
				p.x, p.y = x, y
				return
			}
			if e.Get("pointerType").String() != "touch" {
				p.mouseX, p.mouseY = x, y
			}
		})
		up := func(e js.Value) {
			if p.touch && e.Get("pointerId").Int() == p.touchID {
				p.touch = false
				return
			}
			if e.Get("button").Int() == 0 {
				p.left = false
			}
		}
		on("pointerup", up)
		on("pointercancel", up)
	})
}

// Mouse is the mouse in canvas pixels and its left button (game.Mouser).
func (d *Display) Mouse() (x, y float64, left bool) {
	listenPointers(d.canvas)
	pointers.mu.Lock()
	defer pointers.mu.Unlock()
	return pointers.mouseX, pointers.mouseY, pointers.left
}

// Gamepad is the first connected gamepad in the standard mapping (read
// each frame: browsers hand out snapshots), else a finger dragged on the
// canvas, else none.
func (d *Display) Gamepad() (input.Gamepad, bool) {
	listenPointers(d.canvas)
	p := &pointers
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.readPad() {
		return input.StandardPad(p.axes, p.buttons), true
	}
	if p.touch {
		reach := touchReach * min(d.canvas.Get("clientWidth").Float(), d.canvas.Get("clientHeight").Float())
		return input.TouchDrive(p.x-p.x0, p.y-p.y0, reach), true
	}
	return input.Gamepad{}, false
}

// readPad copies the first standard-mapped gamepad into p.axes and
// p.buttons (reused); a pad of another mapping has no known layout.
func (p *pointerState) readPad() bool {
	nav := js.Global().Get("navigator")
	if nav.Get("getGamepads").Type() != js.TypeFunction {
		return false
	}
	pads := nav.Call("getGamepads")
	for i := range pads.Length() {
		g := pads.Index(i)
		if !g.Truthy() || !g.Get("connected").Truthy() || g.Get("mapping").String() != "standard" {
			continue
		}
		axes, buttons := g.Get("axes"), g.Get("buttons")
		p.axes = p.axes[:0]
		for j := range min(axes.Length(), input.PadRightY+1) {
			p.axes = append(p.axes, axes.Index(j).Float())
		}
		p.buttons = p.buttons[:0]
		for j := range min(buttons.Length(), maxPadButtons) {
			b := buttons.Index(j)
			p.buttons = append(p.buttons, input.StandardButton{Pressed: b.Get("pressed").Truthy(), Value: b.Get("value").Float()})
		}
		return true
	}
	return false
}

// maxPadButtons bounds the buttons read (the standard mapping has 17).
const maxPadButtons = 32
