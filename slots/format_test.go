package slots

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVertexIs24Bytes(t *testing.T) {
	require.LessOrEqual(t, BytesPerVertex, 24)
	require.Equal(t, 180*7200*24+16200*24, (DefaultSlots*DefaultVertsPerSlot+DefaultDynamicVerts)*BytesPerVertex)
}

// Positions round-trip within half a step (PosMaxErrorMM) everywhere in the
// stated range, and stay inside the range at its ends.
func TestPositionPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	check := func(x, y, z float64) {
		w0, w1 := PackPos(x, y, z)
		gx, gy, gz := UnpackPos(w0, w1)
		for _, d := range [3]float64{float64(gx) - x, float64(gy) - y, float64(gz) - z} {
			worst = math.Max(worst, math.Abs(d))
		}
	}
	for i := 0; i < 200000; i++ {
		// a slot's extent: an item near the car ...
		check(rng.Float64()*300-150, rng.Float64()*150-20, rng.Float64()*300-150)
		// ... and anywhere the origin can leave an item (near or far tier)
		check((rng.Float64()*2-1)*(PosRangeXZ-1), (rng.Float64()*2-1)*(PosRangeY-1), (rng.Float64()*2-1)*(PosRangeXZ-1))
	}
	require.LessOrEqual(t, worst*1000, PosMaxErrorMM+1e-6, "worst error %.3f mm", worst*1000)
	require.InDelta(t, 1.953, PosMaxErrorMM, 0.001)
	t.Logf("worst position error %.3f mm over ±%.0f m (x, z), ±%.0f m (y)", worst*1000, PosRangeXZ, PosRangeY)
	// Exact grid points are exact; out of range clamps, never wraps.
	w0, w1 := PackPos(1.5, -2.25, 100.125)
	x, y, z := UnpackPos(w0, w1)
	require.Equal(t, [3]float32{1.5, -2.25, 100.125}, [3]float32{x, y, z})
	w0, w1 = PackPos(1e6, -1e6, -1e6)
	x, y, z = UnpackPos(w0, w1)
	require.InDelta(t, PosRangeXZ, x, 0.01)
	require.InDelta(t, -PosRangeY, y, 0.01)
	require.InDelta(t, -PosRangeXZ, z, 0.01)
}

func TestNormalPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for i := 0; i < 100000; i++ {
		n := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		x, y, z := UnpackNormal(PackNormal(float32(n[0]), float32(n[1]), float32(n[2])))
		c := (float64(x)*n[0] + float64(y)*n[1] + float64(z)*n[2]) / l
		worst = math.Max(worst, math.Acos(math.Min(c, 1))*180/math.Pi)
	}
	require.Less(t, worst, 1.2)
	t.Logf("worst normal error %.2f°", worst)
	for _, a := range [][3]float32{{0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}} {
		x, y, z := UnpackNormal(PackNormal(a[0], a[1], a[2]))
		require.InDeltaSlice(t, a[:], []float32{x, y, z}, 1e-6, "axis %v exact", a)
	}
}

func TestWideRoundTrip(t *testing.T) {
	wide := make([]float32, 3*FloatsPerVertex)
	// an RGB building vertex
	copy(wide[0:], []float32{12.3, 45.6, -78.9, 0, 0, 1, 0.8, 0.4, 0.2, MaterialWindow, 0.37, 0.5, 100.25, -7.5, 5.5 + (LampLeft|LampBridge)*LampFlagScale})
	// a palette road vertex with negative along
	copy(wide[FloatsPerVertex:], []float32{-3, 0.1, 2, 0, 1, 0, PaletteRed(PaletteRoad), 0.3, 0.3, MaterialRoad, 0, 1, -20, 3.25, 3.5})
	// zeros: junction-style frame, default material
	words := make([]uint32, 3*WordsPerVertex)
	require.Equal(t, 3, EncodeWide(words, wide))
	a := Decode(words)
	require.InDeltaSlice(t, []float32{12.3, 45.6, -78.9}, a.Pos[:], PosMaxErrorMM/1000+1e-6)
	require.InDeltaSlice(t, []float32{0, 0, 1}, a.Normal[:], 1e-6)
	require.InDeltaSlice(t, []float32{0.8, 0.4, 0.2}, a.Colour[:], 1.0/500)
	require.Equal(t, -1, a.Palette)
	require.Equal(t, MaterialWindow, a.Material)
	require.InDelta(t, 0.37, a.Variant, 1.0/256)
	require.InDelta(t, 0.5, a.Occlusion, 1.0/500)
	require.InDelta(t, 100.25, a.Along, AlongStep/2)
	require.InDelta(t, -7.5, a.Across, AcrossStep/2)
	require.InDelta(t, 5.5, a.HalfWidth, HalfWidthStep/2)
	require.Equal(t, LampLeft|LampBridge, a.Lamps)
	b := Decode(words[WordsPerVertex:])
	require.Equal(t, PaletteRoad, b.Palette)
	require.Equal(t, PaletteRed(PaletteRoad), b.Colour[0])
	require.InDelta(t, 0.3, b.Colour[1], 1.0/500)
	require.InDelta(t, -20, b.Along, AlongStep/2)
	require.Equal(t, 0, b.Lamps)
	require.InDelta(t, 3.5, b.HalfWidth, HalfWidthStep/2)
	c := Decode(words[2*WordsPerVertex:])
	require.Equal(t, [3]float32{}, c.Pos)
	require.Equal(t, MaterialDefault, c.Material)
	require.Equal(t, uint32(0), words[2*WordsPerVertex+5]>>24, "spare byte zero")
}
