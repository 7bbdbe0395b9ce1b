package netsync

import "citydrive/voxel"

// union is the reference-counted union of every client's area: a chunk is
// in it while at least one client wants it. It records what entered and
// left since the last flush, so the world hears about changes in
// O(changes) per tick, never O(union).
//
// Counts live in bricks of 4×4×4 chunks, one map entry per brick: 200
// players at radius 8 want ~355,000 chunks but only ~15,000 bricks, so the
// one map lookup a change costs (and the one its flush costs) stays in
// cache; a map keyed by chunk was most of the tick.
type union struct {
	bricks map[voxel.ChunkPos]*unionBrick // keyed by brick coordinates
	size   int                            // chunks in the union
	// order lists the chunks changed since the last flush, in
	// first-change order.
	order          []voxel.ChunkPos
	added, removed []voxel.ChunkPos // flush scratch
	spare          []*unionBrick    // emptied bricks, reused
}

const unionBrickShift = 2 // bricks of 4×4×4 chunks

type unionBrick struct {
	n [1 << (3 * unionBrickShift)]int32 // clients wanting each chunk
	// changed marks chunks in order; wasIn those of them in the union at
	// the last flush.
	changed, wasIn uint64
	live           int // chunks with n > 0
}

func newUnion() *union {
	return &union{bricks: map[voxel.ChunkPos]*unionBrick{}}
}

// brickOf is the brick key of pos and pos's index in it.
func brickOf(pos voxel.ChunkPos) (voxel.ChunkPos, uint) {
	const m = 1<<unionBrickShift - 1
	k := voxel.ChunkPos{X: pos.X >> unionBrickShift, Y: pos.Y >> unionBrickShift, Z: pos.Z >> unionBrickShift}
	return k, uint(pos.Y&m)<<(2*unionBrickShift) | uint(pos.Z&m)<<unionBrickShift | uint(pos.X&m)
}

// ref counts one more client wanting pos.
func (u *union) ref(pos voxel.ChunkPos) {
	k, i := brickOf(pos)
	b := u.bricks[k]
	if b == nil {
		b = u.newBrick()
		u.bricks[k] = b
	}
	if b.n[i] == 0 {
		if b.changed&(1<<i) == 0 { // out at the last flush
			b.changed |= 1 << i
			u.order = append(u.order, pos)
		}
		b.live++
		u.size++
	}
	b.n[i]++
}

// unref counts one client fewer wanting pos (which it must have wanted).
func (u *union) unref(pos voxel.ChunkPos) {
	k, i := brickOf(pos)
	b := u.bricks[k]
	if b.n[i] == 1 {
		if b.changed&(1<<i) == 0 { // in at the last flush
			b.changed |= 1 << i
			b.wasIn |= 1 << i
			u.order = append(u.order, pos)
		}
		b.live--
		u.size--
	}
	b.n[i]--
}

func (u *union) newBrick() *unionBrick {
	if n := len(u.spare); n > 0 {
		b := u.spare[n-1]
		u.spare = u.spare[:n-1]
		return b
	}
	return &unionBrick{}
}

// contains reports whether some client wants pos.
func (u *union) contains(pos voxel.ChunkPos) bool {
	k, i := brickOf(pos)
	b := u.bricks[k]
	return b != nil && b.n[i] > 0
}

// len is the number of chunks some client wants.
func (u *union) len() int { return u.size }

// flush hands changed what entered and left the union since the last
// flush, if anything did. A chunk that left and came back (or the other
// way round) in between is not a change; each chunk is listed once, in
// first-change order (near-first for the client that asked). The slices
// are only valid during the call.
func (u *union) flush(changed func(added, removed []voxel.ChunkPos)) {
	u.added, u.removed = u.added[:0], u.removed[:0]
	for _, p := range u.order {
		k, i := brickOf(p)
		b := u.bricks[k]
		in, was := b.n[i] > 0, b.wasIn&(1<<i) != 0
		switch {
		case in && !was:
			u.added = append(u.added, p)
		case !in && was:
			u.removed = append(u.removed, p)
		}
		b.changed &^= 1 << i
		b.wasIn &^= 1 << i
		if b.live == 0 && b.changed == 0 {
			delete(u.bricks, k)
			u.spare = append(u.spare, b) // every count is zero again
		}
	}
	u.order = u.order[:0]
	if len(u.added) > 0 || len(u.removed) > 0 {
		changed(u.added, u.removed)
	}
}
