package plan

import (
	"sync"

	"citydrive/voxel"
)

// Outside appends the chunks of Cylinder(c, r) that are not in
// Cylinder(other, ro) (none when ro < 0), in no particular order. It works
// column by column, so a one-chunk move costs the columns of one disc and
// the chunks that changed, not a set over the whole cylinder: this is how a
// subscription that moved is diffed. Offsets are computed in int64, so
// centres far apart cannot overflow.
func Outside(c voxel.ChunkPos, r int32, other voxel.ChunkPos, ro int32, dst []voxel.ChunkPos) []voxel.ChunkPos {
	if r < 0 {
		return dst
	}
	h, oh := r/2, int64(ro/2)
	rr, orr := int64(r)*int64(r), int64(ro)*int64(ro)
	oy := int64(other.Y)
	for dz := -r; dz <= r; dz++ {
		for dx := -r; dx <= r; dx++ {
			if int64(dx)*int64(dx)+int64(dz)*int64(dz) > rr {
				continue
			}
			x, z := c.X+dx, c.Z+dz
			ox, oz := int64(x)-int64(other.X), int64(z)-int64(other.Z)
			inDisc := ro >= 0 && abs64(ox) <= int64(ro) && abs64(oz) <= int64(ro) && ox*ox+oz*oz <= orr
			lo, hi := int64(c.Y-h), int64(c.Y+h)
			if !inDisc {
				dst = appendColumn(dst, x, z, lo, hi)
				continue
			}
			// The layers below and above the other cylinder's.
			dst = appendColumn(dst, x, z, lo, min(hi, oy-oh-1))
			dst = appendColumn(dst, x, z, max(lo, oy+oh+1), hi)
		}
	}
	return dst
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendColumn appends the chunks of column (x, z) from layer lo to hi.
func appendColumn(dst []voxel.ChunkPos, x, z int32, lo, hi int64) []voxel.ChunkPos {
	for y := lo; y <= hi; y++ {
		dst = append(dst, voxel.ChunkPos{X: x, Y: int32(y), Z: z})
	}
	return dst
}

// offsetTables caches NearFirstOffsets by radius.
var offsetTables struct {
	sync.Mutex
	byRadius map[int32][]voxel.ChunkPos
}

// NearFirstOffsets is Cylinder(origin, r) in NearFirst order: added to a
// centre, the cylinder around it near-first, with no sort (ties break by
// Y, Z, X in both, and adding a centre keeps that order). The slice is
// shared and must not be modified; it is built once per radius.
func NearFirstOffsets(r int32) []voxel.ChunkPos {
	offsetTables.Lock()
	defer offsetTables.Unlock()
	if t, ok := offsetTables.byRadius[r]; ok {
		return t
	}
	if offsetTables.byRadius == nil {
		offsetTables.byRadius = map[int32][]voxel.ChunkPos{}
	}
	o := voxel.ChunkPos{}
	t := NearFirst(o, Cylinder(o, r, nil))
	offsetTables.byRadius[r] = t
	return t
}
