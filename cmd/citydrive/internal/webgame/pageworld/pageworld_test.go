package pageworld

import (
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// memStore is an EditStore in memory; gate, if set, holds each Save
// until the test lets it go; fail makes Save fail.
type memStore struct {
	mu    sync.Mutex
	edits map[[2]any]voxel.BlockEdit
	fail  error
	gate  chan struct{}
}

func newMemStore() *memStore { return &memStore{edits: map[[2]any]voxel.BlockEdit{}} }

func (m *memStore) Load(max int, fn func(voxel.BlockEdit)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.edits) > max {
		return errors.New("too many")
	}
	for _, e := range m.edits {
		fn(e)
	}
	return nil
}

func (m *memStore) Save(edits []voxel.BlockEdit) error {
	if m.gate != nil {
		<-m.gate
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	for _, e := range edits {
		m.edits[[2]any{e.Pos, e.Index}] = e
	}
	return nil
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// drain waits for n committed edits.
func drain(t *testing.T, w *World, n int) []voxel.Committed {
	t.Helper()
	var got []voxel.Committed
	for {
		w.CommittedEdits(func(tag uint64, e voxel.BlockEdit, err error) {
			got = append(got, voxel.Committed{Tag: tag, Edit: e, Err: err})
		})
		if len(got) >= n {
			return got
		}
		select {
		case <-w.committed:
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d edits committed", len(got), n)
		}
	}
}

func open(t *testing.T, st EditStore) *World {
	t.Helper()
	w, err := Open(st, quiet())
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// An edit is visible and handed back only once saved, and a world opened
// again on the store holds it: the page's edits survive a reload.
func TestEditsAreSavedBeforeTheyAreSeenAndSurviveReopening(t *testing.T) {
	st := newMemStore()
	st.gate = make(chan struct{})
	w := open(t, st)
	p, idx := voxel.ChunkOf(10, 40, -3)
	e := voxel.BlockEdit{Pos: p, Index: uint16(idx), Block: voxel.Stone}
	require.NoError(t, w.SubmitEdit(7, e))
	o, ready := w.Chunk(p)
	assert.True(t, ready)
	assert.Empty(t, o, "not visible before it is saved")
	w.CommittedEdits(func(uint64, voxel.BlockEdit, error) { t.Fatal("handed back before it is saved") })
	close(st.gate)
	got := drain(t, w, 1)
	assert.Equal(t, []voxel.Committed{{Tag: 7, Edit: e}}, got)
	b, ok := w.Block(10, 40, -3)
	assert.True(t, ok)
	assert.Equal(t, voxel.Stone, b)
	require.NoError(t, w.Close())

	again := open(t, st)
	b, ok = again.Block(10, 40, -3)
	assert.True(t, ok, "the edit survived")
	assert.Equal(t, voxel.Stone, b)
	assert.Equal(t, 1, again.Edited())
	_, ok = again.Block(11, 40, -3)
	assert.False(t, ok)
}

// A failed save hands the edit back with why, and it is not applied.
func TestAFailedSaveIsRefused(t *testing.T) {
	st := newMemStore()
	st.fail = errors.New("quota exceeded")
	w := open(t, st)
	p, idx := voxel.ChunkOf(0, 0, 0)
	require.NoError(t, w.SubmitEdit(1, voxel.BlockEdit{Pos: p, Index: uint16(idx), Block: voxel.Stone}))
	got := drain(t, w, 1)
	require.Error(t, got[0].Err)
	assert.Contains(t, got[0].Err.Error(), "quota exceeded")
	_, ok := w.Block(0, 0, 0)
	assert.False(t, ok)
	assert.Zero(t, w.Edited())
}

// Edits no world can apply are refused at once; a full queue is busy.
func TestBadEditsAndAFullQueueAreRefused(t *testing.T) {
	st := newMemStore()
	st.gate = make(chan struct{})
	w := open(t, st)
	assert.ErrorIs(t, w.SubmitEdit(1, voxel.BlockEdit{Index: voxel.ChunkVolume}), voxel.ErrBadIndex)
	var busy error
	for i := range commitQueue + commitBatch + 1 { // the committer holds a batch, waiting at the gate
		if err := w.SubmitEdit(uint64(i), voxel.BlockEdit{Index: uint16(i), Block: voxel.Stone}); err != nil {
			busy = err
			break
		}
	}
	assert.ErrorIs(t, busy, voxel.ErrBusy)
	close(st.gate)
}

// A store holding more than MaxEdits is an error, not a page out of memory.
func TestTooManyStoredEditsAreAnError(t *testing.T) {
	_, err := Open(tooMany{}, quiet())
	assert.ErrorContains(t, err, "reading this browser's edits")
}

type tooMany struct{ EditStore }

func (tooMany) Load(max int, _ func(voxel.BlockEdit)) error {
	return errors.New("more than the limit")
}
