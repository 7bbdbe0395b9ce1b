package voxel

import (
	"errors"
	"fmt"
	"sync"
)

// Refusals of an edit, shown to the player as they are (wrapped with
// details where there are any). Every world — the solo authority, the
// cluster, the store — refuses with these, so a player reads the same
// sentence whichever server answers.
var (
	ErrBadIndex = errors.New("block index out of range")
	ErrBadBlock = errors.New("unknown block")
	ErrLoading  = errors.New("that chunk is not loaded on the server yet; try again in a moment")
	ErrBusy     = errors.New("the server is busy saving edits; try again in a moment")
	ErrClosed   = errors.New("the server is shutting down")
	ErrNotSaved = errors.New("the server could not save that edit") // wraps the store's error
)

// CheckIndex reports an index outside a chunk. It is Check for callers
// that judge the block elsewhere (the wire checks block ids against its
// own limits).
func CheckIndex(i uint16) error {
	if int(i) >= ChunkVolume {
		return fmt.Errorf("%w: %d is not in 0..%d", ErrBadIndex, i, ChunkVolume-1)
	}
	return nil
}

// Check reports an edit no world can apply: an index outside the chunk
// or a block id past the table.
func (e BlockEdit) Check() error {
	if err := CheckIndex(e.Index); err != nil {
		return err
	}
	if !e.Block.Valid() {
		return fmt.Errorf("%w %d: valid blocks are 0..%d", ErrBadBlock, e.Block, NumBlocks-1)
	}
	return nil
}

// Committed is one finished edit handed back to the tick: err is nil,
// ErrAlreadyApplied or why it failed.
type Committed struct {
	Tag  uint64
	Edit BlockEdit
	Err  error
}

// Commits is the hand-back of finished edits from the goroutines that
// commit them to the tick that answers the players. Two slices swap on
// each Drain, so a steady tick allocates nothing.
type Commits struct {
	mu    sync.Mutex
	done  []Committed
	taken []Committed // Drain's: the last batch, reused
}

// Add hands back finished edits.
func (q *Commits) Add(cs ...Committed) {
	q.mu.Lock()
	q.done = append(q.done, cs...)
	q.mu.Unlock()
}

// Drain calls done, in the order they were added, for every edit added
// since the last Drain. Only one goroutine may drain.
func (q *Commits) Drain(done func(tag uint64, e BlockEdit, err error)) {
	q.mu.Lock()
	q.taken, q.done = q.done, q.taken[:0]
	q.mu.Unlock()
	for _, c := range q.taken {
		done(c.Tag, c.Edit, c.Err)
	}
	clear(q.taken) // drop the errors' references
}
