package cluster

import (
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

type bucketOnly struct{ jetstream.KeyValue }

func (bucketOnly) Bucket() string { return "test" }

// entry is one watched chunk value.
type entry struct {
	jetstream.KeyValueEntry
	key string
	val []byte
	rev uint64
}

func (e entry) Key() string                     { return e.key }
func (e entry) Value() []byte                   { return e.val }
func (e entry) Revision() uint64                { return e.rev }
func (e entry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }
func (e entry) Created() time.Time              { return time.Time{} }
func (e entry) Delta() uint64                   { return 0 }
func (e entry) Bucket() string                  { return "test" }

// A forwarded edit's answer can come after the watch has shown its
// revision and a newer one of the same block. What the server's players
// are shown must end at the stored block: the late answer is an ack, not
// a broadcast of the older block (it made a handover's driver and its
// observer keep stone where sand was stored).
func TestALateAnswerDoesNotUndoWhatTheWatchShowedSince(t *testing.T) {
	w := newWorld(nil, bucketOnly{}, newDirectory(1, time.Second, time.Now), 1, slog.New(slog.DiscardHandler), WorldOptions{})
	pos := voxel.ChunkPos{X: 0, Y: 1, Z: 0}
	w.watched[RegionOf(pos)] = &watch{r: RegionOf(pos), ready: true, chunks: map[voxel.ChunkPos]known{}}
	stone := voxel.BlockEdit{Pos: pos, Index: 7, Block: voxel.Stone}
	sand := voxel.BlockEdit{Pos: pos, Index: 7, Block: voxel.Sand}

	value := chunkValue{pos: pos}
	put := func(e voxel.BlockEdit, seq uint32, rev uint64) {
		var err error
		value, _, err = value.with(e, 42, seq)
		require.NoError(t, err)
		b, err := value.encode(wire.NewEncoder())
		require.NoError(t, err)
		w.onEntry(entry{key: chunkKey(pos), val: b, rev: rev})
	}
	put(stone, 1, 9) // the owner stored the forwarded stone ...
	put(sand, 2, 10) // ... and the player's next edit, sand, and the watch showed both
	w.settle(request{tag: 5, e: stone}, 9, nil)

	shown := voxel.Overlay(nil)
	answered := false
	w.CommittedEdits(func(tag uint64, e voxel.BlockEdit, err error) {
		if tag == 5 {
			answered = true
			assert.ErrorIs(t, err, voxel.ErrAlreadyApplied, "answered, not broadcast again")
		}
		if err == nil {
			shown = shown.With(e.Index, e.Block)
		}
	})
	assert.True(t, answered)
	b, _ := shown.Get(7)
	assert.Equal(t, voxel.Sand, b, "the players are shown what is stored")

	// One the watch showed with nothing over it is answered as usual.
	w.settle(request{tag: 7, e: sand}, 10, nil)
	var errs []error
	w.CommittedEdits(func(_ uint64, _ voxel.BlockEdit, err error) { errs = append(errs, err) })
	assert.Equal(t, []error{nil}, errs)

	// An answer ahead of the watch waits for it (parked), and the watch
	// hands it back in revision order.
	w.settle(request{tag: 6, e: stone}, 11, nil)
	w.CommittedEdits(func(uint64, voxel.BlockEdit, error) { t.Fatal("answered before the watch showed it") })
	put(stone, 3, 11)
	var tags []uint64
	w.CommittedEdits(func(tag uint64, _ voxel.BlockEdit, err error) {
		assert.NoError(t, err)
		tags = append(tags, tag)
	})
	assert.Equal(t, []uint64{6}, tags)
}

// A forwarded edit is worked on only while its sender waits for the
// answer: copies of one edit resent while the store was slow must not
// hold the region's other edits behind them (the owner used to retry
// each for CommitFor, 10 s, against the sender's 3 s).
func TestAForwardedEditIsDroppedOnceItsSenderStoppedWaiting(t *testing.T) {
	w := newWorld(nil, bucketOnly{}, newDirectory(1, time.Second, time.Now), 1, slog.New(slog.DiscardHandler), WorldOptions{})
	e := voxel.BlockEdit{Pos: voxel.ChunkPos{X: 3, Y: 1, Z: 3}, Index: 7, Block: voxel.Stone}
	reply := func(uint64, error) {}

	ps := w.commitChunk([]request{{e: e, reply: reply, until: time.Now().Add(-time.Millisecond)}})
	assert.ErrorIs(t, ps[0].err, errSenderGone, "the sender gave up: not worked on")

	// While the sender waits it is judged as before: nobody owns the
	// region, so the sender is told to look again.
	ps = w.commitChunk([]request{{e: e, reply: reply, until: time.Now().Add(time.Minute)}})
	assert.ErrorIs(t, ps[0].err, errNotOwner)
}

// A region the players' areas leave stays watched, with its values, for
// watchLinger: one entered again meanwhile is ready at once (no new
// watch, no catch-up); after it, the region is dropped.
func TestALeftRegionLingersWatchedThenIsDropped(t *testing.T) {
	w := newWorld(nil, bucketOnly{}, newDirectory(1, time.Second, time.Now), 1, slog.New(slog.DiscardHandler), WorldOptions{})
	r := Region{2, -1}
	now := time.Unix(1000, 0)
	w.want[r] = true
	want, fresh := w.reconcile(now)
	require.True(t, fresh, "entered: a catch-up is due")
	require.True(t, want[r])
	w.watched[r].ready = true // caught up

	delete(w.want, r) // the areas left it
	want, fresh = w.reconcile(now.Add(time.Second))
	assert.False(t, fresh)
	assert.True(t, want[r], "still in the watch's filters")
	require.NotNil(t, w.watched[r])
	assert.True(t, w.watched[r].ready, "its values kept")

	w.want[r] = true // entered again within the linger: ready, nothing to catch up
	_, fresh = w.reconcile(now.Add(watchLinger))
	assert.False(t, fresh)
	assert.True(t, w.watched[r].ready)

	delete(w.want, r)
	left := now.Add(watchLinger + time.Second)
	want, _ = w.reconcile(left)
	assert.True(t, want[r])
	want, _ = w.reconcile(left.Add(watchLinger - time.Millisecond))
	assert.True(t, want[r], "the linger runs from this leaving, not the first")
	want, _ = w.reconcile(left.Add(watchLinger))
	assert.False(t, want[r], "dropped after the linger")
	assert.Nil(t, w.watched[r])

	// Entered once more: loading again, a catch-up due.
	w.want[r] = true
	_, fresh = w.reconcile(left.Add(2 * watchLinger))
	assert.True(t, fresh)
	assert.False(t, w.watched[r].ready)
}

func TestCovers(t *testing.T) {
	a, b := Region{0, 0}, Region{1, 0}
	assert.True(t, covers(map[Region]bool{a: true, b: true}, map[Region]bool{a: true}))
	assert.False(t, covers(map[Region]bool{a: true}, map[Region]bool{a: true, b: true}))
	assert.True(t, covers(nil, nil))
}
