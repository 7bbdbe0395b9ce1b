package netsync

import "citydrive/voxel"

// union is the reference-counted union of every client's area: a chunk is
// in it while at least one client wants it. It records what entered and
// left since the last flush, so the world hears about changes in
// O(changes) per tick, never O(union).
type union struct {
	refs map[voxel.ChunkPos]int32
	// was holds, for every chunk whose membership changed since the last
	// flush, whether it was in the union at that flush; order lists them
	// in first-change order.
	was            map[voxel.ChunkPos]bool
	order          []voxel.ChunkPos
	added, removed []voxel.ChunkPos // flush scratch
}

func newUnion() *union {
	return &union{refs: map[voxel.ChunkPos]int32{}, was: map[voxel.ChunkPos]bool{}}
}

// ref counts one more client wanting pos.
func (u *union) ref(pos voxel.ChunkPos) {
	u.refs[pos]++
	if u.refs[pos] == 1 {
		u.changed(pos, false)
	}
}

// unref counts one client fewer wanting pos (which it must have wanted).
func (u *union) unref(pos voxel.ChunkPos) {
	if n := u.refs[pos] - 1; n > 0 {
		u.refs[pos] = n
		return
	}
	delete(u.refs, pos)
	u.changed(pos, true)
}

func (u *union) changed(pos voxel.ChunkPos, wasIn bool) {
	if _, seen := u.was[pos]; !seen {
		u.was[pos] = wasIn
		u.order = append(u.order, pos)
	}
}

// contains reports whether some client wants pos.
func (u *union) contains(pos voxel.ChunkPos) bool { return u.refs[pos] > 0 }

// len is the number of chunks some client wants.
func (u *union) len() int { return len(u.refs) }

// flush hands changed what entered and left the union since the last
// flush, if anything did. A chunk that left and came back (or the other
// way round) in between is not a change; each chunk is listed once, in
// first-change order (near-first for the client that asked). The slices
// are only valid during the call.
func (u *union) flush(changed func(added, removed []voxel.ChunkPos)) {
	u.added, u.removed = u.added[:0], u.removed[:0]
	for _, p := range u.order {
		switch in := u.contains(p); {
		case in && !u.was[p]:
			u.added = append(u.added, p)
		case !in && u.was[p]:
			u.removed = append(u.removed, p)
		}
	}
	clear(u.was)
	u.order = u.order[:0]
	if len(u.added) > 0 || len(u.removed) > 0 {
		changed(u.added, u.removed)
	}
}
