package netsync

import (
	"slices"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// area is one client's subscription as the server tracks it: the cylinder
// it is served and the chunks of it not delivered yet. The cylinder is
// implicit (centre and radius, a membership test), so a Subscribe that
// moves it costs arithmetic over one cylinder and the chunks that entered
// and left, never a set or a sort over the whole cylinder: at 200 players
// moving at radius 8, rebuilding those sets was 80% of the tick.
type area struct {
	subscribed bool
	centre     voxel.ChunkPos
	radius     int32            // served: the asked radius clamped to the server's maximum
	pending    []voxel.ChunkPos // in the cylinder, not delivered, near-first
	// failed holds chunks of the cylinder whose delivery failed (could not
	// be encoded; not retried). Every chunk of the cylinder neither
	// pending nor failed is held by the client.
	failed map[voxel.ChunkPos]struct{}

	next []voxel.ChunkPos // subscribe scratch: the next pending list
	mark []uint64         // subscribe scratch: still-pending chunks, by offset
}

// areaChange is what one Subscribe changed: chunks the client now wants
// (near-first) and no longer wants, for the union; and the delivered chunks
// that need a ChunkDrop. Its slices are reused by the next subscribe.
type areaChange struct {
	entered, left, drops []voxel.ChunkPos
}

func newArea() *area {
	return &area{failed: map[voxel.ChunkPos]struct{}{}}
}

// subscribe replaces the area with the cylinder of radius asked (clamped
// to maxRadius) around centre and reports what changed; ch is reset and
// refilled. It reports false, changing nothing, when the subscription is
// the one already served.
//
// Drop rule (protocol 2): a delivered chunk that leaves the cylinder of
// the client's own Subscribe (centre and radius as sent) is evicted by the
// client itself, so it is only forgotten here. Only a chunk the client
// cannot work out, one still inside what it asked for but outside what the
// server serves, needs a ChunkDrop.
func (a *area) subscribe(centre voxel.ChunkPos, asked, maxRadius uint32, ch *areaChange) bool {
	ch.entered, ch.left, ch.drops = ch.entered[:0], ch.left[:0], ch.drops[:0]
	r := int32(min(asked, maxRadius))
	if a.subscribed && a.centre == centre && a.radius == r {
		return false
	}
	oldC, oldR := a.centre, a.radius
	if !a.subscribed {
		oldR = -1 // nothing served yet
	}
	ch.left = plan.Outside(oldC, oldR, centre, r, ch.left)
	if askedR := int32(min(asked, 1<<30)); askedR > r {
		for _, p := range ch.left {
			if plan.InCylinder(centre, askedR, p) && a.heldBefore(p) {
				ch.drops = append(ch.drops, p)
			}
		}
	}
	for p := range a.failed {
		if !plan.InCylinder(centre, r, p) {
			delete(a.failed, p)
		}
	}

	// The next pending list, near-first from the new centre without a
	// sort: walk the cylinder's near-first offsets, taking what entered
	// and what was pending and stays (marked in a bitmap by offset).
	side, layers := int(2*r+1), int(r/2*2+1)
	mark := a.mark[:0]
	mark = slices.Grow(mark, (side*side*layers+63)/64)[:(side*side*layers+63)/64]
	clear(mark)
	bit := func(o voxel.ChunkPos) int {
		return (int(o.Y+r/2)*side+int(o.Z+r))*side + int(o.X+r)
	}
	for _, p := range a.pending {
		if plan.InCylinder(centre, r, p) {
			i := bit(voxel.ChunkPos{X: p.X - centre.X, Y: p.Y - centre.Y, Z: p.Z - centre.Z})
			mark[i/64] |= 1 << (i % 64)
		}
	}
	next := a.next[:0]
	for _, o := range plan.NearFirstOffsets(r) {
		p := centre.Add(o.X, o.Y, o.Z)
		switch i := bit(o); {
		case !plan.InCylinder(oldC, oldR, p):
			ch.entered = append(ch.entered, p)
			next = append(next, p)
		case mark[i/64]&(1<<(i%64)) != 0:
			next = append(next, p)
		}
	}
	a.subscribed, a.centre, a.radius = true, centre, r
	a.pending, a.next, a.mark = next, a.pending[:0], mark
	return true
}

// heldBefore reports, during subscribe (before the area changes), whether
// p of the old cylinder was delivered. Only the rare drop path asks.
func (a *area) heldBefore(p voxel.ChunkPos) bool {
	_, failed := a.failed[p]
	return !failed && !slices.Contains(a.pending, p)
}

// undeliverable records that p, taken off the pending list, was not
// delivered after all.
func (a *area) undeliverable(p voxel.ChunkPos) { a.failed[p] = struct{}{} }

// holds reports whether the client has chunk p: delivered and still in
// its area. Edits are admitted and broadcast only for such chunks. The
// pending list is short except while an area first loads.
func (a *area) holds(p voxel.ChunkPos) bool {
	if !a.covers(p) {
		return false
	}
	_, failed := a.failed[p]
	return !failed && !slices.Contains(a.pending, p)
}

// covers reports whether p lies in the served cylinder (car relay).
func (a *area) covers(p voxel.ChunkPos) bool {
	return a.subscribed && plan.InCylinder(a.centre, a.radius, p)
}

// leave empties the area (the client left), appending every chunk it
// wanted to left for the union.
func (a *area) leave(left []voxel.ChunkPos) []voxel.ChunkPos {
	if a.subscribed {
		left = plan.Cylinder(a.centre, a.radius, left)
	}
	clear(a.failed)
	a.pending = a.pending[:0]
	a.subscribed = false
	return left
}
