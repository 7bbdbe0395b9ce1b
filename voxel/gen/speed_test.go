package gen

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"unsafe"

	"citydrive/roadgraph/world"
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

// benchPlace is one benchmark chunk and what kind it is.
type benchPlace struct {
	name string
	p    voxel.ChunkPos
}

// benchPlaces are the benchmark's chunks, one per kind.
func benchPlaces(g *Generator) []benchPlace {
	lake := findColumn(g, func(h float64) bool { return h < -4 })
	beach := findColumn(g, func(h float64) bool { return h > 0.2 && h < 1 })
	// inland, the ground's top in the middle of its chunk
	hills := findColumn(g, func(h float64) bool { return h > 8 && math.Mod(h, 32) > 12 && math.Mod(h, 32) < 20 })
	road := roadJunction(nil, g)
	bridge := bridgeMiddle(g)
	return []benchPlace{
		{"surface", surfaceChunk(g, 300, 200)}, // the top block at the chunk's top layer
		{"hills", surfaceChunk(g, hills.X, hills.Z)},
		{"road", surfaceChunk(g, road.X, road.Z)}, // a junction: roads across
		{"road-above", surfaceChunk(g, road.X, road.Z).Add(0, 1, 0)},
		{"road-below", surfaceChunk(g, road.X, road.Z).Add(0, -1, 0)},
		{"bridge", surfaceChunk(g, bridge.X, bridge.Z)}, // lake bed and water under a deck
		{"lake", surfaceChunk(g, lake.X, lake.Z)},
		{"beach", surfaceChunk(g, beach.X, beach.Z)},
		{"deep", surfaceChunk(g, 300, 200).Add(0, -1, 0)}, // stone and dirt under a surface chunk
		{"sky", voxel.ChunkPos{X: 9, Y: 40, Z: 6}},
		{"bedrock", voxel.ChunkPos{X: 9, Y: -40, Z: 6}},
	}
}

// bridgeMiddle is the middle node of an edge over the lake near the origin.
func bridgeMiddle(g *Generator) world.Vec2 {
	for i := int32(-30); i < 30; i++ {
		for j := int32(-30); j < 30; j++ {
			e, ok := g.w.Edge(world.EdgeID(world.Cell{I: i, J: j}, world.DirX))
			if !ok {
				continue
			}
			nodes := g.w.EdgeNodes(e, nil)
			if m := nodes[len(nodes)/2]; g.w.IsWater(m.X, m.Z) {
				return m
			}
		}
	}
	panic("no bridge found")
}

// TestCompareOracleSpeed prints, per chunk kind, the CPU time of the
// generator and of the oracles (v2: the generator before issue 16 with
// the per-column road-surface queries; v1: the same without road caps),
// interleaved round by round so all see the same machine load; min and
// median of 30 rounds (GEN_COMPARE=1 to run; a measurement, not a check).
// Cold: a fresh Generator per chunk (nothing memoised: each chunk pays
// its roads); warm: one Generator per kind, as a client's, whose memos
// hold the chunk's roads after the first round (not its heights: see
// warmUp).
func TestCompareOracleSpeed(t *testing.T) {
	if os.Getenv("GEN_COMPARE") == "" {
		t.Skip("set GEN_COMPARE=1")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	gens := [...]struct {
		name string
		f    func(*Generator, voxel.ChunkPos, *voxel.Chunk)
	}{{"new", (*Generator).Generate}, {"v2", (*Generator).oracleGenerate}, {"v1", (*Generator).oracleGenerateV1}}
	for _, cold := range []bool{true, false} {
		for _, tc := range benchPlaces(New(testSeed)) {
			const rounds, reps = 31, 10
			var times [len(gens)][]float64
			var warm [len(gens)]*Generator
			for i := range warm {
				warm[i] = New(testSeed)
			}
			for round := range rounds {
				for i, gen := range gens {
					var c voxel.Chunk
					var elapsed int64
					for range reps {
						c = voxel.Chunk{}
						g := warm[i]
						if cold {
							g = New(testSeed)
						} else {
							warmUp(g)
						}
						t0 := threadCPU()
						gen.f(g, tc.p, &c)
						elapsed += threadCPU() - t0
					}
					if round > 0 {
						times[i] = append(times[i], float64(elapsed)/reps/1e3)
					}
				}
			}
			mode := "warm"
			if cold {
				mode = "cold"
			}
			line := fmt.Sprintf("%s %-10s", mode, tc.name)
			var mins, meds [len(gens)]float64
			for i := range gens {
				slices.Sort(times[i])
				mins[i], meds[i] = times[i][0], times[i][len(times[i])/2]
				line += fmt.Sprintf("  %s %7.2f/%7.2f", gens[i].name, mins[i], meds[i])
			}
			t.Logf("%s µs/chunk (min/median)  new/v2 %.3f/%.3f  new/v1 %.3f/%.3f", line, mins[0]/mins[1], meds[0]/meds[1], mins[0]/mins[2], meds[0]/meds[2])
		}
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
