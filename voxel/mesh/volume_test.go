package mesh

import (
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"citydrive/voxel"
	"citydrive/voxel/mesh/internal/volumes"
)

// field is a 128³ benchmark volume (4³ chunks) whose inner 2³ chunks are
// meshed with real neighbours on all sides (the side-by-side set-up of the
// C++ comparison, cmd/mesher-compare.sh); the volumes live in
// internal/volumes so that harness meshes the same ones.
type field struct{ *volumes.Field }

// inner returns the inner 2³ chunks with their neighbours.
func (f field) inner() (cs []*voxel.Chunk, nbs []Neighbours) {
	cs, raw := f.Inner()
	for _, n := range raw {
		nbs = append(nbs, Neighbours(n))
	}
	return cs, nbs
}

func volumeFields() []struct {
	name string
	f    field
} {
	var vs []struct {
		name string
		f    field
	}
	for _, v := range volumes.All() {
		vs = append(vs, struct {
			name string
			f    field
		}{v.Name, field{v.F}})
	}
	return vs
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
