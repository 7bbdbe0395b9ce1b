package render

import (
	"citydrive/render/glprofile"
	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/slots"
)

// passesScene is the test city with two far towers beyond it, listed
// farthest first (so FarSort has something to reorder).
func passesScene(t *testing.T, r *Renderer) *Frame {
	g := city(t, r, farCamera.Add(mgl64.Vec3{3, -0.5, 2}))
	f := cityFrame(g)
	f.TimeOfDay = 17.8 // dusk: lamps, windows, fog colours all at work
	f.Camera.Far = 3000
	origin := g.Origin
	grey := mgl32.Vec3{0.5, 0.5, 0.55}
	back := box(nil, mgl32.Vec3{-60, 0, -1400}, mgl32.Vec3{60, 160, -1350}, grey, slots.MaterialDefault)
	front := box(nil, mgl32.Vec3{-25, 0, -700}, mgl32.Vec3{25, 90, -650}, grey, slots.MaterialDefault)
	var errs [2]error
	onMain(func() {
		errs[0] = r.FarSink().Upload(4, enc(back), len(back)/slots.FloatsPerVertex)
		errs[1] = r.FarSink().Upload(5, enc(front), len(front)/slots.FloatsPerVertex)
	})
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	slot := func(s int, v []float32) SlotDraw {
		lo, hi := bounds(v)
		return SlotDraw{Slot: s, Count: len(v) / slots.FloatsPerVertex, Min: lo, Max: hi}
	}
	f.FarGroups = []Group{{Origin: origin, Slots: []SlotDraw{slot(4, back), slot(5, front)}}}
	t.Cleanup(func() { onMain(func() { r.FarSink().Clear(4); r.FarSink().Clear(5); r.SetPasses(Passes{}) }) })
	return f
}

// differing counts pixels whose colour differs by more than tol in a channel.
func differing(a, b *image.RGBA, tol int) int {
	n := 0
	for i := 0; i+3 < len(a.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			d := int(a.Pix[i+c]) - int(b.Pix[i+c])
			if d > tol || d < -tol {
				n++
				break
			}
		}
	}
	return n
}

// Every pass variant but per-vertex fog draws the frame as the default
// does (the far tower behind the near city, the far towers' order, the
// direct framebuffer); each changes what it says it changes.
func TestPassVariantsDrawTheSameImage(t *testing.T) {
	r := glRenderer(t)
	f := passesScene(t, r)
	draw(t, r, f) // the shadow map settles
	base, st := draw(t, r, f)
	writePNG(t, "passes-base.png", base)
	require.Equal(t, 1, st.FarDepth.MultiDraws, "the scene has a far tier in the pre-pass")
	require.Positive(t, count(base, 0, testW, func(c [3]int) bool { return c != [3]int{} }))
	pixels := testW * testH
	for _, v := range []struct {
		p     Passes
		check func(Stats)
	}{
		{Passes{DepthPrepass: Off}, func(s Stats) { assert.Zero(t, s.Depth.MultiDraws+s.FarDepth.MultiDraws, "no pre-pass") }},
		{Passes{DepthPrepass: On}, func(s Stats) { assert.Equal(t, 1, s.FarDepth.MultiDraws) }},
		{Passes{NoFarPrepass: true}, func(s Stats) {
			assert.Zero(t, s.FarDepth.MultiDraws, "far tier out of the pre-pass")
			assert.Equal(t, 1, s.Depth.MultiDraws, "near still in it")
			assert.Equal(t, 1, s.Far.MultiDraws)
		}},
		{Passes{FarSort: true, NoFarPrepass: true}, nil},
		{Passes{DepthPrepass: Off, FarSort: true}, nil},
		{Passes{Lean: true}, nil},
		{Passes{CullFar: true}, nil},
		{Passes{FragShadow: true}, nil},
		{Passes{Pack: true}, nil},
		{Passes{ShadowSkip: true}, nil},
		{Passes{Split: true}, func(s Stats) { assert.Equal(t, 1, s.Main.MultiDraws, "still one multi-draw") }},
		{Passes{Lean: true, FragShadow: true, Pack: true, ShadowSkip: true}, nil},
		{glprofile.For(glprofile.Choice{}).Passes, func(s Stats) { assert.Zero(t, s.Depth.MultiDraws, "the full profile: no pre-pass") }},
		{Passes{Direct: true}, func(s Stats) { assert.True(t, s.Direct, "drawn into the window's framebuffer") }},
	} {
		onMain(func() { r.SetPasses(v.p) })
		img, s := draw(t, r, f)
		assert.LessOrEqual(t, differing(base, img, 2), pixels/1000, "%s draws the default's picture", v.p)
		assert.Equal(t, v.p.Direct, s.Direct, v.p.String())
		if v.check != nil {
			v.check(s)
		}
	}
	onMain(func() { r.SetPasses(Passes{VertexFog: true}) })
	img, _ := draw(t, r, f)
	writePNG(t, "passes-vfog.png", img)
	assert.LessOrEqual(t, differing(base, img, 8), pixels/100, "per-vertex fog: close to the per-pixel fog")
	// One shadow tap: only shadow edges change.
	onMain(func() { r.SetPasses(Passes{ShadowOneTap: true}) })
	img, _ = draw(t, r, f)
	writePNG(t, "passes-shadow1.png", img)
	assert.LessOrEqual(t, differing(base, img, 8), pixels/20, "one shadow tap: edges only")
	onMain(func() { require.NoError(t, r.variantErr, "every variant program builds") })
}

// FarSort lists far slots nearest first whatever order the frame gave.
func TestFarSortPutsNearestFirst(t *testing.T) {
	r := &Renderer{}
	at := func(s int, z float32) SlotDraw {
		return SlotDraw{Slot: s, Count: 3, Min: mgl32.Vec3{-1, 0, z - 1}, Max: mgl32.Vec3{1, 1, z}}
	}
	origin := mgl64.Vec3{1e6, 0, 1e6}
	f := &Frame{Camera: Camera{Position: origin}}
	groups := []Group{{Origin: origin, Slots: []SlotDraw{at(7, -900), at(3, -100), at(5, -400), at(9, 600)}}}
	got := r.sortFar(groups, &frameState{f: f})
	require.Len(t, got, 1)
	var order []int
	for _, s := range got[0].Slots {
		order = append(order, s.Slot)
	}
	assert.Equal(t, []int{3, 5, 9, 7}, order)
	assert.Equal(t, 7, groups[0].Slots[0].Slot, "the frame's own list is left as it was")
}

// The GPU log keeps every frame, floor frames apart, none dropped however
// many are drawn between swaps; a floor frame has its three parts.
func TestGPULogKeepsEveryFrameAndTheFloor(t *testing.T) {
	r := glRenderer(t)
	f := passesScene(t, r)
	var log []TimedFrame
	var first, last uint64
	var err error
	onMain(func() {
		if !r.StartGPULog(3 * 7) {
			err = assert.AnError
			return
		}
		first = r.TimedFrames() + 1
		for swap := 0; swap < 4; swap++ {
			for k := 0; k < 5 && err == nil; k++ {
				err = r.Draw(f)
			}
			if err == nil {
				err = r.DrawFloor()
			}
			r.Present()
		}
		last = r.TimedFrames()
		log = r.TakeGPULog()
		r.StopGPULog()
	})
	require.NoError(t, err)
	require.Len(t, log, int(last-first+1), "every frame logged")
	floors := 0
	for i, e := range log {
		assert.Equal(t, first+uint64(i), e.Frame, "in order, none missing")
		if e.Floor {
			floors++
			ft := e.FloorTime
			assert.Positive(t, ft.Clear)
			assert.Positive(t, ft.Triangle)
			assert.Positive(t, ft.Blit)
			assert.Equal(t, ft.Clear+ft.Triangle+ft.Blit, ft.Total)
			assert.False(t, e.GPU.Valid)
			continue
		}
		g := e.GPU
		assert.Positive(t, g.Clear)
		assert.Positive(t, g.DepthFar)
		assert.Positive(t, g.MainFar)
		assert.LessOrEqual(t, g.Clear+g.DepthFar, g.Depth, "parts are in their pass")
		assert.LessOrEqual(t, g.MainFar+g.Sky+g.Rest, g.Main)
		assert.Equal(t, g.Shadow+g.Depth+g.Main+g.Terrain+g.HUD, g.Total)
	}
	assert.Equal(t, 4, floors)
}

// A window's lit or unlit state comes from its building's variant, one
// value per triangle: interpolated, it speckled lit windows pixel by
// pixel where the value lies near the threshold (175/256 is the nearest).
func TestLitWindowsAreWhole(t *testing.T) {
	r := glRenderer(t)
	origin := farCamera.Add(mgl64.Vec3{0, -1.5, 0})
	n := mgl32.Vec3{0.5, 0, 0.866}
	// A wall at an angle, filling the view, far enough for perspective.
	wall := quad(nil, mgl32.Vec3{-80, -40, -20}, mgl32.Vec3{60, -40, -100}, mgl32.Vec3{60, 60, -100}, mgl32.Vec3{-80, 60, -20},
		n, mgl32.Vec3{0.4, 0.45, 0.5}, slots.MaterialWindow)
	for i := 0; i < len(wall); i += slots.FloatsPerVertex {
		wall[i+slots.OffsetVariant] = 175.0 / 256
	}
	var err error
	onMain(func() { err = r.Upload(12, enc(wall), len(wall)/slots.FloatsPerVertex) })
	require.NoError(t, err)
	defer onMain(func() { r.Clear(12) })
	lo, hi := bounds(wall)
	target := farCamera.Add(mgl64.Vec3{-0.3, 0, -1})
	f := &Frame{Camera: Camera{Position: farCamera, Target: &target}, TimeOfDay: 21,
		Groups: []Group{{Origin: origin, Slots: []SlotDraw{{Slot: 12, Count: len(wall) / slots.FloatsPerVertex, Min: lo, Max: hi}}}}}
	img, _ := draw(t, r, f)
	writePNG(t, "lit-window.png", img)
	lit := count(img, 0, testW, func(c [3]int) bool { return c[0] > 150 && c[0] > c[2]+40 })
	dark := count(img, 0, testW, func(c [3]int) bool { return c[0] < 120 })
	assert.Greater(t, lit+dark, testW*testH*9/10, "the wall fills the view")
	assert.True(t, lit == 0 || dark == 0, "one window, one state: %d lit and %d unlit pixels", lit, dark)
}
