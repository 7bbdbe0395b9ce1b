package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
)

// Camera defaults.
const (
	DefaultFovY = 60 * math.Pi / 180
	DefaultNear = 0.3
	DefaultFar  = 600
	// FarTierPlane is the far clip distance with the far tier on (the
	// fog follows it: from 35% to 97% of it).
	FarTierPlane = 3000
)

// Camera is a world-space camera with a float64 position. The view matrix
// the GPU sees is rotation only: everything is drawn relative to the
// camera (see Relative).
type Camera struct {
	Position mgl64.Vec3
	// Yaw and Pitch in radians: yaw 0 looks along -Z, positive yaw turns
	// towards +X; positive pitch looks up. Ignored when Target is set.
	Yaw, Pitch float64
	// Target, when non-nil, is a world point to look at (chase camera).
	Target *mgl64.Vec3
	// FovY (radians), Near and Far (metres); zero means the default.
	FovY, Near, Far float64
}

// Forward is the unit view direction.
func (c Camera) Forward() mgl64.Vec3 {
	if c.Target != nil {
		d := c.Target.Sub(c.Position)
		if l := d.Len(); l > 1e-9 {
			return d.Mul(1 / l)
		}
	}
	cp := math.Cos(c.Pitch)
	return mgl64.Vec3{math.Sin(c.Yaw) * cp, math.Sin(c.Pitch), -math.Cos(c.Yaw) * cp}
}

func (c Camera) planes() (fov, near, far float64) {
	fov, near, far = c.FovY, c.Near, c.Far
	if fov <= 0 {
		fov = DefaultFovY
	}
	if near <= 0 {
		near = DefaultNear
	}
	if far <= near {
		far = max(DefaultFar, near*2)
	}
	return
}

// FarPlane is the far clip distance in use.
func (c Camera) FarPlane() float64 { _, _, f := c.planes(); return f }

// View is the camera-relative view matrix: a rotation only, the camera at
// the origin.
func (c Camera) View() mgl64.Mat4 {
	f := c.Forward()
	up := mgl64.Vec3{0, 1, 0}
	if math.Abs(f[1]) > 0.999 { // looking straight down or up
		up = mgl64.Vec3{math.Sin(c.Yaw), 0, -math.Cos(c.Yaw)}
	}
	return mgl64.LookAtV(mgl64.Vec3{}, f, up)
}

// Projection for the given aspect ratio (GL depth range [-1, 1]).
func (c Camera) Projection(aspect float64) mgl64.Mat4 {
	fov, near, far := c.planes()
	if !(aspect > 0) {
		aspect = 1
	}
	return mgl64.Perspective(fov, aspect, near, far)
}

// ViewProj is projection*view in camera-relative space.
func (c Camera) ViewProj(aspect float64) mgl64.Mat4 {
	return c.Projection(aspect).Mul4(c.View())
}

// Relative is the floating-origin step: the offset of a world origin from
// the camera, subtracted in float64 and only then rounded to float32. A
// vertex v (float32, relative to origin) is drawn at Relative(origin,
// camera)+v, a small number near the camera however far out both are.
func Relative(origin, camera mgl64.Vec3) mgl32.Vec3 {
	d := origin.Sub(camera)
	return mgl32.Vec3{float32(d[0]), float32(d[1]), float32(d[2])}
}

// Mat32 converts a float64 matrix to float32 for a uniform.
func Mat32(m mgl64.Mat4) mgl32.Mat4 {
	var r mgl32.Mat4
	for i := range m {
		r[i] = float32(m[i])
	}
	return r
}
