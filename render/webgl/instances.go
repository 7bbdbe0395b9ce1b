//go:build js && wasm

package webgl

import (
	"syscall/js"
	"unsafe"

	"citydrive/render/frustum"
	"citydrive/render/glsl"
	"citydrive/render/scene"
)

// Trees and traffic vehicles: each one small mesh drawn instanced from an
// instance buffer refilled every frame with what passes the frustum, as
// on the desktop (render/vehicles.go, render/draw.go), with the same
// shaders. WebGL2 has no base instance either, so each vehicle model's
// draw points the instance attributes at its first instance.

// maxTrees bounds the tree instances a frame draws (a few hundred are in
// view; the desktop's 65,536 would be a 1.3 MB buffer for nothing).
const maxTrees = 8192

// instanced is one mesh, its vertex array and its instance buffer.
type instanced struct {
	prog      *program
	vao, inst js.Value
	data      []float32
}

// meshVAO makes a vertex array over mesh (position, normal, part: 7
// floats a vertex, scene.TreeMeshFloats = scene.VehicleMeshFloats) and an
// instance buffer of capBytes.
func (d *Display) meshVAO(mesh []float32, capBytes int) (vao, inst js.Value) {
	gl := d.gl
	vao = gl.Call("createVertexArray")
	gl.Call("bindVertexArray", vao)
	vbo := gl.Call("createBuffer")
	gl.Call("bindBuffer", glArrayBuffer, vbo)
	b := floatBytes(mesh)
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	gl.Call("bufferData", glArrayBuffer, arr, glStaticDraw)
	const stride = scene.TreeMeshFloats * 4
	gl.Call("enableVertexAttribArray", 0)
	gl.Call("vertexAttribPointer", 0, 3, glFloat, false, stride, 0)
	gl.Call("enableVertexAttribArray", 1)
	gl.Call("vertexAttribPointer", 1, 3, glFloat, false, stride, 12)
	gl.Call("enableVertexAttribArray", 2)
	gl.Call("vertexAttribPointer", 2, 1, glFloat, false, stride, 24)
	inst = gl.Call("createBuffer")
	gl.Call("bindBuffer", glArrayBuffer, inst)
	gl.Call("bufferData", glArrayBuffer, capBytes, glStreamDraw)
	return vao, inst
}

func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
}

// treesGL draws the build results' trees.
type treesGL struct {
	instanced
	verts int
}

func (d *Display) setupTrees() error {
	t := &d.trees
	var err error
	if t.prog, err = d.link("trees", glsl.Source(glsl.ES, nil, glsl.TreeVert), glsl.Source(glsl.ES, nil, glsl.TreeFrag)); err != nil {
		return err
	}
	mesh := scene.TreeMesh()
	t.verts = len(mesh) / scene.TreeMeshFloats
	t.vao, t.inst = d.meshVAO(mesh, maxTrees*scene.TreeFloats*4)
	gl := d.gl
	const is = scene.TreeFloats * 4
	gl.Call("enableVertexAttribArray", 5)
	gl.Call("vertexAttribPointer", 5, 3, glFloat, false, is, 0)
	gl.Call("vertexAttribDivisor", 5, 1)
	gl.Call("enableVertexAttribArray", 6)
	gl.Call("vertexAttribPointer", 6, 2, glFloat, false, is, 12)
	gl.Call("vertexAttribDivisor", 6, 1)
	t.data = make([]float32, 0, maxTrees*scene.TreeFloats)
	return nil
}

// prepareTrees gathers and uploads the trees of the frame's groups that
// pass fr; it returns how many.
func (d *Display) prepareTrees(fs *frameState, fr *frustum.Frustum, st *scene.Stats) int {
	t := &d.trees
	t.data = t.data[:0]
	cam := fs.f.Camera.Position
	for _, g := range fs.groups {
		var dropped int
		t.data, dropped = scene.AppendTrees(t.data, g.Slots, d.counts, g.Origin.Sub(cam), fr, maxTrees)
		st.TreesDropped += dropped
	}
	n := len(t.data) / scene.TreeFloats
	if n > 0 {
		d.bufferFloats(t.inst, t.data)
	}
	st.Trees = n
	return n
}

// drawTrees draws fs.trees instances with the program set up for the
// pass (vp, offset: the camera's position minus the pass's eye).
func (d *Display) drawTrees(fs *frameState, ps *scene.PassStats) {
	t := &d.trees
	if fs.trees == 0 {
		return
	}
	d.gl.Call("bindVertexArray", t.vao)
	d.gl.Call("drawArraysInstanced", glTriangles, 0, t.verts, fs.trees)
	ps.Instanced++
}

// vehiclesGL draws Frame.Vehicles.
type vehiclesGL struct {
	instanced
	first, n [scene.VehicleModels]int32
	counts   [scene.VehicleModels]int32
	drawn    int
}

func (d *Display) setupVehicles() error {
	v := &d.vehicles
	var err error
	if v.prog, err = d.link("vehicles", glsl.Source(glsl.ES, nil, glsl.VehicleVert), glsl.Source(glsl.ES, nil, glsl.VehicleFrag)); err != nil {
		return err
	}
	mesh, first, n := scene.VehicleMesh()
	v.first, v.n = first, n
	v.vao, v.inst = d.meshVAO(mesh, scene.MaxVehicles*scene.VehicleFloats*4)
	for _, a := range [...]int{5, 6, 7} {
		d.gl.Call("enableVertexAttribArray", a)
		d.gl.Call("vertexAttribDivisor", a, 1)
	}
	v.point(d.gl, 0)
	v.data = make([]float32, 0, scene.MaxVehicles*scene.VehicleFloats)
	return nil
}

// point aims the instance attributes at instance first (inst bound).
func (v *vehiclesGL) point(gl js.Value, first int) {
	gl.Call("bindBuffer", glArrayBuffer, v.inst)
	const is = scene.VehicleFloats * 4
	off := first * is
	gl.Call("vertexAttribPointer", 5, 3, glFloat, false, is, off)
	gl.Call("vertexAttribPointer", 6, 2, glFloat, false, is, off+12)
	gl.Call("vertexAttribPointer", 7, 3, glFloat, false, is, off+20)
}

// prepareVehicles culls and uploads the frame's vehicles.
func (d *Display) prepareVehicles(fs *frameState, fr *frustum.Frustum, st *scene.Stats) {
	v := &d.vehicles
	v.drawn = 0
	if fs.f.Loading || len(fs.f.Vehicles) == 0 {
		return
	}
	var dropped int
	v.data, dropped = scene.AppendVehicles(v.data[:0], &v.counts, fs.f.Vehicles, fs.f.Camera.Position, fr, scene.MaxVehicles)
	st.VehiclesDropped += dropped
	if len(v.data) == 0 {
		return
	}
	d.bufferFloats(v.inst, v.data)
	v.drawn = len(v.data) / scene.VehicleFloats
	st.Vehicles = v.drawn
}

// drawVehicles draws them lit in the main pass, one draw a model.
func (d *Display) drawVehicles(fs *frameState, ps *scene.PassStats) {
	v := &d.vehicles
	if v.drawn == 0 {
		return
	}
	gl := d.gl
	p := v.prog
	gl.Call("useProgram", p.p)
	d.setLighting(p, fs)
	p.setMat4("uViewProj", fs.vp32)
	gl.Call("bindVertexArray", v.vao)
	at := 0
	for m := range scene.VehicleModels {
		if c := int(v.counts[m]); c > 0 {
			v.point(gl, at)
			gl.Call("drawArraysInstanced", glTriangles, v.first[m], v.n[m], c)
			ps.Instanced++
		}
		at += int(v.counts[m])
	}
}

// bufferFloats writes f at the start of buffer buf, through the staging
// array.
func (d *Display) bufferFloats(buf js.Value, f []float32) {
	b := floatBytes(f)
	s := d.stage(len(b))
	js.CopyBytesToJS(s, b)
	d.gl.Call("bindBuffer", glArrayBuffer, buf)
	d.gl.Call("bufferSubData", glArrayBuffer, 0, s, 0, len(b))
}
