package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/frustum"
)

// Vehicle is one traffic vehicle to draw: the centre of its footprint on
// the road (world metres), its unit heading (X, Z), one of VehicleModels
// models and a body colour.
type Vehicle struct {
	X, Y, Z float64
	Dir     [2]float32
	Model   uint8
	Colour  [3]float32
}

// Vehicle instances: VehicleModels box-ish models drawn from one small
// mesh; per instance the camera-relative position, the heading's cosine
// and sine, and the colour.
const (
	// MaxVehicles bounds the vehicles drawn in a frame.
	MaxVehicles   = 4096
	VehicleModels = 3
	VehicleFloats = 8
	// VehicleRadius bounds every model around its centre (culling).
	VehicleRadius = 3.2
	// vehicleCentreUp is how far above its footprint a vehicle's
	// bounding sphere is centred: about half a van's height.
	vehicleCentreUp = 1.0
	// VehicleMeshFloats per mesh vertex: position, normal, part.
	VehicleMeshFloats = 7
)

// Vehicle mesh parts: the body takes the instance colour.
const (
	PartBody = iota
	PartGlass
	PartHeadlight // emissive at dusk
	PartTaillight
	PartTyre
)

// AppendVehicles appends the instances of the vehicles whose bounding
// sphere meets f (nil: all), camera-relative to cam, grouped by model:
// counts[m] instances of model m follow those of the models before it.
// At most maxInstances are kept; the rest are counted as dropped. It
// allocates nothing when dst has room. Vehicles already grouped by model
// (as the traffic frame hands them) take one pass, others one a model.
func AppendVehicles(dst []float32, counts *[VehicleModels]int32, vs []Vehicle, cam mgl64.Vec3, f *frustum.Frustum, maxInstances int) ([]float32, int) {
	*counts = [VehicleModels]int32{}
	grouped := true
	for i := 1; i < len(vs) && grouped; i++ {
		grouped = vs[i].Model%VehicleModels >= vs[i-1].Model%VehicleModels
	}
	if grouped {
		return appendVisible(dst, counts, vs, cam, f, maxInstances, 0, false)
	}
	dropped := 0
	for m := range uint8(VehicleModels) {
		var d int
		dst, d = appendVisible(dst, counts, vs, cam, f, maxInstances, m, true)
		dropped += d
	}
	return dst, dropped
}

// appendVisible is AppendVehicles' pass over vs, of model only alone when
// filter is set.
func appendVisible(dst []float32, counts *[VehicleModels]int32, vs []Vehicle, cam mgl64.Vec3, f *frustum.Frustum, maxInstances int, only uint8, filter bool) ([]float32, int) {
	dropped := 0
	// the planes as plain numbers, the sphere's centre vehicleCentreUp
	// up folded into D: a few hundred vehicles a frame go through them
	var pl [6][4]float64
	for i := range pl {
		if f == nil {
			pl[i] = [4]float64{0, 0, 0, math.Inf(1)}
			continue
		}
		p := &f.Planes[i]
		pl[i] = [4]float64{p.N[0], p.N[1], p.N[2], p.D + p.N[1]*vehicleCentreUp + VehicleRadius}
	}
	for i := range vs {
		v := &vs[i]
		m := v.Model % VehicleModels
		if filter && m != only {
			continue
		}
		x, y, z := v.X-cam[0], v.Y-cam[1], v.Z-cam[2]
		if pl[0][0]*x+pl[0][1]*y+pl[0][2]*z+pl[0][3] < 0 || pl[1][0]*x+pl[1][1]*y+pl[1][2]*z+pl[1][3] < 0 ||
			pl[2][0]*x+pl[2][1]*y+pl[2][2]*z+pl[2][3] < 0 || pl[3][0]*x+pl[3][1]*y+pl[3][2]*z+pl[3][3] < 0 ||
			pl[4][0]*x+pl[4][1]*y+pl[4][2]*z+pl[4][3] < 0 || pl[5][0]*x+pl[5][1]*y+pl[5][2]*z+pl[5][3] < 0 {
			continue // the bounding sphere is outside a plane
		}
		if len(dst)/VehicleFloats >= maxInstances {
			dropped++
			continue
		}
		dst = append(dst, float32(x), float32(y), float32(z), v.Dir[0], v.Dir[1],
			v.Colour[0], v.Colour[1], v.Colour[2])
		counts[m]++
	}
	return dst, dropped
}

// BlocksChaseView reports whether a vehicle standing at foot (the centre
// of its footprint) comes between a chase camera at eye and the car it
// follows, standing at car: whether its bounding sphere (VehicleRadius
// about the centre vehicleCentreUp above foot, as AppendVehicles culls)
// holds the eye or meets the segment from the eye to the car's centre
// (lifted alike).
func BlocksChaseView(eye, car, foot mgl64.Vec3) bool {
	up := mgl64.Vec3{0, vehicleCentreUp, 0}
	c, at := foot.Add(up), car.Add(up)
	d, w := at.Sub(eye), c.Sub(eye)
	t := 0.0 // the eye itself when the car is there too
	if dd := d.Dot(d); dd > 0 {
		t = max(0, min(1, w.Dot(d)/dd))
	}
	gap := w.Sub(d.Mul(t)) // from the segment's nearest point to the centre
	return gap.Dot(gap) <= VehicleRadius*VehicleRadius
}

// VehiclesClearOfChaseView appends to dst the vehicles of vs that do not
// block a chase camera's view of its car (BlocksChaseView), in order
// (grouped by model stays grouped): a real game hides a vehicle that
// comes between them, as traffic queued right behind the car does (it
// stops 2 m short, under a camera 9 m back: its roof would fill the
// bottom of the screen). It allocates nothing when dst has room.
func VehiclesClearOfChaseView(dst, vs []Vehicle, eye, car mgl64.Vec3) []Vehicle {
	for i := range vs {
		if !BlocksChaseView(eye, car, mgl64.Vec3{vs[i].X, vs[i].Y, vs[i].Z}) {
			dst = append(dst, vs[i])
		}
	}
	return dst
}

// VehicleCoarseVerts is the coarse prefix of every model's vertices in
// VehicleMesh: the body, the cabin and its roof, and the four lights'
// outward faces (at dusk a light glows a pixel however small). What
// follows are the details: the lights' other faces (5 cm deep) and tyres
// that show 0.28 m below the body, under the 0.45 m that
// slots.DetailBeyond takes to span 3 pixels, so far enough away a vehicle
// draws only the prefix.
const VehicleCoarseVerts = 3*6*faceVerts + 4*faceVerts

// faceVerts are a box face's vertices: two triangles.
const faceVerts = 6

// SplitVehiclesByDistance reorders each model's run of AppendVehicles'
// instances (dst, counts) so that those wholly farther than beyond from
// the camera (their bounding sphere) come last, and returns how many of
// each model's run they are: drawn with the coarse prefix only. beyond 0
// splits nothing. It allocates nothing.
func SplitVehiclesByDistance(dst []float32, counts *[VehicleModels]int32, beyond float64) (coarse [VehicleModels]int32) {
	if beyond <= 0 {
		return coarse
	}
	r := beyond + VehicleRadius
	r2 := float32(r * r)
	far := func(i int) bool {
		x, y, z := dst[i*VehicleFloats], dst[i*VehicleFloats+1], dst[i*VehicleFloats+2]
		return x*x+y*y+z*z > r2
	}
	at := 0
	for m, n := range counts {
		// near instances to the front, far ones to the back of the run
		lo, hi := at, at+int(n)-1
		for lo <= hi {
			switch {
			case !far(lo):
				lo++
			case far(hi):
				hi--
			default:
				a, b := dst[lo*VehicleFloats:(lo+1)*VehicleFloats], dst[hi*VehicleFloats:(hi+1)*VehicleFloats]
				for k := range a {
					a[k], b[k] = b[k], a[k]
				}
				lo++
				hi--
			}
		}
		coarse[m] = int32(at + int(n) - lo)
		at += int(n)
	}
	return coarse
}

// vehicleDims are each model's length, width, body height, cabin start
// and end (fractions of the length from the rear) and cabin height.
var vehicleDims = [VehicleModels][6]float64{
	{4.2, 1.8, 0.75, 0.25, 0.75, 0.6},  // saloon
	{4.0, 1.8, 0.8, 0.12, 0.72, 0.65},  // hatchback
	{4.6, 1.95, 1.1, 0.05, 0.82, 0.75}, // van
}

// VehicleMesh returns the models' triangles (VehicleMeshFloats per
// vertex, +X forward, Y up, centred on the footprint) and where each
// model's vertices start and how many there are. Each model's first
// VehicleCoarseVerts are its body, cabin, roof and the lights' outward
// faces; its details follow.
func VehicleMesh() (mesh []float32, first, count [VehicleModels]int32) {
	for m, d := range vehicleDims {
		first[m] = int32(len(mesh) / VehicleMeshFloats)
		l, w, bh, c0, c1, ch := d[0], d[1], d[2], d[3], d[4], d[5]
		const clear = 0.28 // the body's underside above the road
		mesh = appendBox(mesh, -l/2, l/2, clear, clear+bh, -w/2, w/2, PartBody)
		// the cabin, a little narrower, with glass all round
		x0, x1 := -l/2+c0*l, -l/2+c1*l
		mesh = appendBox(mesh, x0, x1, clear+bh, clear+bh+ch, -w/2+0.1, w/2-0.1, PartGlass)
		mesh = appendBox(mesh, x0+0.15, x1-0.15, clear+bh+ch, clear+bh+ch+0.04, -w/2+0.15, w/2-0.15, PartBody)
		// lights: thin slabs on the nose and the tail, near the corners;
		// their outward faces in the coarse prefix (a light's glow is a
		// pixel at dusk however far), the rest with the details
		var lights [4][6]float64
		for i, side := range [2]float64{-1, 1} {
			z0, z1 := side*(w/2-0.45), side*(w/2-0.1)
			if z0 > z1 {
				z0, z1 = z1, z0
			}
			lights[2*i] = [6]float64{l / 2, l/2 + 0.05, clear + bh - 0.3, clear + bh - 0.1, z0, z1}
			lights[2*i+1] = [6]float64{-l/2 - 0.05, -l / 2, clear + bh - 0.3, clear + bh - 0.12, z0, z1}
		}
		lightPart := func(i int) (part, outward int) {
			if i%2 == 0 {
				return PartHeadlight, facePlusX
			}
			return PartTaillight, faceMinusX
		}
		for i, b := range lights {
			part, out := lightPart(i)
			mesh = appendBoxFaces(mesh, b[0], b[1], b[2], b[3], b[4], b[5], part, out)
		}
		for i, b := range lights {
			part, out := lightPart(i)
			mesh = appendBoxFaces(mesh, b[0], b[1], b[2], b[3], b[4], b[5], part, allFaces&^out)
		}
		// tyres
		for _, x := range [2]float64{-l/2 + 0.75, l/2 - 0.75} {
			for _, side := range [2]float64{-1, 1} {
				z0, z1 := side*w/2-0.12, side*w/2+0.02
				if side < 0 {
					z0, z1 = -w/2-0.02, -w/2+0.12
				}
				mesh = appendBox(mesh, x-0.33, x+0.33, 0, 0.62, z0, z1, PartTyre)
			}
		}
		count[m] = int32(len(mesh)/VehicleMeshFloats) - first[m]
	}
	return mesh, first, count
}

// appendBox appends the six faces of an axis-aligned box.
func appendBox(dst []float32, x0, x1, y0, y1, z0, z1 float64, part int) []float32 {
	return appendBoxFaces(dst, x0, x1, y0, y1, z0, z1, part, allFaces)
}

// Faces of appendBoxFaces, as bits.
const (
	facePlusX = 1 << iota
	faceMinusX
	facePlusY
	faceMinusY
	facePlusZ
	faceMinusZ
	allFaces = 1<<6 - 1
)

// appendBoxFaces appends the faces of an axis-aligned box that faces
// (bits) names, each two triangles (faceVerts vertices).
func appendBoxFaces(dst []float32, x0, x1, y0, y1, z0, z1 float64, part, faces int) []float32 {
	type v3 = [3]float64
	bit := 1
	face := func(n v3, a, b, c, d v3) {
		if faces&bit != 0 {
			for _, p := range [faceVerts]v3{a, b, c, a, c, d} {
				dst = append(dst, float32(p[0]), float32(p[1]), float32(p[2]),
					float32(n[0]), float32(n[1]), float32(n[2]), float32(part))
			}
		}
		bit <<= 1
	}
	face(v3{1, 0, 0}, v3{x1, y0, z0}, v3{x1, y1, z0}, v3{x1, y1, z1}, v3{x1, y0, z1})
	face(v3{-1, 0, 0}, v3{x0, y0, z1}, v3{x0, y1, z1}, v3{x0, y1, z0}, v3{x0, y0, z0})
	face(v3{0, 1, 0}, v3{x0, y1, z0}, v3{x0, y1, z1}, v3{x1, y1, z1}, v3{x1, y1, z0})
	face(v3{0, -1, 0}, v3{x0, y0, z0}, v3{x1, y0, z0}, v3{x1, y0, z1}, v3{x0, y0, z1})
	face(v3{0, 0, 1}, v3{x0, y0, z1}, v3{x1, y0, z1}, v3{x1, y1, z1}, v3{x0, y1, z1})
	face(v3{0, 0, -1}, v3{x0, y0, z0}, v3{x0, y1, z0}, v3{x1, y1, z0}, v3{x1, y0, z0})
	return dst
}
