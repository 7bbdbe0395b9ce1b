package game

import (
	"image"

	"citydrive/render"
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
	Draw(f *render.Frame) error
	Present()
	ShouldClose() bool
	RenderScale() float64
	Screenshot() (*image.RGBA, error) // the frame just drawn
	Close()
}

// Keys is the keyboard, read once per frame into Controls.
type Keys interface {
	Down(k render.Key) bool    // held now
	Pressed(k render.Key) bool // went down since the last Present
}

var _ Display = (*render.Renderer)(nil)

// Headless is a Display with no window and no GL: it keeps the vertex
// counts the streamer uploads and the chunk meshes the ground inserts, and
// takes its keys from Hold and Tap.
type Headless struct {
	counts  []int
	meshes  map[voxel.ChunkPos]int // quads per chunk
	down    map[render.Key]bool
	pressed map[render.Key]bool
	Frames  int // frames drawn
	closed  bool
	farSink headlessSink // the far tier's region (far.go)
}

var _ Display = (*Headless)(nil)

// NewHeadless makes a headless display for the given slot count.
func NewHeadless(slotCount int) *Headless {
	return &Headless{
		counts:  make([]int, slotCount),
		meshes:  map[voxel.ChunkPos]int{},
		down:    map[render.Key]bool{},
		pressed: map[render.Key]bool{},
	}
}

// Upload records slot's vertex count.
func (h *Headless) Upload(slot int, _ []uint32, count int) error {
	h.counts[slot] = count
	return nil
}

// Clear empties slot.
func (h *Headless) Clear(slot int) { h.counts[slot] = 0 }

// Down reports a key held with Hold.
func (h *Headless) Down(k render.Key) bool { return h.down[k] }

// Pressed reports a key tapped with Tap since the last Present.
func (h *Headless) Pressed(k render.Key) bool { return h.pressed[k] }

// Hold holds a key down (or lets it go).
func (h *Headless) Hold(k render.Key, down bool) { h.down[k] = down }

// Tap presses a key once: it reads as Pressed until the next Present.
func (h *Headless) Tap(k render.Key) { h.pressed[k] = true }

// MeshSink is the headless chunk store.
func (h *Headless) MeshSink() meshpool.MeshSink { return headlessMeshes{h} }

// Chunks is the number of chunk meshes held.
func (h *Headless) Chunks() int { return len(h.meshes) }

// Draw counts the frame; nothing is drawn.
func (h *Headless) Draw(*render.Frame) error {
	h.Frames++
	return nil
}

// Present ends the frame: taps are consumed.
func (h *Headless) Present() { clear(h.pressed) }

// ShouldClose is true once Close was called.
func (h *Headless) ShouldClose() bool { return h.closed }

// RenderScale is always 1.
func (h *Headless) RenderScale() float64 { return 1 }

// Screenshot is not possible without GL.
func (h *Headless) Screenshot() (*image.RGBA, error) { return nil, errNoPicture }

// Close marks the display closed.
func (h *Headless) Close() { h.closed = true }

type headlessMeshes struct{ h *Headless }

func (m headlessMeshes) Insert(ms *mesh.Mesh)    { m.h.meshes[ms.Pos] = len(ms.Quads) }
func (m headlessMeshes) Remove(p voxel.ChunkPos) { delete(m.h.meshes, p) }
