//go:build js && wasm

// Package webgl is the browser's renderer: WebGL2 through syscall/js,
// behind the same frame vocabulary as the desktop one (render/scene) and
// the same shader text (render/glsl, in its GLSL ES 3.00 dialect). One
// vertex buffer holds the fixed slots and the dynamic region, as on the
// desktop; each group of slots is one draw through WEBGL_multi_draw where
// the browser has it, else one drawArrays a slot. A frame is the sun's
// shadow map (shadow.go, when due), then one main pass: the near slots,
// the dynamic region, the far tier (far.go), trees and traffic instances
// (instances.go), the voxel ground (terrain.go), then the sky. There is
// no depth pre-pass.
package webgl

import (
	"errors"
	"fmt"
	"image"
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"citydrive/render/frustum"

	"citydrive/render/glsl"
	"citydrive/render/input"
	"citydrive/render/scale"
	"citydrive/render/scene"
	"citydrive/slots"
)

// WebGL2 enums used here (the values are the GL ones).
const (
	glArrayBuffer      = 0x8892
	glDynamicDraw      = 0x88E8
	glTriangles        = 0x0004
	glUnsignedInt      = 0x1405
	glVertexShader     = 0x8B31
	glFragmentShader   = 0x8B30
	glCompileStatus    = 0x8B81
	glLinkStatus       = 0x8B82
	glDepthTest        = 0x0B71
	glLEqual           = 0x0203
	glColorBufferBit   = 0x4000
	glDepthBufferBit   = 0x0100
	glTexture2D        = 0x0DE1
	glTexture0         = 0x84C0
	glDepthComponent16 = 0x81A5
	glDepthComponent   = 0x1902
	glUnsignedShort    = 0x1403
	glTexCompareMode   = 0x884C
	glCompareRefToTex  = 0x884E
	glTexMinFilter     = 0x2801
	glTexMagFilter     = 0x2800
	glNearest          = 0x2600
)

// Texture units: samplers of different types must not share one (WebGL
// refuses two sampler types on a unit), so each texture has its own, bound
// there once.
const (
	unitShadow        = 0
	unitNearMask      = 1
	unitTerrainQuads  = 2
	unitTerrainChunks = 3
)

// Display draws frames into a canvas. It implements game.Display.
type Display struct {
	gl, canvas, hud js.Value
	multi           js.Value // WEBGL_multi_draw, or undefined
	layout          slots.Layout
	vao, vbo        js.Value
	world, sky      *program
	counts          []int
	lists           [scene.MaxGroups]scene.DrawList
	dynWords        []uint32
	staging         staging  // over which uploads travel
	palette         js.Value // Float32Array for uPalette
	firsts, cnts    js.Value // Int32Array for the multi-draw lists
	firstsU8        js.Value // their bytes
	cntsU8          js.Value
	hudText         string
	trees           treesGL
	vehicles        vehiclesGL
	terrain         terrainGL
	far             farGL
	shadow          shadowGL
	shadowRefreshes int // shadow maps drawn since New
	lastShadowVerts int // slot vertices the last shadow map drew

	mu      sync.Mutex
	down    map[input.Key]bool
	pressed map[input.Key]bool

	frame   chan float64 // requestAnimationFrame's timestamps
	onFrame js.Func
	// scaler is the desktop's render-scale controller, fed the interval
	// between animation frames: the browser's GPU work runs in another
	// process, so the main thread's time does not show it, but a frame
	// the GPU has not finished delays the next animation frame.
	scaler    *scale.Controller
	lastFrame float64 // the last animation frame's timestamp, ms
	stats     scene.Stats
	loading   bool // the last frame was the loading screen
	drawn     int  // Draw calls since New
	// OnPresent, if set, is called at each Present, before it waits for
	// the browser's next frame (the page's statistics).
	OnPresent func()
}

// program is a linked program and its uniform locations.
type program struct {
	gl   js.Value
	p    js.Value
	locs map[string]js.Value
}

func (p *program) loc(name string) js.Value {
	l, ok := p.locs[name]
	if !ok {
		l = p.gl.Call("getUniformLocation", p.p, name)
		p.locs[name] = l
	}
	return l
}

func (p *program) setInt(name string, v int)       { p.gl.Call("uniform1i", p.loc(name), v) }
func (p *program) setFloat(name string, v float32) { p.gl.Call("uniform1f", p.loc(name), v) }
func (p *program) setVec3(name string, v mgl32.Vec3) {
	p.gl.Call("uniform3f", p.loc(name), v[0], v[1], v[2])
}
func (p *program) setVec4(name string, v mgl32.Vec4) {
	p.gl.Call("uniform4f", p.loc(name), v[0], v[1], v[2], v[3])
}
func (p *program) setMat4(name string, m mgl32.Mat4) {
	a := js.Global().Get("Float32Array").New(16)
	for i, v := range m {
		a.SetIndex(i, v)
	}
	p.gl.Call("uniformMatrix4fv", p.loc(name), false, a)
}

// worldDefs are the world programs' defines: one filtered shadow-map read
// a pixel (the desktop's shadow1 variant), which SwiftShader's per-pixel
// cost wants.
var worldDefs = []string{"SHADOW_ONE_TAP"}

// New opens WebGL2 on canvas; hud is an element whose text becomes the
// frame's HUD lines (null: none). The buffer holds layout's near tier, far
// tier (none when layout.Far.Slots is 0) and dynamic region.
func New(canvas, hud js.Value, layout slots.Layout) (*Display, error) {
	opts := js.Global().Get("Object").New()
	opts.Set("antialias", false)
	opts.Set("preserveDrawingBuffer", true) // the page's screenshot reads the last frame
	gl := canvas.Call("getContext", "webgl2", opts)
	if gl.IsNull() || gl.IsUndefined() {
		return nil, errors.New("webgl: this browser offers no WebGL2")
	}
	d := &Display{gl: gl, canvas: canvas, hud: hud, layout: layout,
		down: map[input.Key]bool{}, pressed: map[input.Key]bool{}, frame: make(chan float64, 1),
		scaler: scale.New(scale.Full)}
	d.multi = gl.Call("getExtension", "WEBGL_multi_draw")
	var err error
	if d.sky, err = d.link("sky", glsl.Source(glsl.ES, nil, glsl.SkyVert), glsl.Source(glsl.ES, nil, glsl.SkyFrag)); err != nil {
		return nil, err
	}
	if d.world, err = d.link("world", glsl.Source(glsl.ES, worldDefs, glsl.WorldVert), glsl.Source(glsl.ES, worldDefs, glsl.WorldFrag)); err != nil {
		return nil, err
	}
	near := layout.Near
	total := layout.TotalVerts()
	d.vao = gl.Call("createVertexArray")
	gl.Call("bindVertexArray", d.vao)
	d.vbo = gl.Call("createBuffer")
	gl.Call("bindBuffer", glArrayBuffer, d.vbo)
	gl.Call("bufferData", glArrayBuffer, total*slots.BytesPerVertex, glDynamicDraw)
	if e := gl.Call("getError").Int(); e != 0 {
		return nil, fmt.Errorf("webgl: allocating the vertex buffer (%d MB): GL error %#x", total*slots.BytesPerVertex>>20, e)
	}
	// The 24-byte vertex as integers, decoded by glsl.SlotVertexGLSL.
	gl.Call("enableVertexAttribArray", 0)
	gl.Call("vertexAttribIPointer", 0, 4, glUnsignedInt, slots.BytesPerVertex, 0)
	gl.Call("enableVertexAttribArray", 1)
	gl.Call("vertexAttribIPointer", 1, 2, glUnsignedInt, slots.BytesPerVertex, 16)
	d.counts = make([]int, near.Slots)
	d.dynWords = make([]uint32, near.DynamicVerts*slots.WordsPerVertex)
	d.stage(max(near.VertsPerSlot, layout.Far.VertsPerSlot, near.DynamicVerts) * slots.BytesPerVertex)
	d.palette = js.Global().Get("Float32Array").New(3 * slots.PaletteSize)
	lists := max(near.Slots, layout.Far.Slots, terrainSlots)
	d.firsts = js.Global().Get("Int32Array").New(lists)
	d.cnts = js.Global().Get("Int32Array").New(lists)
	d.firstsU8 = js.Global().Get("Uint8Array").New(d.firsts.Get("buffer"))
	d.cntsU8 = js.Global().Get("Uint8Array").New(d.cnts.Get("buffer"))
	for _, setup := range []func() error{d.setupShadow, d.setupTrees, d.setupVehicles, d.setupTerrain, d.setupFar} {
		if err := setup(); err != nil {
			return nil, err
		}
	}
	gl.Call("bindVertexArray", d.vao)
	if e := gl.Call("getError").Int(); e != 0 {
		return nil, fmt.Errorf("webgl: setting up: GL error %#x", e)
	}
	d.listen()
	d.onFrame = js.FuncOf(func(_ js.Value, a []js.Value) any {
		select {
		case d.frame <- a[0].Float():
		default:
		}
		return nil
	})
	return d, nil
}

func (d *Display) link(name, vs, fs string) (*program, error) {
	gl := d.gl
	p := gl.Call("createProgram")
	for _, s := range []struct {
		kind int
		src  string
	}{{glVertexShader, vs}, {glFragmentShader, fs}} {
		sh := gl.Call("createShader", s.kind)
		gl.Call("shaderSource", sh, s.src)
		gl.Call("compileShader", sh)
		if !gl.Call("getShaderParameter", sh, glCompileStatus).Bool() {
			return nil, fmt.Errorf("webgl: compiling %s: %s", name, gl.Call("getShaderInfoLog", sh).String())
		}
		gl.Call("attachShader", p, sh)
	}
	gl.Call("linkProgram", p)
	if !gl.Call("getProgramParameter", p, glLinkStatus).Bool() {
		return nil, fmt.Errorf("webgl: linking %s: %s", name, gl.Call("getProgramInfoLog", p).String())
	}
	return &program{gl: gl, p: p, locs: map[string]js.Value{}}, nil
}

// words as bytes, for the copy into JavaScript (no conversion: WebGL
// takes the buffer in the machine's order, little-endian as wasm is).
func asBytes(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4)
}

// Upload writes a slot's vertices (slots.Sink).
func (d *Display) Upload(slot int, verts []uint32, count int) error {
	near := d.layout.Near
	if slot < 0 || slot >= near.Slots {
		return fmt.Errorf("webgl: slot %d outside 0..%d", slot, near.Slots-1)
	}
	if count < 0 || count > near.VertsPerSlot || len(verts) < count*slots.WordsPerVertex {
		return fmt.Errorf("webgl: %d vertices do not fit slot %d (%d at most, %d words given)", count, slot, near.VertsPerSlot, len(verts))
	}
	d.write(slot*near.VertsPerSlot, verts[:count*slots.WordsPerVertex])
	d.counts[slot] = count
	d.shadow.slotsChanged = true
	d.stats.Uploads++
	return nil
}

func (d *Display) write(firstVertex int, words []uint32) {
	if len(words) == 0 {
		return
	}
	b := asBytes(words)
	s := d.stageBytes(b).u8
	d.gl.Call("bindBuffer", glArrayBuffer, d.vbo)
	d.gl.Call("bufferSubData", glArrayBuffer, firstVertex*slots.BytesPerVertex, s, 0, len(b))
}

// staging is one JavaScript buffer that uploads are copied into, seen as
// bytes, unsigned and signed 32-bit words (texture uploads take the view
// of their texel type).
type staging struct {
	u8, u32, i32 js.Value
	n            int // bytes
}

// stage grows the staging buffer to hold n bytes and returns it as bytes.
func (d *Display) stage(n int) js.Value {
	if n > d.staging.n {
		n = (n + 3) &^ 3
		u8 := js.Global().Get("Uint8Array").New(n)
		buf := u8.Get("buffer")
		d.staging = staging{u8: u8, u32: js.Global().Get("Uint32Array").New(buf), i32: js.Global().Get("Int32Array").New(buf), n: n}
	}
	return d.staging.u8
}

// stageBytes copies b into the staging buffer.
func (d *Display) stageBytes(b []byte) *staging {
	js.CopyBytesToJS(d.stage(len(b)), b)
	return &d.staging
}

// Clear marks a slot empty: no GPU write.
func (d *Display) Clear(slot int) {
	if slot >= 0 && slot < len(d.counts) {
		d.counts[slot] = 0
		d.shadow.slotsChanged = true
	}
}

// frameState is what one Draw computes once and every pass uses.
type frameState struct {
	f                *scene.Frame
	groups           []scene.Group
	vp32             mgl32.Mat4
	light            scene.Light
	pal              *scene.Palette
	fogStart, fogEnd float32
	dynCount, trees  int
	terrainOn        bool
	shadowOn         bool
	shadowVP         mgl32.Mat4
	shadowShift      mgl32.Vec3
}

// setLighting sets the uniforms glsl.LightingGLSL reads, and the shadow
// map's.
func (d *Display) setLighting(p *program, fs *frameState) {
	light := fs.light
	dir := light.Dir
	p.setVec3("uSunDir", mgl32.Vec3{float32(dir[0]), float32(dir[1]), float32(dir[2])})
	p.setVec3("uSunColour", light.Colour)
	p.setVec3("uAmbient", light.Ambient)
	p.setVec3("uZenith", light.Zenith)
	p.setVec3("uHorizon", light.Horizon)
	p.setFloat("uNight", light.Night)
	wet := float32(0)
	if fs.f.Weather == scene.Wet {
		wet = 1
	}
	p.setFloat("uWet", wet)
	p.setFloat("uFogStart", fs.fogStart)
	p.setFloat("uFogEnd", fs.fogEnd)
	p.setInt("uShadowMap", unitShadow)
	p.setInt("uNearMask", unitNearMask)
	on := float32(0)
	if fs.shadowOn {
		on = 1
	}
	p.setFloat("uShadowOn", on)
	p.setFloat("uShadowTexel", 1.0/shadowSize)
	p.setMat4("uShadowVP", fs.shadowVP)
	p.setVec3("uShadowShift", fs.shadowShift)
}

// setPalette sets uPalette from the frame's palette (copied once a
// frame, in Draw).
func (d *Display) setPalette(p *program) {
	d.gl.Call("uniform3fv", p.loc("uPalette[0]"), d.palette)
}

// setWorld sets the world programs' own uniforms (near and far).
func (d *Display) setWorld(p *program, fs *frameState) {
	p.setMat4("uViewProj", fs.vp32)
	d.setPalette(p)
	p.setVec4("uFlat", mgl32.Vec4{})
	sig := fs.f.Signals
	p.setVec3("uSignals", mgl32.Vec3{sig.Time, sig.Period, sig.Green})
	p.setInt("uFarMask", 0)
}

// Draw draws one frame: the shadow map when due, then the main pass (near
// slots, dynamic region, far tier, trees, traffic, voxel ground), the sky
// where nothing was drawn, and the HUD's text.
func (d *Display) Draw(f *scene.Frame) error {
	gl := d.gl
	st := scene.Stats{Uploads: d.stats.Uploads}
	dpr := js.Global().Get("devicePixelRatio").Float()
	cw, ch := d.canvas.Get("clientWidth").Float(), d.canvas.Get("clientHeight").Float()
	if int(cw) <= 0 || int(ch) <= 0 {
		return nil
	}
	// The drawing buffer is the canvas's CSS size times the pixel ratio
	// (capped as the full profile caps it) times the render scale; the
	// browser stretches it over the canvas.
	w, h := scale.TargetSize(int(cw*dpr), int(ch*dpr), int(cw), int(ch), scale.Full.MaxPixelRatio, d.scaler.Scale())
	if d.canvas.Get("width").Int() != w || d.canvas.Get("height").Int() != h {
		d.canvas.Set("width", w)
		d.canvas.Set("height", h)
	}
	st.TargetW, st.TargetH, st.Scale = w, h, d.scaler.Scale()
	cam := f.Camera
	vp := cam.ViewProj(float64(w) / float64(h))
	fs := frameState{f: f, vp32: scene.Mat32(vp), light: scene.LightAt(f.TimeOfDay, f.Weather), pal: f.Palette}
	if fs.pal == nil {
		fs.pal = scene.PaletteFor(f.Weather)
	}
	for i, c := range fs.pal {
		for k := range 3 {
			d.palette.SetIndex(3*i+k, c[k])
		}
	}
	far := float32(cam.FarPlane())
	fs.fogStart, fs.fogEnd = far*0.35, far*0.97
	if f.Weather == scene.Wet {
		fs.fogStart = far * 0.15
	}
	fs.groups = f.Groups
	if len(fs.groups) > scene.MaxGroups {
		fs.groups = fs.groups[:scene.MaxGroups]
	}
	if f.Loading {
		fs.groups = nil
	}
	fr := frustum.FromViewProj(vp)
	near := d.layout.Near
	for i, g := range fs.groups {
		l := &d.lists[i]
		l.Reset()
		l.Build(g.Slots, d.counts, g.Origin.Sub(cam.Position), &fr, near.Slots, near.VertsPerSlot)
		st.Culled += l.Culled
		st.BadSlots += l.Bad
	}
	d.prepareFar(&fs, &fr, &st)
	if t := &d.terrain; !f.Loading && !f.NoTerrain && t.store.Len() > 0 {
		t.list.Build(t.store, cam.Position, &fr)
		st.TerrainCulled = t.list.Culled
		fs.terrainOn = true
	}
	d.terrain.stats(&st)
	if !f.Loading && len(f.Dynamic) >= slots.FloatsPerVertex {
		n := min(len(f.Dynamic)/slots.FloatsPerVertex, near.DynamicVerts)
		st.DynamicDropped = len(f.Dynamic)/slots.FloatsPerVertex - n
		n = slots.EncodeWide(d.dynWords[:n*slots.WordsPerVertex], f.Dynamic[:n*slots.FloatsPerVertex])
		d.write(d.layout.DynamicFirst(), d.dynWords[:n*slots.WordsPerVertex])
		fs.dynCount = n
	}
	fs.trees = d.prepareTrees(&fs, &fr, &st)
	d.prepareVehicles(&fs, &fr, &st)

	gl.Call("enable", glDepthTest)
	d.shadowPass(&fs, &st)

	gl.Call("viewport", 0, 0, w, h)
	hz := fs.light.Horizon
	gl.Call("clearColor", hz[0], hz[1], hz[2], 1)
	gl.Call("depthFunc", glLEqual)
	gl.Call("depthMask", true)
	gl.Call("clear", glColorBufferBit|glDepthBufferBit)
	if len(fs.groups) > 0 || fs.dynCount > 0 {
		p := d.world
		gl.Call("useProgram", p.p)
		d.setLighting(p, &fs)
		d.setWorld(p, &fs)
		gl.Call("bindVertexArray", d.vao)
		for i, g := range fs.groups {
			p.setVec3("uOffset", scene.Relative(g.Origin, cam.Position))
			d.multiDraw(&d.lists[i], &st.Main)
		}
		if fs.dynCount > 0 {
			p.setVec3("uOffset", scene.Relative(f.DynamicOrigin, cam.Position))
			gl.Call("drawArrays", glTriangles, d.layout.DynamicFirst(), fs.dynCount)
			st.Main.Draws++
			st.Main.Vertices += fs.dynCount
		}
	}
	d.drawFar(&fs, &st.Far)
	if fs.trees > 0 {
		t := d.trees.prog
		gl.Call("useProgram", t.p)
		d.setLighting(t, &fs)
		t.setMat4("uViewProj", fs.vp32)
		t.setVec3("uOffset", mgl32.Vec3{})
		d.drawTrees(&fs, &st.Main)
	}
	d.drawVehicles(&fs, &st.Main)
	if fs.terrainOn {
		d.terrainMain(&fs, &st.Main)
	}
	// The sky: where nothing was drawn (depth 1, GL_LEQUAL).
	p := d.sky
	gl.Call("useProgram", p.p)
	d.setLighting(p, &fs)
	p.setMat4("uInvViewProj", scene.Mat32(vp.Inv()))
	disc := fs.light.Dir
	size := float32(0.9996)
	if fs.light.Night > 0.99 {
		size = 0.99985
	}
	p.setVec3("uSunDisc", mgl32.Vec3{float32(disc[0]), float32(disc[1]), float32(disc[2])})
	p.setFloat("uDiscSize", size)
	gl.Call("bindVertexArray", d.terrain.vao) // empty: the sky's triangle is gl_VertexID's
	gl.Call("depthMask", false)
	gl.Call("drawArrays", glTriangles, 0, 3)
	gl.Call("depthMask", true)
	gl.Call("bindVertexArray", d.vao)
	st.Main.Draws++
	d.setHUD(f)
	d.stats = st
	d.loading = f.Loading
	d.drawn++
	if e := gl.Call("getError").Int(); e != 0 {
		return fmt.Errorf("webgl: frame: GL error %#x", e)
	}
	return nil
}

// multiDraw draws a slot list: one call with WEBGL_multi_draw, else one
// drawArrays a slot.
func (d *Display) multiDraw(l *scene.DrawList, ps *scene.PassStats) {
	n := l.Len()
	if n == 0 {
		return
	}
	ps.Slots += n
	ps.Vertices += l.Vertices()
	if d.multiDrawLists(l.First, l.Count) {
		ps.MultiDraws++
	} else {
		ps.Draws += n
	}
}

// multiDrawLists draws first/count as one multiDrawArraysWEBGL where the
// browser has it (true), else one drawArrays each (false). The arrays
// travel as bytes (one copy each, not a call per element).
func (d *Display) multiDrawLists(first, count []int32) bool {
	n := min(len(first), len(count), d.firsts.Get("length").Int())
	if n == 0 {
		return d.multi.Truthy()
	}
	if !d.multi.Truthy() {
		for i := 0; i < n; i++ {
			d.gl.Call("drawArrays", glTriangles, first[i], count[i])
		}
		return false
	}
	js.CopyBytesToJS(d.firstsU8, asBytes32(first[:n]))
	js.CopyBytesToJS(d.cntsU8, asBytes32(count[:n]))
	d.multi.Call("multiDrawArraysWEBGL", glTriangles, d.firsts, 0, d.cnts, 0, n)
	return true
}

func asBytes32(w []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4)
}

func (d *Display) setHUD(f *scene.Frame) {
	if d.hud.IsNull() || d.hud.IsUndefined() {
		return
	}
	t := ""
	for i, l := range f.HUD {
		if i > 0 {
			t += "\n"
		}
		t += l
	}
	if f.Loading {
		t += fmt.Sprintf("\n%.0f %%", f.Progress*100)
	}
	if t != d.hudText { // the DOM only when the text changed
		d.hudText = t
		d.hud.Set("textContent", t)
	}
}

// Present hands the frame to the browser and waits for its next animation
// frame. While this goroutine waits, the build workers' goroutines run
// (one thread: at most Workers × MaxInFlight builds), then the browser
// gets the thread back.
func (d *Display) Present() {
	if d.OnPresent != nil {
		d.OnPresent()
	}
	d.mu.Lock()
	clear(d.pressed)
	d.mu.Unlock()
	js.Global().Call("requestAnimationFrame", d.onFrame)
	t := <-d.frame
	if d.lastFrame > 0 && t > d.lastFrame {
		dt := (t - d.lastFrame) / 1000
		d.scaler.Observe(dt, dt)
	}
	d.lastFrame = t
}

// ShouldClose: a page closes by going away.
func (d *Display) ShouldClose() bool { return false }

// RenderScale is the adaptive render scale the next frame is drawn at.
func (d *Display) RenderScale() float64 { return d.scaler.Scale() }

// Screenshot is the page's (canvas.toDataURL), not the game's.
func (d *Display) Screenshot() (*image.RGBA, error) {
	return nil, errors.New("webgl: the page takes the screenshots (canvas.toDataURL)")
}

// Loading reports whether the last frame drawn was the loading screen.
func (d *Display) Loading() bool { return d.loading }

// Stats is what the last frame held.
func (d *Display) Stats() scene.Stats { return d.stats }

// Close releases the animation-frame callback.
func (d *Display) Close() { d.onFrame.Release() }

// PublishStats writes what the last frame drew beyond the slots into o
// (the page's window.citydrive.stats): traffic vehicles and trees drawn,
// voxel chunks and quads drawn and stored, far-tier slots and vertices
// drawn, the shadow maps drawn since New, and the frames drawn since New
// (drawn). Counters only: cheap enough for every frame.
func (d *Display) PublishStats(o js.Value) {
	s := d.stats
	o.Set("drawn", d.drawn)
	o.Set("vehicles", s.Vehicles)
	o.Set("trees", s.Trees)
	o.Set("terrainChunks", s.Main.TerrainChunks)
	o.Set("terrainQuads", s.Main.TerrainQuads)
	o.Set("terrainResident", s.TerrainResident)
	o.Set("terrainInserts", s.TerrainInserts)
	o.Set("farSlots", s.Far.Slots)
	o.Set("farVertices", s.Far.Vertices)
	o.Set("shadowMaps", d.shadowRefreshes)
	o.Set("shadowVertices", d.lastShadowVerts)
	o.Set("renderScale", s.Scale)
	o.Set("targetWidth", s.TargetW)
	o.Set("targetHeight", s.TargetH)
}
