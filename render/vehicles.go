package render

import (
	"github.com/go-gl/gl/v4.1-core/gl"

	"citydrive/render/frustum"
	"citydrive/render/scene"
)

// Traffic vehicles: one small mesh of VehicleModels box-ish models, drawn
// instanced (one draw per model) from a fixed-capacity instance buffer
// refilled every frame with the vehicles in view (scene.AppendVehicles
// culls them on the CPU). Body colour per instance; head and tail lights
// glow with the night factor (dusk and night), so traffic shows its
// headlights when the street lamps come on.

// MaxVehicles is the instance buffer's capacity.
const MaxVehicles = scene.MaxVehicles

type vehicleGL struct {
	prog        *program
	vao         uint32
	mesh, inst  uint32
	first, n    [scene.VehicleModels]int32
	data        []float32
	counts      [scene.VehicleModels]int32
	coarse      [scene.VehicleModels]int32 // the last of each model's counts: coarse prefix only
	drawn       int32
	initialised bool
}

// setupVehicles makes the program, the mesh and the instance buffer.
func (r *Renderer) setupVehicles() error {
	v := &r.veh
	var err error
	if v.prog, err = newProgram("vehicles", src(vehicleVert), src(vehicleFrag)); err != nil {
		return err
	}
	mesh, first, n := scene.VehicleMesh()
	v.first, v.n = first, n
	v.vao, v.mesh = meshVAO(mesh, scene.VehicleMeshFloats)
	gl.GenBuffers(1, &v.inst)
	gl.BindBuffer(gl.ARRAY_BUFFER, v.inst)
	gl.BufferData(gl.ARRAY_BUFFER, MaxVehicles*scene.VehicleFloats*4, nil, gl.STREAM_DRAW)
	for _, a := range [...]uint32{5, 6, 7} {
		gl.EnableVertexAttribArray(a)
		gl.VertexAttribDivisor(a, 1)
	}
	v.pointInstances(0)
	v.data = make([]float32, 0, MaxVehicles*scene.VehicleFloats)
	v.initialised = true
	return glError("vehicles")
}

// pointInstances points the instance attributes at instance first (GL 4.1
// has no base instance: each model's draw starts its attributes there).
func (v *vehicleGL) pointInstances(first int32) {
	gl.BindBuffer(gl.ARRAY_BUFFER, v.inst)
	const is = scene.VehicleFloats * 4
	off := uintptr(first) * is
	gl.VertexAttribPointerWithOffset(5, 3, gl.FLOAT, false, is, off)
	gl.VertexAttribPointerWithOffset(6, 2, gl.FLOAT, false, is, off+12)
	gl.VertexAttribPointerWithOffset(7, 3, gl.FLOAT, false, is, off+20)
}

// prepareVehicles culls and uploads this frame's vehicles.
func (r *Renderer) prepareVehicles(fs *frameState, fr *frustum.Frustum, st *Stats) {
	v := &r.veh
	v.drawn = 0
	if !v.initialised || fs.f.Loading || len(fs.f.Vehicles) == 0 {
		return
	}
	var dropped int
	v.data, dropped = scene.AppendVehicles(v.data[:0], &v.counts, fs.f.Vehicles, fs.f.Camera.Position, fr, MaxVehicles)
	st.VehiclesDropped += dropped
	if len(v.data) == 0 {
		return
	}
	v.coarse = scene.SplitVehiclesByDistance(v.data, &v.counts, r.opt.VehicleDetailBeyond)
	for m, n := range v.counts {
		st.VehiclesCoarse += int(v.coarse[m])
		st.VehicleVertices += int((n-v.coarse[m])*v.n[m] + v.coarse[m]*scene.VehicleCoarseVerts)
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, v.inst)
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(v.data)*4, gl.Ptr(v.data))
	v.drawn = int32(len(v.data) / scene.VehicleFloats)
	st.Vehicles = int(v.drawn)
}

// drawVehicles draws them in the main pass (lit, shadowed by the city).
func (r *Renderer) drawVehicles(fs *frameState, ps *PassStats) {
	v := &r.veh
	if v.drawn == 0 {
		return
	}
	v.prog.use()
	r.setLighting(v.prog, fs)
	v.prog.setMat4("uViewProj", scene.Mat32(fs.vp))
	gl.BindVertexArray(v.vao)
	at := int32(0)
	for m := range scene.VehicleModels {
		coarse := v.coarse[m]
		// the near ones whole, then those beyond the detail distance with
		// their coarse prefix only
		if whole := v.counts[m] - coarse; whole > 0 {
			v.pointInstances(at)
			gl.DrawArraysInstanced(gl.TRIANGLES, v.first[m], v.n[m], whole)
			ps.Instanced++
		}
		if coarse > 0 {
			v.pointInstances(at + v.counts[m] - coarse)
			gl.DrawArraysInstanced(gl.TRIANGLES, v.first[m], scene.VehicleCoarseVerts, coarse)
			ps.Instanced++
		}
		at += v.counts[m]
	}
}

func (v *vehicleGL) delete() {
	if !v.initialised {
		return
	}
	v.prog.delete()
	bufs := []uint32{v.mesh, v.inst}
	gl.DeleteBuffers(int32(len(bufs)), &bufs[0])
	gl.DeleteVertexArrays(1, &v.vao)
}
