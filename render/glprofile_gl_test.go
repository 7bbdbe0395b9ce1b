package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/glprofile"
	"citydrive/render/scene"
	"citydrive/slots"
)

// softRenderer opens a renderer like the shared one but in the software
// GL profile, closed when the test ends.
func softRenderer(t *testing.T) *Renderer {
	glRenderer(t) // skips without a display
	var r *Renderer
	var err error
	onMain(func() {
		o := shared.opt
		o.GLProfile, o.Passes, o.DetailBeyond, o.ShadowLOD, o.Profile = glprofile.Software, Passes{}, 0, false, shared.opt.Profile
		o.Title = "render test (software profile)"
		r, err = Open(o)
	})
	require.NoError(t, err)
	t.Cleanup(func() { onMain(r.Close) })
	return r
}

// The software profile sets the passes, detail distance and shadow map it
// says, and draws the test city close to the full profile's picture.
func TestSoftwareProfileDrawsCloseToFull(t *testing.T) {
	full := glRenderer(t)
	soft := softRenderer(t)
	c, set := soft.GLProfile()
	require.True(t, c.Software)
	want := glprofile.For(c)
	assert.Equal(t, want.Passes, soft.Passes())
	assert.Equal(t, want.DetailBeyond, soft.opt.DetailBeyond)
	assert.Equal(t, want.ShadowSize, soft.shadow.size)
	assert.Equal(t, want, set)
	fc, _ := full.GLProfile()
	require.False(t, fc.Software, "the shared renderer is the full profile")
	assert.Equal(t, slots.DetailBeyond, full.opt.DetailBeyond)

	var imgs [2][]byte
	var stats [2]Stats
	for i, r := range []*Renderer{full, soft} {
		f := passesScene(t, r)
		draw(t, r, f) // the shadow map settles
		img, st := draw(t, r, f)
		writePNG(t, []string{"profile-full.png", "profile-software.png"}[i], img)
		imgs[i], stats[i] = img.Pix, st
	}
	assert.Positive(t, stats[0].Depth.MultiDraws, "full: a pre-pass")
	assert.Zero(t, stats[1].Depth.MultiDraws+stats[1].FarDepth.MultiDraws, "software: no pre-pass")
	assert.Equal(t, stats[0].Main.Vertices, stats[1].Main.Vertices, "the test city is nearer than either detail distance")
	pixels := testW * testH
	d := 0
	for i := 0; i+3 < len(imgs[0]); i += 4 {
		for k := 0; k < 3; k++ {
			if x := int(imgs[0][i+k]) - int(imgs[1][i+k]); x > 8 || x < -8 {
				d++
				break
			}
		}
	}
	assert.Positive(t, d, "the one-tap shadow changes some edges")
	assert.LessOrEqual(t, d, pixels/20, "the software picture is the full one but for shadow edges and fog")
	onMain(func() { require.NoError(t, soft.variantErr) })
}

// Between the software and the full detail distance the software profile
// draws a slot's coarse prefix only; the full one draws it whole.
func TestSoftwareProfileCutsDetailNearer(t *testing.T) {
	full := glRenderer(t)
	soft := softRenderer(t)
	dist := (soft.opt.DetailBeyond + slots.DetailBeyond) / 2
	require.Less(t, soft.opt.DetailBeyond, dist)
	require.Less(t, dist, slots.DetailBeyond)
	red, n := mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, 1}
	var v []float32
	for _, x := range []float32{-2, 1} { // coarse, then detail
		for _, p := range []mgl32.Vec3{{x - 0.8, 0.4, 0}, {x + 0.8, 0.4, 0}, {x, 1.8, 0}} {
			v = vert(v, p.Mul(4), n, red, slots.MaterialDefault, mgl32.Vec3{})
		}
	}
	w := enc(v)
	for i := 3; i < 6; i++ {
		w[i*slots.WordsPerVertex+slots.DetailWord] |= slots.DetailBit
	}
	lo, hi := bounds(v)
	f := noonFrame(Group{Origin: farCamera.Add(mgl64.Vec3{0, -6, -dist}), Slots: []SlotDraw{{Slot: 6, Count: 6, Min: lo, Max: hi}}})
	for _, c := range []struct {
		r    *Renderer
		want int
	}{{full, 6}, {soft, 3}} {
		var err error
		onMain(func() { err = c.r.Upload(6, w, 6) })
		require.NoError(t, err)
		_, st := draw(t, c.r, f)
		assert.Equal(t, c.want, st.Main.Vertices, "at %.0f m (software profile %v)", dist, c.r == soft)
		onMain(func() { c.r.Clear(6) })
	}
}

// The software profile leaves out a far slot deep in the fog and keeps a
// nearer one; the full profile draws both.
func TestSoftwareProfileLeavesOutFarSlotsInFog(t *testing.T) {
	full := glRenderer(t)
	soft := softRenderer(t)
	for _, c := range []struct {
		r      *Renderer
		fogged int
	}{{full, 0}, {soft, 1}} {
		f := passesScene(t, c.r)
		// Fog from 507 m to 1406 m, at FarFogCutFog from about 1317 m: the
		// back tower (1350 m away) is past it, the front one (650 m) not.
		f.Camera.Far = 1450
		_, st := draw(t, c.r, f)
		assert.Equal(t, c.fogged, st.FarFogged, "software profile %v", c.r == soft)
		assert.Equal(t, 1, st.Far.MultiDraws)
		assert.Equal(t, 2-c.fogged, st.Far.Slots)
	}
}

// The software profile culls the back faces of slots beyond its cull
// distance and keeps them nearer; the full profile never culls slots.
func TestSoftwareProfileCullsBackFacesBeyondItsDistance(t *testing.T) {
	full := glRenderer(t)
	soft := softRenderer(t)
	cull := soft.opt.CullBackFacesBeyond
	require.Positive(t, cull)
	require.Zero(t, full.opt.CullBackFacesBeyond)
	red, n := mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, 1}
	const size = 0.12 // of the distance: the triangles stay the same on screen
	for _, c := range []struct {
		r          *Renderer
		dist       float64
		backDrawn  bool
		culledList bool
	}{
		{full, cull * 1.5, true, false},
		{soft, cull * 1.5, false, true},
		{soft, cull * 0.6, true, false},
	} {
		s := float32(c.dist * size)
		var v []float32
		// Left: wound counter-clockwise towards the camera (its front);
		// right: clockwise, its back.
		for _, p := range []mgl32.Vec3{{-1.8, -0.5, 0}, {-0.2, -0.5, 0}, {-1, 0.9, 0}, {1.8, -0.5, 0}, {0.2, -0.5, 0}, {1, 0.9, 0}} {
			v = vert(v, p.Mul(s), n, red, slots.MaterialDefault, mgl32.Vec3{})
		}
		lo, hi := bounds(v)
		origin := farCamera.Add(mgl64.Vec3{0, 0, -c.dist})
		f := noonFrame(Group{Origin: origin, Slots: []SlotDraw{{Slot: 7, Count: 6, Min: lo, Max: hi}}})
		var err error
		onMain(func() { err = c.r.Upload(7, enc(v), 6) })
		require.NoError(t, err)
		img, st := draw(t, c.r, f)
		rel := origin.Sub(farCamera)
		for _, side := range []struct {
			x     float32
			drawn bool
		}{{-1, true}, {1, c.backDrawn}} {
			px, py := project(f.Camera, rel.Add(mgl64.Vec3{float64(side.x * s), float64(-0.03 * s), 0}), testW, testH)
			assert.Equal(t, side.drawn, isRed(rgb(img, int(px), int(py))), "side %v at %.0f m (software %v): %v", side.x, c.dist, c.r == soft, rgb(img, int(px), int(py)))
		}
		assert.Equal(t, 6, st.Main.Vertices)
		onMain(func() {
			assert.Equal(t, c.culledList, c.r.cullLists[0].Len() == 1)
			c.r.Clear(7)
		})
	}
}

// The software profile draws traffic wholly beyond its detail distance
// with the coarse prefix only (body, cabin, roof), nearer whole; the full
// profile draws it all whole. Either way the body shows.
func TestSoftwareProfileDrawsFarTrafficWithoutDetails(t *testing.T) {
	full := glRenderer(t)
	soft := softRenderer(t)
	beyond := soft.opt.VehicleDetailBeyond
	require.Positive(t, beyond)
	require.Zero(t, full.opt.VehicleDetailBeyond)
	_, _, n := scene.VehicleMesh()
	red := [3]float32{0.9, 0.05, 0.05}
	for _, c := range []struct {
		r      *Renderer
		dist   float64
		coarse int
	}{
		{full, beyond * 1.5, 0},
		{soft, beyond * 1.5, 1},
		{soft, beyond * 0.6, 0},
	} {
		p := farCamera.Add(mgl64.Vec3{0, 0, -c.dist})
		f := noonFrame(Group{Origin: farCamera}) // no slots: the main pass runs for the traffic alone
		f.Vehicles = []Vehicle{{X: p[0], Y: farCamera[1] - 1.2, Z: p[2], Dir: [2]float32{1, 0}, Colour: red}}
		img, st := draw(t, c.r, f)
		assert.Equal(t, 1, st.Vehicles)
		assert.Equal(t, c.coarse, st.VehiclesCoarse, "at %.0f m (software %v)", c.dist, c.r == soft)
		want := int(n[0])
		if c.coarse > 0 {
			want = scene.VehicleCoarseVerts
		}
		assert.Equal(t, want, st.VehicleVertices)
		px, py := project(f.Camera, mgl64.Vec3{0, -1.2 + 0.55, -c.dist}, testW, testH)
		assert.True(t, isRed(rgb(img, int(px), int(py))), "the body at %.0f m: %v", c.dist, rgb(img, int(px), int(py)))
	}
}

// The software profile redraws the shadow map once the camera has taken
// its centre a quarter of the half extent along, not every 8 m.
func TestSoftwareProfileRedrawsTheShadowMapLessOften(t *testing.T) {
	full := glRenderer(t)
	soft := softRenderer(t)
	half := soft.opt.Profile.ShadowRange
	require.Positive(t, half)
	move := scene.ShadowMoveFor(soft.opt.ShadowMoveShare, half)
	require.Greater(t, move, 2*scene.ShadowMove)
	for _, c := range []struct {
		r         *Renderer
		by        float64
		refreshed bool
	}{
		{full, 2 * scene.ShadowMove, true},
		{soft, 2 * scene.ShadowMove, false},
		{soft, move * 0.9, false},
		{soft, move * 1.1, true},
	} {
		f := noonFrame(Group{Origin: farCamera})
		draw(t, c.r, f) // a map for this view
		_, st := draw(t, c.r, f)
		require.False(t, st.ShadowRefreshed, "the same view twice")
		f.Camera.Position = farCamera.Add(mgl64.Vec3{0, 0, -c.by})
		_, st = draw(t, c.r, f)
		assert.Equal(t, c.refreshed, st.ShadowRefreshed, "moved %.0f m (software %v)", c.by, c.r == soft)
	}
	// A map kept that long leaves the dynamic region (the cars) out: their
	// shadows would stay behind.
	var car []float32
	for _, p := range []mgl32.Vec3{{-1, 0, -5}, {1, 0, -5}, {0, 1.5, -5}} {
		car = vert(car, p, mgl32.Vec3{0, 0, 1}, mgl32.Vec3{1, 0, 0}, slots.MaterialDefault, mgl32.Vec3{})
	}
	for _, c := range []struct {
		r     *Renderer
		casts bool
	}{{full, true}, {soft, false}} {
		f := noonFrame(Group{Origin: farCamera})
		f.Dynamic, f.DynamicOrigin = car, farCamera
		f.Camera.Position = farCamera.Add(mgl64.Vec3{500, 0, 0}) // a new map
		_, st := draw(t, c.r, f)
		require.True(t, st.ShadowRefreshed)
		assert.Equal(t, c.casts, st.Shadow.Draws == 1, "software %v", c.r == soft)
	}
}
