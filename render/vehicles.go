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
	drawn       int32
	initialised bool
}

const vehicleVert = `
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aPart;
layout(location = 5) in vec3 iPos;
layout(location = 6) in vec2 iCosSin;
layout(location = 7) in vec3 iColour;

uniform mat4 uViewProj;
uniform mat4 uShadowVP;
uniform vec3 uShadowShift;

out vec3 vRel;
out vec3 vNormal;
out vec3 vColour;
flat out int vPart;
out vec3 vShadow;

void main() {
	// heading from +X towards +Z
	mat2 r = mat2(iCosSin.x, iCosSin.y, -iCosSin.y, iCosSin.x);
	vec3 p = aPos;
	p.xz = r * p.xz;
	vec3 n = aNormal;
	n.xz = r * n.xz;
	vec3 rel = iPos + p;
	gl_Position = uViewProj * vec4(rel, 1.0);
	vRel = rel;
	vNormal = n;
	vColour = iColour;
	vPart = int(aPart + 0.5);
	vShadow = (uShadowVP * vec4(rel + uShadowShift, 1.0)).xyz * 0.5 + 0.5;
}
`

const vehicleFrag = lightingGLSL + `
in vec3 vRel;
in vec3 vNormal;
in vec3 vColour;
flat in int vPart;
in vec3 vShadow;
out vec4 oColour;
void main() {
	vec3 n = normalize(vNormal);
	vec3 view = normalize(-vRel);
	vec3 col;
	if (vPart == 0) { // body: the instance colour, a little gloss
		col = shade(vColour, n, 1.0, shadowAt(vShadow));
		vec3 h = normalize(uSunDir + view);
		col += uSunColour * pow(max(dot(n, h), 0.0), 40.0) * 0.35;
		// the street lamps light the traffic too (the city's streets are lit
		// along their kerbs; a vehicle is always on a street)
		col += vColour * vec3(1.0, 0.78, 0.45) * 0.35 * uNight * (0.6 + 0.4 * max(n.y, 0.0));
	} else if (vPart == 1) { // glass: dark, reflecting the sky
		col = shade(vec3(0.06, 0.08, 0.1), n, 1.0, 1.0) + 0.25 * skyColour(reflect(-view, n)) * (1.0 - 0.7 * uNight);
	} else if (vPart == 2) { // headlights
		col = mix(vec3(0.75, 0.75, 0.7), vec3(1.0, 0.95, 0.8) * 3.0, uNight);
	} else if (vPart == 3) { // tail lights
		col = mix(vec3(0.45, 0.05, 0.04), vec3(1.0, 0.1, 0.06) * 2.0, uNight);
	} else { // tyres
		col = shade(vec3(0.04), n, 1.0, 1.0);
	}
	oColour = vec4(fogged(col, vRel), 1.0);
}
`

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
		if v.counts[m] > 0 {
			v.pointInstances(at)
			gl.DrawArraysInstanced(gl.TRIANGLES, v.first[m], v.n[m], v.counts[m])
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
