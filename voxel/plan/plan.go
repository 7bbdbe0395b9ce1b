// Package plan is the pure streaming planner: desired chunk sets (cylinders
// around anchors) and their deterministic near-first order.
package plan

import (
	"cmp"
	"slices"

	"citydrive/voxel"
)

// Cylinder appends the chunks of the disc dx²+dz² ≤ r² around centre,
// extruded over dy in [-r/2, r/2] (integer halving). Order: Y, then Z,
// then X ascending.
func Cylinder(centre voxel.ChunkPos, r int32, dst []voxel.ChunkPos) []voxel.ChunkPos {
	if r < 0 {
		return dst
	}
	h := r / 2
	for dy := -h; dy <= h; dy++ {
		for dz := -r; dz <= r; dz++ {
			for dx := -r; dx <= r; dx++ {
				if int64(dx)*int64(dx)+int64(dz)*int64(dz) <= int64(r)*int64(r) {
					dst = append(dst, centre.Add(dx, dy, dz))
				}
			}
		}
	}
	return dst
}

// InCylinder reports whether p belongs to Cylinder(centre, r).
func InCylinder(centre voxel.ChunkPos, r int32, p voxel.ChunkPos) bool {
	if r < 0 {
		return false
	}
	dx, dz, dy := int64(p.X-centre.X), int64(p.Z-centre.Z), int64(p.Y-centre.Y)
	h := int64(r / 2)
	return dx*dx+dz*dz <= int64(r)*int64(r) && dy >= -h && dy <= h
}

// Score is the near-first priority of p seen from centre (lower is
// sooner): horizontal distance² plus 4 × vertical distance², in chunks;
// vertical distance weighs double because the ground is what you see.
func Score(centre, p voxel.ChunkPos) int64 {
	dx, dy, dz := int64(p.X-centre.X), int64(p.Y-centre.Y), int64(p.Z-centre.Z)
	return dx*dx + dz*dz + 4*dy*dy
}

// Compare orders a before b near-first from centre, breaking equal scores
// by Y, then Z, then X, so the order is total and deterministic.
func Compare(centre, a, b voxel.ChunkPos) int {
	return cmp.Or(
		cmp.Compare(Score(centre, a), Score(centre, b)),
		cmp.Compare(a.Y, b.Y), cmp.Compare(a.Z, b.Z), cmp.Compare(a.X, b.X))
}

// NearFirst sorts ps in place near-first from centre and returns it.
func NearFirst(centre voxel.ChunkPos, ps []voxel.ChunkPos) []voxel.ChunkPos {
	slices.SortFunc(ps, func(a, b voxel.ChunkPos) int { return Compare(centre, a, b) })
	return ps
}

// Anchor is one point of interest (a player) and its load radius.
type Anchor struct {
	Centre voxel.ChunkPos
	Radius int32
}

// Desired is an immutable desired set: membership plus a deterministic
// request order (each anchor's cylinder near-first, anchors in the given
// order, duplicates dropped).
type Desired struct {
	set   map[voxel.ChunkPos]struct{}
	order []voxel.ChunkPos
}

// Union builds the desired set of several anchors.
func Union(anchors ...Anchor) Desired {
	d := Desired{set: map[voxel.ChunkPos]struct{}{}}
	var buf []voxel.ChunkPos
	for _, a := range anchors {
		buf = NearFirst(a.Centre, Cylinder(a.Centre, a.Radius, buf[:0]))
		for _, p := range buf {
			if _, dup := d.set[p]; !dup {
				d.set[p] = struct{}{}
				d.order = append(d.order, p)
			}
		}
	}
	return d
}

// Of builds a desired set from explicit positions, kept in the given order.
func Of(ps ...voxel.ChunkPos) Desired {
	d := Desired{set: map[voxel.ChunkPos]struct{}{}}
	for _, p := range ps {
		if _, dup := d.set[p]; !dup {
			d.set[p] = struct{}{}
			d.order = append(d.order, p)
		}
	}
	return d
}

// Contains reports membership.
func (d Desired) Contains(p voxel.ChunkPos) bool { _, ok := d.set[p]; return ok }

// Len is the number of chunks.
func (d Desired) Len() int { return len(d.order) }

// Order is the request order; callers must not modify it.
func (d Desired) Order() []voxel.ChunkPos { return d.order }
