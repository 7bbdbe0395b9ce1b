package render

import (
	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/slots"
)

func isMagenta(c [3]int) bool      { return c[0] > 80 && c[2] > 80 && c[1] < c[0]/2 && c[1] < c[2]/2 }
func isFarTestGreen(c [3]int) bool { return c[1] > 60 && c[1] > c[0]+25 && c[1] > c[2]+25 }

// count counts pixels matching in the image's x range [x0, x1).
func count(img *image.RGBA, x0, x1 int, match func([3]int) bool) int {
	n := 0
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := x0; x < x1; x++ {
			if match(rgb(img, x, y)) {
				n++
			}
		}
	}
	return n
}

// Near and far never both draw one place: a far ground and tower
// (magenta) alone; then near geometry (green) over the left half with the
// near mask marking it: no magenta left of the middle, magenta right of
// it; then near everywhere and masked everywhere: no magenta at all.
func TestNearAndFarNeverBothDraw(t *testing.T) {
	r := glRenderer(t)
	origin := farCamera.Add(mgl64.Vec3{0, -1.5, 0})
	up := mgl32.Vec3{0, 1, 0}
	magenta, green := mgl32.Vec3{1, 0, 1}, mgl32.Vec3{0.1, 0.8, 0.1}
	far := quad(nil, mgl32.Vec3{-60, 0, 60}, mgl32.Vec3{60, 0, 60}, mgl32.Vec3{60, 0, -60}, mgl32.Vec3{-60, 0, -60}, up, magenta, slots.MaterialDefault)
	far = box(far, mgl32.Vec3{-20, 0, -10}, mgl32.Vec3{-10, 30, 10}, magenta, slots.MaterialDefault) // a tower under the near half
	far = box(far, mgl32.Vec3{10, 0, -10}, mgl32.Vec3{20, 30, 10}, magenta, slots.MaterialDefault)
	nearLeft := quad(nil, mgl32.Vec3{-60, 0.05, 60}, mgl32.Vec3{0, 0.05, 60}, mgl32.Vec3{0, 0.05, -60}, mgl32.Vec3{-60, 0.05, -60}, up, green, slots.MaterialDefault)
	nearAll := quad(nil, mgl32.Vec3{-60, 0.05, 60}, mgl32.Vec3{60, 0.05, 60}, mgl32.Vec3{60, 0.05, -60}, mgl32.Vec3{-60, 0.05, -60}, up, green, slots.MaterialDefault)
	var errs [3]error
	onMain(func() {
		errs[0] = r.FarSink().Upload(2, enc(far), len(far)/slots.FloatsPerVertex)
		errs[1] = r.Upload(10, enc(nearLeft), len(nearLeft)/slots.FloatsPerVertex)
		errs[2] = r.Upload(11, enc(nearAll), len(nearAll)/slots.FloatsPerVertex)
	})
	for _, e := range errs {
		require.NoError(t, e)
	}
	slot := func(s int, v []float32) SlotDraw {
		lo, hi := bounds(v)
		return SlotDraw{Slot: s, Count: len(v) / slots.FloatsPerVertex, Min: lo, Max: hi}
	}
	// Looking straight down from 150 m (tilted a hair so "up" is defined).
	cam := origin.Add(mgl64.Vec3{0, 150, 0})
	target := origin.Add(mgl64.Vec3{0, 0, -0.01})
	frame := func(near []SlotDraw, mask *NearMask) *Frame {
		f := &Frame{Camera: Camera{Position: cam, Target: &target, Far: 400}, TimeOfDay: 12, NearMask: mask,
			FarGroups: []Group{{Origin: origin, Slots: []SlotDraw{slot(2, far)}}}}
		if near != nil {
			f.Groups = []Group{{Origin: origin, Slots: near}}
		}
		return f
	}
	// The mask: 2 m cells around the origin, 64×64 (±64 m).
	mask := &NearMask{OriginX: origin[0] - 64, OriginZ: origin[2] - 64, Cell: 2, N: 64, Cells: make([]uint8, 64*64), Version: 1}
	w := testW
	mid := w / 2

	img, st := draw(t, r, frame(nil, nil))
	writePNG(t, "far-alone.png", img)
	farLeft, farRight := count(img, 0, mid-4, isMagenta), count(img, mid+4, w, isMagenta)
	assert.Greater(t, farLeft, 1000, "far tier alone covers the left")
	assert.Greater(t, farRight, 1000, "and the right")
	assert.Equal(t, 1, st.Far.MultiDraws)
	assert.Equal(t, 1, st.FarDepth.MultiDraws)
	assert.Equal(t, 0, st.Shadow.MultiDraws-st.Shadow.MultiDraws, "far never draws into the shadow map")

	// Near over the left half, masked there.
	for j := 0; j < 64; j++ {
		for i := 0; i < 32; i++ {
			mask.Cells[j*64+i] = 1
		}
	}
	mask.Version++
	img, st = draw(t, r, frame([]SlotDraw{slot(10, nearLeft)}, mask))
	writePNG(t, "far-and-near.png", img)
	assert.Zero(t, count(img, 0, mid-4, isMagenta), "no far pixel where near items are (no towers poking through)")
	assert.Greater(t, count(img, 0, mid-4, isFarTestGreen), 1000, "near drawn on the left")
	assert.Greater(t, count(img, mid+4, w, isMagenta), 1000, "far still drawn on the right")
	assert.Zero(t, count(img, mid+4, w, isFarTestGreen))
	assert.Equal(t, 1, st.MaskUploads)

	// Near everywhere and masked everywhere: the far tier is hidden.
	for i := range mask.Cells {
		mask.Cells[i] = 1
	}
	mask.Version++
	img, _ = draw(t, r, frame([]SlotDraw{slot(11, nearAll)}, mask))
	writePNG(t, "far-hidden.png", img)
	assert.Zero(t, count(img, 0, w, isMagenta), "far tier fully under near items")
	assert.Greater(t, count(img, 0, w, isFarTestGreen), 20000)

	// Without the mask both would draw: the far towers stand through the
	// near ground (this is what the mask prevents).
	img, _ = draw(t, r, frame([]SlotDraw{slot(11, nearAll)}, nil))
	assert.Greater(t, count(img, 0, w, isMagenta), 100)
	onMain(func() { r.FarSink().Clear(2); r.Clear(10); r.Clear(11) })
}
