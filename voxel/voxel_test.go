package voxel

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// rebuilt recomputes masks and counts from the blocks alone.
func rebuilt(c *Chunk) *Chunk {
	var d Chunk
	for i := range ChunkVolume {
		d.SetIndex(i, c.blocks[i])
	}
	return &d
}

func TestMutatorsKeepMasksAndCountsInStep(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var c Chunk
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 3))
		for range rapid.IntRange(1, 60).Draw(rt, "ops") {
			b := Block(r.IntN(int(NumBlocks)))
			switch r.IntN(4) {
			case 0:
				c.Set(r.IntN(ChunkSize), r.IntN(ChunkSize), r.IntN(ChunkSize), b)
			case 1:
				y0 := r.IntN(ChunkSize+4) - 2
				c.FillColumn(r.IntN(ChunkSize), r.IntN(ChunkSize), y0, y0+r.IntN(40), b)
			case 2:
				if r.IntN(8) == 0 {
					c.Fill(b)
				}
			default:
				Overlay{{Index: uint16(r.IntN(ChunkVolume)), Block: b}}.Apply(&c)
			}
		}
		require.Equal(rt, *rebuilt(&c), c)
	})
}

func TestIndexCoordsRoundTrip(t *testing.T) {
	for i := range ChunkVolume {
		x, y, z := Coords(i)
		require.Equal(t, i, Index(x, y, z))
	}
	assert.Equal(t, 1, Index(1, 0, 0))
	assert.Equal(t, 32, Index(0, 0, 1))
	assert.Equal(t, 1024, Index(0, 1, 0))
}

func TestChunkOfFloorsNegatives(t *testing.T) {
	p, i := ChunkOf(-1, 0, 33)
	assert.Equal(t, ChunkPos{-1, 0, 1}, p)
	assert.Equal(t, Index(31, 0, 1), i)
	x, y, z := ChunkPos{-1, 2, 3}.Origin()
	assert.Equal(t, []int64{-32, 64, 96}, []int64{x, y, z})
}

func TestFaceOppositeAndNeighbour(t *testing.T) {
	p := ChunkPos{1, 2, 3}
	for f := Face(0); f < NumFaces; f++ {
		assert.Equal(t, p, p.Neighbour(f).Neighbour(f.Opposite()))
		assert.NotEqual(t, f, f.Opposite())
	}
}

func TestOverlayWithGetAndCodec(t *testing.T) {
	var o Overlay
	o = o.With(9, Stone)
	o2 := o.With(3, Sand).With(9, Grass)
	assert.Equal(t, Overlay{{9, Stone}}, o, "With must not mutate")
	assert.Equal(t, Overlay{{3, Sand}, {9, Grass}}, o2)
	b, ok := o2.Get(9)
	assert.True(t, ok)
	assert.Equal(t, Grass, b)
	_, ok = o2.Get(4)
	assert.False(t, ok)
	dec, err := DecodeOverlay(o2.AppendEncode(nil))
	require.NoError(t, err)
	assert.Equal(t, o2, dec)
	for _, bad := range [][]byte{{0, 1}, {0x80, 0, 1}, {0, 1, 99}, {0, 5, 1, 0, 5, 1}, {0, 6, 1, 0, 5, 1}} {
		_, err := DecodeOverlay(bad)
		assert.ErrorIs(t, err, ErrBadOverlay, "%x", bad)
	}
}

func TestTouched(t *testing.T) {
	p := ChunkPos{0, 0, 0}
	assert.Equal(t, []ChunkPos{p}, Touched(p, Index(5, 5, 5), nil))
	assert.ElementsMatch(t, []ChunkPos{p, {1, 0, 0}, {0, -1, 0}, {0, 0, -1}}, Touched(p, Index(31, 0, 0), nil))
}

// FillStrata must build exactly the chunk FillColumn does run by run
// (blocks, both mask sets, counts): terrain-like strata (tops near one
// height, few kinds, so whole rows lie in one run) and arbitrary ones.
func TestFillStrataMatchesFillColumn(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		terrain := rapid.Bool().Draw(rt, "terrain")
		base := rapid.IntRange(-8, 44).Draw(rt, "base")
		spread := rapid.IntRange(1, 8).Draw(rt, "spread")
		kinds := rapid.IntRange(1, int(NumBlocks)-1).Draw(rt, "kinds") // kinds of Under and Cap in use
		var s Strata
		s.Depth = rapid.IntRange(0, MaxStrataDepth).Draw(rt, "depth")
		s.FluidTop = rapid.IntRange(-4, ChunkSize+4).Draw(rt, "fluidTop")
		s.Deep, s.Fluid = Stone, Water
		if rapid.Bool().Draw(rt, "noFluid") {
			s.Fluid = Air
		}
		kind := func() Block { return Block(1 + r.IntN(kinds)) }
		want := new(Chunk)
		for i := range ChunkArea {
			x, z := i&(ChunkSize-1), i>>ChunkBits
			t := r.IntN(MaxStrataTop + 1)
			if terrain {
				t = min(max(base+r.IntN(spread), 0), MaxStrataTop)
			}
			s.Top[i], s.Under[i], s.Cap[i] = uint8(t), kind(), kind()
			want.FillColumn(x, z, 0, t-1-s.Depth, s.Deep)
			want.FillColumn(x, z, t-1-s.Depth, t-1, s.Under[i])
			want.FillColumn(x, z, t-1, t, s.Cap[i])
			if s.Fluid != Air {
				want.FillColumn(x, z, t, min(max(s.FluidTop, 0), ChunkSize), s.Fluid)
			}
		}
		got := new(Chunk)
		got.FillStrata(&s)
		require.Equal(rt, want, got)
	})
}

// A top beyond MaxStrataTop would break FillStrata's byte lanes.
func TestFillStrataRefusesHighTops(t *testing.T) {
	var s Strata
	s.Deep, s.Under[0], s.Cap[0] = Stone, Dirt, Grass
	s.Top[77] = MaxStrataTop + 1
	require.Panics(t, func() { new(Chunk).FillStrata(&s) })
}

func TestChunkAtFloorsMetres(t *testing.T) {
	cases := []struct {
		x, y, z float64
		want    ChunkPos
	}{
		{0, 0, 0, ChunkPos{}},
		{31.99, 0, 0, ChunkPos{}},
		{32, 0, 0, ChunkPos{X: 1}},
		{-0.01, -0.01, 31.99, ChunkPos{X: -1, Y: -1}},
		{-32, 64.5, -32.01, ChunkPos{X: -1, Y: 2, Z: -2}},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, ChunkAt(tc.x, tc.y, tc.z), "%v,%v,%v", tc.x, tc.y, tc.z)
	}
}

func TestTranspose32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		var a, want [ChunkSize]uint32
		for i := range a {
			a[i] = r.Uint32()
		}
		for i := range ChunkSize {
			for j := range ChunkSize {
				want[j] |= (a[i] >> j & 1) << i
			}
		}
		transpose32(&a)
		require.Equal(t, want, a)
	}
}
