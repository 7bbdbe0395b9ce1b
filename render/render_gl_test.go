package render

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/glprofile"
	"citydrive/slots"
)

// GL tests run their GL work on the main OS thread: TestMain (on the main
// goroutine, locked to the main thread by this package's init) serves
// closures sent by the test goroutines. Assertions stay on the test
// goroutines. Without a display the GL tests skip; the pure tests live in
// the nested packages.
var mainQueue = make(chan func())

func TestMain(m *testing.M) {
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-mainQueue:
			f()
		case code := <-done:
			if shared != nil {
				shared.Close()
			}
			os.Exit(code)
		}
	}
}

// onMain runs f on the main thread and waits for it.
func onMain(f func()) {
	ch := make(chan struct{})
	mainQueue <- func() { defer close(ch); f() }
	<-ch
}

var (
	shared    *Renderer
	sharedErr error
)

const testW, testH = 320, 240

// glRenderer returns the shared test renderer, skipping without a display.
// testPasses forces the depth pre-pass in the shared test renderer (the
// full profile leaves it out), so the tests of what it draws keep running;
// TestPassVariantsDrawTheSameImage holds the profile's passes to its picture.
var testPasses = Passes{DepthPrepass: On}

func glRenderer(t *testing.T) *Renderer {
	t.Helper()
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run -a -s \"-screen 0 1280x720x24\"")
	}
	onMain(func() {
		if shared == nil && sharedErr == nil {
			shared, sharedErr = Open(Options{Width: testW, Height: testH, Title: "render test", FixedScale: 1, GLProfile: glprofile.Full, Passes: testPasses, Layout: slots.Layout{Near: slots.Config{Slots: 16, VertsPerSlot: 1200}, Far: slots.Config{Slots: 8, VertsPerSlot: 600}}, TerrainChunks: testTerrainSlots, TerrainQuadsPerChunk: testTerrainQuads})
		}
	})
	require.NoError(t, sharedErr)
	return shared
}

// vert appends one vertex in the slot format.
func vert(v []float32, p, n, c mgl32.Vec3, material float32, street mgl32.Vec3) []float32 {
	return append(v, p[0], p[1], p[2], n[0], n[1], n[2], c[0], c[1], c[2], material, 0.5, 1, street[0], street[1], street[2])
}

// quad appends two triangles spanning a rectangle in the plane of a, b, d.
func quad(v []float32, a, b, c, d, n, col mgl32.Vec3, material float32) []float32 {
	z := mgl32.Vec3{}
	for _, p := range []mgl32.Vec3{a, b, c, a, c, d} {
		v = vert(v, p, n, col, material, z)
	}
	return v
}

// box appends an axis-aligned box (5 faces, no bottom).
func box(v []float32, lo, hi, col mgl32.Vec3, material float32) []float32 {
	x0, y0, z0, x1, y1, z1 := lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
	v = quad(v, mgl32.Vec3{x0, y1, z1}, mgl32.Vec3{x1, y1, z1}, mgl32.Vec3{x1, y1, z0}, mgl32.Vec3{x0, y1, z0}, mgl32.Vec3{0, 1, 0}, col, material)
	v = quad(v, mgl32.Vec3{x0, y0, z1}, mgl32.Vec3{x1, y0, z1}, mgl32.Vec3{x1, y1, z1}, mgl32.Vec3{x0, y1, z1}, mgl32.Vec3{0, 0, 1}, col, material)
	v = quad(v, mgl32.Vec3{x1, y0, z0}, mgl32.Vec3{x0, y0, z0}, mgl32.Vec3{x0, y1, z0}, mgl32.Vec3{x1, y1, z0}, mgl32.Vec3{0, 0, -1}, col, material)
	v = quad(v, mgl32.Vec3{x1, y0, z1}, mgl32.Vec3{x1, y0, z0}, mgl32.Vec3{x1, y1, z0}, mgl32.Vec3{x1, y1, z1}, mgl32.Vec3{1, 0, 0}, col, material)
	v = quad(v, mgl32.Vec3{x0, y0, z0}, mgl32.Vec3{x0, y0, z1}, mgl32.Vec3{x0, y1, z1}, mgl32.Vec3{x0, y1, z0}, mgl32.Vec3{-1, 0, 0}, col, material)
	return v
}

// enc encodes wide test vertices into the slot format.
func enc(v []float32) []uint32 {
	w := make([]uint32, len(v)/slots.FloatsPerVertex*slots.WordsPerVertex)
	slots.EncodeWide(w, v)
	return w
}

func bounds(v []float32) (lo, hi mgl32.Vec3) {
	lo = mgl32.Vec3{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi = lo.Mul(-1)
	for i := 0; i+2 < len(v); i += slots.FloatsPerVertex {
		for a := 0; a < 3; a++ {
			lo[a] = min(lo[a], v[i+a])
			hi[a] = max(hi[a], v[i+a])
		}
	}
	return
}

// draw renders one frame and reads it back.
func draw(t *testing.T, r *Renderer, f *Frame) (*image.RGBA, Stats) {
	t.Helper()
	var img *image.RGBA
	var err error
	var st Stats
	onMain(func() {
		if err = r.Draw(f); err != nil {
			return
		}
		st = r.Stats()
		img, err = r.Screenshot()
		r.Present()
	})
	require.NoError(t, err)
	return img, st
}

func rgb(img *image.RGBA, x, y int) [3]int {
	c := img.RGBAAt(x, y)
	return [3]int{int(c.R), int(c.G), int(c.B)}
}

func isRed(c [3]int) bool { return c[0] > 90 && c[0] > 2*c[1]+20 && c[0] > 2*c[2]+20 }

// A camera 200,000 km out on x (and far out on z), looking along -Z.
var farCamera = mgl64.Vec3{2e8 + 0.37, 1.5, -3.5e7 - 0.81}

func farTriangle() (origin mgl64.Vec3, verts []float32) {
	origin = farCamera.Add(mgl64.Vec3{0.25, -1.5, -20}) // slot origin near the car
	red := mgl32.Vec3{1, 0, 0}
	n := mgl32.Vec3{0, 0, 1}
	z := mgl32.Vec3{}
	// A triangle centred straight ahead of the camera at 20 m, 4 m wide.
	for _, p := range []mgl32.Vec3{{-2.25, 0.5, 0}, {1.75, 0.5, 0}, {-0.25, 2.5, 0}} {
		verts = vert(verts, p, n, red, slots.MaterialDefault, z)
	}
	return
}

func noonFrame(groups ...Group) *Frame {
	return &Frame{Camera: Camera{Position: farCamera}, Groups: groups, TimeOfDay: 12}
}

// project gives the pixel (top-left origin) where a camera-relative point
// lands, computed in float64.
func project(cam Camera, rel mgl64.Vec3, w, h int) (float64, float64) {
	c := cam.ViewProj(float64(w) / float64(h)).Mul4x1(rel.Vec4(1))
	return (c[0]/c[3]*0.5 + 0.5) * float64(w), (1 - (c[1]/c[3]*0.5 + 0.5)) * float64(h)
}

func TestUploadedTriangleLandsAtExpectedPixelFarOut(t *testing.T) {
	r := glRenderer(t)
	origin, tri := farTriangle()
	var upErr error
	onMain(func() { upErr = r.Upload(5, enc(tri), 3) })
	require.NoError(t, upErr)
	lo, hi := bounds(tri)
	f := noonFrame(Group{Origin: origin, Slots: []SlotDraw{{Slot: 5, Count: 3, Min: lo, Max: hi}}})
	img, st := draw(t, r, f)

	// Centroid and left/right edges of the triangle's bottom edge row.
	rel := origin.Sub(farCamera)
	cx, cy := project(f.Camera, rel.Add(mgl64.Vec3{-0.25, 1.1667, 0}), testW, testH)
	assert.True(t, isRed(rgb(img, int(cx), int(cy))), "centroid pixel (%d,%d) is %v", int(cx), int(cy), rgb(img, int(cx), int(cy)))
	lx, ly := project(f.Camera, rel.Add(mgl64.Vec3{-2.25, 0.55, 0}), testW, testH)
	rx, _ := project(f.Camera, rel.Add(mgl64.Vec3{1.75, 0.55, 0}), testW, testH)
	row := int(ly)
	first, last := -1, -1
	for x := 0; x < testW; x++ {
		if isRed(rgb(img, x, row)) {
			if first < 0 {
				first = x
			}
			last = x
		}
	}
	require.GreaterOrEqual(t, first, 0, "no red on row %d", row)
	assert.InDelta(t, lx, float64(first), 2, "left edge")
	assert.InDelta(t, rx, float64(last), 2, "right edge")
	// Sky elsewhere: the top-left corner is not red.
	assert.False(t, isRed(rgb(img, 5, 5)))
	assert.Equal(t, 1, st.Main.MultiDraws)
	assert.Equal(t, 1, st.Depth.MultiDraws)

	// Clearing the slot removes it, even if the input still lists it.
	onMain(func() { r.Clear(5) })
	img, st = draw(t, r, f)
	assert.False(t, isRed(rgb(img, int(cx), int(cy))), "cleared slot still drawn: %v", rgb(img, int(cx), int(cy)))
	assert.Equal(t, 0, st.Main.Slots)
}

func TestUploadRejectsOverflow(t *testing.T) {
	r := glRenderer(t)
	var e1, e2, e3 error
	onMain(func() {
		e1 = r.Upload(0, make([]uint32, 1201*slots.WordsPerVertex), 1201)
		e2 = r.Upload(99, nil, 0)
		e3 = r.Upload(0, make([]uint32, 3*slots.WordsPerVertex), 4)
	})
	assert.ErrorContains(t, e1, "holds 1200")
	assert.ErrorContains(t, e2, "out of range")
	assert.Error(t, e3)
}

// city uploads a ground plane (road palette colour), some buildings with
// windows and a stripe, across several slots, and returns the group.
func city(t testing.TB, r *Renderer, origin mgl64.Vec3) Group {
	up := mgl32.Vec3{0, 1, 0}
	road := mgl32.Vec3{slots.PaletteRed(slots.PaletteRoad), 0, 0}
	var g Group
	g.Origin = origin
	add := func(slot int, v []float32, trees []slots.Tree) {
		var err error
		onMain(func() { err = r.Upload(slot, enc(v), len(v)/slots.FloatsPerVertex) })
		require.NoError(t, err)
		lo, hi := bounds(v)
		g.Slots = append(g.Slots, SlotDraw{Slot: slot, Count: len(v) / slots.FloatsPerVertex, Min: lo, Max: hi, Trees: trees})
	}
	// Road: a long strip with lamp flags on both sides, half-width 4.
	var v []float32
	for i := 0; i < 20; i++ {
		z0, z1 := float32(-i*20), float32(-(i+1)*20)
		for _, p := range []mgl32.Vec3{{-4, 0, z0}, {4, 0, z0}, {4, 0, z1}, {-4, 0, z0}, {4, 0, z1}, {-4, 0, z1}} {
			v = vert(v, p, up, road, slots.MaterialRoad, mgl32.Vec3{-p[2], p[0], 4 + 3*slots.LampFlagScale})
		}
	}
	add(0, v, nil)
	// Grass on both sides.
	v = quad(nil, mgl32.Vec3{-200, -0.05, 0}, mgl32.Vec3{-4, -0.05, 0}, mgl32.Vec3{-4, -0.05, -400}, mgl32.Vec3{-200, -0.05, -400}, up, mgl32.Vec3{0.3, 0.5, 0.2}, slots.MaterialDefault)
	v = quad(v, mgl32.Vec3{4, -0.05, 0}, mgl32.Vec3{200, -0.05, 0}, mgl32.Vec3{200, -0.05, -400}, mgl32.Vec3{4, -0.05, -400}, up, mgl32.Vec3{0.3, 0.5, 0.2}, slots.MaterialDefault)
	add(1, v, []slots.Tree{{Pos: [3]float32{-8, 0, -30}, Scale: 1, Variant: 0.2}, {Pos: [3]float32{9, 0, -45}, Scale: 1.3, Variant: 0.7}})
	// Buildings.
	v = nil
	for i := 0; i < 8; i++ {
		z := float32(-30 - i*40)
		h := float32(12 + (i*7)%25)
		v = box(v, mgl32.Vec3{-30, 0, z - 15}, mgl32.Vec3{-12, h, z}, mgl32.Vec3{0.75, 0.7, 0.62}, slots.MaterialBuilding)
		v = box(v, mgl32.Vec3{12, 0, z - 25}, mgl32.Vec3{26, h * 1.4, z - 5}, mgl32.Vec3{0.55, 0.6, 0.7}, slots.MaterialWindow)
	}
	add(2, v, nil)
	// Behind the camera: culled.
	add(3, box(nil, mgl32.Vec3{-5, 0, 40}, mgl32.Vec3{5, 10, 60}, mgl32.Vec3{1, 0, 1}, slots.MaterialBuilding), nil)
	return g
}

func cityFrame(g Group) *Frame {
	cam := farCamera.Add(mgl64.Vec3{0, 1, 0})
	target := cam.Add(mgl64.Vec3{0, -1.2, -20})
	return &Frame{Camera: Camera{Position: cam, Target: &target}, Groups: []Group{g}, TimeOfDay: 10}
}

func colourStats(img *image.RGBA) (distinct int, topBlue float64, dominant float64) {
	counts := map[[3]int]int{}
	b := img.Bounds()
	blue, top := 0, 0
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := rgb(img, x, y)
			counts[[3]int{c[0] / 8, c[1] / 8, c[2] / 8}]++
			if y < b.Dy()/6 {
				top++
				if c[2] > c[0] && c[2] > 100 {
					blue++
				}
			}
		}
	}
	best := 0
	for _, n := range counts {
		best = max(best, n)
	}
	return len(counts), float64(blue) / float64(top), float64(best) / float64(b.Dx()*b.Dy())
}

func TestCityFrameHasSkyAndGeometryAndOneMultiDrawPerPass(t *testing.T) {
	r := glRenderer(t)
	g := city(t, r, farCamera.Add(mgl64.Vec3{3, -0.5, 2}))
	f := cityFrame(g)
	img, st := draw(t, r, f)
	distinct, topBlue, dominant := colourStats(img)
	assert.Greater(t, distinct, 20, "too few colours: blank frame?")
	assert.Greater(t, topBlue, 0.5, "the top of the frame should be sky")
	assert.Less(t, dominant, 0.6, "one colour dominates the frame")
	// One multi-draw per pass for the one origin group; slot 3 culled.
	assert.Equal(t, 1, st.Main.MultiDraws)
	assert.Equal(t, 1, st.Depth.MultiDraws)
	assert.Equal(t, 3, st.Main.Slots)
	assert.Equal(t, 1, st.Culled)
	assert.Equal(t, 2, st.Trees)
	assert.Equal(t, 1, st.Main.Instanced)
	if st.ShadowRefreshed {
		assert.Equal(t, 1, st.Shadow.MultiDraws)
	}
	writePNG(t, "city.png", img)

	// The next frame from the same place does not refresh the shadow map.
	_, st = draw(t, r, f)
	assert.False(t, st.ShadowRefreshed)
	assert.Equal(t, 0, st.Shadow.MultiDraws)
	assert.Equal(t, 1, st.Main.MultiDraws)
}

func TestWeatherRecoloursWithoutReupload(t *testing.T) {
	r := glRenderer(t)
	g := city(t, r, farCamera.Add(mgl64.Vec3{0, -0.5, 0}))
	f := cityFrame(g)
	f.Groups[0].Slots = f.Groups[0].Slots[:1] // the road only
	dry, _ := draw(t, r, f)
	var before int
	onMain(func() { before = r.Stats().Uploads })
	f.Weather = Wet
	wet, st := draw(t, r, f)
	assert.Equal(t, before, st.Uploads, "weather must not re-upload")
	// The road in the lower middle of the frame is darker when wet.
	x, y := testW/2, testH*7/8
	d, w := rgb(dry, x, y), rgb(wet, x, y)
	assert.Greater(t, d[0]+d[1]+d[2], w[0]+w[1]+w[2]+30, "dry %v wet %v", d, w)
}

func TestTwoOriginGroupsAfterRebase(t *testing.T) {
	r := glRenderer(t)
	origin, tri := farTriangle()
	// The same triangle uploaded twice: once relative to the old origin, once
	// relative to a new origin 1 km away, moved to land 3 m to the right.
	newOrigin := origin.Add(mgl64.Vec3{-1000, 0, 0})
	moved := append([]float32(nil), tri...)
	for i := 0; i < len(moved); i += slots.FloatsPerVertex {
		moved[i] += 1000 + 3
	}
	onMain(func() {
		require.NoError(t, r.Upload(6, enc(tri), 3))
		require.NoError(t, r.Upload(7, enc(moved), 3))
	})
	lo, hi := bounds(tri)
	lo2, hi2 := bounds(moved)
	f := noonFrame(
		Group{Origin: origin, Slots: []SlotDraw{{Slot: 6, Count: 3, Min: lo, Max: hi}}},
		Group{Origin: newOrigin, Slots: []SlotDraw{{Slot: 7, Count: 3, Min: lo2, Max: hi2}}},
	)
	img, st := draw(t, r, f)
	rel := origin.Sub(farCamera)
	ax, ay := project(f.Camera, rel.Add(mgl64.Vec3{-0.25, 1.1, 0}), testW, testH)
	bx, by := project(f.Camera, rel.Add(mgl64.Vec3{2.75, 1.1, 0}), testW, testH)
	assert.True(t, isRed(rgb(img, int(ax), int(ay))))
	assert.True(t, isRed(rgb(img, int(bx), int(by))))
	assert.Equal(t, 2, st.Main.MultiDraws, "one multi-draw per origin group")
	onMain(func() { r.Clear(6); r.Clear(7) })
}

func TestDebugViewsLoadingAndHUD(t *testing.T) {
	r := glRenderer(t)
	g := city(t, r, farCamera.Add(mgl64.Vec3{0, -0.5, 0}))
	f := cityFrame(g)
	plain, _ := draw(t, r, f)
	f.Debug = DebugWireframe | DebugBoxes | DebugBuildAge
	for i := range f.Groups[0].Slots {
		f.Groups[0].Slots[i].Age = 0 // just built: full red tint
	}
	dbg, st := draw(t, r, f)
	assert.Equal(t, 1, st.Wireframe.MultiDraws)
	assert.Equal(t, st.Main.Slots, st.Wireframe.Slots)
	assert.GreaterOrEqual(t, st.Overlay.Draws, 1, "slot boxes")
	x, y := testW/2, testH*7/8
	p, d := rgb(plain, x, y), rgb(dbg, x, y)
	assert.Greater(t, d[0]-d[2], p[0]-p[2]+40, "build-age tint should redden: plain %v debug %v", p, d)
	writePNG(t, "debug.png", dbg)

	// Loading: none of the world, a progress bar, HUD text.
	f.Debug = 0
	f.Loading, f.Progress = true, 0.5
	f.HUD = []string{"FPS 60", "SLOTS 3/16"}
	img, st := draw(t, r, f)
	assert.Equal(t, 0, st.Main.MultiDraws)
	assert.Equal(t, 0, st.Depth.MultiDraws)
	bar := rgb(img, testW/2-testW/8, testH/2) // inside the filled half
	assert.Greater(t, bar[0], 200, "bar fill %v", bar)
	empty := rgb(img, testW/2+testW/8, testH/2)
	assert.Less(t, empty[0], 80, "bar track %v", empty)
	white := 0
	for yy := 0; yy < 40; yy++ {
		for xx := 0; xx < 120; xx++ {
			if c := rgb(img, xx, yy); c[0] > 230 && c[1] > 230 && c[2] > 230 {
				white++
			}
		}
	}
	assert.Greater(t, white, 30, "HUD text pixels")
	writePNG(t, "loading.png", img)
}

func TestDuskLightsLampsAndWindows(t *testing.T) {
	r := glRenderer(t)
	g := city(t, r, farCamera.Add(mgl64.Vec3{0, -0.5, 0}))
	f := cityFrame(g)
	f.TimeOfDay = 21
	img, _ := draw(t, r, f)
	// At night most of the frame is dark, but lamps light the road and
	// windows glow warm: some bright warm pixels exist.
	warm := 0
	b := img.Bounds()
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := rgb(img, x, y)
			if c[0] > 120 && c[0] > c[2]+40 {
				warm++
			}
		}
	}
	assert.Greater(t, warm, 200, "no lit windows or lamps at night")
	writePNG(t, "night.png", img)
}

func TestScreenshotPNG(t *testing.T) {
	r := glRenderer(t)
	path := filepath.Join(t.TempDir(), "shot.png")
	var err error
	onMain(func() {
		if err = r.Draw(noonFrame()); err == nil {
			err = r.SaveScreenshot(path)
		}
		r.Present()
	})
	require.NoError(t, err)
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	img, err := png.Decode(fh)
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, testW, testH), img.Bounds())
	_, _, _, a := img.At(1, 1).RGBA()
	assert.Equal(t, uint32(0xffff), a)
}

func TestMissingContextIsAnError(t *testing.T) {
	glRenderer(t) // skips without a display
	var err error
	var r *Renderer
	onMain(func() {
		r, err = Open(Options{Width: 64, Height: 64, Hidden: true, ContextVersion: [2]int{9, 9}})
	})
	require.Error(t, err)
	assert.Nil(t, r)
	assert.Contains(t, err.Error(), "OpenGL 9.9 core")
}

func TestBadOptions(t *testing.T) {
	_, err := Open(Options{Width: -5})
	assert.ErrorContains(t, err, "out of range")
	_, err = Open(Options{Layout: slots.Layout{Near: slots.Config{VertsPerSlot: 3}}})
	assert.ErrorContains(t, err, "vertices per slot")
	_, err = Open(Options{FixedScale: 2})
	assert.ErrorContains(t, err, "fixed scale")
}

// syntheticCity opens a default-size (1280×720) renderer with the test city.
func syntheticCity(t testing.TB) (*Renderer, *Frame) {
	var big *Renderer
	var err error
	onMain(func() {
		big, err = Open(Options{Title: "render bench", FixedScale: 1, GLProfile: glprofile.Full, Passes: testPasses, Layout: slots.Layout{Near: slots.Config{Slots: 16, VertsPerSlot: 1200}}})
	})
	require.NoError(t, err)
	t.Cleanup(func() { onMain(func() { big.Close() }) })
	return big, cityFrame(city(t, big, farCamera))
}

// TestSyntheticFrameAt1280x720 draws the test city at the default window
// size while the camera moves: every frame is one multi-draw per pass over
// the three visible slots (one culled), and the picture is a city under a
// sky that changes as the camera moves. Frame time is BenchmarkSyntheticFrame's.
func TestSyntheticFrameAt1280x720(t *testing.T) {
	glRenderer(t)
	if testing.Short() {
		t.Skip("short")
	}
	big, f := syntheticCity(t)
	var first, last *image.RGBA
	for i := 0; i < 12; i++ {
		f.Camera.Position = f.Camera.Position.Add(mgl64.Vec3{0, 0, -0.5})
		img, st := draw(t, big, f)
		require.Equal(t, 1, st.Main.MultiDraws, "frame %d", i)
		require.Equal(t, 1, st.Depth.MultiDraws, "frame %d", i)
		require.Equal(t, 3, st.Main.Slots, "frame %d", i)
		require.Equal(t, 1, st.Culled, "frame %d", i)
		require.Equal(t, 2, st.Trees, "frame %d", i)
		if first == nil {
			first = img
		}
		last = img
	}
	require.Equal(t, image.Rect(0, 0, 1280, 720), last.Bounds())
	distinct, topBlue, dominant := colourStats(last)
	assert.Greater(t, distinct, 20, "too few colours: blank frame?")
	assert.Greater(t, topBlue, 0.5, "the top of the frame should be sky")
	assert.Less(t, dominant, 0.6, "one colour dominates the frame")
	// The city covers the lower half (road, grass, buildings): compared
	// with the same frame without geometry nearly every pixel there differs.
	empty := *f
	empty.Groups = nil
	bare, _ := draw(t, big, &empty)
	covered, total := 0, 0
	for y := 360; y < 720; y += 4 {
		for x := 0; x < 1280; x += 4 {
			total++
			if rgb(bare, x, y) != rgb(last, x, y) {
				covered++
			}
		}
	}
	assert.Greater(t, float64(covered)/float64(total), 0.9, "geometry covers the lower half")
	changed := 0
	for y := 0; y < 720; y += 4 {
		for x := 0; x < 1280; x += 4 {
			if rgb(first, x, y) != rgb(last, x, y) {
				changed++
			}
		}
	}
	assert.Greater(t, changed, 100, "moving 5.5 m changes the picture")
	writePNG(t, "synthetic720.png", last)
}

// BenchmarkSyntheticFrame times drawing the test city at 1280×720 (no
// threshold: machines differ). Run under xvfb-run with -bench SyntheticFrame.
func BenchmarkSyntheticFrame(b *testing.B) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		b.Skip("no display")
	}
	big, f := syntheticCity(b)
	var err error
	for b.Loop() {
		f.Camera.Position = f.Camera.Position.Add(mgl64.Vec3{0, 0, -0.5})
		onMain(func() {
			err = big.Draw(f)
			big.Present()
		})
		require.NoError(b, err)
	}
	var info string
	onMain(func() { info = big.GLInfo() })
	b.Logf("1280x720 synthetic city frame (%s)", info)
}

func writePNG(t *testing.T, name string, img image.Image) {
	dir := os.Getenv("RENDER_TEST_OUT")
	if dir == "" {
		return
	}
	fh, err := os.Create(filepath.Join(dir, name))
	require.NoError(t, err)
	defer fh.Close()
	require.NoError(t, png.Encode(fh, img))
}
