//go:build js && wasm

package webgl

import (
	"fmt"
	"syscall/js"

	"citydrive/render/frustum"
	"citydrive/render/glsl"
	"citydrive/render/scene"
	"citydrive/render/terrain"
)

// The sun's shadow map, the desktop's (render/draw.go shadowPass) made
// cheaper: 1024² (the desktop's software profile; 2048² in full) over the
// same 160 m, one filtered read a pixel in the world programs
// (SHADOW_ONE_TAP; trees, traffic and ground keep four), re-drawn by the
// desktop's policy (scene.ShadowState: 8 m of camera, 0.5° of sun, or 20
// frames after the slots or the ground changed). Near slots, the dynamic
// region, trees and the voxel ground cast; the far tier and traffic do
// not (as on the desktop).
const (
	shadowSize  = 1024
	shadowRange = 160.0 // half the map's side, metres
)

type shadowGL struct {
	tex, fbo     js.Value
	depth        *program // slots and the dynamic region
	treeDepth    *program
	terrainDepth *program
	state        scene.ShadowState
	list         scene.DrawList
	terrainList  terrain.List
	slotsChanged bool
	terrainOn    bool // the last map held the ground
}

func (d *Display) setupShadow() error {
	s := &d.shadow
	var err error
	if s.depth, err = d.link("depth", glsl.Source(glsl.ES, nil, glsl.DepthVert), glsl.Source(glsl.ES, nil, glsl.DepthFrag)); err != nil {
		return err
	}
	// Trees cast with a depth-only program: the lit one samples the shadow
	// map, which WebGL refuses while it is the target (a feedback loop).
	if s.treeDepth, err = d.link("tree depth", glsl.Source(glsl.ES, nil, glsl.TreeVert), glsl.Source(glsl.ES, nil, glsl.DepthFrag)); err != nil {
		return err
	}
	if s.terrainDepth, err = d.link("terrain depth", glsl.Source(glsl.ES, nil, glsl.TerrainDepthVert), glsl.Source(glsl.ES, nil, glsl.DepthFrag)); err != nil {
		return err
	}
	gl := d.gl
	s.tex = gl.Call("createTexture")
	gl.Call("activeTexture", glTexture0+unitShadow)
	gl.Call("bindTexture", glTexture2D, s.tex)
	gl.Call("texStorage2D", glTexture2D, 1, glDepthComponent24, shadowSize, shadowSize)
	gl.Call("texParameteri", glTexture2D, glTexMinFilter, glLinear)
	gl.Call("texParameteri", glTexture2D, glTexMagFilter, glLinear)
	gl.Call("texParameteri", glTexture2D, glTexWrapS, glClampToEdge)
	gl.Call("texParameteri", glTexture2D, glTexWrapT, glClampToEdge)
	gl.Call("texParameteri", glTexture2D, glTexCompareMode, glCompareRefToTex)
	gl.Call("texParameteri", glTexture2D, glTexCompareFunc, glLEqual)
	s.fbo = gl.Call("createFramebuffer")
	gl.Call("bindFramebuffer", glFramebuffer, s.fbo)
	gl.Call("framebufferTexture2D", glFramebuffer, glDepthAttachment, glTexture2D, s.tex, 0)
	none := js.Global().Get("Array").New()
	none.Call("push", glNone)
	gl.Call("drawBuffers", none)
	gl.Call("readBuffer", glNone)
	st := gl.Call("checkFramebufferStatus", glFramebuffer).Int()
	gl.Call("bindFramebuffer", glFramebuffer, js.Null())
	if st != glFramebufferDone {
		return fmt.Errorf("webgl: shadow map framebuffer incomplete (%#x)", st)
	}
	return nil
}

// shadowPass re-draws the map when the policy says so and sets the
// frame's shadow uniforms' values (fs.shadow*).
func (d *Display) shadowPass(fs *frameState, st *scene.Stats) {
	f := fs.f
	if f.Loading || fs.light.SunHeight < -0.05 {
		return
	}
	fs.shadowOn = true
	s := &d.shadow
	s.state.Dirty = s.state.Dirty || s.slotsChanged || d.terrain.changed || fs.terrainOn != s.terrainOn
	s.slotsChanged, d.terrain.changed = false, false
	centre := scene.ShadowCentre(f.Camera, shadowRange)
	if s.state.NeedsRefresh(centre, fs.light.Dir) {
		st.ShadowRefreshed = true
		d.shadowRefreshes++
		s.state = scene.ShadowState{Valid: true, Centre: centre, Sun: fs.light.Dir}
		vp := scene.ShadowViewProj(fs.light.Dir, shadowRange)
		vp32 := scene.Mat32(vp)
		sfr := frustum.FromViewProj(vp)
		gl := d.gl
		gl.Call("bindFramebuffer", glFramebuffer, s.fbo)
		gl.Call("viewport", 0, 0, shadowSize, shadowSize)
		gl.Call("depthMask", true)
		gl.Call("clear", glDepthBufferBit)
		gl.Call("depthFunc", glLess)
		gl.Call("enable", glPolygonOffsetFill)
		gl.Call("polygonOffset", 2, 4)
		p := s.depth
		gl.Call("useProgram", p.p)
		p.setMat4("uViewProj", vp32)
		gl.Call("bindVertexArray", d.vao)
		near := d.layout.Near
		for _, g := range fs.groups {
			s.list.Reset()
			s.list.Build(g.Slots, d.counts, g.Origin.Sub(centre), &sfr, near.Slots, near.VertsPerSlot)
			p.setVec3("uOffset", scene.Relative(g.Origin, centre))
			d.multiDraw(&s.list, &st.Shadow)
		}
		if fs.dynCount > 0 {
			p.setVec3("uOffset", scene.Relative(f.DynamicOrigin, centre))
			gl.Call("drawArrays", glTriangles, d.layout.DynamicFirst(), fs.dynCount)
			st.Shadow.Draws++
		}
		if fs.trees > 0 {
			t := s.treeDepth
			gl.Call("useProgram", t.p)
			t.setMat4("uViewProj", vp32)
			t.setVec3("uOffset", scene.Relative(f.Camera.Position, centre))
			d.drawTrees(fs, &st.Shadow)
		}
		s.terrainOn = fs.terrainOn
		if fs.terrainOn {
			s.terrainList.Build(d.terrain.store, centre, &sfr)
			q := s.terrainDepth
			gl.Call("useProgram", q.p)
			q.setMat4("uViewProj", vp32)
			d.drawTerrain(q, &s.terrainList, fs, true, &st.Shadow)
		}
		d.lastShadowVerts = st.Shadow.Vertices
		gl.Call("disable", glPolygonOffsetFill)
		gl.Call("bindFramebuffer", glFramebuffer, js.Null())
	} else {
		s.state.FramesSince++
	}
	fs.shadowVP = scene.Mat32(scene.ShadowViewProj(s.state.Sun, shadowRange))
	fs.shadowShift = scene.Relative(f.Camera.Position, s.state.Centre)
}
