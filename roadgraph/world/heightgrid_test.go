package world

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// HeightGrid must equal Height bit for bit: the voxel terrain relies on it
// (a client and a server must derive the same blocks).
func requireGridExact(t require.TestingT, w World, xs, zs []float64) {
	out := make([]float64, len(xs)*len(zs))
	w.HeightGrid(xs, zs, out)
	for j, z := range zs {
		for i, x := range xs {
			want := w.Height(x, z)
			require.Equal(t, math.Float64bits(want), math.Float64bits(out[j*len(xs)+i]),
				"seed %d at (%v, %v): %v vs %v", w.Seed, x, z, want, out[j*len(xs)+i])
		}
	}
}

// chunkAxis is the column centres of a 32 m chunk from o.
func chunkAxis(o float64) []float64 {
	xs := make([]float64, 32)
	for i := range xs {
		xs[i] = o + float64(i) + 0.5
	}
	return xs
}

func TestHeightGridMatchesHeightOnChunks(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := New(rapid.Uint64().Draw(rt, "seed"))
		// near the origin, far out, and at the lattice limits of the
		// 4-octave field
		scale := rapid.SampledFrom([]float64{5e3, 1e5, 3e7}).Draw(rt, "scale")
		cx := float64(rapid.IntRange(-int(scale/32), int(scale/32)).Draw(rt, "cx")) * 32
		cz := float64(rapid.IntRange(-int(scale/32), int(scale/32)).Draw(rt, "cz")) * 32
		requireGridExact(rt, w, chunkAxis(cx), chunkAxis(cz))
	})
}

func TestHeightGridMatchesHeightOnOddGrids(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	w := New(99)
	for range 200 {
		nx, nz := 1+r.IntN(32), 1+r.IntN(32)
		step := r.Float64() * 40 // up to spans the buffers cannot hold: the fallback
		x0, z0 := r.Float64()*2e4-1e4, r.Float64()*2e4-1e4
		xs, zs := make([]float64, nx), make([]float64, nz)
		for i := range xs {
			xs[i] = x0 + float64(i)*step
		}
		for j := range zs {
			zs[j] = z0 + float64(j)*step
		}
		requireGridExact(t, w, xs, zs)
	}
}

func BenchmarkHeightGrid(b *testing.B) {
	w := New(42)
	xs, zs := chunkAxis(288), chunkAxis(192)
	out := make([]float64, 32*32)
	b.Run("grid", func(b *testing.B) {
		for b.Loop() {
			w.HeightGrid(xs, zs, out)
		}
	})
	b.Run("points", func(b *testing.B) {
		for b.Loop() {
			w.heightPoints(xs, zs, out)
		}
	})
}

func TestSmoothRampIsOneBeyondRampSure(t *testing.T) {
	for e := rampSure; e < rampSure+1e-3; e = math.Nextafter(e, 1) + 1e-7 {
		require.Equal(t, 1.0, smoothstep(0.02, 0.12, e))
	}
	// and the grid agrees with Height on the ramp itself: shore grids
	w := New(7)
	grids := 0
	for x := -3000.0; x < 3000 && grids < 30; x += 97 {
		for z := -3000.0; z < 3000 && grids < 30; z += 89 {
			if h := w.Height(x, z); h > 0.5 && h < 6 {
				requireGridExact(t, w, chunkAxis(math.Floor(x/32)*32), chunkAxis(math.Floor(z/32)*32))
				grids++
			}
		}
	}
	require.Equal(t, 30, grids, "enough shore grids")
}
