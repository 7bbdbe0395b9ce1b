package netsync

import (
	"errors"
	"slices"
	"sync"

	"citydrive/netsync/wire"
)

// ChunkPos and Edit are the wire types; the voxel package converts.
type (
	ChunkPos = wire.ChunkPos
	Edit     = wire.Edit
)

// World is what the server needs from the voxel world. The server calls it
// only from its tick goroutine, and every call must return without blocking
// on disk or workers.
type World interface {
	// Reconcile receives the union of every client's desired chunks when it
	// changes, so the world can make them resident (drain, evict, dispatch).
	// The map is owned by the server and must not be kept.
	Reconcile(desired map[ChunkPos]struct{})
	// Chunk reports whether pos is ready to be delivered and, if so, its
	// sparse edits sorted by index (nil or empty: never edited, the client
	// generates it). The slice is only read until the next call.
	Chunk(pos ChunkPos) (edits []Edit, ready bool)
	// ApplyEdit validates, applies and commits one edit by player. A
	// non-nil error is a rejection whose text is shown to the player; the
	// server acknowledges only after ApplyEdit returned nil, so an
	// implementation must have committed the edit by then.
	ApplyEdit(player uint32, pos ChunkPos, index uint16, block uint8) error
}

// MemoryWorld is a World kept in memory: every chunk is ready at once and
// edits live in a map. It stands in for the voxel world in tests and tools.
type MemoryWorld struct {
	mu       sync.Mutex
	edits    map[ChunkPos]map[uint16]uint8
	scratch  []Edit
	desired  int
	MaxBlock uint8 // largest valid block id (0 means 255)
}

// NewMemoryWorld returns an empty MemoryWorld.
func NewMemoryWorld() *MemoryWorld { return &MemoryWorld{edits: map[ChunkPos]map[uint16]uint8{}} }

// Reconcile implements World; it only records the size of the set.
func (w *MemoryWorld) Reconcile(desired map[ChunkPos]struct{}) {
	w.mu.Lock()
	w.desired = len(desired)
	w.mu.Unlock()
}

// Desired returns the size of the last desired set.
func (w *MemoryWorld) Desired() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.desired
}

// Chunk implements World.
func (w *MemoryWorld) Chunk(pos ChunkPos) ([]Edit, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.scratch = w.scratch[:0]
	for i, b := range w.edits[pos] {
		w.scratch = append(w.scratch, Edit{Index: i, Block: b})
	}
	slices.SortFunc(w.scratch, func(a, b Edit) int { return int(a.Index) - int(b.Index) })
	return w.scratch, true
}

// ApplyEdit implements World.
func (w *MemoryWorld) ApplyEdit(_ uint32, pos ChunkPos, index uint16, block uint8) error {
	if index >= wire.ChunkVolume {
		return errors.New("block index out of range")
	}
	if w.MaxBlock != 0 && block > w.MaxBlock {
		return errors.New("unknown block")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.edits[pos]
	if m == nil {
		m = map[uint16]uint8{}
		w.edits[pos] = m
	}
	m[index] = block
	return nil
}

// UnionWorld is an optional World extension for worlds whose desired set is
// large (many clients, large radii). Instead of Reconcile with the whole
// union, the server reports once per tick, in O(changes), which chunks
// entered the union of all clients' areas (near-first for the client that
// asked for them) and which left it. The same chunk never appears in both
// lists of one call; an added chunk may already be known (a drop and re-add
// within one tick) and must be treated as a set insertion. The slices are
// only valid during the call, which must not block.
type UnionWorld interface {
	World
	UnionChanged(added, removed []ChunkPos)
}

// EditCommit is one edit on its way through an AsyncEditWorld.
type EditCommit struct {
	Player uint32 // who asked
	Seq    uint32 // the client's EditRequest sequence number
	Pos    ChunkPos
	Index  uint16
	Block  uint8
	Err    error // set by the world when the commit failed
}

// AsyncEditWorld is an optional World extension that keeps disk commits off
// the tick. The server prefers it to ApplyEdit: SubmitEdit validates at once
// (a non-nil error is a rejection shown to the player) and queues the
// commit without blocking; CommittedEdits hands back, without blocking and
// in commit order, every submitted edit whose commit has finished (Err set
// if it failed). Only then does the server broadcast the edit and
// acknowledge it, so nothing is acknowledged before it is on disk.
type AsyncEditWorld interface {
	World
	SubmitEdit(e EditCommit) error
	CommittedEdits(dst []EditCommit) []EditCommit
}
