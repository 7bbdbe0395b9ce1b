package mesh

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
)

type unitFace struct {
	x, y, z int
	f       voxel.Face
}

// exposed is the brute-force reference: every face of a solid block whose
// neighbour (inside the chunk, in a present neighbour chunk, or air when
// the neighbour is absent) is air.
func exposed(c *voxel.Chunk, nb *Neighbours) map[unitFace]voxel.Block {
	out := map[unitFace]voxel.Block{}
	for i := range voxel.ChunkVolume {
		b := c.AtIndex(i)
		if b == voxel.Air {
			continue
		}
		x, y, z := voxel.Coords(i)
		for f := voxel.Face(0); f < voxel.NumFaces; f++ {
			dx, dy, dz := f.Offset()
			nx, ny, nz := x+int(dx), y+int(dy), z+int(dz)
			var other voxel.Block
			if nx >= 0 && nx < size && ny >= 0 && ny < size && nz >= 0 && nz < size {
				other = c.At(nx, ny, nz)
			} else if n := nb[f]; n != nil {
				other = n.At(nx&last, ny&last, nz&last)
			}
			if other == voxel.Air {
				out[unitFace{x, y, z, f}] = b
			}
		}
	}
	return out
}

// covered expands quads into unit faces, failing on any double cover or
// wrong kind.
func covered(t require.TestingT, c *voxel.Chunk, quads []Quad) map[unitFace]voxel.Block {
	out := map[unitFace]voxel.Block{}
	for _, q := range quads {
		q.Blocks(func(x, y, z int) {
			k := unitFace{x, y, z, q.Face()}
			_, dup := out[k]
			require.False(t, dup, "face %v covered twice", k)
			require.Equal(t, c.At(x, y, z), q.Block(), "quad kind differs from block at %v", k)
			out[k] = q.Block()
		})
	}
	return out
}

func randomChunk(r *rand.Rand, density float64, kinds int) *voxel.Chunk {
	c := new(voxel.Chunk)
	for i := range voxel.ChunkVolume {
		if r.Float64() < density {
			c.SetIndex(i, voxel.Block(1+r.IntN(kinds)))
		}
	}
	return c
}

func TestPackRoundTrip(t *testing.T) {
	q := Pack(31, 7, 3, 32, 1, voxel.NegZ, voxel.Water)
	assert.Equal(t, 31, q.X())
	assert.Equal(t, 7, q.Y())
	assert.Equal(t, 3, q.Z())
	assert.Equal(t, 32, q.W())
	assert.Equal(t, 1, q.H())
	assert.Equal(t, voxel.NegZ, q.Face())
	assert.Equal(t, voxel.Water, q.Block())
	assert.Zero(t, uint64(q)>>36, "reserved bits must stay clear")
}

func TestEmptyChunkHasNoQuads(t *testing.T) {
	assert.Empty(t, Build(nil, new(voxel.Chunk), nil))
}

func TestFullChunkWithoutNeighboursIsSixQuads(t *testing.T) {
	c := new(voxel.Chunk)
	c.Fill(voxel.Stone)
	q := Build(nil, c, nil)
	require.Len(t, q, 6)
	faces := map[voxel.Face]bool{}
	for _, x := range q {
		assert.Equal(t, 32, x.W())
		assert.Equal(t, 32, x.H())
		assert.Equal(t, voxel.Stone, x.Block())
		faces[x.Face()] = true
	}
	assert.Len(t, faces, 6)
}

func TestFullChunkSurroundedByFullNeighboursIsInvisible(t *testing.T) {
	c := new(voxel.Chunk)
	c.Fill(voxel.Stone)
	var nb Neighbours
	for f := range nb {
		nb[f] = c
	}
	assert.Empty(t, Build(nil, c, &nb))
}

func TestFlatLayerMergesIntoOneQuadPerFace(t *testing.T) {
	c := new(voxel.Chunk)
	for x := range size {
		for z := range size {
			c.Set(x, 5, z, voxel.Grass)
		}
	}
	q := Build(nil, c, nil)
	// top, bottom, and four 32×1 sides
	require.Len(t, q, 6)
	for _, x := range q {
		if x.Face() == voxel.PosY || x.Face() == voxel.NegY {
			assert.Equal(t, 32*32, x.W()*x.H())
			assert.Equal(t, 5, x.Y())
		}
	}
}

func TestDifferentKindsDoNotMerge(t *testing.T) {
	c := new(voxel.Chunk)
	c.Set(0, 0, 0, voxel.Grass)
	c.Set(1, 0, 0, voxel.Sand)
	top := 0
	for _, q := range Build(nil, c, nil) {
		if q.Face() == voxel.PosY {
			top++
			assert.Equal(t, 1, q.W())
		}
	}
	assert.Equal(t, 2, top)
}

// Two slabs one block apart: the top face of the lower one and the bottom
// face of the upper one are coplanar-adjacent in the same gap but face
// opposite ways; they must stay separate quads with opposite faces.
func TestOppositeFacesNotMerged(t *testing.T) {
	c := new(voxel.Chunk)
	for x := range 4 {
		c.Set(x, 0, 0, voxel.Stone)
		c.Set(x, 2, 0, voxel.Stone)
	}
	var up, down []Quad
	for _, q := range Build(nil, c, nil) {
		lo, hi := q.Corners()
		if q.Face() == voxel.PosY && q.Y() == 0 {
			up = append(up, q)
			assert.Equal(t, 1, lo[1])
			assert.Equal(t, 1, hi[1])
		}
		if q.Face() == voxel.NegY && q.Y() == 2 {
			down = append(down, q)
			assert.Equal(t, 2, lo[1])
		}
	}
	require.Len(t, up, 1)
	require.Len(t, down, 1)
	// a block with air above and below: +Y and -Y of the same column
	d := new(voxel.Chunk)
	d.Set(3, 3, 3, voxel.Dirt)
	seen := map[voxel.Face]int{}
	for _, q := range Build(nil, d, nil) {
		seen[q.Face()]++
	}
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		assert.Equal(t, 1, seen[f], "face %v", f)
	}
}

// boundaryFaces counts quads of face f lying on the chunk's boundary plane
// in that direction.
func boundaryFaces(quads []Quad, f voxel.Face) int {
	n := 0
	for _, q := range quads {
		if q.Face() != f {
			continue
		}
		lo, _ := q.Corners()
		dx, dy, dz := f.Offset()
		axis := 0
		if dy != 0 {
			axis = 1
		} else if dz != 0 {
			axis = 2
		}
		want := 0
		if dx+dy+dz > 0 {
			want = size
		}
		if lo[axis] == want {
			n++
		}
	}
	return n
}

func TestBoundaryFacesPresentAndAbsentNeighbours(t *testing.T) {
	c := new(voxel.Chunk)
	// one block touching each of the six boundaries
	c.Set(31, 10, 10, voxel.Stone)
	c.Set(0, 10, 10, voxel.Stone)
	c.Set(10, 31, 10, voxel.Stone)
	c.Set(10, 0, 10, voxel.Stone)
	c.Set(10, 10, 31, voxel.Stone)
	c.Set(10, 10, 0, voxel.Stone)
	all := func(nb *Neighbours) map[voxel.Face]int {
		q := Build(nil, c, nb)
		out := map[voxel.Face]int{}
		for f := voxel.Face(0); f < voxel.NumFaces; f++ {
			out[f] = boundaryFaces(q, f)
		}
		return out
	}
	ones := map[voxel.Face]int{}
	zeros := map[voxel.Face]int{}
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		ones[f], zeros[f] = 1, 0
	}
	// absent neighbours count as air: every boundary face is emitted
	assert.Equal(t, ones, all(nil))
	// present neighbours that are air: emitted
	air := new(voxel.Chunk)
	nb := Neighbours{air, air, air, air, air, air}
	assert.Equal(t, ones, all(&nb))
	// present full neighbours: culled
	full := new(voxel.Chunk)
	full.Fill(voxel.Dirt)
	nb = Neighbours{full, full, full, full, full, full}
	assert.Equal(t, zeros, all(&nb))
	// a neighbour solid only at the touching block culls exactly that face
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		n := new(voxel.Chunk)
		n.Fill(voxel.Dirt)
		// hollow the neighbour except where it touches our block
		for i := range voxel.ChunkVolume {
			x, y, z := voxel.Coords(i)
			dx, dy, dz := f.Offset()
			edge := func(d int32) int { // our block's coordinate on that axis
				switch {
				case d > 0:
					return last
				case d < 0:
					return 0
				}
				return 10
			}
			tx, ty, tz := edge(dx), edge(dy), edge(dz)
			if (x != (tx+int(dx))&last) || (y != (ty+int(dy))&last) || (z != (tz+int(dz))&last) {
				n.SetIndex(i, voxel.Air)
			}
		}
		nb = Neighbours{}
		nb[f] = n
		want := map[voxel.Face]int{}
		for g := range ones {
			want[g] = 1
		}
		want[f] = 0
		assert.Equal(t, want, all(&nb), "neighbour across %v", f)
	}
}

func TestGreedyCoversExactlyExposedFacesRandom(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		density := rapid.Float64Range(0, 1).Draw(rt, "density")
		kinds := rapid.IntRange(1, 3).Draw(rt, "kinds")
		r := rand.New(rand.NewPCG(seed, 1))
		c := randomChunk(r, density, kinds)
		var nb Neighbours
		for f := range nb {
			if r.IntN(2) == 0 {
				nb[f] = randomChunk(r, r.Float64(), kinds)
			}
		}
		got := covered(rt, c, Build(nil, c, &nb))
		require.Equal(rt, exposed(c, &nb), got)
	})
}

func TestMeshingIsPure(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	c := randomChunk(r, 0.5, 3)
	before := *c
	a := Build(nil, c, nil)
	b := Build(make([]Quad, 0, 10), c, nil)
	assert.Equal(t, a, b)
	assert.Equal(t, before, *c)
}
