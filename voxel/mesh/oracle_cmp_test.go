package mesh

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
)

// The mesher must emit exactly the quads of the original one, in the same
// order, for random chunks and neighbours of up to 8 kinds.
func TestBuildMatchesOracleRandom(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		density := rapid.Float64Range(0, 1).Draw(rt, "density")
		kinds := rapid.IntRange(1, 8).Draw(rt, "kinds")
		r := rand.New(rand.NewPCG(seed, 2))
		c := randomChunk(r, density, kinds)
		var nb Neighbours
		for f := range nb {
			if r.IntN(3) != 0 {
				nb[f] = randomChunk(r, r.Float64(), kinds)
			}
		}
		require.Equal(rt, oracleBuild(nil, c, &nb), Build(nil, c, &nb))
	})
}

// Structured volumes (long runs, full and empty layers, uniform chunks,
// real neighbours) exercise the merges and shortcuts random noise does not.
func TestBuildMatchesOracleVolumes(t *testing.T) {
	for _, tc := range volumeFields() {
		cs, nbs := tc.f.inner()
		for k, c := range cs {
			require.Equal(t, oracleBuild(nil, c, &nbs[k]), Build(nil, c, &nbs[k]), "%s chunk %d", tc.name, k)
			require.Equal(t, oracleBuild(nil, c, nil), Build(nil, c, nil), "%s chunk %d without neighbours", tc.name, k)
		}
	}
	// slabs and boxes of mixed kinds with air gaps, full-layer runs
	r := rand.New(rand.NewPCG(16, 16))
	for range 40 {
		c := new(voxel.Chunk)
		for range 1 + r.IntN(12) {
			x0, y0, z0 := r.IntN(size), r.IntN(size), r.IntN(size)
			x1, y1, z1 := x0+r.IntN(size-x0)+1, y0+r.IntN(size-y0)+1, z0+r.IntN(size-z0)+1
			b := voxel.Block(r.IntN(4))
			for y := y0; y < y1; y++ {
				for z := z0; z < z1; z++ {
					for x := x0; x < x1; x++ {
						c.Set(x, y, z, b)
					}
				}
			}
		}
		full := new(voxel.Chunk)
		full.Fill(voxel.Dirt)
		nb := Neighbours{full, nil, c, full, nil, c}
		require.Equal(t, oracleBuild(nil, c, &nb), Build(nil, c, &nb))
		require.Equal(t, oracleBuild(nil, c, nil), Build(nil, c, nil))
	}
}
