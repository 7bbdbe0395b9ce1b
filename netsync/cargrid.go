package netsync

import (
	"cmp"
	"slices"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// carCellShift sizes the car grid's cells: 16×16 chunk columns (512 m),
// so a radius-8 area overlaps at most 2×2 cells.
const carCellShift = 4

// carGrid indexes one tick's cars by column cell, so relaying looks at the
// cars in the cells a receiver's cylinder overlaps: O(players × cars
// nearby) per tick, not O(players²). It is rebuilt each tick into reused
// storage (a sorted slice, binary-searched), so it allocates nothing once
// warm.
type carGrid struct {
	cars []gridCar // sorted by cell, then player
}

type gridCar struct {
	cell  uint64
	chunk voxel.ChunkPos
	snap  wire.CarSnapshot
}

// cellKey packs a cell's coordinates so that one X column of cells is one
// contiguous, Z-ordered run of keys (the sign bits flipped, so signed order
// is unsigned order).
func cellKey(cx, cz int32) uint64 {
	const flip = 1 << 31
	return uint64(uint32(cx)^flip)<<32 | uint64(uint32(cz)^flip)
}

// reset empties the grid for a new tick.
func (g *carGrid) reset() { g.cars = g.cars[:0] }

// add puts one car in the grid; call build once every car is in.
func (g *carGrid) add(c wire.CarSnapshot) {
	ch := voxel.ChunkAt(c.Position())
	g.cars = append(g.cars, gridCar{cell: cellKey(ch.X>>carCellShift, ch.Z>>carCellShift), chunk: ch, snap: c})
}

// build sorts the grid.
func (g *carGrid) build() {
	slices.SortFunc(g.cars, func(a, b gridCar) int {
		return cmp.Or(cmp.Compare(a.cell, b.cell), cmp.Compare(a.snap.Player, b.snap.Player))
	})
}

// appendCovered appends every car but skip's whose chunk a covers.
func (g *carGrid) appendCovered(a *area, skip uint32, dst []wire.CarSnapshot) []wire.CarSnapshot {
	return g.appendIn(a, skip, true, dst)
}

// appendIn appends the cars whose chunk a covers, leaving out skip's
// when skipping.
func (g *carGrid) appendIn(a *area, skip uint32, skipping bool, dst []wire.CarSnapshot) []wire.CarSnapshot {
	if !a.subscribed || len(g.cars) == 0 {
		return dst
	}
	r := a.radius
	x0, x1 := (a.centre.X-r)>>carCellShift, (a.centre.X+r)>>carCellShift
	z0, z1 := (a.centre.Z-r)>>carCellShift, (a.centre.Z+r)>>carCellShift
	for cx := x0; cx <= x1; cx++ {
		lo, hi := cellKey(cx, z0), cellKey(cx, z1)
		i, _ := slices.BinarySearchFunc(g.cars, lo, func(c gridCar, k uint64) int { return cmp.Compare(c.cell, k) })
		for ; i < len(g.cars) && g.cars[i].cell <= hi; i++ {
			c := &g.cars[i]
			if (!skipping || c.snap.Player != skip) && a.covers(c.chunk) {
				dst = append(dst, c.snap)
			}
		}
	}
	return dst
}
