package bots

import (
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// area is what a bot holds of its subscription: the server's cylinder
// around centre (implicit: a membership test) and the delivered chunks in
// it. A move costs the chunks that left, as on the server: the bots share
// the machine.
type area struct {
	centre voxel.ChunkPos
	radius int32
	size   int                         // chunks in the cylinder
	have   map[voxel.ChunkPos]struct{} // delivered, all inside the cylinder
	left   []voxel.ChunkPos            // move scratch
}

func newArea(centre voxel.ChunkPos, radius int32) *area {
	return &area{centre: centre, radius: radius, size: len(plan.Cylinder(voxel.ChunkPos{}, radius, nil)),
		have: map[voxel.ChunkPos]struct{}{}}
}

// move re-centres the area on c, forgetting the chunks that left it (the
// client evicts those itself).
func (a *area) move(c voxel.ChunkPos) {
	a.left = plan.Outside(a.centre, a.radius, c, a.radius, a.left[:0])
	for _, p := range a.left {
		delete(a.have, p)
	}
	a.centre = c
}

// got records a delivered chunk; one outside the area (sent before a move
// the server had not seen yet) or sent twice changes nothing.
func (a *area) got(p voxel.ChunkPos) {
	if plan.InCylinder(a.centre, a.radius, p) {
		a.have[p] = struct{}{}
	}
}

// holds reports whether chunk p was delivered and is still in the area.
func (a *area) holds(p voxel.ChunkPos) bool {
	_, ok := a.have[p]
	return ok
}

// complete reports whether every chunk of the area was delivered.
func (a *area) complete() bool { return len(a.have) == a.size }

// forget drops every delivered chunk: a new server sends the area again.
func (a *area) forget() { clear(a.have) }
