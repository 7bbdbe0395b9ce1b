package mesh

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/mesh/internal/volumes"
)

// terrainChunk is the generated chunk holding the ground surface with a
// road (the common case while driving).
func terrainChunk() *voxel.Chunk {
	return gen.New(volumes.Seed).Chunk(volumes.TerrainPlace())
}

func benchChunks() []struct {
	name string
	c    *voxel.Chunk
} {
	full := new(voxel.Chunk)
	full.Fill(voxel.Stone)
	return []struct {
		name string
		c    *voxel.Chunk
	}{
		{"terrain", terrainChunk()},
		{"noise", randomChunk(rand.New(rand.NewPCG(1, 2)), 0.5, 3)},
		{"empty", new(voxel.Chunk)},
		{"full", full},
	}
}

// BenchmarkMesh reports µs/chunk (mean), median-µs/chunk (median of
// per-iteration timings), quads/chunk and bytes/chunk. Neighbours are
// absent (worst case: boundary faces emitted).
func BenchmarkMesh(b *testing.B) {
	for _, tc := range benchChunks() {
		b.Run(tc.name, func(b *testing.B) {
			var dst []Quad
			var samples []time.Duration
			for b.Loop() {
				t0 := time.Now()
				dst = Build(dst[:0], tc.c, nil)
				samples = append(samples, time.Since(t0))
			}
			sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/chunk")
			b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds())/1e3, "median-µs/chunk")
			b.ReportMetric(float64(len(dst)), "quads/chunk")
			b.ReportMetric(float64(len(dst)*QuadBytes), "bytes/chunk")
		})
	}
}
