package cluster

import "citydrive/voxel"

// regions counts the union's chunks per region, so the server watches a
// region exactly while some player's area touches it. Owned by the tick
// goroutine (UnionChanged); O(changes).
type regions struct {
	n map[Region]int
}

func newRegions() *regions { return &regions{n: map[Region]int{}} }

// update applies the union's changes and appends the regions that were
// entered (count 0 → 1) and left (→ 0).
func (rs *regions) update(added, removed []voxel.ChunkPos, entered, left []Region) ([]Region, []Region) {
	for _, p := range added {
		r := RegionOf(p)
		rs.n[r]++
		if rs.n[r] == 1 {
			entered = append(entered, r)
		}
	}
	for _, p := range removed {
		r := RegionOf(p)
		if rs.n[r] <= 0 {
			continue // not counted (cannot happen with a consistent union)
		}
		rs.n[r]--
		if rs.n[r] == 0 {
			delete(rs.n, r)
			left = append(left, r)
		}
	}
	return entered, left
}
