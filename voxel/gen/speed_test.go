package gen

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"citydrive/voxel"
)

// threadCPU is this OS thread's CPU time in ns: on the shared 2-core
// machine wall time includes waiting for a core, CPU time does not.
func threadCPU() int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// benchPlaces are the benchmark's chunks.
func benchPlaces(g *Generator) []struct {
	name string
	p    voxel.ChunkPos
} {
	lake := findColumn(g, func(h float64) bool { return h < -4 })
	beach := findColumn(g, func(h float64) bool { return h > 0.2 && h < 1 })
	// inland, the ground's top in the middle of its chunk
	hills := findColumn(g, func(h float64) bool { return h > 8 && math.Mod(h, 32) > 12 && math.Mod(h, 32) < 20 })
	road := roadJunction(nil, g)
	return []struct {
		name string
		p    voxel.ChunkPos
	}{
		{"surface", surfaceChunk(g, 300, 200)}, // the top block at the chunk's top layer
		{"hills", surfaceChunk(g, hills.X, hills.Z)},
		{"road", surfaceChunk(g, road.X, road.Z)}, // a junction: roads across
		{"road-above", surfaceChunk(g, road.X, road.Z).Add(0, 1, 0)},
		{"lake", surfaceChunk(g, lake.X, lake.Z)},
		{"beach", surfaceChunk(g, beach.X, beach.Z)},
		{"sky", voxel.ChunkPos{X: 9, Y: 40, Z: 6}},
		{"bedrock", voxel.ChunkPos{X: 9, Y: -40, Z: 6}},
	}
}

// TestCompareOracleSpeed prints, per chunk kind, the best-of-rounds CPU
// time of the generator (cold: a fresh Generator per chunk, so no road
// memo) and of the oracle, interleaved so both see the
// same machine load (GEN_COMPARE=1 to run; a measurement, not a check).
func TestCompareOracleSpeed(t *testing.T) {
	if os.Getenv("GEN_COMPARE") == "" {
		t.Skip("set GEN_COMPARE=1")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g := New(testSeed)
	for _, tc := range benchPlaces(g) {
		best := [2]float64{math.Inf(1), math.Inf(1)}
		for round := range 30 {
			for i := range 2 {
				const reps = 20
				var c voxel.Chunk
				t0 := threadCPU()
				for range reps {
					c = voxel.Chunk{}
					cold := New(testSeed) // nothing memoised: each chunk pays its own roads
					if i == 0 {
						cold.Generate(tc.p, &c)
					} else {
						cold.oracleGenerate(tc.p, &c)
					}
				}
				if round > 0 {
					best[i] = min(best[i], float64(threadCPU()-t0)/reps/1e3)
				}
			}
		}
		t.Logf("%-8s new %8.2f  oracle %8.2f µs/chunk  ratio %.3f", tc.name, best[0], best[1], best[0]/best[1])
	}
}

// TestDigest prints a digest of many generated chunks and raw terrain
// heights (GEN_DIGEST=1): builds for different GOAMD64 levels must print
// the same (the compiler fuses multiply-adds at v3, which could change
// heights and so blocks).
func TestDigest(t *testing.T) {
	if os.Getenv("GEN_DIGEST") == "" {
		t.Skip("set GEN_DIGEST=1")
	}
	blocks, heights := sha256.New(), sha256.New()
	for _, seed := range []uint64{testSeed, 412, 7} {
		g := New(seed)
		r := rand.New(rand.NewPCG(seed, 99))
		var buf [8]byte
		for range 200000 {
			x, z := (r.Float64()*2-1)*1e5, (r.Float64()*2-1)*1e5
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(g.w.Height(x, z)))
			heights.Write(buf[:])
		}
		for range 300 {
			p := surfaceChunk(g, (r.Float64()*2-1)*2e4, (r.Float64()*2-1)*2e4)
			for dy := int32(-1); dy <= 1; dy++ {
				c := g.Chunk(p.Add(0, dy, 0))
				for i := range voxel.ChunkVolume {
					buf[i&7] = byte(c.AtIndex(i))
					if i&7 == 7 {
						blocks.Write(buf[:])
					}
				}
			}
		}
	}
	t.Logf("heights %x", heights.Sum(nil))
	t.Logf("blocks  %x", blocks.Sum(nil))
}

// streamArea is what a client streams around a junction: the chunk holding
// the ground's top and the ones above and below it, over 4×4 chunk columns.
func streamArea(g *Generator) []voxel.ChunkPos {
	j := roadJunction(nil, g)
	centre := surfaceChunk(g, j.X, j.Z)
	var ps []voxel.ChunkPos
	for dz := int32(-2); dz < 2; dz++ {
		for dx := int32(-2); dx < 2; dx++ {
			x := float64(centre.X+dx)*voxel.ChunkSize + voxel.ChunkSize/2
			z := float64(centre.Z+dz)*voxel.ChunkSize + voxel.ChunkSize/2
			p := surfaceChunk(g, x, z)
			ps = append(ps, p.Add(0, -1, 0), p, p.Add(0, 1, 0))
		}
	}
	return ps
}

// BenchmarkGenerateStream generates streamArea with a fresh Generator per
// pass (edges memoised within the pass, as a client's would be) and
// reports µs per chunk, best of the CPU time as well.
func BenchmarkGenerateStream(b *testing.B) {
	benchStream(b, (*Generator).Generate)
}

// BenchmarkGenerateStreamOracle is the same with the pre-issue-16
// generator, for before/after figures taken in one run.
func BenchmarkGenerateStreamOracle(b *testing.B) {
	benchStream(b, (*Generator).oracleGenerate)
}

func benchStream(b *testing.B, gen func(*Generator, voxel.ChunkPos, *voxel.Chunk)) {
	ps := streamArea(New(testSeed))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	var c voxel.Chunk
	for b.Loop() {
		g := New(testSeed)
		for _, p := range ps {
			c = voxel.Chunk{}
			gen(g, p, &c)
		}
	}
	n := float64(b.N * len(ps))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/1e3, "µs/chunk")
	b.ReportMetric(float64(threadCPU()-cpu0)/n/1e3, "cpu-µs/chunk")
}
