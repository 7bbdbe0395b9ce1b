//go:build js && wasm

// Package webgl is the browser's renderer: WebGL2 through syscall/js,
// behind the same frame vocabulary as the desktop one (render/scene) and
// the same shader text (render/glsl, in its GLSL ES 3.00 dialect). One
// vertex buffer holds the fixed slots and the dynamic region, as on the
// desktop; each group of slots is one draw through WEBGL_multi_draw where
// the browser has it, else one drawArrays a slot. The main pass and the
// sky are drawn; shadows, the far tier, trees, traffic instances and the
// voxel terrain (texture buffers, which WebGL2 lacks) are not yet.
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
	"citydrive/render/scene"
	"citydrive/slots"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
	"citydrive/voxel/meshpool"
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

// Texture units: the shadow sampler and the near-mask sampler must not
// share one (WebGL refuses two sampler types on a unit).
const (
	unitShadow   = 0
	unitNearMask = 1
)

// Display draws frames into a canvas. It implements game.Display.
type Display struct {
	gl, canvas, hud js.Value
	multi           js.Value // WEBGL_multi_draw, or undefined
	layout          slots.Layout
	vbo             js.Value
	world, sky      *program
	counts          []int
	lists           [scene.MaxGroups]scene.DrawList
	dynWords        []uint32
	staging         js.Value // Uint8Array over which uploads travel
	firsts, cnts    js.Value // Int32Array for the multi-draw lists
	hudText         string

	mu      sync.Mutex
	down    map[input.Key]bool
	pressed map[input.Key]bool

	frame   chan float64 // requestAnimationFrame's timestamps
	onFrame js.Func
	stats   scene.Stats
	loading bool // the last frame was the loading screen
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

// New opens WebGL2 on canvas; hud is an element whose text becomes the
// frame's HUD lines (null: none). The buffer holds layout's near tier and
// dynamic region (the far tier is not drawn here).
func New(canvas, hud js.Value, layout slots.Layout) (*Display, error) {
	opts := js.Global().Get("Object").New()
	opts.Set("antialias", false)
	opts.Set("preserveDrawingBuffer", true) // the page's screenshot reads the last frame
	gl := canvas.Call("getContext", "webgl2", opts)
	if gl.IsNull() || gl.IsUndefined() {
		return nil, errors.New("webgl: this browser offers no WebGL2")
	}
	d := &Display{gl: gl, canvas: canvas, hud: hud, layout: layout,
		down: map[input.Key]bool{}, pressed: map[input.Key]bool{}, frame: make(chan float64, 1)}
	d.multi = gl.Call("getExtension", "WEBGL_multi_draw")
	var err error
	if d.world, err = d.link("world", glsl.Source(glsl.ES, nil, glsl.WorldVert), glsl.Source(glsl.ES, nil, glsl.WorldFrag)); err != nil {
		return nil, err
	}
	if d.sky, err = d.link("sky", glsl.Source(glsl.ES, nil, glsl.SkyVert), glsl.Source(glsl.ES, nil, glsl.SkyFrag)); err != nil {
		return nil, err
	}
	near := layout.Near
	total := near.SlotVerts() + near.DynamicVerts
	vao := gl.Call("createVertexArray")
	gl.Call("bindVertexArray", vao)
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
	d.staging = js.Global().Get("Uint8Array").New(max(near.VertsPerSlot, near.DynamicVerts) * slots.BytesPerVertex)
	d.firsts = js.Global().Get("Int32Array").New(near.Slots)
	d.cnts = js.Global().Get("Int32Array").New(near.Slots)
	// A 1×1 depth texture for the (unused) shadow sampler: a sampler with
	// nothing of its type bound is an error on some drivers.
	tex := gl.Call("createTexture")
	gl.Call("activeTexture", glTexture0+unitShadow)
	gl.Call("bindTexture", glTexture2D, tex)
	gl.Call("texImage2D", glTexture2D, 0, glDepthComponent16, 1, 1, 0, glDepthComponent, glUnsignedShort, js.Null())
	gl.Call("texParameteri", glTexture2D, glTexCompareMode, glCompareRefToTex)
	gl.Call("texParameteri", glTexture2D, glTexMinFilter, glNearest)
	gl.Call("texParameteri", glTexture2D, glTexMagFilter, glNearest)
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
	d.stats.Uploads++
	return nil
}

func (d *Display) write(firstVertex int, words []uint32) {
	if len(words) == 0 {
		return
	}
	b := asBytes(words)
	js.CopyBytesToJS(d.staging, b)
	d.gl.Call("bindBuffer", glArrayBuffer, d.vbo)
	d.gl.Call("bufferSubData", glArrayBuffer, firstVertex*slots.BytesPerVertex, d.staging, 0, len(b))
}

// Clear marks a slot empty: no GPU write.
func (d *Display) Clear(slot int) {
	if slot >= 0 && slot < len(d.counts) {
		d.counts[slot] = 0
	}
}

// MeshSink drops the voxel ground's meshes: the terrain is not drawn in
// the browser yet (it needs texture buffers).
func (d *Display) MeshSink() meshpool.MeshSink { return dropMeshes{} }

type dropMeshes struct{}

func (dropMeshes) Insert(*mesh.Mesh)     {}
func (dropMeshes) Remove(voxel.ChunkPos) {}

// Draw draws one frame: the slot groups and the dynamic region in the main
// pass, then the sky where nothing was drawn, and the HUD's text.
func (d *Display) Draw(f *scene.Frame) error {
	gl := d.gl
	st := scene.Stats{Uploads: d.stats.Uploads}
	dpr := js.Global().Get("devicePixelRatio").Float()
	w := int(d.canvas.Get("clientWidth").Float() * min(dpr, 1.5))
	h := int(d.canvas.Get("clientHeight").Float() * min(dpr, 1.5))
	if w <= 0 || h <= 0 {
		return nil
	}
	if d.canvas.Get("width").Int() != w || d.canvas.Get("height").Int() != h {
		d.canvas.Set("width", w)
		d.canvas.Set("height", h)
	}
	st.TargetW, st.TargetH, st.Scale = w, h, 1
	gl.Call("viewport", 0, 0, w, h)
	cam := f.Camera
	vp := cam.ViewProj(float64(w) / float64(h))
	light := scene.LightAt(f.TimeOfDay, f.Weather)
	pal := f.Palette
	if pal == nil {
		pal = scene.PaletteFor(f.Weather)
	}
	far := float32(cam.FarPlane())
	fogStart, fogEnd := far*0.35, far*0.97
	if f.Weather == scene.Wet {
		fogStart = far * 0.15
	}
	hz := light.Horizon
	gl.Call("clearColor", hz[0], hz[1], hz[2], 1)
	gl.Call("enable", glDepthTest)
	gl.Call("depthFunc", glLEqual)
	gl.Call("depthMask", true)
	gl.Call("clear", glColorBufferBit|glDepthBufferBit)
	lighting := func(p *program) {
		dir := light.Dir
		p.setVec3("uSunDir", mgl32.Vec3{float32(dir[0]), float32(dir[1]), float32(dir[2])})
		p.setVec3("uSunColour", light.Colour)
		p.setVec3("uAmbient", light.Ambient)
		p.setVec3("uZenith", light.Zenith)
		p.setVec3("uHorizon", light.Horizon)
		p.setFloat("uNight", light.Night)
		wet := float32(0)
		if f.Weather == scene.Wet {
			wet = 1
		}
		p.setFloat("uWet", wet)
		p.setFloat("uFogStart", fogStart)
		p.setFloat("uFogEnd", fogEnd)
		p.setInt("uShadowMap", unitShadow)
		p.setInt("uNearMask", unitNearMask)
		p.setFloat("uShadowOn", 0)
	}
	groups := f.Groups
	if len(groups) > scene.MaxGroups {
		groups = groups[:scene.MaxGroups]
	}
	if f.Loading {
		groups = nil
	}
	if len(groups) > 0 || (!f.Loading && len(f.Dynamic) > 0) {
		p := d.world
		gl.Call("useProgram", p.p)
		lighting(p)
		p.setMat4("uViewProj", scene.Mat32(vp))
		pa := js.Global().Get("Float32Array").New(3 * slots.PaletteSize)
		for i, c := range pal {
			pa.SetIndex(3*i, c[0])
			pa.SetIndex(3*i+1, c[1])
			pa.SetIndex(3*i+2, c[2])
		}
		gl.Call("uniform3fv", p.loc("uPalette[0]"), pa)
		p.setVec4("uFlat", mgl32.Vec4{})
		sig := f.Signals
		p.setVec3("uSignals", mgl32.Vec3{sig.Time, sig.Period, sig.Green})
		p.setInt("uFarMask", 0)
		fr := frustum.FromViewProj(vp)
		for i, g := range groups {
			l := &d.lists[i]
			l.Reset()
			l.Build(g.Slots, d.counts, g.Origin.Sub(cam.Position), &fr, d.layout.Near.Slots, d.layout.Near.VertsPerSlot)
			st.Culled += l.Culled
			st.BadSlots += l.Bad
			p.setVec3("uOffset", scene.Relative(g.Origin, cam.Position))
			d.multiDraw(l, &st.Main)
		}
		if !f.Loading && len(f.Dynamic) >= slots.FloatsPerVertex {
			n := min(len(f.Dynamic)/slots.FloatsPerVertex, d.layout.Near.DynamicVerts)
			st.DynamicDropped = len(f.Dynamic)/slots.FloatsPerVertex - n
			n = slots.EncodeWide(d.dynWords[:n*slots.WordsPerVertex], f.Dynamic[:n*slots.FloatsPerVertex])
			first := d.layout.Near.SlotVerts()
			d.write(first, d.dynWords[:n*slots.WordsPerVertex])
			p.setVec3("uOffset", scene.Relative(f.DynamicOrigin, cam.Position))
			gl.Call("drawArrays", glTriangles, first, n)
			st.Main.Draws++
			st.Main.Vertices += n
		}
	}
	// The sky: where nothing was drawn (depth 1, GL_LEQUAL).
	p := d.sky
	gl.Call("useProgram", p.p)
	lighting(p)
	p.setMat4("uInvViewProj", scene.Mat32(vp.Inv()))
	disc := light.Dir
	size := float32(0.9996)
	if light.Night > 0.99 {
		size = 0.99985
	}
	p.setVec3("uSunDisc", mgl32.Vec3{float32(disc[0]), float32(disc[1]), float32(disc[2])})
	p.setFloat("uDiscSize", size)
	gl.Call("depthMask", false)
	gl.Call("drawArrays", glTriangles, 0, 3)
	gl.Call("depthMask", true)
	st.Main.Draws++
	d.setHUD(f)
	d.stats = st
	d.loading = f.Loading
	if e := gl.Call("getError").Int(); e != 0 {
		return fmt.Errorf("webgl: frame: GL error %#x", e)
	}
	return nil
}

// multiDraw draws a group's list: one call with WEBGL_multi_draw, else
// one drawArrays a slot.
func (d *Display) multiDraw(l *scene.DrawList, ps *scene.PassStats) {
	n := l.Len()
	if n == 0 {
		return
	}
	ps.Slots += n
	ps.Vertices += l.Vertices()
	if d.multi.Truthy() {
		for i := 0; i < n; i++ {
			d.firsts.SetIndex(i, l.First[i])
			d.cnts.SetIndex(i, l.Count[i])
		}
		d.multi.Call("multiDrawArraysWEBGL", glTriangles, d.firsts, 0, d.cnts, 0, n)
		ps.MultiDraws++
		return
	}
	for i := 0; i < n; i++ {
		d.gl.Call("drawArrays", glTriangles, l.First[i], l.Count[i])
		ps.Draws++
	}
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
	<-d.frame
}

// ShouldClose: a page closes by going away.
func (d *Display) ShouldClose() bool { return false }

// RenderScale is 1: no adaptive scale in the browser yet.
func (d *Display) RenderScale() float64 { return 1 }

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
