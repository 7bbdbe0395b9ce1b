package mesh

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/gen"
)

// fieldChunks is the edge of a benchmark field in chunks: 4³ chunks = 128³
// blocks, of which the inner 2³ are meshed with real neighbours on all sides
// (the side-by-side set-up the C++ comparison in issue 16 used).
const fieldChunks = 4

// field is a 4×4×4 block of chunks indexed [y][z][x].
type field [fieldChunks][fieldChunks][fieldChunks]*voxel.Chunk

// newField builds a field from a block function over [0, 128)³.
func newField(at func(x, y, z int) voxel.Block) *field {
	var f field
	for cy := range fieldChunks {
		for cz := range fieldChunks {
			for cx := range fieldChunks {
				c := new(voxel.Chunk)
				for i := range voxel.ChunkVolume {
					x, y, z := voxel.Coords(i)
					if b := at(cx*size+x, cy*size+y, cz*size+z); b != voxel.Air {
						c.SetIndex(i, b)
					}
				}
				f[cy][cz][cx] = c
			}
		}
	}
	return &f
}

// inner returns the inner 2³ chunks with their neighbours.
func (f *field) inner() (cs []*voxel.Chunk, nbs []Neighbours) {
	for cy := 1; cy < fieldChunks-1; cy++ {
		for cz := 1; cz < fieldChunks-1; cz++ {
			for cx := 1; cx < fieldChunks-1; cx++ {
				cs = append(cs, f[cy][cz][cx])
				nbs = append(nbs, Neighbours{
					voxel.PosX: f[cy][cz][cx+1], voxel.NegX: f[cy][cz][cx-1],
					voxel.PosY: f[cy+1][cz][cx], voxel.NegY: f[cy-1][cz][cx],
					voxel.PosZ: f[cy][cz+1][cx], voxel.NegZ: f[cy][cz-1][cx],
				})
			}
		}
	}
	return cs, nbs
}

// terrainField is generated terrain around terrainChunk's place, the
// surface chunk in the inner layer.
func terrainField() *field {
	g := gen.New(benchSeed)
	w := world.New(benchSeed)
	x, z := -700.0, 450.0
	p, _ := voxel.ChunkOf(int64(x), int64(w.Height(x, z))-1, int64(z))
	var f field
	for cy := range fieldChunks {
		for cz := range fieldChunks {
			for cx := range fieldChunks {
				f[cy][cz][cx] = g.Chunk(p.Add(int32(cx-1), int32(cy-1), int32(cz-1)))
			}
		}
	}
	return &f
}

// randomBlock is solid with probability 1/2, of one of kinds materials.
func randomBlock(seed uint64, kinds int) func(x, y, z int) voxel.Block {
	r := rand.New(rand.NewPCG(seed, 3))
	return func(x, y, z int) voxel.Block {
		v := r.Uint64()
		if v&1 == 0 {
			return voxel.Air
		}
		return voxel.Block(1 + (v>>1)%uint64(kinds))
	}
}

// heightmapBlock is a smooth rolling surface: stone, then 3 of dirt, then
// grass on top (three materials).
func heightmapBlock(x, y, z int) voxel.Block {
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

func volumeFields() []struct {
	name string
	f    *field
} {
	return []struct {
		name string
		f    *field
	}{
		{"terrain", terrainField()},
		{"heightmap3", newField(heightmapBlock)},
		{"noise1", newField(randomBlock(1, 1))},
		{"noise8", newField(randomBlock(2, 8))},
		{"checker", newField(func(x, y, z int) voxel.Block {
			if (x+y+z)&1 == 0 {
				return voxel.Stone
			}
			return voxel.Air
		})},
		{"empty", newField(func(x, y, z int) voxel.Block { return voxel.Air })},
		{"full", newField(func(x, y, z int) voxel.Block { return voxel.Stone })},
	}
}

// BenchmarkMeshVolume meshes the inner 2³ chunks of each 128³ volume with
// their real neighbours and reports ns per block (the unit of the C++
// comparison) and quads per chunk.
func BenchmarkMeshVolume(b *testing.B) { benchVolumes(b, Build) }

// BenchmarkMeshVolumeOracle is the same on the pre-issue-16 mesher, for
// before/after figures taken in one run.
func BenchmarkMeshVolumeOracle(b *testing.B) { benchVolumes(b, oracleBuild) }

func benchVolumes(b *testing.B, build func([]Quad, *voxel.Chunk, *Neighbours) []Quad) {
	for _, tc := range volumeFields() {
		cs, nbs := tc.f.inner()
		b.Run(tc.name, func(b *testing.B) {
			dst := make([][]Quad, len(cs))
			quads := 0
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := threadCPU()
			for b.Loop() {
				quads = 0
				for k, c := range cs {
					dst[k] = build(dst[k][:0], c, &nbs[k])
					quads += len(dst[k])
				}
			}
			blocks := float64(b.N) * float64(len(cs)) * voxel.ChunkVolume
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/blocks, "ns/block")
			b.ReportMetric(float64(threadCPU()-cpu0)/blocks, "cpu-ns/block")
			b.ReportMetric(float64(quads)/float64(len(cs)), "quads/chunk")
		})
	}
}

// threadCPU is this OS thread's CPU time in ns: on the shared 2-core
// machine wall time includes waiting for a core, CPU time does not.
func threadCPU() int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// TestCompareOracleSpeed prints, per volume, the best-of-rounds CPU time
// per block of the mesher and of the oracle, interleaved so both see the
// same machine load (MESH_COMPARE=1, or a volume name, to run; a measurement, not a check).
func TestCompareOracleSpeed(t *testing.T) {
	if os.Getenv("MESH_COMPARE") == "" {
		t.Skip("set MESH_COMPARE=1 (or a volume's name)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	only := os.Getenv("MESH_COMPARE")
	for _, tc := range volumeFields() {
		if only != "1" && only != tc.name {
			continue
		}
		cs, nbs := tc.f.inner()
		dst := make([][]Quad, len(cs))
		best := [2]float64{math.Inf(1), math.Inf(1)}
		for round := range 40 {
			for i, build := range [2]func([]Quad, *voxel.Chunk, *Neighbours) []Quad{Build, oracleBuild} {
				reps := 1
				if tc.name == "terrain" || tc.name == "heightmap3" || tc.name == "empty" || tc.name == "full" {
					reps = 50
				}
				t0 := threadCPU()
				for range reps {
					for k, c := range cs {
						dst[k] = build(dst[k][:0], c, &nbs[k])
					}
				}
				if round > 0 {
					best[i] = min(best[i], float64(threadCPU()-t0)/float64(reps*len(cs)*voxel.ChunkVolume))
				}
			}
		}
		t.Logf("%-10s new %8.4f  oracle %8.4f ns/block  ratio %.2f", tc.name, best[0], best[1], best[0]/best[1])
	}
}
