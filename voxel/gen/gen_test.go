package gen

import (
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

const testSeed = 42

// surfaceChunk is the chunk holding the ground's top block at (x, z).
func surfaceChunk(g *Generator, x, z float64) voxel.ChunkPos {
	h := g.w.Height(x, z)
	p, _ := voxel.ChunkOf(int64(math.Floor(x)), int64(math.Floor(h))-1, int64(math.Floor(z)))
	return p
}

// roadJunction finds a land junction with roads near the origin (t may be
// nil outside a test: it panics instead).
func roadJunction(t *testing.T, g *Generator) world.Vec2 {
	for i := int32(0); i < 20; i++ {
		for j := int32(0); j < 20; j++ {
			c := world.Cell{I: i, J: j}
			p, ok := g.w.Junction(c)
			if ok && len(g.w.Arms(c, nil)) > 0 && g.w.Height(p.X, p.Z) > 3 {
				return p
			}
		}
	}
	if t == nil {
		panic("no junction found")
	}
	require.FailNow(t, "no junction found")
	return world.Vec2{}
}

func TestGenerateIsDeterministicAndConcurrent(t *testing.T) {
	g := New(testSeed)
	p := surfaceChunk(g, 10, 10)
	want := g.Chunk(p)
	var wg sync.WaitGroup
	got := make([]*voxel.Chunk, 4)
	for k := range got {
		wg.Go(func() { got[k] = g.Chunk(p) })
	}
	wg.Wait()
	for _, c := range got {
		require.Equal(t, want, c)
	}
	assert.NotEqual(t, want, New(testSeed+1).Chunk(p), "another seed gives other terrain")
}

// Every column's top matches the documented rule: top face at floor(h), or
// lower where a road's surface is (a level junction on a slope): never
// above the road or the lot ground the city drapes; water up to the water
// level.
func TestColumnRuleMatchesWorldHeight(t *testing.T) {
	g := New(testSeed)
	rapid.Check(t, func(rt *rapid.T) {
		x := float64(rapid.IntRange(-5000, 5000).Draw(rt, "x"))
		z := float64(rapid.IntRange(-5000, 5000).Draw(rt, "z"))
		p := surfaceChunk(g, x+0.5, z+0.5)
		c := g.Chunk(p)
		ox, oy, oz := p.Origin()
		lx, lz := int(int64(x)-ox), int(int64(z)-oz)
		h := g.w.Height(x+0.5, z+0.5)
		// find the highest non-water solid block in the chunks above,
		// this one and below (a road can lower the top across a boundary)
		stack := [3]*voxel.Chunk{g.Chunk(p.Add(0, -1, 0)), c, g.Chunk(p.Add(0, 1, 0))}
		top := int64(math.MinInt64)
		for y := 3*voxel.ChunkSize - 1; y >= 0; y-- {
			b := stack[y/voxel.ChunkSize].At(lx, y%voxel.ChunkSize, lz)
			if b != voxel.Air && b != voxel.Water {
				top = oy - voxel.ChunkSize + int64(y) + 1
				break
			}
		}
		require.NotEqual(rt, int64(math.MinInt64), top, "no ground in column")
		want := int64(math.Floor(h))
		if su := g.w.Surface(x+0.5, z+0.5); su.Road && !su.Water {
			want = min(want, int64(math.Floor(su.Y)))
			assert.LessOrEqual(rt, float64(top), su.Y, "never above the road")
		}
		assert.Equal(rt, want, top)
		assert.LessOrEqual(rt, float64(top), h, "never above the city's ground")
		if ly := top - oy; h < world.WaterLevel && top < 0 && ly >= 0 && ly < voxel.ChunkSize {
			assert.Equal(rt, voxel.Water, c.At(lx, int(ly), lz), "lake water above the bed")
		}
	})
}

func TestRoadsLieOnGravel(t *testing.T) {
	g := New(testSeed)
	j := roadJunction(t, g)
	p := surfaceChunk(g, j.X, j.Z)
	c := g.Chunk(p)
	ox, oy, oz := p.Origin()
	h := g.w.Height(j.X, j.Z)
	y := int(int64(math.Floor(h)) - 1 - oy)
	require.GreaterOrEqual(t, y, 0)
	assert.Equal(t, voxel.Gravel, c.At(int(int64(math.Floor(j.X))-ox), y, int(int64(math.Floor(j.Z))-oz)))
	// and most columns far from any road are grass
	grass := 0
	for i := range voxel.ChunkVolume {
		if c.AtIndex(i) == voxel.Grass {
			grass++
		}
	}
	assert.Greater(t, grass+countOf(c, voxel.Gravel), 0)
}

func countOf(c *voxel.Chunk, b voxel.Block) int {
	n := 0
	for i := range voxel.ChunkVolume {
		if c.AtIndex(i) == b {
			n++
		}
	}
	return n
}

func TestSkyAndBedrockFastPaths(t *testing.T) {
	g := New(testSeed)
	assert.True(t, g.Chunk(voxel.ChunkPos{X: 3, Y: 40, Z: -7}).Empty())
	deep := g.Chunk(voxel.ChunkPos{X: 3, Y: -40, Z: -7})
	assert.True(t, deep.Full())
	b, ok := deep.Uniform()
	assert.True(t, ok)
	assert.Equal(t, voxel.Stone, b)
}

type fakeOverlays map[voxel.ChunkPos]voxel.Overlay

func (f fakeOverlays) Overlay(p voxel.ChunkPos) (voxel.Overlay, error) { return f[p], nil }

func TestWithEditsAppliesOverlayAfterGeneration(t *testing.T) {
	g := New(testSeed)
	p := voxel.ChunkPos{X: 3, Y: 40, Z: -7}
	load := g.WithEdits(fakeOverlays{p: voxel.Overlay{{Index: 5, Block: voxel.Stone}}})
	c, err := load(p)
	require.NoError(t, err)
	assert.Equal(t, voxel.Stone, c.AtIndex(5))
	assert.Equal(t, 1, c.Solid())
	other, err := load(p.Add(1, 0, 0))
	require.NoError(t, err)
	assert.True(t, other.Empty())
}

// BenchmarkGenerate generates each kind of chunk cold (a fresh Generator
// per chunk: nothing memoised, each chunk pays its roads) and warm (one
// Generator whose road memos already hold the chunk's roads, as a
// client's do for neighbouring chunks; the column heights are not kept,
// see warmUp). ns/op is ns per chunk.
func BenchmarkGenerate(b *testing.B) {
	for _, tc := range benchPlaces(New(testSeed)) {
		for _, mode := range []string{"cold", "warm"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) {
				var c voxel.Chunk
				g := New(testSeed)
				for b.Loop() {
					c = voxel.Chunk{}
					if mode == "cold" {
						b.StopTimer() // the chunk's cost, not the constructor's
						g = New(testSeed)
						b.StartTimer()
					} else {
						warmUp(g)
					}
					g.Generate(tc.p, &c)
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(ns/1e3, "µs/chunk")
				b.ReportMetric(ns/voxel.ChunkVolume, "ns/block")
			})
		}
	}
}

// warmUp drops g's column heights (and the roads memoised with them) and
// keeps its edge and surface memos: a client generates a chunk column's
// chunks once, but its neighbours share the roads' edges.
func warmUp(g *Generator) {
	g.mu.Lock()
	clear(g.columns)
	g.mu.Unlock()
}

// The vertical fast paths rely on reliefMargin bounding the terrain's
// variation within a chunk column; check it on many random chunk columns.
func TestReliefMarginHolds(t *testing.T) {
	g := New(testSeed)
	rapid.Check(t, func(rt *rapid.T) {
		cx := float64(rapid.IntRange(-1<<20, 1<<20).Draw(rt, "cx")) * voxel.ChunkSize
		cz := float64(rapid.IntRange(-1<<20, 1<<20).Draw(rt, "cz")) * voxel.ChunkSize
		hc := g.w.Height(cx+voxel.ChunkSize/2, cz+voxel.ChunkSize/2)
		for _, d := range [][2]float64{{0.5, 0.5}, {31.5, 0.5}, {0.5, 31.5}, {31.5, 31.5}, {16, 0.5}, {0.5, 16}} {
			require.LessOrEqual(rt, math.Abs(g.w.Height(cx+d[0], cz+d[1])-hc), float64(reliefMargin))
		}
	})
}

// findColumn scans outward from the origin on a 64 m grid for a place
// whose terrain height satisfies ok.
func findColumn(g *Generator, ok func(h float64) bool) world.Vec2 {
	for r := 0; r < 400; r++ {
		for i := -r; i <= r; i++ {
			for _, p := range [...]world.Vec2{{X: float64(i), Z: float64(-r)}, {X: float64(i), Z: float64(r)}, {X: float64(-r), Z: float64(i)}, {X: float64(r), Z: float64(i)}} {
				p = p.Scale(64)
				if ok(g.w.Height(p.X, p.Z)) {
					return p
				}
			}
		}
	}
	panic("no such column")
}

// markRoads skips lattice cells by jitterBound before looking junctions up;
// check the bound on many cells, near and far.
func TestJitterBoundHolds(t *testing.T) {
	g := New(testSeed)
	rapid.Check(t, func(rt *rapid.T) {
		c := world.Cell{I: rapid.Int32Range(-world.MaxCellCoord, world.MaxCellCoord).Draw(rt, "i"),
			J: rapid.Int32Range(-world.MaxCellCoord, world.MaxCellCoord).Draw(rt, "j")}
		if rapid.Bool().Draw(rt, "near") {
			c = world.Cell{I: c.I % 100, J: c.J % 100}
		}
		p, ok := g.w.Junction(c)
		if !ok {
			return
		}
		require.LessOrEqual(rt, math.Abs(p.X-float64(c.I)*world.CellSize), float64(jitterBound))
		require.LessOrEqual(rt, math.Abs(p.Z-float64(c.J)*world.CellSize), float64(jitterBound))
	})
}

// No generated block stands above a road: around junctions, where a level
// junction on a slope (and the ease towards it) lies below the terrain,
// every road column's ground is at or under the road surface the car
// drives on and the city draws.
func TestNoBlockPokesThroughARoad(t *testing.T) {
	for _, seed := range []uint64{412, 7} {
		g := New(seed)
		surf := world.NewSurfaceCache(g.w)
		checked, lowered := 0, 0
		for _, j := range junctions(g, 4) {
			for dz := -20; dz < 20; dz++ {
				for dx := -20; dx < 20; dx++ {
					x, z := math.Floor(j.X)+float64(dx), math.Floor(j.Z)+float64(dz)
					su := surf.Surface(x+0.5, z+0.5)
					if !su.Road || su.Water {
						continue
					}
					p := voxel.ChunkAt(x, su.Y, z)
					ox, oy, oz := p.Origin()
					lx, lz := int(int64(x)-ox), int(int64(z)-oz)
					// the first block above the road, and the one under it
					y := int64(math.Floor(su.Y))
					c := g.Chunk(p)
					if ly := y - oy; ly >= 0 && ly < voxel.ChunkSize {
						b := c.At(lx, int(ly), lz)
						require.True(t, b == voxel.Air || b == voxel.Water, "seed %d: %v at (%v, %d, %v), road surface %.6f, junction %v, terrain %.3f", seed, b, x, y, z, su.Y, j, g.w.Height(x+0.5, z+0.5))
					}
					checked++
					if math.Floor(g.w.Height(x+0.5, z+0.5)) > float64(y) {
						lowered++
					}
				}
			}
		}
		t.Logf("seed %d: %d road columns checked, %d lowered below the terrain", seed, checked, lowered)
		require.Positive(t, checked)
	}
}

func TestFloorIsMathFloor(t *testing.T) {
	for _, v := range []float64{0, -0.0, 0.5, -0.5, 1, -1, 1 - 1e-16, -1 + 1e-16, 31.999999, -31.000001, 1e15 + 0.5, -1e15 - 0.5, 4503599627370497, -4503599627370497} {
		assert.Equal(t, int64(math.Floor(v)), floor(v), "%v", v)
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.Float64Range(-1e12, 1e12).Draw(rt, "v")
		require.Equal(rt, int64(math.Floor(v)), floor(v))
	})
}
