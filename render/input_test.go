package render

import (
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/stretchr/testify/assert"

	"citydrive/render/input"
)

// Every game key has its own GLFW key: a key added to render/input but
// not to glfwKeys would read as GLFW key 0, which GLFW rejects (and
// go-gl/glfw panics on).
func TestEveryGameKeyMapsToItsOwnGLFWKey(t *testing.T) {
	seen := map[glfw.Key]input.Key{}
	for k := input.KeyNone + 1; k < input.NumKeys; k++ {
		g := glfwKey(k)
		assert.NotEqual(t, glfw.KeyUnknown, g, "key %d", k)
		assert.NotZero(t, g, "key %d is missing from glfwKeys", k)
		if other, dup := seen[g]; dup {
			t.Errorf("keys %d and %d both map to GLFW key %d", other, k, g)
		}
		seen[g] = k
	}
	assert.Equal(t, glfw.KeyUnknown, glfwKey(input.KeyNone))
	assert.Equal(t, glfw.KeyUnknown, glfwKey(input.NumKeys), "out of range: no key")
	assert.Equal(t, glfw.KeyUnknown, glfwKey(255))
}

// Renderer.Gamepad copies GLFW's state as it is: input's layout must be
// GLFW's, index for index.
func TestGamepadLayoutIsGLFWs(t *testing.T) {
	var st glfw.GamepadState
	assert.Len(t, st.Axes, len(input.Gamepad{}.Axes))
	assert.Len(t, st.Buttons, len(input.Gamepad{}.Buttons))
	axes := map[int]glfw.GamepadAxis{
		input.PadLeftX: glfw.AxisLeftX, input.PadLeftY: glfw.AxisLeftY,
		input.PadRightX: glfw.AxisRightX, input.PadRightY: glfw.AxisRightY,
		input.PadLeftTrigger: glfw.AxisLeftTrigger, input.PadRightTrigger: glfw.AxisRightTrigger,
	}
	for ours, theirs := range axes {
		assert.Equal(t, int(theirs), ours)
	}
	buttons := map[int]glfw.GamepadButton{
		input.PadA: glfw.ButtonA, input.PadB: glfw.ButtonB, input.PadX: glfw.ButtonX, input.PadY: glfw.ButtonY,
		input.PadLeftBumper: glfw.ButtonLeftBumper, input.PadRightBumper: glfw.ButtonRightBumper,
		input.PadBack: glfw.ButtonBack, input.PadStart: glfw.ButtonStart, input.PadGuide: glfw.ButtonGuide,
		input.PadLeftThumb: glfw.ButtonLeftThumb, input.PadRightThumb: glfw.ButtonRightThumb,
		input.PadDpadUp: glfw.ButtonDpadUp, input.PadDpadRight: glfw.ButtonDpadRight,
		input.PadDpadDown: glfw.ButtonDpadDown, input.PadDpadLeft: glfw.ButtonDpadLeft,
	}
	assert.Len(t, buttons, len(input.Gamepad{}.Buttons))
	for ours, theirs := range buttons {
		assert.Equal(t, int(theirs), ours)
	}
}
