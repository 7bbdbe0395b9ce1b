// Package pageworld is the voxel world of the browser's solo server (the
// in-process netsync server the page runs, as the desktop's solo play runs
// one on loopback): its edits are kept by an EditStore (the page's
// IndexedDB; a memory one in tests), all read once at Open. Like the
// desktop's voxel/authority it acknowledges nothing before it is stored:
// a commit goroutine saves the queued edits (one store transaction a
// batch) and only then are they visible and handed back to the tick.
package pageworld

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"citydrive/netsync"
	"citydrive/voxel"
)

const (
	// MaxEdits bounds the edited blocks a page keeps (and reads at Open:
	// 1 Mi edits are about 16 MiB of overlays).
	MaxEdits = 1 << 20
	// commitQueue bounds edits waiting for their save; full, an edit is
	// refused as busy.
	commitQueue = 256
	// commitBatch bounds the edits saved in one store transaction.
	commitBatch = 64
)

// EditStore keeps the world's edits: each block edited, its latest block.
type EditStore interface {
	// Load calls fn for every stored edit; more than max is an error.
	Load(max int, fn func(voxel.BlockEdit)) error
	// Save stores edits (later ones of a block replace earlier ones) and
	// returns once they are stored, all or none.
	Save(edits []voxel.BlockEdit) error
}

// ErrFull refuses an edit of a new block once the page keeps MaxEdits.
var ErrFull = fmt.Errorf("this browser keeps at most %d edited blocks of a world", MaxEdits)

// World is a netsync.World over an EditStore.
type World struct {
	st  EditStore
	log *slog.Logger

	mu       sync.RWMutex
	overlays map[voxel.ChunkPos]voxel.Overlay
	edited   int // distinct blocks in overlays, and submitted new ones (mu)

	commits chan commit
	done    voxel.Commits
	// committed is signalled after each batch is handed back (tests wait
	// on it; the server's tick polls CommittedEdits instead).
	committed chan struct{}
	stop      chan struct{}
	wg        sync.WaitGroup
	once      sync.Once
}

type commit struct {
	tag uint64
	e   voxel.BlockEdit
	add bool // a block not edited before (counted in edited)
}

var _ netsync.World = (*World)(nil)

// Open reads every stored edit and starts the commit goroutine.
func Open(st EditStore, log *slog.Logger) (*World, error) {
	if log == nil {
		log = slog.Default()
	}
	w := &World{st: st, log: log, overlays: map[voxel.ChunkPos]voxel.Overlay{},
		commits: make(chan commit, commitQueue), stop: make(chan struct{}), committed: make(chan struct{}, 1)}
	var bad error
	err := st.Load(MaxEdits, func(e voxel.BlockEdit) {
		if err := e.Check(); err != nil {
			bad = errors.Join(bad, err)
			return
		}
		o := w.overlays[e.Pos]
		if _, ok := o.Get(e.Index); !ok {
			w.edited++
		}
		w.overlays[e.Pos] = o.With(e.Index, e.Block)
	})
	if err != nil {
		return nil, fmt.Errorf("reading this browser's edits: %w", err)
	}
	if bad != nil { // skipped, not fatal: the rest of the world is still the player's
		log.Warn("stored edits that are not valid were skipped", "err", bad)
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.committer()
	}()
	log.Info("page world open", "edited_blocks", w.edited, "chunks", len(w.overlays))
	return w, nil
}

// Edited is how many blocks the world holds edited.
func (w *World) Edited() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.edited
}

// Block is the committed block at world block x, y, z, if it was edited.
func (w *World) Block(x, y, z int64) (voxel.Block, bool) {
	p, idx := voxel.ChunkOf(x, y, z)
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.overlays[p].Get(uint16(idx))
}

// UnionChanged implements netsync.World: every chunk is in memory.
func (w *World) UnionChanged(added, removed []voxel.ChunkPos) {}

// Chunk implements netsync.World: every chunk is ready.
func (w *World) Chunk(pos voxel.ChunkPos) (voxel.Overlay, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.overlays[pos], true
}

// SubmitEdit implements netsync.World: checked now, saved by the commit
// goroutine.
func (w *World) SubmitEdit(tag uint64, e voxel.BlockEdit) error {
	if err := e.Check(); err != nil {
		return err
	}
	select {
	case <-w.stop:
		return voxel.ErrClosed
	default:
	}
	w.mu.Lock()
	_, old := w.overlays[e.Pos].Get(e.Index)
	if !old && w.edited >= MaxEdits {
		w.mu.Unlock()
		return ErrFull
	}
	select {
	case w.commits <- commit{tag: tag, e: e, add: !old}:
		if !old {
			w.edited++ // reserved now, so a burst cannot pass MaxEdits
		}
		w.mu.Unlock()
		return nil
	default:
		w.mu.Unlock()
		return voxel.ErrBusy
	}
}

// CommittedEdits implements netsync.World.
func (w *World) CommittedEdits(done func(tag uint64, e voxel.BlockEdit, err error)) {
	w.done.Drain(done)
}

func (w *World) committer() {
	batch := make([]commit, 0, commitBatch)
	edits := make([]voxel.BlockEdit, 0, commitBatch)
	for {
		select {
		case <-w.stop:
			return
		case c := <-w.commits:
			batch = append(batch[:0], c)
		}
	more:
		for len(batch) < commitBatch {
			select {
			case c := <-w.commits:
				batch = append(batch, c)
			default:
				break more
			}
		}
		edits = edits[:0]
		for _, c := range batch {
			edits = append(edits, c.e)
		}
		err := w.st.Save(edits)
		if err != nil {
			err = fmt.Errorf("your edit could not be saved in this browser: %w", err)
			w.log.Warn("saving edits", "edits", len(edits), "err", err)
		}
		done := make([]voxel.Committed, len(batch))
		w.mu.Lock()
		for i, c := range batch {
			done[i] = voxel.Committed{Tag: c.tag, Edit: c.e, Err: err}
			switch {
			case err == nil:
				o := w.overlays[c.e.Pos]
				if _, was := o.Get(c.e.Index); was && c.add {
					w.edited-- // two new edits of one block, counted twice
				}
				w.overlays[c.e.Pos] = o.With(c.e.Index, c.e.Block)
			case c.add:
				w.edited-- // its reservation
			}
		}
		w.mu.Unlock()
		w.done.Add(done...)
		select {
		case w.committed <- struct{}{}:
		default:
		}
	}
}

// Close stops the commit goroutine (a save under way finishes first).
func (w *World) Close() error {
	w.once.Do(func() { close(w.stop) })
	w.wg.Wait()
	return nil
}
