package terrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/frustum"
	"citydrive/render/scene"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
)

func quads(n int) []mesh.Quad {
	q := make([]mesh.Quad, n)
	for i := range q {
		q[i] = mesh.Pack(i%32, 3, (i/32)%32, 1, 1, voxel.PosY, voxel.Grass)
	}
	return q
}

func pos(x int32) voxel.ChunkPos { return voxel.ChunkPos{X: x} }

func TestPlaceRemoveReplace(t *testing.T) {
	s := NewStore(8, 10)
	c, r := s.Place(pos(0), quads(7))
	require.Equal(t, Placed, r)
	assert.Equal(t, Chunk{Pos: pos(0), First: 0, Span: 1, Quads: 7, Min: [3]int32{0, 4, 0}, Max: [3]int32{7, 4, 1}, Stamp: 1}, c)
	c, _ = s.Place(pos(1), quads(3))
	assert.Equal(t, 1, c.First)
	assert.Equal(t, 2, s.UsedSlots())

	// Replacing frees first, so the same slot is reused; the new mesh's
	// stamp tells it from the old.
	c, r = s.Place(pos(0), quads(9))
	require.Equal(t, Placed, r)
	assert.Equal(t, 0, c.First)
	assert.Equal(t, 2, s.Len())
	got, ok := s.Get(pos(0))
	require.True(t, ok)
	assert.Equal(t, 9, got.Quads)
	assert.Equal(t, 3, got.Stamp)

	assert.True(t, s.Remove(pos(0)))
	assert.False(t, s.Remove(pos(0)))
	assert.Equal(t, 1, s.UsedSlots())
	_, ok = s.Get(pos(0))
	assert.False(t, ok)
	got, ok = s.Get(pos(1)) // index fixed after swap-removal
	require.True(t, ok)
	assert.Equal(t, 1, got.First)

	// An empty mesh removes what was there.
	_, r = s.Place(pos(1), nil)
	assert.Equal(t, Empty, r)
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, 0, s.UsedSlots())
}

func TestOversizedTakesConsecutiveSlotsOrIsRejected(t *testing.T) {
	s := NewStore(8, 10)
	s.Place(pos(0), quads(5)) // slot 0
	s.Place(pos(1), quads(5)) // slot 1
	s.Place(pos(2), quads(5)) // slot 2
	s.Remove(pos(1))          // hole at 1
	c, r := s.Place(pos(3), quads(25))
	require.Equal(t, Placed, r)
	assert.Equal(t, 3, c.First, "a 3-slot run does not fit in the 1-slot hole")
	assert.Equal(t, 3, c.Span)
	assert.Equal(t, 1, s.Oversized)
	c, _ = s.Place(pos(4), quads(1))
	assert.Equal(t, 1, c.First, "first fit fills the hole")
	assert.Equal(t, 6, s.UsedSlots())

	// 3 slots needed, 2 free (6, 7): rejected, and the old mesh at that
	// position is gone rather than drawn stale.
	_, r = s.Place(pos(0), quads(30))
	assert.Equal(t, Rejected, r)
	assert.Equal(t, 1, s.Rejected)
	_, ok := s.Get(pos(0))
	assert.False(t, ok)
	// Freed slot 0 plus 6, 7: still no run of 3.
	_, r = s.Place(pos(9), quads(21))
	assert.Equal(t, Rejected, r)
	_, r = s.Place(pos(9), quads(20))
	assert.Equal(t, Placed, r)
}

// A random sequence of places and removes never double-books a slot and
// keeps every stored chunk's span consistent with its quads.
func TestAllocatorProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := NewStore(200, 16)
	for step := 0; step < 5000; step++ {
		p := pos(int32(rng.IntN(60)))
		if rng.IntN(3) == 0 {
			s.Remove(p)
		} else {
			n := rng.IntN(16 * 6)
			s.Place(p, quads(n))
		}
		owner := make([]int, s.Slots())
		for i := range owner {
			owner[i] = -1
		}
		used := 0
		for i, c := range s.Chunks() {
			require.Equal(t, s.SpanFor(c.Quads), c.Span)
			for k := c.First; k < c.First+c.Span; k++ {
				require.Equal(t, -1, owner[k], "slot %d double-booked", k)
				require.True(t, s.isUsed(k))
				owner[k] = i
				used++
			}
		}
		require.Equal(t, used, s.UsedSlots())
		for k, o := range owner {
			require.Equal(t, o >= 0, s.isUsed(k), "slot %d", k)
		}
	}
	assert.Greater(t, s.Rejected+s.Oversized, 0)
}

func TestAllocLongRunAcrossWords(t *testing.T) {
	s := NewStore(300, 1)
	c, r := s.Place(pos(0), quads(70))
	require.Equal(t, Placed, r)
	assert.Equal(t, 0, c.First)
	c, _ = s.Place(pos(1), quads(130))
	assert.Equal(t, 70, c.First)
	c, _ = s.Place(pos(2), quads(100))
	assert.Equal(t, 200, c.First)
	_, r = s.Place(pos(3), quads(1))
	assert.Equal(t, Rejected, r)
}

func TestEyeSplitIsExactFarOut(t *testing.T) {
	for _, p := range []mgl64.Vec3{{0, 0, 0}, {2e8 + 0.37, 1.5, -3.5e7 - 0.81}, {-0.25, -31.99, 64}} {
		e := EyeAt(p)
		for k := 0; k < 3; k++ {
			assert.GreaterOrEqual(t, e.Frac[k], float32(0))
			assert.Less(t, e.Frac[k], float32(32))
			back := float64(e.Chunk[k])*32 + float64(e.Frac[k])
			assert.InDelta(t, p[k], back, 2e-6, "axis %d of %v", k, p)
		}
	}
	// A vertex of a chunk near the far eye lands at the float64 answer.
	eye := mgl64.Vec3{2e8 + 0.37, 1.5, -3.5e7 - 0.81}
	e := EyeAt(eye)
	cp := voxel.ChunkPos{X: e.Chunk[0] + 1, Y: 0, Z: e.Chunk[2] - 1}
	local := [3]int{5, 2, 10}
	var rel [3]float32
	for k := 0; k < 3; k++ {
		d := [3]int32{cp.X, cp.Y, cp.Z}[k] - e.Chunk[k]
		rel[k] = float32(d*32) - e.Frac[k] + float32(local[k])
	}
	want := Origin(cp).Add(mgl64.Vec3{5, 2, 10}).Sub(eye)
	for k := 0; k < 3; k++ {
		assert.InDelta(t, want[k], float64(rel[k]), 1e-5)
	}
	// Plain float32 world coordinates would be off by metres there.
	assert.Greater(t, math.Abs(float64(float32(eye[0]))-eye[0]), 0.3)
}

func TestCornerMatchesBoxAndWindsOutwards(t *testing.T) {
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		q := mesh.Pack(3, 4, 5, 2, 3, f, voxel.Stone)
		lo, hi := q.Corners()
		dx, dy, dz := f.Offset()
		n := mgl64.Vec3{float64(dx), float64(dy), float64(dz)}
		seen := map[[3]int]bool{}
		for tri := 0; tri < 2; tri++ {
			var p [3]mgl64.Vec3
			for k := 0; k < 3; k++ {
				c := Corner(q, tri*3+k)
				seen[c] = true
				for a := 0; a < 3; a++ {
					require.GreaterOrEqual(t, c[a], lo[a], "face %v", f)
					require.LessOrEqual(t, c[a], hi[a], "face %v", f)
				}
				p[k] = mgl64.Vec3{float64(c[0]), float64(c[1]), float64(c[2])}
			}
			cross := p[1].Sub(p[0]).Cross(p[2].Sub(p[0]))
			assert.Greater(t, cross.Dot(n), 0.0, "face %v triangle %d winds inwards", f, tri)
		}
		assert.Len(t, seen, 4, "face %v: four distinct corners", f)
		assert.True(t, seen[lo] && seen[hi], "face %v spans its box", f)
	}
}

func TestListCullsAndSortsNearestFirst(t *testing.T) {
	s := NewStore(64, 8)
	// A row of chunks along -Z in front of the eye, inserted far-to-near,
	// plus one behind the eye.
	for z := int32(-1); z >= -6; z-- {
		s.Place(voxel.ChunkPos{X: 0, Y: 0, Z: -7 - z}, quads(4)) // z = -6 .. -1 order reversed
	}
	behind := voxel.ChunkPos{X: 0, Y: 0, Z: 3}
	s.Place(behind, quads(4))
	eye := mgl64.Vec3{16, 5, 0.5}
	cam := scene.Camera{Position: eye}
	fr := frustum.FromViewProj(cam.ViewProj(16.0 / 9))
	var l List
	l.Build(s, eye, &fr)
	// Chunks Z=0..5 are inserted (positions -7-z for z=-1..-6 are -6..-1),
	// i.e. Z = -6..-1; all in front. Z=3 is behind, culled.
	assert.Equal(t, 1, l.Culled)
	require.Equal(t, 6, l.Len())
	assert.Equal(t, 24, l.Quads)
	prev := -1.0
	for i := 0; i < l.Len(); i++ {
		slot := int(l.First[i]) / (8 * VertsPerQuad)
		assert.Equal(t, int32(4*VertsPerQuad), l.Count[i])
		var c Chunk
		for _, cc := range s.Chunks() {
			if cc.First == slot {
				c = cc
			}
		}
		d := boxDist2(ChunkBox(&c, eye))
		assert.GreaterOrEqual(t, d, prev, "nearest first")
		prev = d
	}
	// The nearest is chunk Z = -1 (box z in [-32+0, -32+1]).
	first, _ := s.Get(voxel.ChunkPos{Z: -1})
	assert.Equal(t, int32(first.First*8*VertsPerQuad), l.First[0])

	// No frustum: everything, behind included.
	l.Build(s, eye, nil)
	assert.Equal(t, 7, l.Len())
	assert.Equal(t, 0, l.Culled)
}

func TestListCullsByTightBoxNotWholeChunk(t *testing.T) {
	s := NewStore(4, 8)
	// A single quad at the top of a chunk below the eye's view: the chunk's
	// full box would reach into view, the tight box does not.
	s.Place(voxel.ChunkPos{}, []mesh.Quad{mesh.Pack(0, 0, 0, 4, 4, voxel.NegY, voxel.Stone)})
	eye := mgl64.Vec3{2, 20, 2} // looking straight along -Z, horizontally
	cam := scene.Camera{Position: eye, Near: 0.3, Far: 600, FovY: 0.2}
	fr := frustum.FromViewProj(cam.ViewProj(1))
	var l List
	l.Build(s, eye, &fr)
	assert.Equal(t, 0, l.Len())
	assert.Equal(t, 1, l.Culled)
	full := ChunkBox(&Chunk{Max: [3]int32{32, 32, 32}}, eye)
	assert.True(t, fr.IntersectsAABB(full), "the whole chunk box would have been drawn")
}

func BenchmarkListBuild3000(b *testing.B) {
	s := NewStore(4096, 256)
	rng := rand.New(rand.NewPCG(3, 4))
	for x := int32(-30); x <= 30; x++ {
		for z := int32(-30); z <= 30; z++ {
			if x*x+z*z > 19*19 {
				continue
			}
			for y := int32(-1); y <= 1; y++ {
				s.Place(voxel.ChunkPos{X: x, Y: y, Z: z}, quads(1+rng.IntN(200)))
			}
		}
	}
	eye := mgl64.Vec3{3, 10, 3}
	cam := scene.Camera{Position: eye}
	fr := frustum.FromViewProj(cam.ViewProj(16.0 / 9))
	var l List
	b.ReportAllocs()
	for b.Loop() {
		l.Build(s, eye, &fr)
	}
	b.ReportMetric(float64(s.Len()), "chunks")
	b.ReportMetric(float64(l.Len()), "drawn")
}

func TestBoxTestMatchesFrustum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		cam := scene.Camera{Yaw: rng.Float64() * 7, Pitch: rng.Float64() - 0.5, Far: 50 + rng.Float64()*600}
		fr := frustum.FromViewProj(cam.ViewProj(0.5 + rng.Float64()*2))
		var planes [6][4]float64
		for k, p := range fr.Planes {
			planes[k] = [4]float64{p.N[0], p.N[1], p.N[2], p.D}
		}
		for j := 0; j < 200; j++ {
			var b frustum.AABB
			for a := 0; a < 3; a++ {
				lo := rng.Float64()*1400 - 700
				b.Min[a], b.Max[a] = lo, lo+rng.Float64()*40
			}
			require.Equal(t, fr.IntersectsAABB(b), boxVisible(&planes, &b))
		}
	}
}
