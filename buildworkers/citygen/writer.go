package citygen

import (
	"math"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// vec3 is a world position or direction in metres, float64 so far-out
// coordinates stay exact until the origin is subtracted.
type vec3 struct{ x, y, z float64 }

func (a vec3) sub(b vec3) vec3 { return vec3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec3) add(b vec3) vec3 { return vec3{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec3) scale(s float64) vec3 {
	return vec3{a.x * s, a.y * s, a.z * s}
}
func (a vec3) dot(b vec3) float64 { return a.x*b.x + a.y*b.y + a.z*b.z }
func cross(a, b vec3) vec3 {
	return vec3{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}
func (a vec3) norm() vec3 {
	l := math.Sqrt(a.dot(a))
	if l == 0 {
		return vec3{0, 1, 0}
	}
	return vec3{a.x / l, a.y / l, a.z / l}
}

// at lifts a horizontal point to height y.
func at(p world.Vec2, y float64) vec3 { return vec3{p.X, y, p.Z} }

// hz is a horizontal direction as a 3D vector.
func hz(d world.Vec2) vec3 { return vec3{d.X, 0, d.Z} }

var up = vec3{0, 1, 0}

// frameMode says how the street frame of each vertex is computed.
const (
	frameRoad     = iota // along/across relative to the segment's road line
	frameJunction        // along = distance from the junction centre
	frameFacade          // far facades: along the face, height above its base
	frameSignal          // signal lamps: along = the approach's signal offset (s)
)

// writer appends vertices in the slot format straight into a scratch
// buffer. When the scratch is full it keeps counting without writing, so an
// overflowing build is measured, never silently cut.
type writer struct {
	buf    []uint32 // slots.WordsPerVertex words per vertex
	n      int      // vertices emitted (may exceed limit)
	limit  int      // vertices the scratch holds
	origin vec3

	// With details on, triangles under slots.DetailArea go to dbuf (nd
	// vertices) instead, marked with slots.DetailBit, and finish appends
	// them after the nc coarse ones: see slots/detail.go.
	details bool
	detail  bool // the triangle being written is a detail
	dbuf    []uint32
	nc, nd  int

	col                [3]float32
	mat, variant, occl float32

	mode      int
	roadP     world.Vec2 // road line origin (segment start node)
	roadT     world.Vec2 // road tangent
	roadN     world.Vec2 // road left normal
	roadS     float64    // distance along the road at roadP
	frameZ    float32    // halfWidth + lampFlags*LampFlagScale
	junctionP world.Vec2
	// signalOffset is frameSignal's along: traffic.SignalOffset.
	signalOffset float64
	facadeP      world.Vec2 // frameFacade: the face's first corner,
	facadeT      world.Vec2 // its direction,
	facadeY      float64    // and its base height

	min, max [3]float64 // bounds relative to origin
	// the last normal and colour packed, and their words (see vert)
	packed bool
	packN  vec3
	packNW uint32
	packC  [3]float32
	packCW uint32
	// and the street frame's second word
	packedF       bool
	packFZ, packO float32
	packFW        uint32
}

func (w *writer) reset(origin [3]float64) {
	w.n, w.nc, w.nd = 0, 0, 0
	w.detail = false
	w.origin = vec3{origin[0], origin[1], origin[2]}
	w.min = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	w.max = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	w.occl = 1
	w.variant = 0
	w.mat = slots.MaterialDefault
}

func (w *writer) rgb(r, g, b float32) { w.col = [3]float32{r, g, b} }

// pal selects palette entry i (negative red) keeping a dry tint in G and B.
func (w *writer) pal(i int, g, b float32) { w.col = [3]float32{slots.PaletteRed(i), g, b} }

func (w *writer) vert(p, n vec3) {
	x, y, z := p.x-w.origin.x, p.y-w.origin.y, p.z-w.origin.z
	if w.n < w.limit {
		var along, across float64
		if w.mode == frameRoad {
			dx, dz := p.x-w.roadP.X, p.z-w.roadP.Z
			along = w.roadS + dx*w.roadT.X + dz*w.roadT.Z
			across = dx*w.roadN.X + dz*w.roadN.Z
		} else if w.mode == frameSignal {
			along = w.signalOffset
		} else if w.mode == frameFacade {
			along = (p.x-w.facadeP.X)*w.facadeT.X + (p.z-w.facadeP.Z)*w.facadeT.Z
			across = p.y - w.facadeY
		} else {
			along = math.Hypot(p.x-w.junctionP.X, p.z-w.junctionP.Z)
		}
		var b []uint32
		if w.detail {
			o := w.nd * slots.WordsPerVertex
			b = w.dbuf[o : o+slots.WordsPerVertex : o+slots.WordsPerVertex]
			w.nd++
		} else {
			o := w.nc * slots.WordsPerVertex
			b = w.buf[o : o+slots.WordsPerVertex : o+slots.WordsPerVertex]
			w.nc++
		}
		b[0], b[1] = slots.PackPos(x, y, z)
		// A quad's six vertices share a normal and a colour: pack each once.
		if !w.packed || n != w.packN {
			w.packN, w.packNW = n, slots.PackNormal(float32(n.x), float32(n.y), float32(n.z))
		}
		if !w.packed || w.col != w.packC {
			w.packC, w.packCW = w.col, slots.PackColour(w.col[0], w.col[1], w.col[2])
		}
		w.packed = true
		b[2] = w.packCW
		b[3] = slots.PackMaterial(w.packNW, int(w.mat+0.5), w.variant)
		if !w.packedF || w.frameZ != w.packFZ || w.occl != w.packO {
			w.packFZ, w.packO, w.packFW, w.packedF = w.frameZ, w.occl, slots.PackFrame(w.frameZ, w.occl), true
		}
		b[4], b[5] = slots.PackAlongAcross(along, across), w.packFW
		if w.detail {
			b[slots.DetailWord] |= slots.DetailBit
		}
	}
	w.n++
	if x < w.min[0] {
		w.min[0] = x
	}
	if x > w.max[0] {
		w.max[0] = x
	}
	if y < w.min[1] {
		w.min[1] = y
	}
	if y > w.max[1] {
		w.max[1] = y
	}
	if z < w.min[2] {
		w.min[2] = z
	}
	if z > w.max[2] {
		w.max[2] = z
	}
}

// detailArea2 is (2 × slots.DetailArea)²: a triangle's |cross|² below it
// (twice its area, squared) makes it a detail.
const detailArea2 = 4 * slots.DetailArea * slots.DetailArea

// triN emits a triangle facing n, fixing the winding so the front is n's side.
func (w *writer) triN(a, b, c, n vec3) {
	cr := cross(b.sub(a), c.sub(a))
	if cr.dot(n) < 0 {
		b, c = c, b
	}
	w.detail = w.details && cr.dot(cr) < detailArea2
	w.vert(a, n)
	w.vert(b, n)
	w.vert(c, n)
	w.detail = false
}

// quadN emits the quad a-b-c-d (a loop) facing n (unit), winding fixed to n.
func (w *writer) quadN(a, b, c, d, n vec3) {
	cr := cross(b.sub(a), c.sub(a))
	// Both halves go together: a quad is a detail when each half (a-b-c
	// and a-c-d, whichever way it winds) is small; |cross| is twice the area.
	if w.details && cr.dot(cr) < detailArea2 {
		cr2 := cross(c.sub(a), d.sub(a))
		w.detail = cr2.dot(cr2) < detailArea2
	}
	if cr.dot(n) < 0 {
		b, d = d, b
	}
	w.vert(a, n)
	w.vert(b, n)
	w.vert(c, n)
	w.vert(a, n)
	w.vert(c, n)
	w.vert(d, n)
	w.detail = false
}

// finish puts the detail vertices after the coarse ones (when the build
// fits the scratch) and returns the coarse count.
func (w *writer) finish() int {
	if w.nd > 0 && w.n <= w.limit {
		copy(w.buf[w.nc*slots.WordsPerVertex:], w.dbuf[:w.nd*slots.WordsPerVertex])
	}
	return w.nc
}

// quadUp emits a roughly horizontal quad facing up with its geometric normal.
func (w *writer) quadUp(a, b, c, d vec3) {
	n := cross(c.sub(a), d.sub(b)).norm()
	if n.y < 0 {
		n = n.scale(-1)
	}
	w.quadN(a, b, c, d, n)
}

// frame is a local horizontal frame: u along a, v along d, y up.
type frame struct {
	o    world.Vec2
	a, d world.Vec2 // unit, perpendicular
}

func (f *frame) p(u, y, v float64) vec3 {
	return vec3{f.o.X + f.a.X*u + f.d.X*v, y, f.o.Z + f.a.Z*u + f.d.Z*v}
}

func (f *frame) xz(u, v float64) world.Vec2 {
	return world.Vec2{X: f.o.X + f.a.X*u + f.d.X*v, Z: f.o.Z + f.a.Z*u + f.d.Z*v}
}

// Box faces.
const (
	faceU0 = 1 << iota // the u0 end, facing -a
	faceU1
	faceV0 // facing -d
	faceV1
	faceTop
	faceBottom
	facesSides = faceU0 | faceU1 | faceV0 | faceV1
	facesOpen  = facesSides | faceTop // no bottom: nobody sees it
)

// box emits the faces of the box [u0,u1]×[y0,y1]×[v0,v1] in frame f.
func (w *writer) box(f *frame, u0, u1, y0, y1, v0, v1 float64, faces int) {
	a, d := hz(f.a), hz(f.d)
	p000, p100 := f.p(u0, y0, v0), f.p(u1, y0, v0)
	p001, p101 := f.p(u0, y0, v1), f.p(u1, y0, v1)
	p010, p110 := f.p(u0, y1, v0), f.p(u1, y1, v0)
	p011, p111 := f.p(u0, y1, v1), f.p(u1, y1, v1)
	if faces&faceV0 != 0 {
		w.quadN(p000, p100, p110, p010, d.scale(-1))
	}
	if faces&faceV1 != 0 {
		w.quadN(p001, p101, p111, p011, d)
	}
	if faces&faceU0 != 0 {
		w.quadN(p000, p001, p011, p010, a.scale(-1))
	}
	if faces&faceU1 != 0 {
		w.quadN(p100, p101, p111, p110, a)
	}
	if faces&faceTop != 0 {
		w.quadN(p010, p110, p111, p011, up)
	}
	if faces&faceBottom != 0 {
		w.quadN(p000, p100, p101, p001, up.scale(-1))
	}
}

// faceQuad emits a flat rectangle on the plane v = v (facing -d when
// front, +d otherwise) spanning [u0,u1]×[y0,y1].
func (w *writer) faceV(f *frame, u0, u1, y0, y1, v float64, front bool) {
	n := hz(f.d)
	if front {
		n = n.scale(-1)
	}
	w.quadN(f.p(u0, y0, v), f.p(u1, y0, v), f.p(u1, y1, v), f.p(u0, y1, v), n)
}

// faceU is faceV for the planes u = u (facing -a when front).
func (w *writer) faceU(f *frame, v0, v1, y0, y1, u float64, front bool) {
	n := hz(f.a)
	if front {
		n = n.scale(-1)
	}
	w.quadN(f.p(u, y0, v0), f.p(u, y0, v1), f.p(u, y1, v1), f.p(u, y1, v0), n)
}

// gable emits a pitched roof over [u0,u1]×[v0,v1] with the ridge along u at
// the middle of v, eaves at y0, ridge at y0+rise, plus the two gable ends.
func (w *writer) gable(f *frame, u0, u1, v0, v1, y0, rise float64, ends bool) {
	vm := (v0 + v1) / 2
	r0, r1 := f.p(u0, y0+rise, vm), f.p(u1, y0+rise, vm)
	e00, e10 := f.p(u0, y0, v0), f.p(u1, y0, v0)
	e01, e11 := f.p(u0, y0, v1), f.p(u1, y0, v1)
	hv := (v1 - v0) / 2
	d := hz(f.d)
	n0 := d.scale(-rise).add(up.scale(hv)).norm()
	n1 := d.scale(rise).add(up.scale(hv)).norm()
	w.quadN(e00, e10, r1, r0, n0)
	w.quadN(e01, e11, r1, r0, n1)
	if ends {
		a := hz(f.a)
		w.triN(e00, e01, r0, a.scale(-1))
		w.triN(e10, e11, r1, a)
	}
}
