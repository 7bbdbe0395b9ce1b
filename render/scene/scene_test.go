package scene

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/frustum"
	"citydrive/slots"
)

// TestFloatingOriginPrecisionFarOut: 200 km out (and at 200,000 km), a
// vertex a few millimetres from the slot origin lands within a micrometre of
// its true camera-relative place when the origin-minus-camera difference is
// taken in float64, while the naive all-float32 route is off by
// millimetres to metres.
func TestFloatingOriginPrecisionFarOut(t *testing.T) {
	for _, far := range []float64{200_000, 200_000_000} {
		camera := mgl64.Vec3{far + 0.123456, 1.7, -far*0.5 + 0.654321}
		origin := mgl64.Vec3{far + 12.5, 0, -far*0.5 - 30.25} // slot origin near the car
		local := mgl32.Vec3{3.003, 0.25, -7.007}              // a vertex, float32
		var exact mgl64.Vec3
		for a := 0; a < 3; a++ {
			exact[a] = origin[a] + float64(local[a]) - camera[a]
		}
		rel := Relative(origin, camera).Add(local) // what the shader computes
		naive := mgl32.Vec3{}                      // world positions in float32
		for a := 0; a < 3; a++ {
			naive[a] = (float32(origin[a]) + local[a]) - float32(camera[a])
		}
		var errRel, errNaive float64
		for a := 0; a < 3; a++ {
			errRel = math.Max(errRel, math.Abs(float64(rel[a])-exact[a]))
			errNaive = math.Max(errNaive, math.Abs(float64(naive[a])-exact[a]))
		}
		assert.Less(t, errRel, 1e-5, "camera-relative error at %g m", far)
		assert.Greater(t, errNaive, 1e-3, "the naive float32 path should visibly jitter at %g m", far)
	}
}

// The offset used for culling stays float64 end to end: a box far out is
// classified exactly like the same box near the origin.
func TestCullingFarOutMatchesNearOrigin(t *testing.T) {
	cam := Camera{Yaw: 0.3, Pitch: -0.1}
	vp := cam.ViewProj(16.0 / 9)
	f := frustum.FromViewProj(vp)
	s := []SlotDraw{{Slot: 0, Count: 3, Min: mgl32.Vec3{-2, 0, -40}, Max: mgl32.Vec3{2, 5, -36}}, {Slot: 1, Count: 3, Min: mgl32.Vec3{-2, 0, 36}, Max: mgl32.Vec3{2, 5, 40}}}
	var near, far DrawList
	near.Build(s, nil, mgl64.Vec3{3, 0, -2}, &f, 2, 10)
	eye := mgl64.Vec3{-1.9e8, 3, 2.2e8}
	origin := mgl64.Vec3{-1.9e8 + 3, 3, 2.2e8 - 2}
	far.Build(s, nil, origin.Sub(eye), &f, 2, 10)
	assert.Equal(t, near.First, far.First)
	assert.Equal(t, []int32{0}, near.First)
}

func TestCameraForwardAndView(t *testing.T) {
	c := Camera{}
	assert.InDeltaSlice(t, []float64{0, 0, -1}, sl(c.Forward()), 1e-12)
	c.Yaw = math.Pi / 2
	assert.InDeltaSlice(t, []float64{1, 0, 0}, sl(c.Forward()), 1e-12)
	target := mgl64.Vec3{5e5, 0, 5e5 + 10}
	c = Camera{Position: mgl64.Vec3{5e5, 10, 5e5}, Target: &target}
	assert.InDeltaSlice(t, []float64{0, -math.Sqrt2 / 2, math.Sqrt2 / 2}, sl(c.Forward()), 1e-9)
	// A point straight ahead projects to the centre of the screen.
	vp := c.ViewProj(1)
	p := vp.Mul4x1(target.Sub(c.Position).Vec4(1))
	assert.InDelta(t, 0, p[0]/p[3], 1e-9)
	assert.InDelta(t, 0, p[1]/p[3], 1e-9)
	// Straight down (top view) is not degenerate.
	top := Camera{Pitch: -math.Pi / 2}
	m := top.View()
	for _, x := range m {
		require.False(t, math.IsNaN(x))
	}
	assert.InDelta(t, 1, top.Forward().Len(), 1e-9)
	assert.Equal(t, float64(DefaultFar), Camera{}.FarPlane())
}

func TestDrawListKeepsOrderCullsAndClamps(t *testing.T) {
	cam := Camera{} // looking along -Z from the origin
	f := frustum.FromViewProj(cam.ViewProj(1))
	in := []SlotDraw{
		{Slot: 7, Count: 30, Min: mgl32.Vec3{-1, -1, -12}, Max: mgl32.Vec3{1, 1, -10}},    // ahead
		{Slot: 2, Count: 0, Min: mgl32.Vec3{-1, -1, -12}, Max: mgl32.Vec3{1, 1, -10}},     // empty
		{Slot: 3, Count: 9, Min: mgl32.Vec3{-1, -1, 10}, Max: mgl32.Vec3{1, 1, 12}},       // behind
		{Slot: 0, Count: 99999, Min: mgl32.Vec3{-1, -1, -52}, Max: mgl32.Vec3{1, 1, -50}}, // clamped
		{Slot: 12, Count: 3, Min: mgl32.Vec3{-1, -1, -12}, Max: mgl32.Vec3{1, 1, -10}},    // out of range
	}
	var d DrawList
	d.Build(in, nil, mgl64.Vec3{}, &f, 10, 100)
	assert.Equal(t, []int32{700, 0}, d.First)
	assert.Equal(t, []int32{30, 100}, d.Count)
	assert.Equal(t, 1, d.Culled)
	assert.Equal(t, 1, d.Bad)
	assert.Equal(t, 130, d.Vertices())
	// The origin offset moves boxes: shifted 100 m forward, the box that was
	// behind is now ahead.
	d.Reset()
	d.Build(in, nil, mgl64.Vec3{0, 0, -100}, &f, 10, 100)
	assert.Equal(t, []int32{700, 300, 0}, d.First)
	// No frustum: nothing culled.
	d.Reset()
	d.Build(in, nil, mgl64.Vec3{}, nil, 10, 100)
	assert.Equal(t, 3, d.Len())
	// The sink's counts win: slot 7 was cleared, slot 0 holds 40, slot 3 is
	// capped by the input's 9.
	counts := []int{40, 0, 0, 50, 0, 0, 0, 0, 0, 0}
	d.Reset()
	d.Build(in, counts, mgl64.Vec3{}, nil, 10, 100)
	assert.Equal(t, []int32{300, 0}, d.First)
	assert.Equal(t, []int32{9, 40}, d.Count)
}

func TestEffectiveCount(t *testing.T) {
	s := SlotDraw{Slot: 1, Count: 0}
	assert.Equal(t, 0, EffectiveCount(&s, nil))
	assert.Equal(t, 5, EffectiveCount(&s, []int{0, 5}))
	s.Count = 3
	assert.Equal(t, 3, EffectiveCount(&s, []int{0, 5}))
	assert.Equal(t, 0, EffectiveCount(&s, []int{0, 0}))
	s.Slot = 9
	assert.Equal(t, 0, EffectiveCount(&s, []int{0, 5}))
}

func TestAppendTrees(t *testing.T) {
	cam := Camera{}
	f := frustum.FromViewProj(cam.ViewProj(1))
	in := []SlotDraw{
		{Slot: 0, Count: 3, Trees: []slots.Tree{{Pos: [3]float32{0, 0, -20}, Scale: 1, Variant: 0.5}, {Pos: [3]float32{0, 0, 30}, Scale: 1}}},
		{Slot: 1, Count: 0, Trees: []slots.Tree{{Pos: [3]float32{0, 0, -20}}}}, // cleared slot: no trees
		{Slot: 2, Count: 3, Trees: []slots.Tree{{Pos: [3]float32{1, 0, -25}}}},
	}
	out, dropped := AppendTrees(nil, in, nil, mgl64.Vec3{0, -2, 0}, &f, 100)
	assert.Equal(t, []float32{0, -2, -20, 1, 0.5, 1, -2, -25, 1, 0}, out)
	assert.Equal(t, 0, dropped)
	out, dropped = AppendTrees(nil, in, nil, mgl64.Vec3{}, &f, 1)
	assert.Len(t, out, TreeFloats)
	assert.Equal(t, 1, dropped)
}

func TestAppendBox(t *testing.T) {
	b := frustum.AABB{Min: mgl64.Vec3{0, 0, 0}, Max: mgl64.Vec3{1, 2, 3}}
	v := AppendBox(nil, b, mgl32.Vec3{1, 0, 0})
	require.Len(t, v, 24*LineFloats)
	// Every edge is axis-aligned with the box's extent along its axis.
	total := float32(0)
	for i := 0; i < 24; i += 2 {
		p, q := v[i*LineFloats:], v[(i+1)*LineFloats:]
		d := mgl32.Vec3{q[0] - p[0], q[1] - p[1], q[2] - p[2]}
		total += d.Len()
	}
	assert.InDelta(t, 4*(1+2+3), total, 1e-6)
}

func TestAgeTint(t *testing.T) {
	assert.Equal(t, mgl32.Vec4{1, 0, 0, 0.75}, AgeTint(0))
	assert.Greater(t, AgeTint(2)[3], AgeTint(9)[3])
	assert.Equal(t, float32(0), AgeTint(10)[3])
	assert.Equal(t, float32(0), AgeTint(100)[3])
}

func TestSunAndLight(t *testing.T) {
	noon := SunDirection(12)
	assert.Greater(t, noon[1], 0.8)
	assert.Less(t, SunDirection(0)[1], -0.8)
	assert.InDelta(t, 0, SunDirection(6)[1], 1e-9)
	assert.Greater(t, SunDirection(9)[0], 0.0, "morning sun in the east")
	day, dusk, night := LightAt(12, Dry), LightAt(18.6, Dry), LightAt(0, Dry)
	assert.Equal(t, float32(0), day.Night)
	assert.Greater(t, dusk.Night, float32(0.5))
	assert.Equal(t, float32(1), night.Night)
	assert.Greater(t, night.Dir[1], 0.0, "the light never comes from below")
	assert.Greater(t, day.Zenith[2], night.Zenith[2])
	wet := LightAt(12, Wet)
	assert.Less(t, wet.Colour[0], day.Colour[0])
}

func TestPalettes(t *testing.T) {
	assert.Same(t, &DryPalette, PaletteFor(Dry))
	assert.Same(t, &WetPalette, PaletteFor(Wet))
	// Wet road is darker than dry road; every entry differs.
	assert.Less(t, WetPalette[slots.PaletteRoad][0], DryPalette[slots.PaletteRoad][0])
	for i := 0; i < slots.PaletteSize; i++ {
		assert.NotEqual(t, DryPalette[i], WetPalette[i], "entry %d", i)
	}
	assert.Equal(t, "wet", Wet.String())
}

func TestTreeMesh(t *testing.T) {
	m := TreeMesh()
	require.Zero(t, len(m)%(TreeMeshFloats*3))
	n := len(m) / TreeMeshFloats
	assert.Equal(t, 3*(12+16), n)
	// Normals point away from the tree's axis (outward, so lit faces face
	// the light) for every side face.
	for i := 0; i < n; i += 3 {
		var c mgl32.Vec3
		for k := 0; k < 3; k++ {
			c = c.Add(mgl32.Vec3{m[(i+k)*7], m[(i+k)*7+1], m[(i+k)*7+2]})
		}
		c = c.Mul(1.0 / 3)
		nrm := mgl32.Vec3{m[i*7+3], m[i*7+4], m[i*7+5]}
		axis := mgl32.Vec3{0, c[1], 0}
		assert.Greater(t, nrm.Dot(c.Sub(axis)), float32(0), "face %d points inwards", i/3)
	}
}

func sl(v mgl64.Vec3) []float64 { return v[:] }

func TestShadowRefreshPolicy(t *testing.T) {
	sun := SunDirection(10)
	var s ShadowState
	assert.True(t, s.NeedsRefresh(mgl64.Vec3{}, sun), "no map yet")
	s = ShadowState{Valid: true, Centre: mgl64.Vec3{1e6, 0, 1e6}, Sun: sun}
	assert.False(t, s.NeedsRefresh(mgl64.Vec3{1e6 + 5, 0, 1e6}, sun))
	assert.True(t, s.NeedsRefresh(mgl64.Vec3{1e6 + 9, 0, 1e6}, sun))
	assert.False(t, s.NeedsRefresh(s.Centre, SunDirection(10.01)), "0.15° of sun travel")
	assert.True(t, s.NeedsRefresh(s.Centre, SunDirection(10.1)), "1.5° of sun travel")
	s.Dirty = true
	s.FramesSince = ShadowDirtyFrames - 1
	assert.False(t, s.NeedsRefresh(s.Centre, sun))
	s.FramesSince = ShadowDirtyFrames
	assert.True(t, s.NeedsRefresh(s.Centre, sun))
}

func TestShadowViewProjCoversTheCentre(t *testing.T) {
	for _, h := range []float64{8, 12, 16} {
		vp := ShadowViewProj(SunDirection(h), 100)
		for _, p := range []mgl64.Vec3{{}, {60, 0, 60}, {-60, 10, -60}, {0, 0, 95}} {
			c := vp.Mul4x1(p.Vec4(1))
			for a := 0; a < 3; a++ {
				assert.LessOrEqual(t, math.Abs(c[a]/c[3]), 1.0, "hour %g point %v axis %d", h, p, a)
			}
		}
	}
	c := ShadowCentre(Camera{Position: mgl64.Vec3{5, 1, 5}}, 100)
	assert.InDeltaSlice(t, []float64{5, 1, -45}, c[:], 1e-9)
}

func TestBuildLODCutsFarSlotsToTheirCoarsePrefix(t *testing.T) {
	in := []SlotDraw{
		{Slot: 0, Count: 90, Min: mgl32.Vec3{-1, -1, -12}, Max: mgl32.Vec3{1, 1, -10}},   // near
		{Slot: 1, Count: 90, Min: mgl32.Vec3{-1, -1, -212}, Max: mgl32.Vec3{1, 1, -210}}, // far
		{Slot: 2, Count: 90, Min: mgl32.Vec3{-1, -1, -212}, Max: mgl32.Vec3{1, 1, -5}},   // reaches the eye
		{Slot: 3, Count: 90, Min: mgl32.Vec3{-1, -1, -212}, Max: mgl32.Vec3{1, 1, -210}}, // far, all detail
		{Slot: 4, Count: 90, Min: mgl32.Vec3{150, 0, 150}, Max: mgl32.Vec3{152, 1, 152}}, // far diagonally (212 m)
	}
	lod := LOD{Coarse: []int{30, 30, 30, 0, 60}, Beyond: 200}
	var d DrawList
	d.BuildLOD(in, nil, &lod, mgl64.Vec3{}, nil, 5, 100)
	assert.Equal(t, []int32{0, 100, 200, 400}, d.First)
	assert.Equal(t, []int32{90, 30, 90, 60}, d.Count)
	// Moved 200 m forward by the group offset, slot 1 is near.
	d.Reset()
	d.BuildLOD(in[1:2], nil, &lod, mgl64.Vec3{0, 0, 200}, nil, 5, 100)
	assert.Equal(t, []int32{90}, d.Count)
	// No LOD: whole.
	d.Reset()
	d.BuildLOD(in, nil, nil, mgl64.Vec3{}, nil, 5, 100)
	assert.Equal(t, []int32{90, 90, 90, 90, 90}, d.Count)
}

func TestBuildSplitCullsOnlySlotsWhollyBeyond(t *testing.T) {
	in := []SlotDraw{
		{Slot: 0, Count: 90, Min: mgl32.Vec3{-1, -1, -12}, Max: mgl32.Vec3{1, 1, -10}},   // 10 m
		{Slot: 1, Count: 90, Min: mgl32.Vec3{-1, -1, -62}, Max: mgl32.Vec3{1, 1, -60}},   // 60 m
		{Slot: 2, Count: 90, Min: mgl32.Vec3{-1, -1, -212}, Max: mgl32.Vec3{1, 1, -5}},   // reaches within 5 m
		{Slot: 3, Count: 90, Min: mgl32.Vec3{36, 0, 36}, Max: mgl32.Vec3{38, 1, 38}},     // 51 m diagonally
		{Slot: 4, Count: 90, Min: mgl32.Vec3{-1, -1, -251}, Max: mgl32.Vec3{1, 1, -250}}, // 250 m, coarse
	}
	for _, c := range []struct {
		name         string
		cullBeyond   float64
		whole, culls []int32 // First of each list
	}{
		{"off", 0, []int32{0, 100, 200, 300, 400}, nil},
		{"beyond 50 m", 50, []int32{0, 200}, []int32{100, 300, 400}},
		{"beyond 55 m", 55, []int32{0, 200, 300}, []int32{100, 400}},
		{"beyond 300 m", 300, []int32{0, 100, 200, 300, 400}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			lod := LOD{Coarse: []int{30, 30, 30, 30, 30}, Beyond: 200, CullBeyond: c.cullBeyond}
			var d, culled DrawList
			d.BuildSplit(in, nil, &lod, mgl64.Vec3{}, nil, 5, 100, &culled)
			assert.Equal(t, c.whole, d.First)
			assert.Equal(t, c.culls, culled.First)
			// the detail cut applies in both lists: slot 4 is beyond 200 m
			assert.Equal(t, 5*90-60, d.Vertices()+culled.Vertices())
		})
	}
	// BuildLOD never splits: CullBeyond needs a second list.
	var d DrawList
	lod := LOD{Coarse: []int{30, 30, 30, 30, 30}, Beyond: 200, CullBeyond: 50}
	d.BuildLOD(in, nil, &lod, mgl64.Vec3{}, nil, 5, 100)
	assert.Equal(t, 5, d.Len())
}

// ShadowMoveFor's promise: while the map's centre has moved at most
// share × half, the map covers the view's direction on the ground from
// (0.5 − share) × half behind the eye to (1.5 − share) × half ahead, however
// the eye moved and turned, whatever the sun's height.
func TestShadowMoveKeepsTheViewCovered(t *testing.T) {
	const half, share = 160.0, 0.25
	move := ShadowMoveFor(share, half)
	assert.Equal(t, share*half, move)
	assert.Equal(t, ShadowMove, ShadowMoveFor(0, half), "0: the fixed distance")
	rng := rand.New(rand.NewPCG(3, 4))
	for _, h := range []float64{7, 10, 12, 15, 17.5} {
		sun := SunDirection(h)
		vp := ShadowViewProj(sun, half)
		for range 200 {
			was := Camera{Position: mgl64.Vec3{rng.Float64() * 1000, 2, rng.Float64() * 1000}, Yaw: rng.Float64() * 2 * math.Pi}
			o := ShadowCentre(was, half)
			var now Camera
			for { // an eye whose centre is within move of the map's
				now = Camera{Position: was.Position.Add(mgl64.Vec3{rng.Float64()*2 - 1, 0, rng.Float64()*2 - 1}.Mul(2 * move)), Yaw: rng.Float64() * 2 * math.Pi}
				if ShadowCentre(now, half).Sub(o).Len() <= move {
					break
				}
			}
			f := now.Forward()
			f = mgl64.Vec3{f[0], 0, f[2]}.Normalize()
			for d := -(0.5 - share) * half; d <= (1.5-share)*half; d += 5 {
				p := now.Position.Add(f.Mul(d)).Sub(o)
				p[1] = 0
				c := vp.Mul4x1(p.Vec4(1))
				assert.LessOrEqual(t, math.Max(math.Abs(c[0]), math.Abs(c[1])), 1.0, "hour %g, %.0f m along the view", h, d)
			}
		}
	}
}
