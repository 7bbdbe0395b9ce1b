package game

import (
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render"
)

// Controls is one frame's input, read from the keyboard once at the start
// of the frame; nothing later in the frame looks at a key.
type Controls struct {
	Drive car.Input // what the player's hands do (the autopilot overrides it)

	Quit, Screenshot, Reset      bool
	ToggleHUD, ToggleAutopilot   bool
	ToggleWeather, ToggleTopView bool
	NextTimeOfDay                bool
	Dig, Build                   bool
	Debug                        render.DebugFlags // debug views toggled this frame
}

// ReadControls reads the keyboard: W/S or arrows throttle and brake (hold
// brake to reverse), A/D steer, Backspace puts the car back on its lane.
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
	c.Quit = k.Pressed(render.KeyEscape)
	c.Screenshot = k.Pressed(render.KeyF12)
	c.Reset = k.Pressed(render.KeyBackspace)
	c.ToggleHUD = k.Pressed(render.KeyH)
	c.ToggleAutopilot = k.Pressed(render.KeyP)
	c.ToggleWeather = k.Pressed(render.KeyR)
	c.ToggleTopView = k.Pressed(render.KeyC)
	c.NextTimeOfDay = k.Pressed(render.KeyF1)
	c.Dig, c.Build = k.Pressed(render.KeyE), k.Pressed(render.KeyQ)
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
