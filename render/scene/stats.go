package scene

import (
	"fmt"
	"time"
)

// What the renderer reports about the frames it drew: the game reads
// these (HUD, summaries, the bench) without linking GL.

// PassStats counts one pass's draw calls in the last frame.
type PassStats struct {
	MultiDraws int // glMultiDrawArrays calls for slots (one per origin group)
	Draws      int // other glDrawArrays calls (dynamic region, sky, lines, HUD)
	Instanced  int // instanced draw calls (trees)
	Slots      int // slot draws inside the multi-draws
	Vertices   int // slot vertices submitted
	// Terrain: glMultiDrawArrays calls for voxel chunks (one per pass),
	// chunk draws inside them and quads submitted (6 vertices each).
	TerrainMultiDraws int
	TerrainChunks     int
	TerrainQuads      int
}

// Stats describe the last frame drawn.
type Stats struct {
	Shadow, Depth, Main, Wireframe, Overlay PassStats
	Far, FarDepth                           PassStats // the far tier's main and depth pre-pass draws
	FarCulled                               int       // far slots the frustum rejected
	FarFogged                               int       // far slots left out deep in the fog (Options.FarFogCut)
	MaskUploads                             int       // near-mask texture uploads this frame
	ShadowRefreshed                         bool
	Culled                                  int // slots with vertices rejected by the frustum
	BadSlots                                int // slot draws with an out-of-range index
	Trees                                   int // tree instances drawn
	TreesDropped                            int // over capacity
	Vehicles                                int // traffic vehicle instances drawn
	VehiclesDropped                         int // over MaxVehicles
	VehiclesCoarse                          int // of Vehicles, drawn with the coarse prefix only (Options.VehicleDetailBeyond)
	VehicleVertices                         int // sent for all the vehicles drawn
	DynamicDropped                          int // dynamic vertices over capacity
	HUDDropped                              int // HUD quads over the HUD buffer's capacity
	TargetW                                 int // off-screen target size
	TargetH                                 int
	Direct                                  bool // drawn straight into the window's framebuffer (Passes.Direct)
	Scale                                   float64
	FrameWork                               time.Duration // CPU time of the last Draw+Present (excluding any frame-cap wait)
	Uploads                                 int           // slot uploads since Open
	// Terrain: stored chunks the camera frustum rejected this frame; the
	// store's state (chunks stored, slots used of total); and, since Open,
	// meshes inserted, meshes that needed more than one slot, and meshes
	// not stored for lack of a free run of slots (those chunks are not
	// drawn until a later Insert fits).
	TerrainCulled    int
	TerrainResident  int
	TerrainSlotsUsed int
	TerrainSlots     int
	TerrainInserts   int
	TerrainOversized int
	TerrainRejected  int
}

// GPUTimes is the GPU time of one frame's passes (a few frames old).
type GPUTimes struct {
	Valid   bool // timer queries are supported and a frame has been read
	Shadow  time.Duration
	Depth   time.Duration
	Main    time.Duration
	Terrain time.Duration // voxel ground, all passes
	HUD     time.Duration // blit + HUD
	Total   time.Duration // the sum: every GPU command of the frame but the swap
	Frame   uint64        // which Draw these are from (1 = the first)

	// Parts of the passes above, for gpubench: each is counted in its pass.
	Clear    time.Duration // the target's clear (in Depth)
	DepthFar time.Duration // the far tier's pre-pass (in Depth)
	MainFar  time.Duration // the far tier's main pass (in Main)
	Rest     time.Duration // trees and traffic, main pass (in Main)
	Sky      time.Duration // sky and debug overlays (in Main)
}

// FloorTimes is the GPU time of one floor frame (render's DrawFloor): what
// any frame of that size costs at least on this GPU.
type FloorTimes struct {
	Clear    time.Duration // colour and depth clear of the off-screen target
	Triangle time.Duration // one full-screen triangle, constant colour, depth written
	Blit     time.Duration // the target to the window
	Total    time.Duration // the sum
}

// TimedFrame is one frame of a GPU time log (render's StartGPULog): a
// Draw's passes, or a floor frame's.
type TimedFrame struct {
	Frame     uint64 // the Draw or DrawFloor it is from (they count together)
	Floor     bool   // a floor frame: Floor holds its times, GPU is empty
	GPU       GPUTimes
	FloorTime FloorTimes
}

// String is the HUD / summary form: total, then each pass, in ms.
func (g GPUTimes) String() string {
	if !g.Valid {
		return "GPU n/a"
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	return fmt.Sprintf("GPU %.2f MS: SHADOW %.2f DEPTH %.2f MAIN %.2f GROUND %.2f HUD %.2f",
		ms(g.Total), ms(g.Shadow), ms(g.Depth), ms(g.Main), ms(g.Terrain), ms(g.HUD))
}
