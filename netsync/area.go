package netsync

import (
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// area is one client's subscription as the server tracks it: the cylinder
// it is served, the chunks delivered to it and those still to deliver.
type area struct {
	subscribed bool
	centre     voxel.ChunkPos
	radius     int32                       // served: the asked radius clamped to the server's maximum
	desired    map[voxel.ChunkPos]struct{} // the served cylinder
	spare      map[voxel.ChunkPos]struct{} // the next desired set, reused
	sent       map[voxel.ChunkPos]struct{} // delivered and still in the area
	pending    []voxel.ChunkPos            // in the cylinder, not delivered, near-first
	cylinder   []voxel.ChunkPos            // scratch
}

// areaChange is what one Subscribe changed: chunks the client now wants
// (near-first) and no longer wants, for the union; and the delivered chunks
// that need a ChunkDrop. Its slices are reused by the next subscribe.
type areaChange struct {
	entered, left, drops []voxel.ChunkPos
}

func newArea() *area {
	return &area{desired: map[voxel.ChunkPos]struct{}{}, spare: map[voxel.ChunkPos]struct{}{},
		sent: map[voxel.ChunkPos]struct{}{}}
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
	a.subscribed, a.centre, a.radius = true, centre, r
	a.cylinder = plan.NearFirst(centre, plan.Cylinder(centre, r, a.cylinder[:0]))
	next := a.spare
	clear(next)
	for _, p := range a.cylinder {
		next[p] = struct{}{}
	}
	for p := range a.desired {
		if _, ok := next[p]; !ok {
			ch.left = append(ch.left, p)
		}
	}
	for _, p := range a.cylinder {
		if _, ok := a.desired[p]; !ok {
			ch.entered = append(ch.entered, p)
		}
	}
	a.desired, a.spare = next, a.desired
	for p := range a.sent {
		if _, ok := a.desired[p]; ok {
			continue
		}
		delete(a.sent, p)
		if plan.InCylinder(centre, int32(asked), p) {
			ch.drops = append(ch.drops, p)
		}
	}
	a.pending = a.pending[:0]
	for _, p := range a.cylinder {
		if _, ok := a.sent[p]; !ok {
			a.pending = append(a.pending, p)
		}
	}
	return true
}

// delivered records that p was sent to the client.
func (a *area) delivered(p voxel.ChunkPos) { a.sent[p] = struct{}{} }

// holds reports whether the client has chunk p: delivered and still in
// its area. Edits are admitted and broadcast only for such chunks.
func (a *area) holds(p voxel.ChunkPos) bool {
	_, ok := a.sent[p]
	return ok
}

// covers reports whether p lies in the served cylinder (car relay).
func (a *area) covers(p voxel.ChunkPos) bool {
	return a.subscribed && plan.InCylinder(a.centre, a.radius, p)
}

// leave empties the area (the client left), appending every chunk it
// wanted to left for the union.
func (a *area) leave(left []voxel.ChunkPos) []voxel.ChunkPos {
	for p := range a.desired {
		left = append(left, p)
	}
	clear(a.desired)
	clear(a.sent)
	a.pending = a.pending[:0]
	a.subscribed = false
	return left
}
