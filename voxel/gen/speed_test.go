package gen

import (
	"math"
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
	return []struct {
		name string
		p    voxel.ChunkPos
	}{
		{"surface", surfaceChunk(g, 300, 200)},
		{"lake", surfaceChunk(g, lake.X, lake.Z)},
		{"beach", surfaceChunk(g, beach.X, beach.Z)},
		{"sky", voxel.ChunkPos{X: 9, Y: 40, Z: 6}},
		{"bedrock", voxel.ChunkPos{X: 9, Y: -40, Z: 6}},
	}
}

// TestCompareOracleSpeed prints, per chunk kind, the best-of-rounds CPU
// time of the generator and of the oracle, interleaved so both see the
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
			for i, gen := range [2]func(voxel.ChunkPos, *voxel.Chunk){g.Generate, g.oracleGenerate} {
				const reps = 20
				var c voxel.Chunk
				t0 := threadCPU()
				for range reps {
					c = voxel.Chunk{}
					gen(tc.p, &c)
				}
				if round > 0 {
					best[i] = min(best[i], float64(threadCPU()-t0)/reps/1e3)
				}
			}
		}
		t.Logf("%-8s new %8.2f  oracle %8.2f µs/chunk  ratio %.3f", tc.name, best[0], best[1], best[0]/best[1])
	}
}
