// Package volumes holds the mesher's benchmark volumes: 128³ fields of 4³
// chunks whose inner 2³ chunks are meshed with their real neighbours. The
// mesh package's benchmarks and oracle tests and the side-by-side harness
// against binary-greedy-meshing (cmd/mesher-compare.sh) use the same ones.
package volumes

import (
	"math"
	"math/rand/v2"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/gen"
)

// Chunks is the edge of a field in chunks: 4³ chunks = 128³ blocks.
const Chunks = 4

// Edge is the edge of a field in blocks.
const Edge = Chunks * voxel.ChunkSize

// Seed is the world and generator seed of the terrain volume.
const Seed = 42

// Field is a 4×4×4 block of chunks indexed [y][z][x].
type Field [Chunks][Chunks][Chunks]*voxel.Chunk

// Volume is one named benchmark field.
type Volume struct {
	Name string
	F    *Field
}

// All returns the seven volumes, in the order of the tables in
// docs/performance.md.
func All() []Volume {
	return []Volume{
		{"terrain", Terrain()},
		{"heightmap3", New(Heightmap)},
		{"noise1", New(Random(1, 1))},
		{"noise8", New(Random(2, 8))},
		{"checker", New(func(x, y, z int) voxel.Block {
			if (x+y+z)&1 == 0 {
				return voxel.Stone
			}
			return voxel.Air
		})},
		{"empty", New(func(x, y, z int) voxel.Block { return voxel.Air })},
		{"full", New(func(x, y, z int) voxel.Block { return voxel.Stone })},
	}
}

// New builds a field from a block function over [0, 128)³, called chunk by
// chunk ([y][z][x]) and block by block in index order within a chunk (the
// random volumes depend on this order).
func New(at func(x, y, z int) voxel.Block) *Field {
	var f Field
	for cy := range Chunks {
		for cz := range Chunks {
			for cx := range Chunks {
				c := new(voxel.Chunk)
				for i := range voxel.ChunkVolume {
					x, y, z := voxel.Coords(i)
					if b := at(cx*voxel.ChunkSize+x, cy*voxel.ChunkSize+y, cz*voxel.ChunkSize+z); b != voxel.Air {
						c.SetIndex(i, b)
					}
				}
				f[cy][cz][cx] = c
			}
		}
	}
	return &f
}

// At is the block at field coordinates (x, y, z), each in [0, 128).
func (f *Field) At(x, y, z int) voxel.Block {
	const s = voxel.ChunkSize
	return f[y/s][z/s][x/s].At(x%s, y%s, z%s)
}

// Inner returns the inner 2³ chunks ([y][z][x] order) with their six face
// neighbours indexed by voxel.Face.
func (f *Field) Inner() (cs []*voxel.Chunk, nbs [][voxel.NumFaces]*voxel.Chunk) {
	for cy := 1; cy < Chunks-1; cy++ {
		for cz := 1; cz < Chunks-1; cz++ {
			for cx := 1; cx < Chunks-1; cx++ {
				cs = append(cs, f[cy][cz][cx])
				nbs = append(nbs, [voxel.NumFaces]*voxel.Chunk{
					voxel.PosX: f[cy][cz][cx+1], voxel.NegX: f[cy][cz][cx-1],
					voxel.PosY: f[cy+1][cz][cx], voxel.NegY: f[cy-1][cz][cx],
					voxel.PosZ: f[cy][cz+1][cx], voxel.NegZ: f[cy][cz-1][cx],
				})
			}
		}
	}
	return cs, nbs
}

// TerrainPlace is the chunk holding the ground surface with a road (the
// common case while driving) that the terrain volume's inner layer holds.
func TerrainPlace() voxel.ChunkPos {
	w := world.New(Seed)
	x, z := -700.0, 450.0 // a land surface chunk crossed by a road
	p, _ := voxel.ChunkOf(int64(x), int64(w.Height(x, z))-1, int64(z))
	return p
}

// Terrain is generated terrain around TerrainPlace, that chunk in the
// inner layer.
func Terrain() *Field {
	g := gen.New(Seed)
	p := TerrainPlace()
	var f Field
	for cy := range Chunks {
		for cz := range Chunks {
			for cx := range Chunks {
				f[cy][cz][cx] = g.Chunk(p.Add(int32(cx-1), int32(cy-1), int32(cz-1)))
			}
		}
	}
	return &f
}

// Random is solid with probability 1/2, of one of kinds materials.
func Random(seed uint64, kinds int) func(x, y, z int) voxel.Block {
	r := rand.New(rand.NewPCG(seed, 3))
	return func(x, y, z int) voxel.Block {
		v := r.Uint64()
		if v&1 == 0 {
			return voxel.Air
		}
		return voxel.Block(1 + (v>>1)%uint64(kinds))
	}
}

// Heightmap is a smooth rolling surface: stone, then 3 of dirt, then grass
// on top (three materials).
func Heightmap(x, y, z int) voxel.Block {
	h := 64 + int(math.Floor(20*math.Sin(float64(x)/13)*math.Cos(float64(z)/17)))
	switch {
	case y >= h:
		return voxel.Air
	case y == h-1:
		return voxel.Grass
	case y >= h-4:
		return voxel.Dirt
	}
	return voxel.Stone
}
