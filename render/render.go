// Package render is the only package that calls OpenGL or GLFW. It opens
// the window with an OpenGL 4.1 core context, owns the one preallocated
// vertex buffer (the slot region plus the dynamic region), and draws a
// Frame: sun shadow map (when it needs refreshing), depth pre-pass, main
// pass (sun, fog, sky, weather palette, street lamps, lit windows),
// instanced trees, the voxel terrain (Renderer.Terrain, a
// meshpool.MeshSink; see terrain.go), debug views and the HUD, into an
// off-screen target scaled by the adaptive render scale and blitted to the
// window.
//
// Threading: GL and GLFW calls must come from the main OS thread. This
// package's init calls runtime.LockOSThread, which pins the main goroutine
// (the one that runs main.main and TestMain) to the main thread; every
// Renderer method must be called from that goroutine. Tests that use GL
// run their GL work from TestMain's goroutine (see render_gl_test.go).
//
// The pure parts live in nested packages and need no display:
// render/frustum (planes and box test), render/scene (frame input, camera,
// floating origin, draw lists, lighting), render/scale (render-scale
// controller, profiles), render/hud (font and HUD layout), render/terrain
// (voxel chunk slots, draw list, culling).
package render

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"citydrive/render/glprofile"
	"citydrive/render/hud"
	"citydrive/render/scale"
	"citydrive/render/scene"
	"citydrive/render/terrain"
	"citydrive/slots"
)

func init() {
	// GLFW and GL need the main OS thread: keep the main goroutine on it.
	runtime.LockOSThread()
}

// Re-exported pure types, so callers need only import render.
type (
	Frame       = scene.Frame
	Vehicle     = scene.Vehicle
	SignalClock = scene.SignalClock
	Camera      = scene.Camera
	Group       = scene.Group
	SlotDraw    = scene.SlotDraw
	Weather     = scene.Weather
	DebugFlags  = scene.DebugFlags
	Palette     = scene.Palette
	Profile     = scale.Profile
	NearMask    = scene.NearMask
	Stats       = scene.Stats
	PassStats   = scene.PassStats
	GPUTimes    = scene.GPUTimes
	TimedFrame  = scene.TimedFrame
	FloorTimes  = scene.FloorTimes
	Passes      = scene.Passes
	Toggle      = scene.Toggle
)

// Re-exported constants.
const (
	Dry            = scene.Dry
	Wet            = scene.Wet
	DebugWireframe = scene.DebugWireframe
	DebugBoxes     = scene.DebugBoxes
	DebugBuildAge  = scene.DebugBuildAge
	MaxGroups      = scene.MaxGroups
	Auto           = scene.Auto
	On             = scene.On
	Off            = scene.Off
)

// Options configure Open. Zero values take the defaults.
type Options struct {
	Width, Height int  // window size (default 1280×720; fullscreen: the monitor's)
	Fullscreen    bool // on the primary monitor
	Hidden        bool // do not show the window (off-screen use)
	Title         string
	VSync         bool
	// Layout is the one vertex buffer: the near slots and the dynamic
	// region, and the far tier (Far.Slots 0: none; see far.go). Zero near
	// sizes, and a far tier's zero VertsPerSlot, take slots.DefaultLayout's.
	Layout   slots.Layout
	MaxTrees int     // instanced-tree capacity per frame (default 65536)
	Profile  Profile // default scale.Full
	// FixedScale, when in (0,1], disables the adaptive render scale and
	// renders at this scale (screenshots, benchmarks).
	FixedScale float64
	// DepthPrepass can be switched off (on by default: NoDepthPrepass false).
	NoDepthPrepass bool
	// Passes is how frames are drawn until SetPasses (zero: the default).
	Passes Passes
	// NoShadows disables the shadow pass.
	NoShadows bool
	// NoDetailLOD draws every slot whole, however far (slots/detail.go).
	NoDetailLOD bool
	// GLProfile chooses the full or the software profile (glprofile);
	// Auto looks at the context's GL_RENDERER. The choice is made in Open
	// (Renderer.GLProfile says which, and why) and fills in the fields
	// below and Passes (when zero).
	GLProfile glprofile.Mode
	// DetailBeyond (m) is where near slots start to draw only their
	// coarse prefix (0: slots.DetailBeyond).
	DetailBeyond float64
	// ShadowLOD cuts the shadow map's slots to their coarse prefix beyond
	// DetailBeyond from the map's centre.
	ShadowLOD bool
	// FarFogCut leaves out far slots whose box lies wholly where the fog
	// is at least scene.FarFogCutFog thick.
	FarFogCut bool
	// CullBackFacesBeyond (m, 0: never) draws near slots wholly farther
	// than this with back faces culled (scene.LOD.CullBeyond).
	CullBackFacesBeyond float64
	// ShadowMoveShare (0: scene.ShadowMove metres) is the share of the
	// shadow map's half extent its centre may move before the map is
	// redrawn (scene.ShadowMoveFor).
	ShadowMoveShare float64
	// VehicleDetailBeyond (m, 0: never) draws traffic wholly farther than
	// this with its coarse prefix only (scene.VehicleCoarseVerts).
	VehicleDetailBeyond float64
	// ContextVersion is the GL version asked for (default 4.1). Only tests
	// change it, to check that a missing context is a clear error.
	ContextVersion [2]int

	// TerrainChunks is the number of voxel-terrain slots (default
	// terrain.DefaultSlots, 4096) and TerrainQuadsPerChunk the quads each
	// holds (default terrain.DefaultQuadsPerSlot, 256). A chunk mesh with
	// more quads takes several consecutive slots. Both are allocated in
	// Open and never resized (8 MiB of quads with the defaults).
	TerrainChunks        int
	TerrainQuadsPerChunk int
}

func (o *Options) defaults() error {
	if o.Width == 0 {
		o.Width = 1280
	}
	if o.Height == 0 {
		o.Height = 720
	}
	if o.Width < 1 || o.Height < 1 || o.Width > 16384 || o.Height > 16384 {
		return fmt.Errorf("render: window size %dx%d out of range", o.Width, o.Height)
	}
	if o.Title == "" {
		o.Title = "citydrive"
	}
	near, far, d := &o.Layout.Near, &o.Layout.Far, slots.DefaultLayout()
	if near.Slots == 0 {
		near.Slots = d.Near.Slots
	}
	if near.VertsPerSlot == 0 {
		near.VertsPerSlot = d.Near.VertsPerSlot
	}
	if near.DynamicVerts == 0 {
		near.DynamicVerts = d.Near.DynamicVerts
	}
	if far.Slots > 0 && far.VertsPerSlot == 0 {
		far.VertsPerSlot = d.Far.VertsPerSlot
	}
	if o.MaxTrees == 0 {
		o.MaxTrees = 1 << 16
	}
	if err := o.Layout.Validate(); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	// Offsets into the buffer are GL's 32-bit signed sizes.
	if o.Layout.Bytes() >= 1<<31 {
		return errors.New("render: vertex buffer over 2 GiB")
	}
	if o.TerrainChunks == 0 {
		o.TerrainChunks = terrain.DefaultSlots
	}
	if o.TerrainQuadsPerChunk == 0 {
		o.TerrainQuadsPerChunk = terrain.DefaultQuadsPerSlot
	}
	if o.TerrainChunks < 1 || o.TerrainQuadsPerChunk < 1 || int64(o.TerrainChunks)*int64(o.TerrainQuadsPerChunk) > terrain.MaxQuads {
		return fmt.Errorf("render: terrain store of %d chunks × %d quads out of range (1 to %d quads in all)", o.TerrainChunks, o.TerrainQuadsPerChunk, terrain.MaxQuads)
	}
	if o.Profile.Name == "" {
		o.Profile = scale.Full
	}
	if o.FixedScale < 0 || o.FixedScale > 1 {
		return fmt.Errorf("render: fixed scale %g out of range (0, 1]", o.FixedScale)
	}
	if o.ContextVersion == [2]int{} {
		o.ContextVersion = [2]int{4, 1}
	}
	return nil
}

// Renderer owns the window, the GL context and every GL object.
type Renderer struct {
	opt    Options
	win    *glfw.Window
	closed bool

	vbo, vao       uint32
	slotCounts     []int     // what the sink last set; informational
	slotLOD        scene.LOD // each slot's coarse prefix (slots/detail.go)
	glChoice       glprofile.Choice
	glSettings     glprofile.Settings
	dynamicFirst   int32
	dynWords       []uint32 // the dynamic region encoded (slots.EncodeWide), reused
	farCounts      []int    // far tier (far.go)
	farFirst       int32
	farLists       [scene.MaxGroups]scene.DrawList
	maskTex        uint32
	maskVersion    uint64
	maskN          int
	maskValid      bool
	depthFar       *program
	worldFar       *program // worldFrag with the near-mask discard
	timer          gpuTimer
	treeVAO        uint32
	treeMesh       uint32
	treeInst       uint32
	treeVerts      int32
	veh            vehicleGL // traffic (vehicles.go)
	lineVAO        uint32
	lineVBO        uint32
	lineCap        int
	hudVAO         uint32
	hudVBO         uint32
	hudCap         int
	emptyVAO       uint32
	fontTex        uint32
	ageTex         uint32
	ageData        []float32
	world, depth   *program
	terrainMain    *program
	terrainDepth   *program
	terrain        *Terrain
	trees, sky     *program
	lines, hudProg *program

	target      target
	shadow      shadowMap
	shadowState scene.ShadowState
	scaler      *scale.Controller
	stats       Stats
	lists       [scene.MaxGroups]scene.DrawList
	cullLists   [scene.MaxGroups]scene.DrawList // near slots drawn with back faces culled
	treeData    []float32
	lineData    []float32
	hudLayout   hud.Layout

	// Passes (passes.go).
	passes        Passes
	holdShadow    bool
	defaultDepth  bool // the window's framebuffer has depth (Passes.Direct)
	floorProg     *program
	worldVariants map[worldKey]*program
	// multiDrawRanges' split ranges (Passes.Split), and the dynamic
	// region's one range
	splitFirst, splitCount []int32
	dynFirst, dynCount     [1]int32
	variantErr             error // a variant program that did not build (drawn as the default)
	farSorted              []Group
	farCut                 []Group // the far groups after FarFogCut
	farCutBuf              [scene.MaxGroups][]SlotDraw
	farSortBuf             [scene.MaxGroups][]SlotDraw
	farKeys                []farKey

	lastPresent time.Time
	drawStart   time.Time
	keys        map[glfw.Key]bool // pressed since the last Present (edge-triggered)
	pad         glfw.Joystick     // the gamepad read, or noPad
}

var glfwUsers int

// Open creates the window and GL context and every GL object; it must be
// called from the main goroutine (see the package doc). A machine without
// a display or without OpenGL 4.1 core gives an error, never a panic.
func Open(opt Options) (r *Renderer, err error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	defer func() {
		// go-gl/glfw panics on some GLFW errors: turn them into errors.
		if p := recover(); p != nil {
			err = fmt.Errorf("render: window or OpenGL %d.%d core context unavailable: %v", opt.ContextVersion[0], opt.ContextVersion[1], p)
			if r != nil {
				r.Close()
			}
			r = nil
		}
	}()
	if glfwUsers == 0 {
		if err := glfw.Init(); err != nil {
			return nil, fmt.Errorf("render: cannot start GLFW (is there a display? DISPLAY=%q): %w", displayName(), err)
		}
	}
	glfwUsers++
	ok := false
	defer func() {
		if !ok {
			glfwRelease()
		}
	}()
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, opt.ContextVersion[0])
	glfw.WindowHint(glfw.ContextVersionMinor, opt.ContextVersion[1])
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.DepthBits, 24)
	glfw.WindowHint(glfw.Resizable, glfw.True)
	if opt.Hidden {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
	var mon *glfw.Monitor
	if opt.Fullscreen {
		mon = glfw.GetPrimaryMonitor()
		if mon == nil {
			return nil, errors.New("render: fullscreen asked for but no monitor found")
		}
		if vm := mon.GetVideoMode(); vm != nil {
			opt.Width, opt.Height = vm.Width, vm.Height
		}
	}
	win, err := glfw.CreateWindow(opt.Width, opt.Height, opt.Title, mon, nil)
	if err != nil {
		return nil, fmt.Errorf("render: cannot create a window with an OpenGL %d.%d core context: %w", opt.ContextVersion[0], opt.ContextVersion[1], err)
	}
	win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		win.Destroy()
		return nil, fmt.Errorf("render: cannot load OpenGL functions: %w", err)
	}
	if opt.VSync {
		glfw.SwapInterval(1)
	} else {
		glfw.SwapInterval(0)
	}
	// The profile needs the context's renderer string, and comes before
	// setup: it sizes the shadow map.
	r = &Renderer{win: win, keys: map[glfw.Key]bool{}}
	r.glChoice = glprofile.Choose(opt.GLProfile, gl.GoStr(gl.GetString(gl.RENDERER)))
	r.glSettings = glprofile.For(r.glChoice)
	opt.applyGLProfile(r.glSettings)
	r.opt, r.passes = opt, opt.Passes
	win.SetKeyCallback(r.onKey)
	r.pad = findPad()
	glfw.SetJoystickCallback(r.onJoystick)
	if err := r.setup(); err != nil {
		r.Close()
		return nil, err
	}
	r.scaler = scale.New(opt.Profile)
	if opt.FixedScale > 0 {
		r.scaler.Frozen = true
	}
	ok = true
	return r, nil
}

func glfwRelease() {
	glfwUsers--
	if glfwUsers == 0 {
		glfw.Terminate()
	}
}

// GLInfo describes the context: vendor, renderer and version strings.
func (r *Renderer) GLInfo() string {
	return fmt.Sprintf("%s / %s / %s", gl.GoStr(gl.GetString(gl.VENDOR)), gl.GoStr(gl.GetString(gl.RENDERER)), gl.GoStr(gl.GetString(gl.VERSION)))
}

// Close destroys every GL object and the window. Safe to call twice.
func (r *Renderer) Close() {
	if r == nil || r.closed {
		return
	}
	r.closed = true
	if r.win == nil {
		return
	}
	r.makeCurrent() // the objects below belong to this context
	for _, p := range []*program{r.depthFar, r.worldFar, r.world, r.depth, r.trees, r.sky, r.lines, r.hudProg, r.terrainMain, r.terrainDepth, r.floorProg} {
		p.delete()
	}
	for _, p := range r.worldVariants {
		p.delete()
	}
	r.terrain.delete()
	r.veh.delete()
	r.timer.delete()
	bufs := []uint32{r.vbo, r.treeMesh, r.treeInst, r.lineVBO, r.hudVBO}
	gl.DeleteBuffers(int32(len(bufs)), &bufs[0])
	vaos := []uint32{r.vao, r.treeVAO, r.lineVAO, r.hudVAO, r.emptyVAO}
	gl.DeleteVertexArrays(int32(len(vaos)), &vaos[0])
	texs := []uint32{r.fontTex, r.ageTex, r.maskTex}
	gl.DeleteTextures(int32(len(texs)), &texs[0])
	r.target.delete()
	r.shadow.delete()
	r.win.Destroy()
	r.win = nil
	glfwRelease()
}

// applyGLProfile fills in what the GL profile's settings change: the
// passes when none were asked for, the detail distance and the shadow map
// when not set already.
func (o *Options) applyGLProfile(s glprofile.Settings) {
	if o.Passes == (Passes{}) {
		o.Passes = s.Passes
	}
	if o.DetailBeyond == 0 {
		o.DetailBeyond = s.DetailBeyond
	}
	o.ShadowLOD = o.ShadowLOD || s.ShadowLOD
	o.FarFogCut = o.FarFogCut || s.FarFogCut
	if o.CullBackFacesBeyond == 0 {
		o.CullBackFacesBeyond = s.CullBackFacesBeyond
	}
	if o.VehicleDetailBeyond == 0 {
		o.VehicleDetailBeyond = s.VehicleDetailBeyond
	}
	if o.ShadowMoveShare == 0 {
		o.ShadowMoveShare = s.ShadowMoveShare
	}
	if s.ShadowSize > 0 && s.ShadowSize < o.Profile.ShadowSize {
		o.Profile.ShadowSize = s.ShadowSize
	}
	if o.DetailBeyond == 0 {
		o.DetailBeyond = slots.DetailBeyond
	}
}

// GLProfile is the GL profile Open chose, why, and what it changed.
func (r *Renderer) GLProfile() (glprofile.Choice, glprofile.Settings) {
	return r.glChoice, r.glSettings
}

// lod is the slot detail level for the camera's draw lists (nil: none).
func (r *Renderer) lod() *scene.LOD {
	if r.opt.NoDetailLOD {
		return nil
	}
	return &r.slotLOD
}

// Options returns the options in effect (defaults filled in).
func (r *Renderer) Options() Options { return r.opt }

// Stats of the last frame (the terrain store's counters are current).
func (r *Renderer) Stats() Stats {
	s := r.stats
	if r.terrain != nil {
		r.terrain.fillStats(&s)
	}
	return s
}

// RenderScale is the current render scale.
func (r *Renderer) RenderScale() float64 {
	if r.opt.FixedScale > 0 {
		return r.opt.FixedScale
	}
	return r.scaler.Scale()
}

// ShouldClose reports whether the user asked to close the window.
func (r *Renderer) ShouldClose() bool { return r.win.ShouldClose() }

// Present swaps buffers, polls events, applies the profile's frame cap and
// feeds the render-scale controller. Call it once per frame after Draw
// (and after Screenshot, if any: the back buffer is undefined after a swap).
func (r *Renderer) Present() {
	r.win.SwapBuffers()
	now := time.Now()
	work := now.Sub(r.drawStart)
	if r.drawStart.IsZero() {
		work = 0
	}
	r.stats.FrameWork = work
	if c := r.opt.Profile.CapFPS; c > 0 && !r.lastPresent.IsZero() {
		if wait := time.Duration(float64(time.Second)/c) - now.Sub(r.lastPresent); wait > 0 {
			time.Sleep(wait)
			now = time.Now()
		}
	}
	if !r.lastPresent.IsZero() && !r.drawStart.IsZero() {
		r.scaler.Observe(now.Sub(r.lastPresent).Seconds(), work.Seconds())
	}
	r.lastPresent = now
	clear(r.keys)
	glfw.PollEvents()
}

// makeCurrent makes this renderer's context current on the calling (main)
// thread if it is not: with two renderers open (tests, benchmarks), closing
// one leaves no context current.
func (r *Renderer) makeCurrent() {
	if glfw.GetCurrentContext() != r.win {
		r.win.MakeContextCurrent()
	}
}

func displayName() string {
	return strings.TrimSpace(os.Getenv("DISPLAY"))
}
