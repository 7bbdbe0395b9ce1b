package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Shadow-map refresh policy.
const (
	ShadowMove        = 8.0 // metres the camera may move before a refresh
	ShadowAngle       = 0.5 // degrees the sun may move before a refresh
	ShadowDirtyFrames = 20  // after a slot changed, refresh within this many frames
)

// ShadowState is what the renderer remembers about the shadow map it has.
type ShadowState struct {
	Valid       bool
	Centre      mgl64.Vec3 // world point the map is centred on
	Sun         mgl64.Vec3 // light direction it was rendered with
	Dirty       bool       // slot contents changed since
	FramesSince int        // frames since it was rendered
}

// NeedsRefresh says whether the shadow map must be re-rendered for a new
// centre and light direction: when there is none, when the camera moved
// more than ShadowMove, the light turned more than ShadowAngle, or slots
// changed and ShadowDirtyFrames passed since the last refresh.
func (s ShadowState) NeedsRefresh(centre, sun mgl64.Vec3) bool {
	return s.NeedsRefreshAfter(centre, sun, ShadowMove)
}

// NeedsRefreshAfter is NeedsRefresh with the centre allowed to move move
// metres (ShadowMoveFor) before a refresh.
func (s ShadowState) NeedsRefreshAfter(centre, sun mgl64.Vec3, move float64) bool {
	switch {
	case !s.Valid:
		return true
	case centre.Sub(s.Centre).Len() > move:
		return true
	case sun.Dot(s.Sun) < math.Cos(ShadowAngle*math.Pi/180):
		return true
	case s.Dirty && s.FramesSince >= ShadowDirtyFrames:
		return true
	}
	return false
}

// ShadowMoveFor is how far the map's centre may move before a refresh
// when share (0: ShadowMove metres) of the map's half extent is allowed.
// ShadowCentre keeps the centre half the half extent ahead of the eye, so
// with the centre moved at most share × half the map still covers the
// view's direction from (0.5 − share) × half behind the eye to
// (1.5 − share) × half ahead of it (TestShadowMoveKeepsTheViewCovered).
func ShadowMoveFor(share, half float64) float64 {
	if share <= 0 {
		return ShadowMove
	}
	return max(ShadowMove, share*half)
}

// ShadowCentre puts the shadow map's centre ahead of the camera on the
// horizontal, where most of what is seen lies.
func ShadowCentre(c Camera, halfExtent float64) mgl64.Vec3 {
	f := c.Forward()
	h := mgl64.Vec3{f[0], 0, f[2]}
	if l := h.Len(); l > 1e-6 {
		h = h.Mul(halfExtent * 0.5 / l)
	} else {
		h = mgl64.Vec3{}
	}
	return c.Position.Add(h)
}

// ShadowViewProj is the sun's orthographic view-projection around the
// shadow centre, in centre-relative space: a box halfExtent wide each way
// across the light and 4*halfExtent deep along it.
func ShadowViewProj(sun mgl64.Vec3, halfExtent float64) mgl64.Mat4 {
	up := mgl64.Vec3{0, 1, 0}
	if math.Abs(sun[1]) > 0.99 {
		up = mgl64.Vec3{0, 0, -1}
	}
	eye := sun.Normalize().Mul(2 * halfExtent)
	view := mgl64.LookAtV(eye, mgl64.Vec3{}, up)
	proj := mgl64.Ortho(-halfExtent, halfExtent, -halfExtent, halfExtent, 0.1, 4*halfExtent)
	return proj.Mul4(view)
}
