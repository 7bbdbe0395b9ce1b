package render

import (
	"image"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/glprofile"
	"citydrive/render/scene"
	"citydrive/render/terrain"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel"
	"citydrive/voxel/gen"
	"citydrive/voxel/mesh"
)

// The shared test renderer's terrain store: 64 slots of 64 quads.
const testTerrainSlots, testTerrainQuads = 64, 64

// blockAt splits a world block coordinate into its chunk and local coords.
func blockAt(x, y, z int64) (voxel.ChunkPos, [3]int) {
	p, i := voxel.ChunkOf(x, y, z)
	lx, ly, lz := voxel.Coords(i)
	return p, [3]int{lx, ly, lz}
}

func insert(t *testing.T, r *Renderer, m *mesh.Mesh) {
	t.Helper()
	onMain(func() { r.Terrain().Insert(m) })
}

func removeChunk(r *Renderer, p voxel.ChunkPos) { onMain(func() { r.Terrain().Remove(p) }) }

// clearTerrain removes every stored chunk (tests share the renderer).
func clearTerrain(r *Renderer) {
	onMain(func() {
		t := r.Terrain()
		for t.store.Len() > 0 {
			t.Remove(t.store.Chunks()[0].Pos)
		}
	})
}

func isSand(c [3]int) bool  { return c[0] > 90 && c[0] > c[2]+25 && c[1] > c[2]+10 }
func isGreen(c [3]int) bool { return c[1] > 60 && c[1] > c[0]+12 && c[1] > c[2]+12 }
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// span is the first and last i in [0, n) where pred holds (-1: none).
func span(pred func(i int) bool, n int) (int, int) {
	first, last := -1, -1
	for i := 0; i < n; i++ {
		if pred(i) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// A wall (a +Z face) 20 m in front of a camera 200,000 km out: its edges
// land on the pixels float64 maths predicts, in the block's colour. Then a
// replacing Insert moves it and recolours it (water takes the frame's
// palette), and Remove makes it vanish.
func TestTerrainQuadLandsAtExpectedPixelsFarOut(t *testing.T) {
	r := glRenderer(t)
	t.Cleanup(func() { clearTerrain(r) })
	cam := farCamera // looking along -Z, level
	// The wall: world x [X0, X0+4), y [0, 3), plane z = Zb+1, 20 m ahead.
	X0 := int64(math.Floor(cam[0]))
	Zb := int64(math.Floor(cam[2])) - 21
	p, l := blockAt(X0, 0, Zb)
	require.LessOrEqual(t, l[0]+12, 32, "the test wall must stay in one chunk")
	wall := &mesh.Mesh{Pos: p, Quads: []mesh.Quad{mesh.Pack(l[0], l[1], l[2], 4, 3, voxel.PosZ, voxel.Sand)}}
	insert(t, r, wall)
	f := noonFrame()
	img, st := draw(t, r, f)
	writePNG(t, "terrain_far.png", img)

	plane := float64(Zb+1) - cam[2]
	corner := func(dx, dy float64) (float64, float64) {
		return project(f.Camera, mgl64.Vec3{float64(X0) + dx - cam[0], dy - cam[1], plane}, testW, testH)
	}
	cx, cy := corner(2, 1.5)
	assert.True(t, isSand(rgb(img, int(cx), int(cy))), "wall centre (%d,%d) is %v", int(cx), int(cy), rgb(img, int(cx), int(cy)))
	lx, ly := corner(0, 1.5)
	rx, _ := corner(4, 1.5)
	first, last := span(func(x int) bool { return isSand(rgb(img, x, int(ly))) }, testW)
	require.GreaterOrEqual(t, first, 0, "no wall on row %d", int(ly))
	assert.InDelta(t, lx, float64(first), 1.5, "left edge")
	assert.InDelta(t, rx, float64(last), 1.5, "right edge")
	_, ty := corner(2, 3)
	_, by := corner(2, 0)
	top, bottom := span(func(y int) bool { return isSand(rgb(img, int(cx), y)) }, testH)
	assert.InDelta(t, ty, float64(top), 1.5, "top edge")
	assert.InDelta(t, by, float64(bottom), 1.5, "bottom edge")
	assert.Equal(t, 1, st.Main.TerrainMultiDraws)
	assert.Equal(t, 1, st.Depth.TerrainMultiDraws)
	assert.Equal(t, 1, st.Main.TerrainChunks)
	assert.Equal(t, 1, st.Main.TerrainQuads)
	assert.Equal(t, 0, st.Main.MultiDraws, "no slots in this frame")

	// Replace: the same chunk now holds a water wall 8 m further right;
	// the frame's palette paints water red, as it would the lake.
	water := &mesh.Mesh{Pos: p, Quads: []mesh.Quad{mesh.Pack(l[0]+8, l[1], l[2], 4, 3, voxel.PosZ, voxel.Water)}}
	insert(t, r, water)
	pal := scene.DryPalette
	pal[slots.PaletteWater] = mgl32.Vec3{0.9, 0.05, 0.05}
	f.Palette = &pal
	img, st = draw(t, r, f)
	wx, wy := corner(10, 1.5)
	assert.False(t, isSand(rgb(img, int(cx), int(cy))), "old mesh still drawn: %v", rgb(img, int(cx), int(cy)))
	assert.True(t, isRed(rgb(img, int(wx), int(wy))), "water wall (%d,%d) is %v", int(wx), int(wy), rgb(img, int(wx), int(wy)))
	assert.Equal(t, 1, st.Main.TerrainChunks)
	assert.Equal(t, 1, st.TerrainResident)
	assert.Equal(t, 1, st.TerrainSlotsUsed)

	// Remove: gone.
	removeChunk(r, p)
	img, st = draw(t, r, f)
	assert.False(t, isRed(rgb(img, int(wx), int(wy))), "removed mesh still drawn: %v", rgb(img, int(wx), int(wy)))
	assert.Equal(t, 0, st.Main.TerrainMultiDraws)
	assert.Equal(t, 0, st.TerrainResident)
}

// A field of grass chunks seen from above: one multi-draw per pass for all
// of them, the chunk behind the camera culled; NoTerrain and Loading hide it.
func TestTerrainOneMultiDrawPerPassAndHiding(t *testing.T) {
	r := glRenderer(t)
	t.Cleanup(func() { clearTerrain(r) })
	base, _ := blockAt(int64(math.Floor(farCamera[0])), 0, int64(math.Floor(farCamera[2])))
	var ps []voxel.ChunkPos
	for dx := int32(-2); dx <= 2; dx++ {
		for dz := int32(-4); dz <= 0; dz++ {
			p := base.Add(dx, -1, dz)
			ps = append(ps, p)
			// The top of a 31-block-deep slab: its surface at world y = -1.
			insert(t, r, &mesh.Mesh{Pos: p, Quads: []mesh.Quad{mesh.Pack(0, 30, 0, 32, 32, voxel.PosY, voxel.Grass)}})
		}
	}
	behind := base.Add(0, -1, 3) // 96 m behind the camera
	insert(t, r, &mesh.Mesh{Pos: behind, Quads: []mesh.Quad{mesh.Pack(0, 30, 0, 32, 32, voxel.PosY, voxel.Grass)}})
	camPos := farCamera.Add(mgl64.Vec3{0, 6, 0})
	target := camPos.Add(mgl64.Vec3{0, -3, -10})
	f := &Frame{Camera: Camera{Position: camPos, Target: &target}, TimeOfDay: 12}
	r.shadowState.Valid = false // force a shadow refresh this frame
	img, st := draw(t, r, f)
	writePNG(t, "terrain_field.png", img)
	px, py := testW/2, testH*3/4
	assert.True(t, isGreen(rgb(img, px, py)), "ground pixel %v", rgb(img, px, py))
	assert.False(t, isGreen(rgb(img, px, 5)), "sky pixel %v", rgb(img, px, 5))
	for name, ps := range map[string]PassStats{"main": st.Main, "depth": st.Depth} {
		assert.Equal(t, 1, ps.TerrainMultiDraws, name)
		assert.Equal(t, 0, ps.MultiDraws, name)
		assert.Equal(t, st.Main.TerrainChunks, ps.TerrainChunks, name)
	}
	require.True(t, st.ShadowRefreshed)
	assert.Equal(t, 1, st.Shadow.TerrainMultiDraws)
	assert.GreaterOrEqual(t, st.Main.TerrainChunks, 10)
	assert.Equal(t, len(ps)+1, st.TerrainResident)
	assert.GreaterOrEqual(t, st.TerrainCulled, 1, "the chunk behind is culled")
	assert.Equal(t, len(ps)+1-st.TerrainCulled, st.Main.TerrainChunks)

	f.Debug = DebugWireframe // the chunks again as lines: one more multi-draw
	_, st = draw(t, r, f)
	assert.Equal(t, 1, st.Wireframe.TerrainMultiDraws)
	assert.Equal(t, st.Main.TerrainChunks, st.Wireframe.TerrainChunks)
	f.Debug = 0

	f.NoTerrain = true
	img, st = draw(t, r, f)
	assert.False(t, isGreen(rgb(img, px, py)), "NoTerrain still draws %v", rgb(img, px, py))
	assert.Equal(t, 0, st.Main.TerrainMultiDraws+st.Depth.TerrainMultiDraws)

	f.NoTerrain, f.Loading, f.Progress = false, true, 0.3
	img, st = draw(t, r, f)
	assert.False(t, isGreen(rgb(img, px, py)), "Loading still draws terrain %v", rgb(img, px, py))
	assert.Equal(t, 0, st.Main.TerrainMultiDraws+st.Depth.TerrainMultiDraws+st.Shadow.TerrainMultiDraws)
}

// One 4×4×4 stone block, seen from three corners: every face that looks
// at the camera is drawn (so the quad expansion winds all six faces
// outwards, or back-face culling would hide them) and lit differently.
func TestTerrainAllSixFacesFaceOutwards(t *testing.T) {
	r := glRenderer(t)
	t.Cleanup(func() { clearTerrain(r) })
	X, Y, Z := int64(math.Floor(farCamera[0]))+2, int64(40), int64(math.Floor(farCamera[2]))-20
	p, l := blockAt(X, Y, Z)
	require.True(t, l[0] <= 28 && l[1] <= 28 && l[2] <= 28)
	var qs []mesh.Quad
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		x, y, z := l[0], l[1], l[2]
		dx, dy, dz := f.Offset()
		if dx > 0 {
			x += 3
		}
		if dy > 0 {
			y += 3
		}
		if dz > 0 {
			z += 3
		}
		qs = append(qs, mesh.Pack(x, y, z, 4, 4, f, voxel.Stone))
	}
	insert(t, r, &mesh.Mesh{Pos: p, Quads: qs})
	centre := mgl64.Vec3{float64(X) + 2, float64(Y) + 2, float64(Z) + 2}
	views := []struct {
		dir   mgl64.Vec3
		faces []voxel.Face
	}{
		{mgl64.Vec3{1, 1, 1}, []voxel.Face{voxel.PosX, voxel.PosY, voxel.PosZ}},
		{mgl64.Vec3{-1, -1, -1}, []voxel.Face{voxel.NegX, voxel.NegY, voxel.NegZ}},
		{mgl64.Vec3{-1, 0.6, 1}, []voxel.Face{voxel.NegX, voxel.PosY, voxel.PosZ}},
	}
	for _, v := range views {
		camPos := centre.Add(v.dir.Normalize().Mul(14))
		target := centre
		f := &Frame{Camera: Camera{Position: camPos, Target: &target}, TimeOfDay: 10}
		img, st := draw(t, r, f)
		assert.Equal(t, 6, st.Main.TerrainQuads)
		f.NoTerrain = true
		bg, _ := draw(t, r, f)
		var seen [][3]int
		for _, face := range v.faces {
			dx, dy, dz := face.Offset()
			fc := centre.Add(mgl64.Vec3{float64(dx) * 2, float64(dy) * 2, float64(dz) * 2})
			x, y := project(f.Camera, fc.Sub(camPos), testW, testH)
			c, b := rgb(img, int(x), int(y)), rgb(bg, int(x), int(y))
			// Stone grey (faces away from the sun are dark but still grey),
			// and not what is there without the block.
			assert.True(t, abs(c[0]-c[1]) < 14 && abs(c[1]-c[2]) < 18, "view %v face %v at (%d,%d): %v", v.dir, face, int(x), int(y), c)
			assert.Greater(t, abs(c[0]-b[0])+abs(c[1]-b[1])+abs(c[2]-b[2]), 30, "view %v face %v not drawn: %v vs background %v", v.dir, face, c, b)
			seen = append(seen, c)
		}
		// Three different normals: not all three faces equally lit.
		assert.False(t, seen[0] == seen[1] && seen[1] == seen[2], "view %v: faces shaded alike %v", v.dir, seen)
	}
}

// A mesh over one slot takes consecutive slots and is drawn whole (its
// last quad, in its third slot, shows); one over the whole store is
// counted as rejected and not drawn.
func TestTerrainOversizedMesh(t *testing.T) {
	r := glRenderer(t)
	t.Cleanup(func() { clearTerrain(r) })
	cam := farCamera
	X0 := int64(math.Floor(cam[0]))
	Zb := int64(math.Floor(cam[2])) - 21
	p, l := blockAt(X0, 0, Zb)
	var qs []mesh.Quad
	// 149 back faces (culled: they face away from the camera), then the wall.
	for i := 0; i < 149; i++ {
		qs = append(qs, mesh.Pack(i%32, 20+i/32, 0, 1, 1, voxel.NegZ, voxel.Dirt))
	}
	qs = append(qs, mesh.Pack(l[0], l[1], l[2], 4, 3, voxel.PosZ, voxel.Sand))
	before := r.Stats()
	insert(t, r, &mesh.Mesh{Pos: p, Quads: qs})
	f := noonFrame()
	img, st := draw(t, r, f)
	cx, cy := project(f.Camera, mgl64.Vec3{float64(X0) + 2 - cam[0], 1.5 - cam[1], float64(Zb+1) - cam[2]}, testW, testH)
	assert.True(t, isSand(rgb(img, int(cx), int(cy))), "last quad of an oversized mesh at (%d,%d): %v", int(cx), int(cy), rgb(img, int(cx), int(cy)))
	assert.Equal(t, before.TerrainOversized+1, st.TerrainOversized)
	assert.Equal(t, 3, st.TerrainSlotsUsed, "150 quads in 64-quad slots")
	assert.Equal(t, 150, st.Main.TerrainQuads)
	assert.Equal(t, 1, st.Main.TerrainMultiDraws)
	q, ok := r.Terrain().Has(p)
	assert.True(t, ok)
	assert.Equal(t, 150, q)

	// Bigger than the whole store: rejected, and the position's old mesh
	// is not drawn in its place.
	huge := make([]mesh.Quad, testTerrainSlots*testTerrainQuads+1)
	for i := range huge {
		huge[i] = qs[len(qs)-1]
	}
	insert(t, r, &mesh.Mesh{Pos: p, Quads: huge})
	img, st = draw(t, r, f)
	assert.Equal(t, before.TerrainRejected+1, st.TerrainRejected)
	assert.False(t, isSand(rgb(img, int(cx), int(cy))), "rejected mesh's position still drawn: %v", rgb(img, int(cx), int(cy)))
	assert.Equal(t, 0, st.TerrainSlotsUsed)
	_, ok = r.Terrain().Has(p)
	assert.False(t, ok)
}

func TestBadTerrainOptions(t *testing.T) {
	_, err := Open(Options{TerrainChunks: -1})
	assert.ErrorContains(t, err, "terrain store")
	_, err = Open(Options{TerrainChunks: 1 << 20, TerrainQuadsPerChunk: 1 << 10})
	assert.ErrorContains(t, err, "terrain store")
}

// generated terrain around a point: every non-empty chunk in a disc of
// radius chunks (y from -3 to 3), meshed with its neighbours.
func generatedTerrain(seed uint64, centre voxel.ChunkPos, radius int32) []*mesh.Mesh {
	centre.Y = 0
	g := gen.New(seed)
	chunks := map[voxel.ChunkPos]*voxel.Chunk{}
	for dx := -radius; dx <= radius; dx++ {
		for dz := -radius; dz <= radius; dz++ {
			if dx*dx+dz*dz > radius*radius {
				continue
			}
			for dy := int32(-3); dy <= 3; dy++ {
				p := centre.Add(dx, dy, dz)
				if c := g.Chunk(p); !c.Empty() {
					chunks[p] = c
				}
			}
		}
	}
	var out []*mesh.Mesh
	for p, c := range chunks {
		var nb mesh.Neighbours
		for f := voxel.Face(0); f < voxel.NumFaces; f++ {
			nb[f] = chunks[p.Neighbour(f)]
		}
		if q := mesh.Build(nil, c, &nb); len(q) > 0 {
			out = append(out, &mesh.Mesh{Pos: p, Quads: q})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.X != b.X {
			return a.X < b.X
		}
		if a.Y != b.Y {
			return a.Y < b.Y
		}
		return a.Z < b.Z
	})
	return out
}

// TestTerrainFrameTime draws generated terrain (a disc of 19 chunks, the
// 600 m far plane) at 1280×720 and logs frame time and counts; with
// RENDER_TEST_OUT set it writes the frame.
func TestTerrainFrameTime(t *testing.T) {
	glRenderer(t)
	if testing.Short() {
		t.Skip("short")
	}
	// Centre on land near the origin.
	w := world.New(7)
	centre := voxel.ChunkPos{}
	for i := 0; i < 40; i++ {
		x, z := float64(i%7)*400, float64(i/7)*400
		if w.Height(x+16, z+16) > 4 {
			centre = voxel.ChunkPos{X: int32(x / 32), Z: int32(z / 32)}
			break
		}
	}
	meshes := generatedTerrain(7, centre, 19)
	var big *Renderer
	var err error
	onMain(func() {
		big, err = Open(Options{Title: "terrain bench", FixedScale: 1, GLProfile: glprofile.Full, Layout: slots.Layout{Near: slots.Config{Slots: 16, VertsPerSlot: 1200}}})
	})
	require.NoError(t, err)
	defer onMain(func() { big.Close() })
	quads := 0
	var insertTime time.Duration
	onMain(func() {
		start := time.Now()
		for _, m := range meshes {
			big.Terrain().Insert(m)
			quads += len(m.Quads)
		}
		insertTime = time.Since(start)
	})
	// Stand 3 m above the highest column top near the centre.
	top := -1 << 30
	for _, m := range meshes {
		if m.Pos.X != centre.X || m.Pos.Z != centre.Z {
			continue
		}
		for _, q := range m.Quads {
			if q.Face() == voxel.PosY {
				_, hi := q.Corners()
				top = max(top, int(m.Pos.Y)*32+hi[1])
			}
		}
	}
	pos := terrain.Origin(centre).Add(mgl64.Vec3{16, 0, 16})
	pos[1] = float64(top) + 3
	f := &Frame{Camera: Camera{Position: pos, Yaw: 0.6, Pitch: -0.12}, TimeOfDay: 10}
	var times, cpu []time.Duration
	var st Stats
	var shot *image.RGBA
	for i := 0; i < 12; i++ {
		f.Camera.Yaw += 0.01
		start := time.Now()
		onMain(func() {
			err = big.Draw(f)
			c := time.Since(start)
			if i == 0 && err == nil {
				if img, e := big.Screenshot(); e == nil {
					shot = img
				}
			}
			big.Present()
			cpu = append(cpu, c)
			st = big.Stats()
		})
		require.NoError(t, err)
		times = append(times, time.Since(start))
	}
	if shot != nil {
		writePNG(t, "terrain.png", shot)
	}
	// The same frames without terrain (sky only), for the difference.
	f.NoTerrain = true
	var empty []time.Duration
	for i := 0; i < 12; i++ {
		start := time.Now()
		onMain(func() {
			err = big.Draw(f)
			big.Present()
		})
		require.NoError(t, err)
		empty = append(empty, time.Since(start))
	}
	sort.Slice(empty, func(i, j int) bool { return empty[i] < empty[j] })
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	t.Logf("terrain: %d chunks, %d quads (%.1f per chunk), %d slots used, %d oversized; insert %v (%.1f µs/chunk)",
		st.TerrainResident, quads, float64(quads)/float64(len(meshes)), st.TerrainSlotsUsed, st.TerrainOversized,
		insertTime, float64(insertTime.Microseconds())/float64(len(meshes)))
	t.Logf("1280x720 terrain frame: median %v, max %v (without terrain: median %v); Draw call CPU median %v; main pass %d chunks %d quads, %d culled; shadow %d chunks; multi-draws main/depth %d/%d",
		times[len(times)/2], times[len(times)-1], empty[len(empty)/2], cpu[len(cpu)/2], st.Main.TerrainChunks, st.Main.TerrainQuads, st.TerrainCulled,
		st.Shadow.TerrainChunks, st.Main.TerrainMultiDraws, st.Depth.TerrainMultiDraws)
	assert.Equal(t, len(meshes), st.TerrainResident)
	assert.Equal(t, 0, st.TerrainRejected)
	assert.Equal(t, 1, st.Main.TerrainMultiDraws)
}
