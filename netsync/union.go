package netsync

import "citydrive/voxel"

// union is the reference-counted union of every client's area: a chunk is
// in it while at least one client wants it. It records what entered and
// left since the last flush, so the world hears about changes in
// O(changes) per tick, never O(union).
type union struct {
	// refs holds, per chunk, its count and two flags: changed since the
	// last flush, and in the union at that flush. One map, so a change
	// costs two map operations to record and two to flush (200 players
	// moving at radius 8 change ~50,000 chunks a second). A chunk whose
	// count fell to zero stays, flagged, until the flush.
	refs map[voxel.ChunkPos]uint32
	// order lists the changed chunks in first-change order.
	order          []voxel.ChunkPos
	added, removed []voxel.ChunkPos // flush scratch
}

const (
	unionChanged uint32 = 1 << 31
	unionWasIn   uint32 = 1 << 30
	unionCount          = unionWasIn - 1
)

func newUnion() *union {
	return &union{refs: map[voxel.ChunkPos]uint32{}}
}

// ref counts one more client wanting pos.
func (u *union) ref(pos voxel.ChunkPos) {
	v := u.refs[pos]
	if v&unionCount == 0 && v&unionChanged == 0 { // out at the last flush
		v |= unionChanged
		u.order = append(u.order, pos)
	}
	u.refs[pos] = v + 1
}

// unref counts one client fewer wanting pos (which it must have wanted).
func (u *union) unref(pos voxel.ChunkPos) {
	v := u.refs[pos]
	if v&unionCount == 1 && v&unionChanged == 0 { // in at the last flush
		v |= unionChanged | unionWasIn
		u.order = append(u.order, pos)
	}
	u.refs[pos] = v - 1
}

// contains reports whether some client wants pos.
func (u *union) contains(pos voxel.ChunkPos) bool { return u.refs[pos]&unionCount > 0 }

// len is the number of chunks some client wants (exact after a flush).
func (u *union) len() int { return len(u.refs) }

// flush hands changed what entered and left the union since the last
// flush, if anything did. A chunk that left and came back (or the other
// way round) in between is not a change; each chunk is listed once, in
// first-change order (near-first for the client that asked). The slices
// are only valid during the call.
func (u *union) flush(changed func(added, removed []voxel.ChunkPos)) {
	u.added, u.removed = u.added[:0], u.removed[:0]
	for _, p := range u.order {
		v := u.refs[p]
		in, was := v&unionCount > 0, v&unionWasIn != 0
		switch {
		case in && !was:
			u.added = append(u.added, p)
		case !in && was:
			u.removed = append(u.removed, p)
		}
		if in {
			u.refs[p] = v & unionCount
		} else {
			delete(u.refs, p)
		}
	}
	u.order = u.order[:0]
	if len(u.added) > 0 || len(u.removed) > 0 {
		changed(u.added, u.removed)
	}
}
