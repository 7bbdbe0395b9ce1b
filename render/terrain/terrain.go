// Package terrain is the pure half of the renderer's voxel terrain: the
// fixed-slot allocator of the preallocated quad store, the per-chunk
// records (slot span, quad count, tight local box), the per-frame draw list
// (frustum-culled per chunk box, nearest first), the floating-origin split
// of the eye into a chunk coordinate and a small remainder, and a Go mirror
// of the vertex shader's quad expansion. It never calls GL, so it is
// unit-tested without a display; render uploads what it decides.
//
// Storage: Slots slots of QuadsPerSlot quads each, in one GPU buffer of
// Slots × QuadsPerSlot × 8 bytes (mesh.Quad, unchanged). A mesh of n quads
// takes ceil(n / QuadsPerSlot) consecutive slots (first fit), so its quads
// are contiguous and one (first, count) pair of the multi-draw covers it;
// a mesh larger than one slot is counted (Oversized), never cut. When no
// run of free slots is long enough the mesh is not stored (Rejected) and
// whatever the position held before is gone too: stale terrain is never
// drawn in place of a newer mesh.
package terrain

import (
	"math"
	"math/bits"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/frustum"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
)

// Defaults, from measured terrain (see docs/rendering.md): a surface chunk
// of generated terrain has about 100 quads (p99 about 200, largest seen 279),
// and a residency disc of 19 chunks (the 600 m far plane) holds about 1,100
// columns with 2–3 chunks that have quads each. 4,096 slots of 256 quads
// are 8 MiB of quads; chunks over 256 quads take two or more slots.
const (
	DefaultSlots        = 4096
	DefaultQuadsPerSlot = 256
	// MaxQuadsPerMesh is the greedy mesher's worst case, a 3-D checkerboard:
	// 16,384 solid blocks with 6 exposed faces each, none mergeable.
	MaxQuadsPerMesh = voxel.ChunkVolume / 2 * 6
	// MaxQuads bounds the whole store (128 MiB of quads; 6 vertex ids per
	// quad stay far below 2³¹).
	MaxQuads = 1 << 24
	// VertsPerQuad: each quad is two triangles expanded from gl_VertexID.
	VertsPerQuad = 6
	// ChunkTableInts is the size of one per-slot chunk-table entry (RGBA32I:
	// chunk X, Y, Z, unused).
	ChunkTableInts = 4
)

// Chunk is one stored mesh.
type Chunk struct {
	Pos   voxel.ChunkPos
	First int // first slot
	Span  int // consecutive slots
	Quads int
	// Min and Max are the mesh's box in chunk-local metres (within [0, 32]
	// for the mesher's quads).
	Min, Max [3]int32
	// Stamp is the store's Inserts when this mesh was placed: a chunk
	// meshed again (an edit) gets a larger one, so a test can tell that
	// the new mesh, not the old, is stored.
	Stamp int
}

// Result of Place.
type Result int

// Place results.
const (
	Placed   Result = iota // stored (possibly over several slots)
	Empty                  // no quads: nothing stored, any old mesh removed
	Rejected               // no run of free slots long enough: not stored, old mesh removed
)

// Store is the slot allocator and the chunk table.
type Store struct {
	slots, perSlot int
	used           []uint64 // bit per slot
	usedSlots      int
	chunks         []Chunk // dense; order is insertion order with swap-removal
	index          map[voxel.ChunkPos]int

	// Cumulative counters since NewStore.
	Inserts   int // Place calls with quads
	Oversized int // meshes that needed more than one slot
	Rejected  int // meshes not stored for lack of room
}

// NewStore makes a store of slots slots of perSlot quads each.
func NewStore(slots, perSlot int) *Store {
	return &Store{
		slots:   slots,
		perSlot: perSlot,
		used:    make([]uint64, (slots+63)/64),
		index:   make(map[voxel.ChunkPos]int),
	}
}

// Slots is the number of slots; QuadsPerSlot their size.
func (s *Store) Slots() int        { return s.slots }
func (s *Store) QuadsPerSlot() int { return s.perSlot }

// UsedSlots is how many slots hold quads; Len how many chunks are stored.
func (s *Store) UsedSlots() int { return s.usedSlots }
func (s *Store) Len() int       { return len(s.chunks) }

// Chunks are the stored chunks (read only; the order changes on removal).
func (s *Store) Chunks() []Chunk { return s.chunks }

// Get returns the record of a stored chunk.
func (s *Store) Get(p voxel.ChunkPos) (Chunk, bool) {
	i, ok := s.index[p]
	if !ok {
		return Chunk{}, false
	}
	return s.chunks[i], true
}

// SpanFor is how many slots n quads need.
func (s *Store) SpanFor(n int) int { return (n + s.perSlot - 1) / s.perSlot }

// Place stores a mesh of quads at p, replacing (and first freeing) any mesh
// already there. On Placed the returned record says where its quads go:
// slot First onwards, that is quad index First × QuadsPerSlot.
func (s *Store) Place(p voxel.ChunkPos, quads []mesh.Quad) (Chunk, Result) {
	s.Remove(p)
	if len(quads) == 0 {
		return Chunk{}, Empty
	}
	s.Inserts++
	span := s.SpanFor(len(quads))
	if span > 1 {
		s.Oversized++
	}
	first := s.alloc(span)
	if first < 0 {
		s.Rejected++
		return Chunk{}, Rejected
	}
	c := Chunk{Pos: p, First: first, Span: span, Quads: len(quads), Stamp: s.Inserts}
	c.Min, c.Max = Box(quads)
	s.index[p] = len(s.chunks)
	s.chunks = append(s.chunks, c)
	return c, Placed
}

// Remove frees p's slots; it reports whether p was stored.
func (s *Store) Remove(p voxel.ChunkPos) bool {
	i, ok := s.index[p]
	if !ok {
		return false
	}
	c := s.chunks[i]
	s.release(c.First, c.Span)
	last := len(s.chunks) - 1
	if i != last {
		s.chunks[i] = s.chunks[last]
		s.index[s.chunks[i].Pos] = i
	}
	s.chunks = s.chunks[:last]
	delete(s.index, p)
	return true
}

func (s *Store) isUsed(i int) bool { return s.used[i>>6]>>(i&63)&1 != 0 }

// alloc finds the lowest run of n free slots (first fit), marks it used
// and returns its first slot, or -1. Full words are skipped 64 slots at a
// time, and inside a word it jumps straight to the next free bit.
func (s *Store) alloc(n int) int {
	if n > s.slots-s.usedSlots {
		return -1
	}
	run, start := 0, 0
	for i := 0; i < s.slots; {
		if s.isUsed(i) {
			run = 0
			if free := ^s.used[i>>6] >> (i & 63); free == 0 {
				i = (i | 63) + 1 // rest of the word is used
			} else {
				i += bits.TrailingZeros64(free)
			}
			continue
		}
		if run == 0 {
			start = i
		}
		run++
		if run == n {
			for k := start; k < start+n; k++ {
				s.used[k>>6] |= 1 << (k & 63)
			}
			s.usedSlots += n
			return start
		}
		i++
	}
	return -1
}

func (s *Store) release(first, n int) {
	for k := first; k < first+n; k++ {
		s.used[k>>6] &^= 1 << (k & 63)
	}
	s.usedSlots -= n
}

// Box is the bounding box of quads in chunk-local metres.
func Box(quads []mesh.Quad) (lo, hi [3]int32) {
	lo = [3]int32{math.MaxInt32, math.MaxInt32, math.MaxInt32}
	hi = [3]int32{math.MinInt32, math.MinInt32, math.MinInt32}
	for _, q := range quads {
		a, b := q.Corners()
		for k := 0; k < 3; k++ {
			lo[k] = min(lo[k], int32(a[k]), int32(b[k]))
			hi[k] = max(hi[k], int32(a[k]), int32(b[k]))
		}
	}
	return lo, hi
}

// Origin is a chunk's world origin in metres (exact in float64).
func Origin(p voxel.ChunkPos) mgl64.Vec3 {
	x, y, z := p.Origin()
	return mgl64.Vec3{float64(x), float64(y), float64(z)}
}

// ChunkBox is c's box relative to eye (float64 all the way).
func ChunkBox(c *Chunk, eye mgl64.Vec3) frustum.AABB {
	o := Origin(c.Pos).Sub(eye)
	var b frustum.AABB
	for k := 0; k < 3; k++ {
		b.Min[k] = o[k] + float64(c.Min[k])
		b.Max[k] = o[k] + float64(c.Max[k])
	}
	return b
}

// Eye is the floating-origin split of a world point: the chunk holding it
// and its offset from that chunk's origin, in [0, 32) (float32 error below
// 2 µm). The shader computes a vertex as (chunk − Chunk) × 32 − Frac +
// local, with the chunk difference in exact integers.
type Eye struct {
	Chunk [3]int32
	Frac  mgl32.Vec3
}

// EyeAt splits p (chunk coordinates clamp at the int32 range, 6.9×10¹⁰ m).
func EyeAt(p mgl64.Vec3) Eye {
	var e Eye
	for k := 0; k < 3; k++ {
		c := math.Floor(p[k] / voxel.ChunkSize)
		c = max(min(c, math.MaxInt32), math.MinInt32)
		e.Chunk[k] = int32(c)
		e.Frac[k] = float32(p[k] - c*voxel.ChunkSize)
	}
	return e
}

// List is one pass's multi-draw: first/count in vertices (6 per quad).
type List struct {
	First, Count []int32
	Culled       int // stored chunks the frustum rejected
	Quads        int // quads in the list
	items        []item
}

type item struct {
	d2 float64
	i  int
}

// Len is the number of chunk draws.
func (l *List) Len() int { return len(l.First) }

// Reset empties the list, keeping its storage.
func (l *List) Reset() {
	l.First, l.Count, l.items = l.First[:0], l.Count[:0], l.items[:0]
	l.Culled, l.Quads = 0, 0
}

// Build fills l with the stored chunks whose boxes pass f (planes in
// eye-relative space; nil: no culling), nearest first by the distance from
// the eye to the box (ties by first slot, so the order is deterministic).
// The box test is frustum.IntersectsAABB's positive-vertex test, unrolled
// over plain floats (TestBoxTestMatchesFrustum checks they agree).
func (l *List) Build(s *Store, eye mgl64.Vec3, f *frustum.Frustum) {
	l.Reset()
	var planes [6][4]float64
	if f != nil {
		for i, p := range f.Planes {
			planes[i] = [4]float64{p.N[0], p.N[1], p.N[2], p.D}
		}
	}
	for i := range s.chunks {
		c := &s.chunks[i]
		b := ChunkBox(c, eye)
		if f != nil && !boxVisible(&planes, &b) {
			l.Culled++
			continue
		}
		l.items = append(l.items, item{d2: boxDist2(b), i: i})
	}
	slices.SortFunc(l.items, func(a, b item) int {
		if a.d2 != b.d2 {
			if a.d2 < b.d2 {
				return -1
			}
			return 1
		}
		return s.chunks[a.i].First - s.chunks[b.i].First
	})
	per := s.perSlot * VertsPerQuad
	for _, it := range l.items {
		c := &s.chunks[it.i]
		l.First = append(l.First, int32(c.First*per))
		l.Count = append(l.Count, int32(c.Quads*VertsPerQuad))
		l.Quads += c.Quads
	}
}

// boxVisible is the conservative positive-vertex test: for each plane the
// box corner furthest along its normal must not be behind it.
func boxVisible(planes *[6][4]float64, b *frustum.AABB) bool {
	for i := range planes {
		p := &planes[i]
		x, y, z := b.Min[0], b.Min[1], b.Min[2]
		if p[0] >= 0 {
			x = b.Max[0]
		}
		if p[1] >= 0 {
			y = b.Max[1]
		}
		if p[2] >= 0 {
			z = b.Max[2]
		}
		if p[0]*x+p[1]*y+p[2]*z+p[3] < 0 {
			return false
		}
	}
	return true
}

// boxDist2 is the squared distance from the origin (the eye) to b.
func boxDist2(b frustum.AABB) float64 {
	d := 0.0
	for k := 0; k < 3; k++ {
		v := max(b.Min[k], 0, -b.Max[k])
		d += v * v
	}
	return d
}

// Corner is the chunk-local position (metres) of vertex i (0..5) of quad
// q, exactly as the vertex shader expands it: corners (u, v) = (0,0),
// (1,0), (1,1), (0,0), (1,1), (0,1) of the quad's U×V rectangle, with U and
// V swapped where that is needed for the two triangles to wind
// counter-clockwise seen from outside (along the face normal).
func Corner(q mesh.Quad, i int) [3]int {
	c := [6]int{0, 1, 2, 0, 2, 3}[i]
	cu, cv := 0, 0
	if c == 1 || c == 2 {
		cu = 1
	}
	if c >= 2 {
		cv = 1
	}
	f := q.Face()
	axis, pos := int(f>>1), f&1 == 0
	var u, v [3]int
	switch axis {
	case 0:
		u, v = [3]int{0, 0, 1}, [3]int{0, 1, 0}
	case 1:
		u, v = [3]int{1, 0, 0}, [3]int{0, 0, 1}
	default:
		u, v = [3]int{1, 0, 0}, [3]int{0, 1, 0}
	}
	// U×V is −X for ±X, −Y for ±Y, +Z for ±Z: swap where it opposes the normal.
	if pos != (axis == 2) {
		cu, cv = cv, cu
	}
	p := [3]int{q.X(), q.Y(), q.Z()}
	w, h := q.W(), q.H()
	for k := 0; k < 3; k++ {
		p[k] += u[k]*cu*w + v[k]*cv*h
	}
	if pos {
		p[axis]++
	}
	return p
}

// Block colours (linear RGB, before lighting). Water is not here: it takes
// the weather palette's water entry (slots.PaletteWater) like the lake.
// Unknown ids are drawn magenta so they stand out.
var BlockColours = [voxel.NumBlocks]mgl32.Vec3{
	voxel.Air:    {1, 0, 1},
	voxel.Grass:  {0.30, 0.50, 0.20},
	voxel.Dirt:   {0.45, 0.32, 0.20},
	voxel.Stone:  {0.50, 0.50, 0.52},
	voxel.Sand:   {0.78, 0.72, 0.52},
	voxel.Gravel: {0.52, 0.49, 0.45},
	voxel.Water:  {0.16, 0.36, 0.50}, // unused by the shader: palette
}
