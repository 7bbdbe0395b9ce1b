package netsync

import (
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// area is one client's subscription as the server tracks it: the cylinder
// it is served, and the chunks of it not delivered yet. The cylinder is
// implicit (centre and radius), so a Subscribe that moves it costs the
// chunks that entered and left, never a set over the whole cylinder: at
// 200 players moving at radius 8 the whole-cylinder rebuild was 80% of the
// tick.
type area struct {
	subscribed bool
	centre     voxel.ChunkPos
	radius     int32 // served: the asked radius clamped to the server's maximum
	// unsent holds every chunk of the cylinder not delivered: those
	// pending, and any whose delivery failed (not retried). Every other
	// chunk of the cylinder is held by the client.
	unsent  map[voxel.ChunkPos]struct{}
	pending []voxel.ChunkPos // in the cylinder, not delivered, near-first
}

// areaChange is what one Subscribe changed: chunks the client now wants
// (near-first) and no longer wants, for the union; and the delivered chunks
// that need a ChunkDrop. Its slices are reused by the next subscribe.
type areaChange struct {
	entered, left, drops []voxel.ChunkPos
}

func newArea() *area {
	return &area{unsent: map[voxel.ChunkPos]struct{}{}}
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
	a.subscribed, a.centre, a.radius = true, centre, r
	ch.left = plan.Outside(oldC, oldR, centre, r, ch.left)
	ch.entered = plan.NearFirst(centre, plan.Outside(centre, r, oldC, oldR, ch.entered))
	askedR := int32(min(asked, 1<<30))
	for _, p := range ch.left {
		if _, un := a.unsent[p]; un {
			delete(a.unsent, p) // left before it was delivered: nothing to drop
			continue
		}
		if askedR > r && plan.InCylinder(centre, askedR, p) {
			ch.drops = append(ch.drops, p)
		}
	}
	// What stays pending keeps waiting; what entered joins it; the whole
	// list is re-sorted near-first from the new centre (it is short unless
	// the client jumped).
	keep := a.pending[:0]
	for _, p := range a.pending {
		if _, un := a.unsent[p]; un && plan.InCylinder(centre, r, p) {
			keep = append(keep, p)
		}
	}
	for _, p := range ch.entered {
		a.unsent[p] = struct{}{}
	}
	a.pending = plan.NearFirst(centre, append(keep, ch.entered...))
	return true
}

// delivered records that p was sent to the client.
func (a *area) delivered(p voxel.ChunkPos) { delete(a.unsent, p) }

// holds reports whether the client has chunk p: delivered and still in
// its area. Edits are admitted and broadcast only for such chunks.
func (a *area) holds(p voxel.ChunkPos) bool {
	if !a.covers(p) {
		return false
	}
	_, un := a.unsent[p]
	return !un
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
	clear(a.unsent)
	a.pending = a.pending[:0]
	a.subscribed = false
	return left
}
