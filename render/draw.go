package render

import (
	"fmt"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/frustum"
	"citydrive/render/hud"
	"citydrive/render/scale"
	"citydrive/render/scene"
	"citydrive/render/terrain"
	"citydrive/slots"
)

// Texture units.
const (
	unitShadow = 0
	unitAge    = 1
	unitFont   = 2
	// the terrain's quad store and chunk table (texture buffers)
	unitTerrainQuads  = 3
	unitTerrainChunks = 4
)

// frameState is what one Draw computes once and every pass uses.
type frameState struct {
	f         *Frame
	groups    []Group
	vp        mgl64.Mat4
	light     scene.Light
	palette   *Palette
	shadowVP  mgl32.Mat4
	shadowSh  mgl32.Vec3
	shadowOn  bool
	dynCount  int32
	trees     int32
	fogStart  float32
	fogEnd    float32
	tintAge   bool
	tw, th    int
	fbW, fbH  int
	camOrigin mgl64.Vec3
	terrainOn bool // voxel chunks are drawn this frame
	farGroups []Group
	maskOn    bool
	maskEye   mgl32.Vec3 // eye minus the near mask's origin corner
	maskSize  float32
	direct    bool // into the window's framebuffer: no target, no blit
	prepass   bool // the depth pre-pass is drawn
	farPre    bool // the far tier is in it
}

// Draw renders one frame into the window's back buffer. Call Present to
// show it (and Screenshot, if wanted, before Present).
func (r *Renderer) Draw(f *Frame) error {
	if r.closed {
		return fmt.Errorf("render: draw after Close")
	}
	r.drawStart = time.Now()
	r.makeCurrent()
	st := Stats{Uploads: r.stats.Uploads, FrameWork: r.stats.FrameWork}
	fs := frameState{f: f, camOrigin: f.Camera.Position}
	fs.fbW, fs.fbH = r.win.GetFramebufferSize()
	if fs.fbW <= 0 || fs.fbH <= 0 { // minimised
		r.stats = st
		return nil
	}
	r.timer.beginFrame(false)
	winW, winH := r.win.GetSize()
	st.Scale = r.RenderScale()
	fs.tw, fs.th = scale.TargetSize(fs.fbW, fs.fbH, winW, winH, r.opt.Profile.MaxPixelRatio, st.Scale)
	st.TargetW, st.TargetH = fs.tw, fs.th
	if err := r.target.ensure(fs.tw, fs.th); err != nil {
		return err
	}
	fs.direct = r.passes.Direct && r.defaultDepth && fs.tw == fs.fbW && fs.th == fs.fbH
	st.Direct = fs.direct
	fs.prepass = r.prepassOn()
	fs.farPre = fs.prepass && !r.passes.NoFarPrepass
	fs.groups = f.Groups
	if len(fs.groups) > scene.MaxGroups {
		fs.groups = fs.groups[:scene.MaxGroups]
	}
	if f.Loading {
		fs.groups = nil
	}
	cam := f.Camera
	fs.vp = cam.ViewProj(float64(fs.tw) / float64(fs.th))
	fr := frustum.FromViewProj(fs.vp)
	fs.light = scene.LightAt(f.TimeOfDay, f.Weather)
	fs.palette = f.Palette
	if fs.palette == nil {
		fs.palette = scene.PaletteFor(f.Weather)
	}
	far := float32(cam.FarPlane())
	fs.fogStart, fs.fogEnd = far*0.35, far*0.97
	if f.Weather == Wet {
		fs.fogStart = far * 0.15
	}

	// Draw lists for the camera.
	lod := r.lod()
	if r.passes.CullFar && lod != nil && lod.CullBeyond == 0 {
		cull := *lod
		cull.CullBeyond = lod.Beyond
		lod = &cull
	}
	for i, g := range fs.groups {
		l, lc := &r.lists[i], &r.cullLists[i]
		l.Reset()
		lc.Reset()
		l.BuildSplit(g.Slots, r.slotCounts, lod, g.Origin.Sub(cam.Position), &fr, r.opt.Layout.Near.Slots, r.opt.Layout.Near.VertsPerSlot, lc)
		st.Culled += l.Culled
		st.BadSlots += l.Bad
	}

	r.prepareFar(&fs, &fr, &st)

	// Terrain: stored chunks, culled by their boxes, nearest first.
	if t := r.terrain; !f.Loading && !f.NoTerrain && t.store.Len() > 0 {
		t.list.Build(t.store, cam.Position, &fr)
		st.TerrainCulled = t.list.Culled
		fs.terrainOn = true
	}

	// The dynamic region: rewritten every frame at the end of the buffer.
	if !f.Loading && len(f.Dynamic) >= slots.FloatsPerVertex {
		n := len(f.Dynamic) / slots.FloatsPerVertex
		if n > r.opt.Layout.Near.DynamicVerts {
			st.DynamicDropped = n - r.opt.Layout.Near.DynamicVerts
			n = r.opt.Layout.Near.DynamicVerts
		}
		n = slots.EncodeWide(r.dynWords[:n*slots.WordsPerVertex], f.Dynamic[:n*slots.FloatsPerVertex])
		gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
		gl.BufferSubData(gl.ARRAY_BUFFER, int(r.dynamicFirst)*slots.BytesPerVertex, n*slots.BytesPerVertex, gl.Ptr(r.dynWords))
		fs.dynCount = int32(n)
	}

	// Tree instances, camera-relative, culled per instance.
	r.treeData = r.treeData[:0]
	for _, g := range fs.groups {
		var dropped int
		r.treeData, dropped = scene.AppendTrees(r.treeData, g.Slots, r.slotCounts, g.Origin.Sub(cam.Position), &fr, r.opt.MaxTrees)
		st.TreesDropped += dropped
	}
	if len(r.treeData) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, r.treeInst)
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(r.treeData)*4, gl.Ptr(r.treeData))
	}
	fs.trees = int32(len(r.treeData) / scene.TreeFloats)
	st.Trees = int(fs.trees)
	r.prepareVehicles(&fs, &fr, &st)

	// Build-age tint texture (debug).
	if f.Debug&DebugBuildAge != 0 && len(fs.groups) > 0 {
		clear(r.ageData)
		for _, g := range fs.groups {
			for _, s := range g.Slots {
				if s.Slot >= 0 && s.Slot < r.opt.Layout.Near.Slots {
					t := scene.AgeTint(s.Age)
					copy(r.ageData[s.Slot*4:], t[:])
				}
			}
		}
		gl.ActiveTexture(gl.TEXTURE0 + unitAge)
		gl.BindTexture(gl.TEXTURE_1D, r.ageTex)
		gl.TexSubImage1D(gl.TEXTURE_1D, 0, 0, int32(r.opt.Layout.Near.Slots), gl.RGBA, gl.FLOAT, gl.Ptr(r.ageData))
		fs.tintAge = true
	}

	gl.Enable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.BLEND)

	r.shadowPass(&fs, &st)

	// Into the off-screen target (or the window's framebuffer, direct).
	r.timer.begin(gpuClear)
	fb := r.target.fbo
	if fs.direct {
		fb = 0
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, fb)
	gl.Viewport(0, 0, int32(fs.tw), int32(fs.th))
	h := fs.light.Horizon
	gl.ClearColor(h[0], h[1], h[2], 1)
	gl.DepthMask(true)
	gl.ClearDepth(1)
	// Colour too, though the sky pass covers every pixel nothing else does:
	// on the H200 a depth-only clear made the main pass and the blit dearer
	// by as much as it saved (a cleared target is cheap to write and read).
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)

	if len(fs.groups) > 0 || len(fs.farGroups) > 0 || fs.dynCount > 0 || fs.terrainOn {
		if fs.prepass {
			r.depthPrepass(&fs, &st)
		}
		r.mainPass(&fs, &st)
		if f.Debug&DebugWireframe != 0 {
			r.wireframePass(&fs, &st)
		}
	}
	r.timer.begin(gpuSky)
	r.skyPass(&fs, &st)
	if f.Debug&DebugBoxes != 0 {
		r.boxesPass(&fs, &st, &fr)
	}

	// Blit to the window, then the HUD at full resolution.
	r.timer.begin(gpuHUD)
	if !fs.direct {
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, r.target.fbo)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
		gl.BlitFramebuffer(0, 0, int32(fs.tw), int32(fs.th), 0, 0, int32(fs.fbW), int32(fs.fbH), gl.COLOR_BUFFER_BIT, gl.LINEAR)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Viewport(0, 0, int32(fs.fbW), int32(fs.fbH))
	r.hudPass(&fs, &st)
	r.timer.end()

	r.stats = st
	return glError("frame")
}

// setLighting sets the uniforms lightingGLSL reads.
func (r *Renderer) setLighting(p *program, fs *frameState) {
	l := fs.light
	d := l.Dir
	p.setVec3("uSunDir", mgl32.Vec3{float32(d[0]), float32(d[1]), float32(d[2])})
	p.setVec3("uSunColour", l.Colour)
	p.setVec3("uAmbient", l.Ambient)
	p.setVec3("uZenith", l.Zenith)
	p.setVec3("uHorizon", l.Horizon)
	p.setFloat("uNight", l.Night)
	wet := float32(0)
	if fs.f.Weather == Wet {
		wet = 1
	}
	p.setFloat("uWet", wet)
	p.setFloat("uFogStart", fs.fogStart)
	p.setFloat("uFogEnd", fs.fogEnd)
	p.setInt("uShadowMap", unitShadow)
	on := float32(0)
	if fs.shadowOn {
		on = 1
	}
	p.setFloat("uShadowOn", on)
	p.setFloat("uShadowTexel", 1/float32(r.shadow.size))
	p.setMat4("uShadowVP", fs.shadowVP)
	p.setVec3("uShadowShift", fs.shadowSh)
	gl.ActiveTexture(gl.TEXTURE0 + unitShadow)
	gl.BindTexture(gl.TEXTURE_2D, r.shadow.tex)
}

func rel32(a, b mgl64.Vec3) mgl32.Vec3 { return scene.Relative(a, b) }

// multiDraw issues the one glMultiDrawArrays of a group's list.
func (r *Renderer) multiDraw(mode uint32, l *scene.DrawList, ps *PassStats) {
	if l.Len() == 0 {
		return
	}
	r.multiDrawRanges(mode, l.First, l.Count)
	ps.MultiDraws++
	ps.Slots += l.Len()
	ps.Vertices += l.Vertices()
}

// multiDrawRanges is one glMultiDrawArrays of the ranges, cut into pieces
// of scene.SplitVerts when the passes split (Passes.Split).
func (r *Renderer) multiDrawRanges(mode uint32, first, count []int32) {
	if len(first) == 0 {
		return
	}
	if r.passes.Split {
		r.splitFirst, r.splitCount = scene.SplitRanges(first, count, scene.SplitVerts, r.splitFirst[:0], r.splitCount[:0])
		first, count = r.splitFirst, r.splitCount
	}
	gl.MultiDrawArrays(mode, &first[0], &count[0], int32(len(first)))
}

// drawDynamic draws the dynamic region's vertices (split as multiDraw).
func (r *Renderer) drawDynamic(fs *frameState) {
	r.dynFirst[0], r.dynCount[0] = r.dynamicFirst, fs.dynCount
	r.multiDrawRanges(gl.TRIANGLES, r.dynFirst[:], r.dynCount[:])
}

// drawNear multi-draws near group i's slots: its whole list, then those
// beyond Options.CullBackFacesBeyond with back faces culled (citygen winds
// every face counter-clockwise from its normal's side).
func (r *Renderer) drawNear(i int, ps *PassStats) {
	r.multiDraw(gl.TRIANGLES, &r.lists[i], ps)
	if r.cullLists[i].Len() == 0 {
		return
	}
	gl.Enable(gl.CULL_FACE)
	r.multiDraw(gl.TRIANGLES, &r.cullLists[i], ps)
	gl.Disable(gl.CULL_FACE)
}

func (r *Renderer) shadowPass(fs *frameState, st *Stats) {
	f := fs.f
	if r.opt.NoShadows || f.Loading || fs.light.SunHeight < -0.05 {
		return
	}
	fs.shadowOn = true
	half := r.opt.Profile.ShadowRange
	if half <= 0 {
		half = 150
	}
	s := &r.shadowState
	s.Dirty = s.Dirty || r.shadow.dirty || fs.terrainOn != r.shadow.terrain
	r.shadow.dirty = false
	centre := scene.ShadowCentre(f.Camera, half)
	if !(r.holdShadow && s.Valid) && s.NeedsRefreshAfter(centre, fs.light.Dir, scene.ShadowMoveFor(r.opt.ShadowMoveShare, half)) {
		st.ShadowRefreshed = true
		r.timer.begin(gpuShadow)
		*s = scene.ShadowState{Valid: true, Centre: centre, Sun: fs.light.Dir}
		vp := scene.ShadowViewProj(fs.light.Dir, half)
		sfr := frustum.FromViewProj(vp)
		gl.BindFramebuffer(gl.FRAMEBUFFER, r.shadow.fbo)
		gl.Viewport(0, 0, int32(r.shadow.size), int32(r.shadow.size))
		gl.DepthMask(true)
		gl.Clear(gl.DEPTH_BUFFER_BIT)
		gl.DepthFunc(gl.LESS)
		gl.Enable(gl.POLYGON_OFFSET_FILL)
		gl.PolygonOffset(2, 4)
		r.depth.use()
		r.depth.setMat4("uViewProj", scene.Mat32(vp))
		gl.BindVertexArray(r.vao)
		var l scene.DrawList
		for _, g := range fs.groups {
			var lod *scene.LOD
			if r.opt.ShadowLOD {
				lod = r.lod() // distances from the map's centre
			}
			l.BuildLOD(g.Slots, r.slotCounts, lod, g.Origin.Sub(centre), &sfr, r.opt.Layout.Near.Slots, r.opt.Layout.Near.VertsPerSlot)
			r.depth.setVec3("uOffset", rel32(g.Origin, centre))
			r.multiDraw(gl.TRIANGLES, &l, &st.Shadow)
			l.Reset()
		}
		// A map kept for more than ShadowMove of driving holds only what
		// stays put: the dynamic region (the cars, the lake patch that
		// follows the car) would leave its shadow behind.
		if fs.dynCount > 0 && r.opt.ShadowMoveShare <= 0 {
			r.depth.setVec3("uOffset", rel32(f.DynamicOrigin, centre))
			r.drawDynamic(fs)
			st.Shadow.Draws++
		}
		if fs.trees > 0 {
			r.trees.use()
			r.setLighting(r.trees, fs)
			r.trees.setFloat("uShadowOn", 0)
			r.trees.setMat4("uViewProj", scene.Mat32(vp))
			r.trees.setVec3("uOffset", rel32(f.Camera.Position, centre))
			gl.BindVertexArray(r.treeVAO)
			gl.DrawArraysInstanced(gl.TRIANGLES, 0, r.treeVerts, fs.trees)
			st.Shadow.Instanced++
		}
		r.shadow.terrain = fs.terrainOn
		if fs.terrainOn {
			r.timer.begin(gpuShadowTerrain)
			t := r.terrain
			t.shadowList.Build(t.store, centre, &sfr)
			r.terrainDepth.use()
			r.terrainDepth.setMat4("uViewProj", scene.Mat32(vp))
			t.draw(r.terrainDepth, &t.shadowList, centre, &st.Shadow)
		}
		r.timer.end()
		gl.Disable(gl.POLYGON_OFFSET_FILL)
	} else if !r.holdShadow {
		s.FramesSince++
	}
	half = max(half, 1)
	fs.shadowVP = scene.Mat32(scene.ShadowViewProj(s.Sun, half))
	fs.shadowSh = rel32(f.Camera.Position, s.Centre)
}

func (r *Renderer) depthPrepass(fs *frameState, st *Stats) {
	r.timer.begin(gpuDepth)
	gl.ColorMask(false, false, false, false)
	gl.DepthMask(true)
	gl.DepthFunc(gl.LESS)
	r.depth.use()
	r.depth.setMat4("uViewProj", scene.Mat32(fs.vp))
	gl.BindVertexArray(r.vao)
	cam := fs.f.Camera.Position
	for i, g := range fs.groups {
		r.depth.setVec3("uOffset", rel32(g.Origin, cam))
		r.drawNear(i, &st.Depth)
	}
	if fs.dynCount > 0 {
		r.depth.setVec3("uOffset", rel32(fs.f.DynamicOrigin, cam))
		r.drawDynamic(fs)
		st.Depth.Draws++
	}
	if len(fs.farGroups) > 0 && fs.farPre {
		r.timer.begin(gpuDepthFar)
		r.depthFar.use()
		r.depthFar.setMat4("uViewProj", scene.Mat32(fs.vp))
		r.drawFar(r.depthFar, fs, &st.FarDepth)
	}
	if fs.terrainOn {
		r.timer.begin(gpuDepthTerrain)
		gl.Enable(gl.CULL_FACE) // chunk faces wind counter-clockwise from outside
		r.terrainDepth.use()
		r.terrainDepth.setMat4("uViewProj", scene.Mat32(fs.vp))
		r.terrain.draw(r.terrainDepth, &r.terrain.list, cam, &st.Depth)
		gl.Disable(gl.CULL_FACE)
	}
	gl.ColorMask(true, true, true, true)
}

func (r *Renderer) mainPass(fs *frameState, st *Stats) {
	r.timer.begin(gpuMain)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(true)
	p := r.worldProgram(false, fs)
	p.use()
	r.setLighting(p, fs)
	p.setMat4("uViewProj", scene.Mat32(fs.vp))
	gl.Uniform3fv(p.loc("uPalette"), slots.PaletteSize, &fs.palette[0][0])
	p.setInt("uVertsPerSlot", int32(r.opt.Layout.Near.VertsPerSlot))
	p.setInt("uAgeTint", unitAge)
	gl.ActiveTexture(gl.TEXTURE0 + unitAge)
	gl.BindTexture(gl.TEXTURE_1D, r.ageTex)
	p.setVec4("uFlat", mgl32.Vec4{})
	sig := fs.f.Signals
	p.setVec3("uSignals", mgl32.Vec3{sig.Time, sig.Period, sig.Green})
	tint := int32(0)
	if fs.tintAge {
		tint = 1
	}
	p.setInt("uTintAge", tint)
	gl.BindVertexArray(r.vao)
	cam := fs.f.Camera.Position
	// After a pre-pass the near slots' and dynamic region's depth is in
	// already: writing it again costs the ROPs and changes nothing.
	if fs.prepass {
		gl.DepthMask(false)
	}
	for i, g := range fs.groups {
		p.setVec3("uOffset", rel32(g.Origin, cam))
		r.drawNear(i, &st.Main)
	}
	if fs.dynCount > 0 {
		p.setInt("uTintAge", 0)
		p.setVec3("uOffset", rel32(fs.f.DynamicOrigin, cam))
		r.drawDynamic(fs)
		st.Main.Draws++
	}
	gl.DepthMask(true)
	if len(fs.farGroups) > 0 {
		r.timer.begin(gpuMainFar)
		q := r.worldProgram(true, fs)
		q.use()
		r.setLighting(q, fs)
		q.setMat4("uViewProj", scene.Mat32(fs.vp))
		gl.Uniform3fv(q.loc("uPalette"), slots.PaletteSize, &fs.palette[0][0])
		q.setVec4("uFlat", mgl32.Vec4{})
		q.setInt("uTintAge", 0)
		q.setInt("uAgeTint", unitAge) // every sampler on a unit of its own type
		q.setInt("uNearMask", unitNearMask)
		// The pre-pass holds the far depth already: without depth writes the
		// discarding far program keeps early depth tests, so far fragments
		// behind near geometry cost nothing.
		if fs.farPre {
			gl.DepthMask(false)
		}
		r.drawFar(q, fs, &st.Far)
		gl.DepthMask(true)
		p.use()
	}
	r.timer.begin(gpuMainRest)
	if fs.trees > 0 {
		t := r.trees
		t.use()
		r.setLighting(t, fs)
		t.setMat4("uViewProj", scene.Mat32(fs.vp))
		t.setVec3("uOffset", mgl32.Vec3{})
		gl.BindVertexArray(r.treeVAO)
		gl.DrawArraysInstanced(gl.TRIANGLES, 0, r.treeVerts, fs.trees)
		st.Main.Instanced++
	}
	r.drawVehicles(fs, &st.Main)
	if fs.terrainOn {
		r.timer.begin(gpuMainTerrain)
		r.terrainPass(fs, &st.Main, mgl32.Vec4{})
	}
}

// wireframePass draws the same slot geometry again as lines over the
// filled city.
func (r *Renderer) wireframePass(fs *frameState, st *Stats) {
	p := r.world
	p.use()
	p.setMat4("uViewProj", scene.Mat32(fs.vp))
	p.setVec4("uFlat", mgl32.Vec4{0.05, 0.9, 0.95, 1})
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	gl.Enable(gl.POLYGON_OFFSET_LINE)
	gl.PolygonOffset(-1, -1)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(false)
	gl.BindVertexArray(r.vao)
	cam := fs.f.Camera.Position
	for i, g := range fs.groups {
		p.setVec3("uOffset", rel32(g.Origin, cam))
		r.drawNear(i, &st.Wireframe)
	}
	if fs.terrainOn {
		r.terrainPass(fs, &st.Wireframe, mgl32.Vec4{0.95, 0.85, 0.1, 1})
		p.use()
	}
	gl.Disable(gl.POLYGON_OFFSET_LINE)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.DepthMask(true)
	p.setVec4("uFlat", mgl32.Vec4{})
}

// terrainPass draws the visible chunks with the terrain program: lit, or
// in the flat colour flat when its alpha is positive (wireframe).
func (r *Renderer) terrainPass(fs *frameState, ps *PassStats, flat mgl32.Vec4) {
	p := r.terrainMain
	p.use()
	p.setMat4("uViewProj", scene.Mat32(fs.vp))
	p.setVec4("uFlat", flat)
	if flat[3] <= 0 {
		r.setLighting(p, fs)
		gl.Uniform3fv(p.loc("uPalette"), slots.PaletteSize, &fs.palette[0][0])
		gl.Uniform3fv(p.loc("uBlockColour"), int32(len(terrain.BlockColours)), &terrain.BlockColours[0][0])
	}
	gl.Enable(gl.CULL_FACE)
	r.terrain.draw(p, &r.terrain.list, fs.f.Camera.Position, ps)
	gl.Disable(gl.CULL_FACE)
}

func (r *Renderer) skyPass(fs *frameState, st *Stats) {
	p := r.sky
	p.use()
	r.setLighting(p, fs)
	inv := scene.Mat32(fs.vp.Inv())
	p.setMat4("uInvViewProj", inv)
	disc := fs.light.Dir
	size := float32(0.9996)
	if fs.light.Night > 0.99 {
		size = 0.99985 // the moon: smaller
	}
	p.setVec3("uSunDisc", mgl32.Vec3{float32(disc[0]), float32(disc[1]), float32(disc[2])})
	p.setFloat("uDiscSize", size)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(false)
	gl.BindVertexArray(r.emptyVAO)
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	st.Main.Draws++
	gl.DepthMask(true)
}

func (r *Renderer) boxesPass(fs *frameState, st *Stats, fr *frustum.Frustum) {
	r.lineData = r.lineData[:0]
	colours := [scene.MaxGroups]mgl32.Vec3{{1, 0.85, 0.1}, {0.1, 0.9, 1}}
	cam := fs.f.Camera.Position
	for gi, g := range fs.groups {
		off := g.Origin.Sub(cam)
		for i := range g.Slots {
			s := &g.Slots[i]
			if s.Slot < 0 || s.Slot >= r.opt.Layout.Near.Slots || scene.EffectiveCount(s, r.slotCounts) <= 0 {
				continue
			}
			b := scene.SlotBox(s, off)
			if !fr.IntersectsAABB(b) || len(r.lineData)/scene.LineFloats+24 > r.lineCap {
				continue
			}
			r.lineData = scene.AppendBox(r.lineData, b, colours[gi])
		}
	}
	n := int32(len(r.lineData) / scene.LineFloats)
	if n == 0 {
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, r.lineVBO)
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(r.lineData)*4, gl.Ptr(r.lineData))
	r.lines.use()
	r.lines.setMat4("uViewProj", scene.Mat32(fs.vp))
	gl.DepthFunc(gl.LEQUAL)
	gl.BindVertexArray(r.lineVAO)
	gl.DrawArrays(gl.LINES, 0, n)
	st.Overlay.Draws++
}

func (r *Renderer) hudPass(fs *frameState, st *Stats) {
	f := fs.f
	if len(f.HUD) == 0 && !f.Loading && f.Minimap == nil && f.Menu == nil && f.Player == nil {
		return
	}
	l := &r.hudLayout
	l.V = l.V[:0]
	l.Capacity = r.hudCap
	l.Dropped = 0
	l.Scale = hud.ScaleFor(fs.fbH)
	if f.Loading {
		l.ProgressBar(fs.fbW, fs.fbH, f.Progress, fmt.Sprintf("LOADING %3.0f%%", clamp01(f.Progress)*100))
	}
	l.Lines(f.HUD)
	if f.Minimap != nil && !f.Loading {
		x, y, side := l.MapRect(fs.fbW, fs.fbH)
		l.Minimap(x, y, side, f.Minimap)
	}
	if f.Player != nil && !f.Loading {
		mapBottom := float32(0)
		if f.Minimap != nil {
			_, y, side := l.MapRect(fs.fbW, fs.fbH)
			mapBottom = y + side
		}
		l.PlayerHUD(fs.fbW, fs.fbH, f.Player, mapBottom)
	}
	if f.Menu != nil {
		l.Menu(fs.fbW, fs.fbH, f.Menu)
	}
	if f.Player != nil && !f.Loading {
		l.Notice(fs.fbW, fs.fbH, f.Player)
	}
	st.HUDDropped = l.Dropped
	n := int32(len(l.V) / hud.VertexFloats)
	if n == 0 {
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, r.hudVBO)
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(l.V)*4, gl.Ptr(l.V))
	gl.Disable(gl.DEPTH_TEST)
	gl.Enable(gl.BLEND)
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	p := r.hudProg
	p.use()
	gl.Uniform2f(p.loc("uScreen"), float32(fs.fbW), float32(fs.fbH))
	p.setInt("uFont", unitFont)
	gl.ActiveTexture(gl.TEXTURE0 + unitFont)
	gl.BindTexture(gl.TEXTURE_2D, r.fontTex)
	gl.BindVertexArray(r.hudVAO)
	gl.DrawArrays(gl.TRIANGLES, 0, n)
	st.Overlay.Draws++
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
}

func clamp01(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}
