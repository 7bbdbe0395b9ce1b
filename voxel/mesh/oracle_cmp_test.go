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

// layeredChunk stacks layers that are each empty, full of one kind, full
// of mixed kinds or random, the shapes the face pass's full-layer shortcuts
// see (solid ground under a surface, a layer between full ones).
func layeredChunk(r *rand.Rand, kinds int) *voxel.Chunk {
	c := new(voxel.Chunk)
	for y := range size {
		kind := r.IntN(4)
		density := r.Float64()
		one := voxel.Block(1 + r.IntN(kinds))
		for z := range size {
			for x := range size {
				switch {
				case kind == 1:
					c.Set(x, y, z, one)
				case kind == 2:
					c.Set(x, y, z, voxel.Block(1+r.IntN(kinds)))
				case kind == 3 && r.Float64() < density:
					c.Set(x, y, z, voxel.Block(1+r.IntN(kinds)))
				}
			}
		}
	}
	return c
}

func TestBuildMatchesOracleLayered(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 4))
	full := new(voxel.Chunk)
	full.Fill(voxel.Stone)
	for range 60 {
		kinds := 1 + r.IntN(4)
		c := layeredChunk(r, kinds)
		var nb Neighbours
		for f := range nb {
			switch r.IntN(3) {
			case 0:
				nb[f] = full
			case 1:
				nb[f] = layeredChunk(r, kinds)
			}
		}
		require.Equal(t, oracleBuild(nil, c, &nb), Build(nil, c, &nb))
		require.Equal(t, oracleBuild(nil, c, nil), Build(nil, c, nil))
	}
}
