// Package scene is the pure half of the renderer: the per-frame draw input,
// camera matrices, floating-origin arithmetic, draw-list building with
// frustum culling, time of day and weather palettes, and the tree mesh. It
// never calls GL, so everything here is unit-tested without a display. The
// render package re-exports these types.
package scene

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/hud"
	"citydrive/slots"
)

// MaxGroups is how many origin groups one frame may carry: normally one,
// two for the frames right after the slot table re-bases its origin (old
// slots still relative to the old origin, new ones to the new).
const MaxGroups = 2

// SlotDraw is one slot to draw: its index in the vertex buffer, how many
// vertices it holds, its bounding box relative to its group's origin, the
// trees built with it, and (for the build-age debug tint) how many seconds
// ago it was built.
type SlotDraw struct {
	Slot     int
	Count    int
	Min, Max mgl32.Vec3
	Trees    []slots.Tree // relative to the group's origin
	Age      float32
}

// Group is a set of slots whose float32 vertices are relative to one world
// origin (float64). Slots are listed in draw order, nearest first.
type Group struct {
	Origin mgl64.Vec3
	Slots  []SlotDraw
}

// Weather selects the palette for palette-indexed colours.
type Weather int

// Weathers.
const (
	Dry Weather = iota
	Wet
)

func (w Weather) String() string {
	if w == Wet {
		return "wet"
	}
	return "dry"
}

// DebugFlags select debug views; they combine.
type DebugFlags uint8

// Debug views.
const (
	DebugWireframe DebugFlags = 1 << iota // the slot geometry again as lines over the filled city
	DebugBoxes                            // each drawn slot's bounding box
	DebugBuildAge                         // slots tinted by how recently they were built
)

// Frame is everything the renderer needs to draw one frame. The game fills
// it; the renderer only reads it (and does not keep it past Draw).
type Frame struct {
	Camera Camera
	// Groups of slots, at most MaxGroups; extra groups are ignored.
	Groups []Group
	// Dynamic holds this frame's dynamic vertices (car, traffic, particles,
	// lake) in the slot vertex format, relative to DynamicOrigin; at most
	// the renderer's dynamic capacity is drawn.
	Dynamic       []float32
	DynamicOrigin mgl64.Vec3
	Weather       Weather
	// Palette, when non-nil, replaces the weather palette.
	Palette *Palette
	// TimeOfDay in hours, [0, 24): 12 is noon, ~19 dusk.
	TimeOfDay float64
	// HUD lines drawn top-left (empty: no HUD).
	HUD []string
	// Minimap, when non-nil, is drawn in the top-right corner of the HUD.
	Minimap *hud.Minimap
	// Player, when non-nil, is the player's HUD: the speed bottom right,
	// the time of day under the minimap, the notice line bottom centre
	// (drawn over a menu).
	Player *hud.Player
	// Menu, when non-nil, dims the frame and is drawn over it (pause).
	Menu *hud.Menu
	// Loading: draw only the sky, the progress bar (Progress in [0,1]) and
	// the HUD, none of the world.
	Loading  bool
	Progress float64
	Debug    DebugFlags
	// NoTerrain hides the voxel terrain (Renderer.Terrain's chunks) this
	// frame; by default every stored chunk in view is drawn. Loading hides
	// it too.
	NoTerrain bool
	// FarGroups are the far tier's slots (indices into the far region),
	// drawn after the near ones, never into the shadow map, and not where
	// NearMask marks near geometry. At most MaxGroups.
	FarGroups []Group
	// Signals is where the traffic signals' cycle stands this frame: the
	// lamps of slots.MaterialSignal light by it. A zero Period leaves
	// them all dim.
	Signals SignalClock
	// Vehicles are this frame's traffic vehicles, drawn instanced and
	// culled by the renderer (vehicles.go).
	Vehicles []Vehicle
	// NearMask marks where near items are built: far fragments over a
	// marked cell are discarded, so near and far never both draw a place.
	// Nil: nothing masked.
	NearMask *NearMask
}

// NearMask is a square grid of N×N cells of Cell metres on the ground,
// cell (i, j) covering x in Origin.X + [i, i+1)·Cell and z in Origin.Z +
// [j, j+1)·Cell; Cells[j*N+i] != 0 marks near geometry there. Version
// changes whenever Cells or Origin do (the renderer re-uploads then).
type NearMask struct {
	OriginX, OriginZ float64
	Cell             float64
	N                int
	Cells            []uint8
	Version          uint64
}

// SignalClock is the world clock as the signal lamps read it: Time is the
// world time modulo Period (seconds); an approach whose signal offset is
// o shows green while (Time+o) mod Period < Green, amber until Period/2,
// then red (roadgraph/traffic's rule; the game fills it from there).
type SignalClock struct {
	Time, Period, Green float32
}
