package scene

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/frustum"
)

// DrawList is the first/count arrays of one glMultiDrawArrays call.
type DrawList struct {
	First  []int32
	Count  []int32
	Culled int // slots with vertices that the frustum rejected
	Bad    int // slots with an out-of-range index (skipped)
}

// Reset empties the list, keeping its storage.
func (d *DrawList) Reset() {
	d.First, d.Count, d.Culled, d.Bad = d.First[:0], d.Count[:0], 0, 0
}

// Len is the number of draws.
func (d *DrawList) Len() int { return len(d.First) }

// Vertices is the total vertex count of the list.
func (d *DrawList) Vertices() int {
	n := 0
	for _, c := range d.Count {
		n += int(c)
	}
	return n
}

// SlotBox returns a slot's bounding box moved by offset (the group origin
// minus the eye, in float64) into eye-relative space.
func SlotBox(s *SlotDraw, offset mgl64.Vec3) frustum.AABB {
	var b frustum.AABB
	for a := 0; a < 3; a++ {
		lo, hi := float64(s.Min[a]), float64(s.Max[a])
		if lo > hi {
			lo, hi = hi, lo
		}
		b.Min[a] = lo + offset[a]
		b.Max[a] = hi + offset[a]
	}
	return b
}

// EffectiveCount is how many vertices of a slot are drawn: the sink's own
// record (counts, nil: none kept) capped by the draw input's Count when that
// is positive. So a cleared slot never draws, whatever the input says.
func EffectiveCount(s *SlotDraw, counts []int) int {
	if counts == nil {
		return s.Count
	}
	if s.Slot < 0 || s.Slot >= len(counts) {
		return 0
	}
	n := counts[s.Slot]
	if s.Count > 0 {
		n = min(n, s.Count)
	}
	return n
}

// Build appends to d the slots (kept in their given order) that hold
// vertices and whose boxes pass the frustum test. counts is the sink's
// per-slot vertex counts (see EffectiveCount); offset is the group's origin
// minus the eye; f nil disables culling. Slot i's vertices start at vertex
// i*vertsPerSlot; a count is clamped to vertsPerSlot.
func (d *DrawList) Build(slots []SlotDraw, counts []int, offset mgl64.Vec3, f *frustum.Frustum, numSlots, vertsPerSlot int) {
	d.BuildLOD(slots, counts, nil, offset, f, numSlots, vertsPerSlot)
}

// LOD is the detail level of slot draws (see slots/detail.go): a slot whose
// box is wholly farther than Beyond metres from the eye draws only its
// first Coarse[slot] vertices.
type LOD struct {
	Coarse []int
	Beyond float64
	// CullBeyond (m, 0: never) is where slots go to BuildSplit's culled
	// list, drawn with back faces culled. Not nearer: a few open parts
	// (ledges, shop canopies) show their back faces from below.
	CullBeyond float64
}

// BuildLOD is Build with slots beyond lod.Beyond cut to their coarse
// prefix (lod nil: every slot whole).
func (d *DrawList) BuildLOD(slots []SlotDraw, counts []int, lod *LOD, offset mgl64.Vec3, f *frustum.Frustum, numSlots, vertsPerSlot int) {
	d.BuildSplit(slots, counts, lod, offset, f, numSlots, vertsPerSlot, nil)
}

// BuildSplit is BuildLOD that appends the slots wholly beyond
// lod.CullBeyond to culled instead of d (culled nil, or CullBeyond 0: all
// to d). Culled and Bad count in d either way.
func (d *DrawList) BuildSplit(slots []SlotDraw, counts []int, lod *LOD, offset mgl64.Vec3, f *frustum.Frustum, numSlots, vertsPerSlot int, culled *DrawList) {
	for i := range slots {
		s := &slots[i]
		if s.Slot < 0 || s.Slot >= numSlots {
			d.Bad++
			continue
		}
		n := EffectiveCount(s, counts)
		if n <= 0 {
			continue
		}
		box := SlotBox(s, offset)
		if f != nil && !f.IntersectsAABB(box) {
			d.Culled++
			continue
		}
		to := d
		if lod != nil {
			d2 := boxDistance2(box)
			if s.Slot < len(lod.Coarse) && d2 > lod.Beyond*lod.Beyond {
				n = min(n, lod.Coarse[s.Slot])
				if n <= 0 {
					continue
				}
			}
			if culled != nil && lod.CullBeyond > 0 && d2 > lod.CullBeyond*lod.CullBeyond {
				to = culled
			}
		}
		to.First = append(to.First, int32(s.Slot*vertsPerSlot))
		to.Count = append(to.Count, int32(min(n, vertsPerSlot)))
	}
}

// SplitRanges appends to dstFirst and dstCount the ranges first[i],
// count[i] cut into consecutive pieces of at most most vertices (a whole
// number of triangles: most is rounded down to a multiple of 3, and at
// least 3), in order; it returns the two slices.
func SplitRanges(first, count []int32, most int32, dstFirst, dstCount []int32) ([]int32, []int32) {
	most = max(most-most%3, 3)
	for i, f := range first {
		for off, n := int32(0), count[i]; off < n; off += most {
			dstFirst = append(dstFirst, f+off)
			dstCount = append(dstCount, min(most, n-off))
		}
	}
	return dstFirst, dstCount
}

// boxDistance2 is the squared distance from the eye (the origin of the
// box's space) to the nearest point of b.
func boxDistance2(b frustum.AABB) float64 {
	d2 := 0.0
	for a := 0; a < 3; a++ {
		if v := max(b.Min[a], -b.Max[a], 0); v > 0 {
			d2 += v * v
		}
	}
	return d2
}

// TreeRadius is the bounding-sphere radius of a tree of scale 1 around a
// point TreeCentreHeight above its base.
const (
	TreeRadius       = 6.5
	TreeCentreHeight = 5
	// TreeFloats is the size of one packed instance: x, y, z, scale, variant.
	TreeFloats = 5
)

// AppendTrees appends the instances of the given slots (those that draw,
// see EffectiveCount) whose bounding
// spheres pass the frustum (nil: all), packed TreeFloats apiece, positions
// moved by rel (the group origin minus the camera, already float32), and
// stops at maxInstances in dst. It returns dst and how many were dropped for
// lack of room.
func AppendTrees(dst []float32, slots []SlotDraw, counts []int, offset mgl64.Vec3, f *frustum.Frustum, maxInstances int) ([]float32, int) {
	rel := mgl32.Vec3{float32(offset[0]), float32(offset[1]), float32(offset[2])}
	dropped := 0
	for i := range slots {
		s := &slots[i]
		if EffectiveCount(s, counts) <= 0 {
			continue
		}
		for _, t := range s.Trees {
			sc := t.Scale
			if sc <= 0 {
				sc = 1
			}
			p := mgl32.Vec3(t.Pos).Add(rel)
			if f != nil {
				c := mgl64.Vec3{float64(p[0]), float64(p[1]) + TreeCentreHeight*float64(sc), float64(p[2])}
				if !f.IntersectsSphere(c, TreeRadius*float64(sc)) {
					continue
				}
			}
			if len(dst)/TreeFloats >= maxInstances {
				dropped++
				continue
			}
			dst = append(dst, p[0], p[1], p[2], sc, t.Variant)
		}
	}
	return dst, dropped
}

// LineFloats is the size of one debug line vertex: position, colour.
const LineFloats = 6

// AppendBox appends the 12 edges (24 vertices) of box b as lines.
func AppendBox(dst []float32, b frustum.AABB, c mgl32.Vec3) []float32 {
	corner := func(i int) [3]float32 {
		var p [3]float32
		for a := 0; a < 3; a++ {
			if i>>a&1 == 1 {
				p[a] = float32(b.Max[a])
			} else {
				p[a] = float32(b.Min[a])
			}
		}
		return p
	}
	for i := 0; i < 8; i++ {
		for a := 0; a < 3; a++ {
			if i>>a&1 == 0 { // an edge from corner i along axis a
				p, q := corner(i), corner(i|1<<a)
				dst = append(dst, p[0], p[1], p[2], c[0], c[1], c[2], q[0], q[1], q[2], c[0], c[1], c[2])
			}
		}
	}
	return dst
}

// AgeTint is the debug colour for a slot built age seconds ago: red when
// brand new, through yellow to green at 10 s, and no tint (alpha 0) after.
func AgeTint(age float32) mgl32.Vec4 {
	const span = 10
	if age < 0 {
		age = 0
	}
	if age >= span {
		return mgl32.Vec4{0, 1, 0, 0}
	}
	t := age / span
	if t < 0.5 {
		return mgl32.Vec4{1, t * 2, 0, 0.75}
	}
	return mgl32.Vec4{1 - (t-0.5)*2, 1, 0, 0.75 * (1 - (t-0.5)*2*0.6)}
}
