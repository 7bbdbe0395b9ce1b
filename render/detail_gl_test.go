package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/slots"
)

// A slot's detail triangles (slots/detail.go) are drawn near the eye and
// left out beyond slots.DetailBeyond; its coarse ones are drawn at both.
func TestDetailTrianglesDropBeyondTheDetailDistance(t *testing.T) {
	r := glRenderer(t)
	red := mgl32.Vec3{1, 0, 0}
	n := mgl32.Vec3{0, 0, 1}
	for _, dist := range []float64{30, slots.DetailBeyond + 60} {
		s := float32(dist / 20) // the same size on screen at each distance
		var v []float32
		// Coarse on the left, detail on the right (the bit is what counts).
		for _, x := range []float32{-2, 1} {
			for _, p := range []mgl32.Vec3{{x - 0.8, 0.4, 0}, {x + 0.8, 0.4, 0}, {x, 1.8, 0}} {
				v = vert(v, p.Mul(s), n, red, slots.MaterialDefault, mgl32.Vec3{})
			}
		}
		w := enc(v)
		for i := 3; i < 6; i++ {
			w[i*slots.WordsPerVertex+slots.DetailWord] |= slots.DetailBit
		}
		require.Equal(t, 3, slots.CoarseCount(w, 6))
		origin := farCamera.Add(mgl64.Vec3{0, -1.5 * float64(s), -dist})
		var upErr error
		onMain(func() { upErr = r.Upload(6, w, 6) })
		require.NoError(t, upErr)
		lo, hi := bounds(v)
		f := noonFrame(Group{Origin: origin, Slots: []SlotDraw{{Slot: 6, Count: 6, Min: lo, Max: hi}}})
		img, st := draw(t, r, f)
		rel := origin.Sub(farCamera)
		lx, ly := project(f.Camera, rel.Add(mgl64.Vec3{-2 * float64(s), 0.9 * float64(s), 0}), testW, testH)
		rx, ry := project(f.Camera, rel.Add(mgl64.Vec3{1 * float64(s), 0.9 * float64(s), 0}), testW, testH)
		assert.True(t, isRed(rgb(img, int(lx), int(ly))), "at %.0f m the coarse triangle is drawn", dist)
		if dist < slots.DetailBeyond {
			assert.True(t, isRed(rgb(img, int(rx), int(ry))), "at %.0f m the detail is drawn", dist)
			assert.Equal(t, 6, st.Main.Vertices)
		} else {
			assert.False(t, isRed(rgb(img, int(rx), int(ry))), "at %.0f m the detail is left out", dist)
			assert.Equal(t, 3, st.Main.Vertices)
			assert.Equal(t, 3, st.Depth.Vertices, "the pre-pass draws the same")
		}
	}
	onMain(func() { r.Clear(6) })
}
