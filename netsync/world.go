package netsync

import (
	"sync"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// World is what the server needs from the voxel world; it speaks only
// package voxel's types, so the server's voxel world (voxel/authority)
// implements it without importing netsync. The server calls it only from
// its tick goroutine, and every call must return without blocking on disk
// or workers.
type World interface {
	// UnionChanged reports, once per tick and in O(changes), which chunks
	// entered the union of all clients' areas (near-first for the client
	// that asked for them) and which left it since the last call. Each
	// chunk is listed once and only for a real change (one that left and
	// came back within the tick is not listed). The slices are only valid
	// during the call.
	UnionChanged(added, removed []voxel.ChunkPos)
	// Chunk reports whether pos is ready to be delivered and, if so, its
	// committed overlay (empty: never edited, the client generates it).
	Chunk(pos voxel.ChunkPos) (o voxel.Overlay, ready bool)
	// SubmitEdit validates e at once (a non-nil error is a rejection whose
	// text is shown to the player) and queues its commit. tag is the
	// server's, handed back by CommittedEdits.
	SubmitEdit(tag uint64, e voxel.BlockEdit) error
	// CommittedEdits calls done, in commit order, for every submitted edit
	// whose commit has finished (err set if it failed). Only then does the
	// server broadcast and acknowledge the edit, so nothing is acknowledged
	// before it is on disk. A world shared with other servers also hands
	// back the edits they committed, with tag RemoteEdit: those are
	// broadcast to this server's players and acknowledged to nobody.
	CommittedEdits(done func(tag uint64, e voxel.BlockEdit, err error))
}

// RemoteEdit is the tag of an edit committed through another server (a
// shared world's CommittedEdits): no player of this server asked for it.
// Player ids start at 1, so no local edit carries it.
const RemoteEdit uint64 = 0

// OnceWorld is a World that applies a retried edit only once: the client's
// player key (stable across reconnects and servers) and sequence number
// name the request. The server uses SubmitEditOnce when its World has it.
// A retry of a request applied before comes back from CommittedEdits with
// an error that is voxel.ErrAlreadyApplied: the server acknowledges it and
// broadcasts nothing.
type OnceWorld interface {
	World
	SubmitEditOnce(tag uint64, player uint64, seq uint32, e voxel.BlockEdit) error
}

// CarExchange carries cars between this server and the others sharing its
// world (netsync/cluster). Both methods are called from the tick goroutine
// and must not block.
type CarExchange interface {
	// Publish hands over this tick's accepted snapshots of this server's
	// cars (valid only during the call).
	Publish(cars []wire.CarSnapshot)
	// Remote appends the latest snapshot of every car of other servers
	// near this server's players.
	Remote(dst []wire.CarSnapshot) []wire.CarSnapshot
}

// MemoryWorld is a World kept in memory: every chunk is ready at once and
// an edit is committed the moment it is submitted. It stands in for the
// voxel world in tests and tools.
type MemoryWorld struct {
	mu       sync.Mutex
	overlays map[voxel.ChunkPos]voxel.Overlay
	done     voxel.Commits
}

// NewMemoryWorld returns an empty MemoryWorld.
func NewMemoryWorld() *MemoryWorld {
	return &MemoryWorld{overlays: map[voxel.ChunkPos]voxel.Overlay{}}
}

// UnionChanged implements World; a memory world holds every chunk anyway.
func (w *MemoryWorld) UnionChanged(added, removed []voxel.ChunkPos) {}

// Chunk implements World.
func (w *MemoryWorld) Chunk(pos voxel.ChunkPos) (voxel.Overlay, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.overlays[pos], true
}

// Apply sets a block directly, as if an edit had been committed (tests
// seed a world with it). Any block id is accepted: the memory world has
// no block table.
func (w *MemoryWorld) Apply(e voxel.BlockEdit) error {
	if err := voxel.CheckIndex(e.Index); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.overlays[e.Pos] = w.overlays[e.Pos].With(e.Index, e.Block)
	return nil
}

// SubmitEdit implements World: it commits at once.
func (w *MemoryWorld) SubmitEdit(tag uint64, e voxel.BlockEdit) error {
	if err := w.Apply(e); err != nil {
		return err
	}
	w.done.Add(voxel.Committed{Tag: tag, Edit: e})
	return nil
}

// CommittedEdits implements World.
func (w *MemoryWorld) CommittedEdits(done func(tag uint64, e voxel.BlockEdit, err error)) {
	w.done.Drain(done)
}
