package game

import (
	"image"

	"citydrive/render/input"
	"citydrive/render/scene"
	"citydrive/slots"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
	"citydrive/voxel/meshpool"
)

// Display is what the frame loop needs of a renderer: the road slots'
// vertex buffer, the voxel ground's mesh store, the keyboard, and drawing a
// frame description. *render.Renderer implements it with GL; Headless
// stands in without a window, for the soak and tests.
type Display interface {
	slots.Sink
	Keys
	MeshSink() meshpool.MeshSink
	Draw(f *scene.Frame) error
	Present()
	ShouldClose() bool
	RenderScale() float64
	Screenshot() (*image.RGBA, error) // the frame just drawn
	Close()
}

// Keys is the keyboard and gamepad, read once per frame into Controls.
type Keys interface {
	Down(k input.Key) bool          // held now
	Pressed(k input.Key) bool       // went down since the last Present
	Gamepad() (input.Gamepad, bool) // false: no gamepad connected
}

// The optional capabilities of a Display, which the frame loop asks for
// with a type assertion: *render.Renderer has all three (game_gl_test.go
// checks it), Headless none, and without one the loop does without.

// FarSinker is a display with a far tier region in its vertex buffer
// (far.go).
type FarSinker interface {
	FarSink() slots.Sink // nil: no far region
}

// GPUTimer measures GPU time per pass with timer queries (gputime.go).
type GPUTimer interface {
	GPUTimes() scene.GPUTimes      // the newest figures, a few frames old
	AwaitGPUTimes() scene.GPUTimes // waits for the GPU to finish the last frame
}

// Mouser is a display with a mouse: the cursor in window pixels and the
// left button (photo mode drags to look).
type Mouser interface {
	Mouse() (x, y float64, left bool)
}

// StatsReporter tells what the last drawn frame held (draw calls,
// vertices, culled slots, ...).
type StatsReporter interface {
	Stats() scene.Stats
}

// Headless is a Display with no window and no GL: it takes the slots'
// vertices and the ground's meshes and keeps none of them, draws nothing,
// and no key is ever pressed (the soak drives with the autopilot).
type Headless struct{ closed bool }

var _ Display = (*Headless)(nil)

// NewHeadless makes a headless display.
func NewHeadless() *Headless { return &Headless{} }

// Upload drops the vertices.
func (*Headless) Upload(int, []uint32, int) error { return nil }

// Clear has nothing to clear.
func (*Headless) Clear(int) {}

// Down: no key is held.
func (*Headless) Down(input.Key) bool { return false }

// Pressed: no key is pressed.
func (*Headless) Pressed(input.Key) bool { return false }

// Gamepad: none is connected.
func (*Headless) Gamepad() (input.Gamepad, bool) { return input.Gamepad{}, false }

// MeshSink drops the ground's meshes.
func (*Headless) MeshSink() meshpool.MeshSink { return dropMeshes{} }

// Draw draws nothing.
func (*Headless) Draw(*scene.Frame) error { return nil }

// Present has nothing to present.
func (*Headless) Present() {}

// ShouldClose is true once Close was called.
func (h *Headless) ShouldClose() bool { return h.closed }

// RenderScale is always 1.
func (*Headless) RenderScale() float64 { return 1 }

// Screenshot is not possible without GL.
func (*Headless) Screenshot() (*image.RGBA, error) { return nil, errNoPicture }

// Close marks the display closed.
func (h *Headless) Close() { h.closed = true }

type dropMeshes struct{}

func (dropMeshes) Insert(*mesh.Mesh)     {}
func (dropMeshes) Remove(voxel.ChunkPos) {}
