package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
)

// outcome is one edit's answer, in the order the world gave them.
type outcome struct {
	tag uint64
	err error
}

// outcomes collects w's answers to its own edits, whatever their tag
// (other servers' edits it shows are left out), until every tag in
// want has one (the test's goroutine is w's only reader, so none is taken
// by another).
func outcomes(t *testing.T, w *cluster.World, want ...uint64) []outcome {
	t.Helper()
	left := map[uint64]bool{}
	for _, tag := range want {
		left[tag] = true
	}
	var got []outcome
	waitFor(t, "every edit answered", 2*deadline, func() bool {
		w.CommittedEdits(func(tag uint64, _ voxel.BlockEdit, err error) {
			if tag != netsync.RemoteEdit {
				delete(left, tag)
				got = append(got, outcome{tag, err})
			}
		})
		return len(left) == 0
	})
	return got
}

// submit queues one edit of player's through w once its region is ready;
// its tag is player<<32 | seq.
func submit(t *testing.T, w *cluster.World, player uint64, seq uint32, e voxel.BlockEdit) uint64 {
	t.Helper()
	tag := player<<32 | uint64(seq)
	waitFor(t, "the region loads", deadline, func() bool { return w.SubmitEditOnce(tag, player, seq, e) == nil })
	return tag
}

// joinWith joins a node with world options opt; pause, if set, makes it
// pausable.
func joinWith(t *testing.T, nc *natstest.Cluster, addr string, opt cluster.WorldOptions, pause **cluster.Pause) *cluster.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := cluster.Options{URLs: nc.URLs(0), Seed: seed, Replicas: 1, Logger: quietLog(), Advertise: addr, World: opt}
	if pause != nil {
		*pause = cluster.WithPause(&o)
	}
	n, err := cluster.Join(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.Close()) })
	if pause != nil {
		t.Cleanup((*pause).Thaw) // before Close (cleanups run last first)
	}
	return n
}

// An edit forwarded to an owner that does not answer waits for it, but
// holds up nothing else: the sender's edits of a region it owns itself
// commit meanwhile. With regions hashed over a few committers, the
// forward held its committer's other regions for the forward's timeout
// (3 s), again and again; in the 1,000-bot run the owners' committers
// waited on each other's forwards that way and most edits were refused
// busy.
func TestAForwardWaitingOnItsOwnerHoldsUpNoOtherRegion(t *testing.T) {
	nc := natstest.Start(t, 1)
	var pause *cluster.Pause
	a := joinWith(t, nc, "a:1", cluster.WorldOptions{}, &pause)
	// One write at a time: the forward must not need a write slot.
	b := joinWith(t, nc, "b:1", cluster.WorldOptions{Committers: 1}, nil)
	far := voxel.ChunkPos{X: cluster.RegionChunks, Y: 1, Z: 0}
	r1, r2 := cluster.RegionOf(home), cluster.RegionOf(far)
	require.NotEqual(t, r1, r2)
	for _, n := range []*cluster.Node{a, b} {
		n.World().UnionChanged([]voxel.ChunkPos{home, far}, nil)
	}
	// a takes r1 and b takes r2 with their first edits.
	outcomes(t, a.World(), submit(t, a.World(), 1, 1, voxel.BlockEdit{Pos: home, Index: 0, Block: voxel.Stone}))
	outcomes(t, b.World(), submit(t, b.World(), 2, 1, voxel.BlockEdit{Pos: far, Index: 0, Block: voxel.Stone}))
	waitFor(t, "b sees a own r1", deadline, func() bool { return owner(b, r1) == a.Slot() })
	require.Equal(t, b.Slot(), owner(b, r2))

	// a stops at the forwarded edit's write: b's forward gets no answer.
	pause.Freeze()
	fwd := submit(t, b.World(), 2, 2, voxel.BlockEdit{Pos: home, Index: 1, Block: voxel.Sand})
	select {
	case <-pause.Writing():
	case <-time.After(deadline):
		t.Fatal("a never reached the forwarded edit's write")
	}
	own := submit(t, b.World(), 2, 3, voxel.BlockEdit{Pos: far, Index: 1, Block: voxel.Sand})
	got := outcomes(t, b.World(), own)
	require.Equal(t, []outcome{{own, nil}}, got, "b's own region's edit is stored while the forward waits (and first)")

	pause.Thaw()
	got = outcomes(t, b.World(), fwd)
	require.NoError(t, got[0].err, "the forwarded edit goes through (a, or b once a lapsed)")
	for pos, want := range map[voxel.ChunkPos]voxel.Block{home: voxel.Sand, far: voxel.Sand} {
		waitFor(t, "b holds the edits", deadline, func() bool { return block(b.World(), pos, 1) == want })
	}
}

// Edits of one chunk that queue while its write is in flight go out as
// one write, each applied once and each acknowledged: the chunk writes
// per second stay what the store takes however fast edits come.
func TestEditsQueuedForOneChunkAreOneWrite(t *testing.T) {
	nc := natstest.Start(t, 1)
	var pause *cluster.Pause
	a := joinWith(t, nc, "a:1", cluster.WorldOptions{}, &pause)
	r := cluster.RegionOf(home)
	rec := recordCommits(t, nc.URL(0), r)
	a.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	outcomes(t, a.World(), submit(t, a.World(), 1, 1, voxel.BlockEdit{Pos: home, Index: 0, Block: voxel.Stone}))

	pause.Freeze()
	tags := []uint64{submit(t, a.World(), 1, 2, voxel.BlockEdit{Pos: home, Index: 1, Block: voxel.Stone})}
	select {
	case <-pause.Writing(): // its write is in flight (stopped at the gate)
	case <-time.After(deadline):
		t.Fatal("a never reached the write")
	}
	const queued = 8
	want := voxel.Overlay{{Index: 0, Block: voxel.Stone}, {Index: 1, Block: voxel.Stone}}
	for i := range uint32(queued) {
		idx := uint16(2 + i)
		tags = append(tags, submit(t, a.World(), 1, 3+i, voxel.BlockEdit{Pos: home, Index: idx, Block: voxel.Sand}))
		want = append(want, voxel.Edit{Index: idx, Block: voxel.Sand})
	}
	// A resend of one already queued: applied once, answered as such.
	resent := uint64(2)<<32 | 3
	require.NoError(t, a.World().SubmitEditOnce(resent, 1, 3, voxel.BlockEdit{Pos: home, Index: 2, Block: voxel.Sand}))
	pause.Thaw()

	got := outcomes(t, a.World(), append(tags, resent)...)
	for _, o := range got {
		if o.tag == resent {
			assert.ErrorIs(t, o.err, voxel.ErrAlreadyApplied, "the resend")
		} else {
			assert.NoError(t, o.err, "edit %x", o.tag)
		}
	}
	waitFor(t, "a holds every edit", deadline, func() bool {
		o, _ := a.World().Chunk(home)
		return equalOverlay(o, want)
	})
	rec.requireOneCommitter(a.Slot())
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Len(t, rec.writes, 3, "the first edit, the one in flight, then the %d queued behind it in one write:\n%v", queued, rec.writes)
}
