package gen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

// sameAsOracle generates p with both generators and requires identical
// chunks (blocks, occupancy masks and counts).
func sameAsOracle(t *testing.T, g *Generator, p voxel.ChunkPos) {
	t.Helper()
	var want, got voxel.Chunk
	g.oracleGenerate(p, &want)
	g.Generate(p, &got)
	require.Equal(t, want, got, "seed %d chunk %v", g.Seed(), p)
}

// The generator must reproduce the original one exactly: surface chunks
// and the chunks above and below them, near the origin and far away, on
// roads, in the lake and on beaches, for several seeds.
func TestGenerateMatchesOracle(t *testing.T) {
	seeds := []uint64{testSeed, 1, 412, 7, 0xdeadbeef}
	for _, seed := range seeds {
		g := New(seed)
		r := rand.New(rand.NewPCG(seed, 16))
		var places []world.Vec2
		for range 12 { // near the origin
			places = append(places, world.Vec2{X: r.Float64()*8000 - 4000, Z: r.Float64()*8000 - 4000})
		}
		for range 4 { // far away (up to ~30,000 km)
			places = append(places, world.Vec2{X: (r.Float64()*2 - 1) * 3e7, Z: (r.Float64()*2 - 1) * 3e7})
		}
		places = append(places, findColumn(g, func(h float64) bool { return h < -4 }),
			findColumn(g, func(h float64) bool { return h > 0.2 && h < 1 }),
			findColumn(g, func(h float64) bool { return h > -0.5 && h < 0.2 }))
		for _, j := range junctions(g, 6) { // roads
			places = append(places, j)
		}
		for _, pl := range places {
			p := surfaceChunk(g, pl.X, pl.Z)
			for dy := int32(-2); dy <= 2; dy++ {
				sameAsOracle(t, g, p.Add(0, dy, 0))
			}
			sameAsOracle(t, g, p.Add(1, 0, 0))
			sameAsOracle(t, g, p.Add(0, 0, -1))
		}
	}
}

// junctions returns up to n land junctions that have roads, near the origin.
func junctions(g *Generator, n int) []world.Vec2 {
	var out []world.Vec2
	for i := int32(-10); i < 10 && len(out) < n; i++ {
		for j := int32(-10); j < 10 && len(out) < n; j += 3 {
			c := world.Cell{I: i, J: j}
			if p, ok := g.w.Junction(c); ok && len(g.w.Arms(c, nil)) > 0 && !math.IsNaN(p.X) {
				out = append(out, p)
			}
		}
	}
	return out
}
