// Package frustum extracts view-frustum planes from a view-projection
// matrix and tests axis-aligned boxes against them. It is pure code: no GL,
// no display, so it is unit-tested headless.
//
// Conventions: matrices are mgl64 (column-major, m[col*4+row]); clip space
// is OpenGL's, with depth in [-1, 1] (so the near plane is row3+row2, not
// row2 alone as in Vulkan/D3D). Planes are normalised and point inwards: a
// point p is inside a plane when Dot(N, p) + D >= 0.
package frustum

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Plane is n·p + d = 0 with a unit normal n pointing into the frustum.
type Plane struct {
	N mgl64.Vec3
	D float64
}

// Distance is the signed distance of p from the plane (positive inside).
func (p Plane) Distance(v mgl64.Vec3) float64 { return p.N.Dot(v) + p.D }

// Plane indices in Frustum.Planes.
const (
	Left = iota
	Right
	Bottom
	Top
	Near
	Far
)

// Frustum is six inward-facing planes.
type Frustum struct {
	Planes [6]Plane
}

// AABB is an axis-aligned box, Min <= Max on every axis.
type AABB struct {
	Min, Max mgl64.Vec3
}

// FromViewProj extracts the planes of a combined projection*view matrix
// (Gribb–Hartmann) for GL's [-1, 1] clip depth. The planes live in whatever
// space the matrix maps from (camera-relative world space in this project).
func FromViewProj(m mgl64.Mat4) Frustum {
	row := func(i int) [4]float64 { return [4]float64{m[i], m[4+i], m[8+i], m[12+i]} }
	r0, r1, r2, r3 := row(0), row(1), row(2), row(3)
	add := func(a, b [4]float64, s float64) Plane {
		return normalise([4]float64{a[0] + s*b[0], a[1] + s*b[1], a[2] + s*b[2], a[3] + s*b[3]})
	}
	var f Frustum
	f.Planes[Left] = add(r3, r0, 1)
	f.Planes[Right] = add(r3, r0, -1)
	f.Planes[Bottom] = add(r3, r1, 1)
	f.Planes[Top] = add(r3, r1, -1)
	f.Planes[Near] = add(r3, r2, 1)
	f.Planes[Far] = add(r3, r2, -1)
	return f
}

func normalise(p [4]float64) Plane {
	l := math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])
	if l == 0 || math.IsNaN(l) {
		// A degenerate plane must never hide anything: make it accept all.
		return Plane{D: math.Inf(1)}
	}
	return Plane{N: mgl64.Vec3{p[0] / l, p[1] / l, p[2] / l}, D: p[3] / l}
}

// ContainsPoint reports whether v is inside (or on) all six planes.
func (f *Frustum) ContainsPoint(v mgl64.Vec3) bool {
	for i := range f.Planes {
		if f.Planes[i].Distance(v) < 0 {
			return false
		}
	}
	return true
}

// IntersectsAABB is the conservative positive-vertex test: for each plane it
// takes the box corner furthest along the plane normal; if even that corner
// is behind the plane the whole box is outside. A box that is only near a
// frustum corner may be reported visible (a false "visible" costs a draw);
// a box that overlaps the frustum is never reported hidden.
func (f *Frustum) IntersectsAABB(b AABB) bool {
	for i := range f.Planes {
		p := &f.Planes[i]
		var v mgl64.Vec3
		for a := 0; a < 3; a++ {
			if p.N[a] >= 0 {
				v[a] = b.Max[a]
			} else {
				v[a] = b.Min[a]
			}
		}
		if p.Distance(v) < 0 {
			return false
		}
	}
	return true
}

// IntersectsSphere reports whether a sphere may overlap the frustum
// (conservative in the same way as IntersectsAABB).
func (f *Frustum) IntersectsSphere(c mgl64.Vec3, r float64) bool {
	for i := range f.Planes {
		if f.Planes[i].Distance(c) < -r {
			return false
		}
	}
	return true
}
