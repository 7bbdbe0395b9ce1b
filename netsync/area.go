package netsync

import "slices"

// cylinder returns the chunks of the streaming cylinder around centre: the
// disc dx²+dz² ≤ r² extruded to |dy| ≤ r/2, ordered near-first
// (horizontal distance² + 4 × vertical distance², ties by Y, Z, X).
func cylinder(centre ChunkPos, r int32, dst []ChunkPos) []ChunkPos {
	dst = dst[:0]
	h := r / 2
	for dy := -h; dy <= h; dy++ {
		for dz := -r; dz <= r; dz++ {
			for dx := -r; dx <= r; dx++ {
				if dx*dx+dz*dz <= r*r {
					dst = append(dst, ChunkPos{X: centre.X + dx, Y: centre.Y + dy, Z: centre.Z + dz})
				}
			}
		}
	}
	sortNearFirst(centre, dst)
	return dst
}

func nearKey(c, p ChunkPos) int64 {
	dx, dy, dz := int64(p.X-c.X), int64(p.Y-c.Y), int64(p.Z-c.Z)
	return dx*dx + dz*dz + 4*dy*dy
}

func sortNearFirst(c ChunkPos, ps []ChunkPos) {
	slices.SortFunc(ps, func(a, b ChunkPos) int {
		if ka, kb := nearKey(c, a), nearKey(c, b); ka != kb {
			return cmp64(ka, kb)
		}
		if a.Y != b.Y {
			return cmp64(int64(a.Y), int64(b.Y))
		}
		if a.Z != b.Z {
			return cmp64(int64(a.Z), int64(b.Z))
		}
		return cmp64(int64(a.X), int64(b.X))
	})
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inCylinder reports whether p lies in the cylinder of radius r around c.
func inCylinder(c ChunkPos, r int32, p ChunkPos) bool {
	dx, dy, dz := int64(p.X-c.X), int64(p.Y-c.Y), int64(p.Z-c.Z)
	return dx*dx+dz*dz <= int64(r)*int64(r) && dy >= -int64(r/2) && dy <= int64(r/2)
}

// chunkOf returns the chunk holding a car position in centimetres.
func chunkOf(x, y, z int32) ChunkPos {
	const cm = 32 * 100
	return ChunkPos{X: floorDiv(x, cm), Y: floorDiv(y, cm), Z: floorDiv(z, cm)}
}

func floorDiv(a, b int32) int32 {
	q := a / b
	if (a%b != 0) && (a < 0) {
		q--
	}
	return q
}
