package frustum

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A camera at the origin looking down -Z, 90° vertical fov, square aspect,
// near 0.5, far 500.
func testFrustum() (Frustum, mgl64.Mat4) {
	proj := mgl64.Perspective(math.Pi/2, 1, 0.5, 500)
	view := mgl64.LookAtV(mgl64.Vec3{}, mgl64.Vec3{0, 0, -1}, mgl64.Vec3{0, 1, 0})
	vp := proj.Mul4(view)
	return FromViewProj(vp), vp
}

func TestPlanesAreNormalisedAndPointInwards(t *testing.T) {
	f, _ := testFrustum()
	for i, p := range f.Planes {
		assert.InDelta(t, 1, p.N.Len(), 1e-12, "plane %d not unit", i)
		assert.Greater(t, p.Distance(mgl64.Vec3{0, 0, -10}), 0.0, "plane %d excludes a point straight ahead", i)
	}
	// Near plane at z=-0.5, far at z=-500, sides at 45°.
	assert.InDelta(t, 0.5, f.Planes[Near].Distance(mgl64.Vec3{0, 0, -1}), 1e-9)
	assert.InDelta(t, 10, f.Planes[Far].Distance(mgl64.Vec3{0, 0, -490}), 1e-9)
	assert.InDelta(t, math.Sqrt2/2*10, f.Planes[Left].Distance(mgl64.Vec3{0, 0, -10}), 1e-9)
}

func TestGLDepthRangeNearPlane(t *testing.T) {
	f, _ := testFrustum()
	// Just past the near plane is visible; with the Vulkan-style near plane
	// (row 2 alone) this point would be culled.
	assert.True(t, f.ContainsPoint(mgl64.Vec3{0, 0, -0.6}))
	assert.False(t, f.ContainsPoint(mgl64.Vec3{0, 0, -0.4}))
	assert.True(t, f.ContainsPoint(mgl64.Vec3{0, 0, -499}))
	assert.False(t, f.ContainsPoint(mgl64.Vec3{0, 0, -501}))
	assert.False(t, f.ContainsPoint(mgl64.Vec3{0, 0, 10}), "behind the camera")
	assert.True(t, f.ContainsPoint(mgl64.Vec3{9, 9, -10}))
	assert.False(t, f.ContainsPoint(mgl64.Vec3{11, 0, -10}))
	assert.False(t, f.ContainsPoint(mgl64.Vec3{0, -11, -10}))
}

func box(minX, minY, minZ, maxX, maxY, maxZ float64) AABB {
	return AABB{Min: mgl64.Vec3{minX, minY, minZ}, Max: mgl64.Vec3{maxX, maxY, maxZ}}
}

func TestAABBCases(t *testing.T) {
	f, _ := testFrustum()
	cases := []struct {
		name string
		b    AABB
		want bool
	}{
		{"inside", box(-1, -1, -20, 1, 1, -10), true},
		{"behind camera", box(-1, -1, 5, 1, 1, 10), false},
		{"left of frustum", box(-40, -1, -11, -30, 1, -10), false},
		{"right of frustum", box(30, -1, -11, 40, 1, -10), false},
		{"below", box(-1, -40, -11, 1, -30, -10), false},
		{"above", box(-1, 30, -11, 1, 40, -10), false},
		{"beyond far", box(-1, -1, -700, 1, 1, -600), false},
		{"straddles left plane", box(-15, -1, -11, -5, 1, -10), true},
		{"straddles near plane", box(-1, -1, -1, 1, 1, 1), true},
		{"straddles far plane", box(-1, -1, -600, 1, 1, -400), true},
		{"contains whole frustum", box(-1e4, -1e4, -1e4, 1e4, 1e4, 1e4), true},
		{"camera inside box", box(-2, -2, -2, 2, 2, 2), true},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, f.IntersectsAABB(c.b), c.name)
	}
}

func TestSphere(t *testing.T) {
	f, _ := testFrustum()
	assert.True(t, f.IntersectsSphere(mgl64.Vec3{0, 0, -10}, 1))
	assert.True(t, f.IntersectsSphere(mgl64.Vec3{0, 0, 1}, 2), "reaches past the near plane")
	assert.False(t, f.IntersectsSphere(mgl64.Vec3{0, 0, 10}, 2))
}

// clipInside is the ground truth: a point is visible when its clip
// coordinates satisfy -w <= x,y,z <= w.
func clipInside(vp mgl64.Mat4, p mgl64.Vec3) bool {
	c := vp.Mul4x1(p.Vec4(1))
	w := c[3]
	return w > 0 && math.Abs(c[0]) <= w && math.Abs(c[1]) <= w && math.Abs(c[2]) <= w
}

// TestNeverFalselyHidden: for random cameras and random boxes, whenever any
// sampled point of a box is inside the frustum (by the clip-space ground
// truth), the box test must say visible. It also checks that the test culls
// a reasonable share of boxes, so it cannot pass by accepting everything.
func TestNeverFalselyHidden(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	visibleSeen, hidden := 0, 0
	for iter := 0; iter < 300; iter++ {
		eye := mgl64.Vec3{rng.Float64()*200 - 100, rng.Float64()*50 - 10, rng.Float64()*200 - 100}
		yaw := rng.Float64() * 2 * math.Pi
		pitch := (rng.Float64() - 0.5) * 2.8
		dir := mgl64.Vec3{math.Sin(yaw) * math.Cos(pitch), math.Sin(pitch), -math.Cos(yaw) * math.Cos(pitch)}
		proj := mgl64.Perspective((30+rng.Float64()*60)*math.Pi/180, 0.5+rng.Float64()*2, 0.1+rng.Float64(), 100+rng.Float64()*600)
		vp := proj.Mul4(mgl64.LookAtV(eye, eye.Add(dir), mgl64.Vec3{0, 1, 0}))
		f := FromViewProj(vp)
		for b := 0; b < 60; b++ {
			c := mgl64.Vec3{rng.Float64()*1400 - 700, rng.Float64()*200 - 100, rng.Float64()*1400 - 700}
			h := mgl64.Vec3{rng.Float64() * 40, rng.Float64() * 40, rng.Float64() * 40}
			bb := AABB{Min: c.Sub(h), Max: c.Add(h)}
			got := f.IntersectsAABB(bb)
			if !got {
				hidden++
			}
			truth := false
			for s := 0; s < 64 && !truth; s++ {
				var p mgl64.Vec3
				for a := 0; a < 3; a++ {
					if s < 8 { // the corners first
						if s>>a&1 == 1 {
							p[a] = bb.Max[a]
						} else {
							p[a] = bb.Min[a]
						}
					} else {
						p[a] = bb.Min[a] + rng.Float64()*(bb.Max[a]-bb.Min[a])
					}
				}
				truth = clipInside(vp, p)
			}
			if truth {
				visibleSeen++
				require.True(t, got, "box %v hidden but point inside (iter %d)", bb, iter)
			}
		}
	}
	assert.Greater(t, visibleSeen, 100, "too few visible boxes: the property was barely exercised")
	assert.Greater(t, hidden, 3000, "the test culls almost nothing")
}

func TestDegenerateMatrixHidesNothing(t *testing.T) {
	f := FromViewProj(mgl64.Mat4{})
	assert.True(t, f.IntersectsAABB(box(-1, -1, -1, 1, 1, 1)))
}
