package game

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render/input"
)

// The browser's gamepad (standard mapping) and a finger dragged on the
// canvas drive through the desktop's mapping, dead zones included.
func TestBrowserPadAndTouchDrive(t *testing.T) {
	std := func(axes []float64, lt, rt float64) input.Gamepad {
		b := make([]input.StandardButton, 17)
		b[6].Value, b[7].Value = lt, rt
		return input.StandardPad(axes, b)
	}
	for _, c := range []struct {
		name string
		pad  input.Gamepad
		want car.Input
	}{
		{"a resting browser pad does nothing", std([]float64{0, 0, 0, 0}, 0, 0), car.Input{}},
		{"its right trigger is throttle", std(nil, 0, 1), car.Input{Throttle: 1}},
		{"its left trigger is brake", std(nil, 1, 0), car.Input{Brake: 1}},
		{"a trigger barely touched is nothing", std(nil, 0, 0.02), car.Input{}},
		{"its stick right steers right", std([]float64{1}, 0, 0), car.Input{Steer: -1}},
		{"its stick in the dead zone is straight", std([]float64{0.1}, 0, 0), car.Input{}},
		{"a finger up and right: throttle and steer", input.TouchDrive(100, -100, 100), car.Input{Throttle: 1, Steer: -1}},
		{"a finger barely moved is nothing", input.TouchDrive(5, 1, 100), car.Input{}},
		{"a finger down: brake", input.TouchDrive(0, 100, 100), car.Input{Brake: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ctl Controls
			mergePad(&ctl, c.pad, restingPad())
			assert.InDelta(t, c.want.Throttle, ctl.Drive.Throttle, 1e-6)
			assert.InDelta(t, c.want.Brake, ctl.Drive.Brake, 1e-6)
			assert.InDelta(t, c.want.Steer, ctl.Drive.Steer, 1e-6)
		})
	}
}
