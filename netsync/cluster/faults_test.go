package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
)

// failoverWithin is the acceptance bound: a player whose server dies is on
// another one within it.
const failoverWithin = 3 * time.Second

func TestKilledServersPlayersMoveOnAndNoAckedEditIsLost(t *testing.T) {
	nc := natstest.Start(t, 3)
	a, b := startServer(t, nc, 0), startServer(t, nc, 1)
	f, err := netsync.NewFailover(a.clientConfig(),
		[]string{a.Addr().String(), b.Addr().String()}, []string{a.Fingerprint(), b.Fingerprint()}, 0)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := f.Dial(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	p := newPlayer(t, c)
	p.until("home", func() bool { _, ok := p.held[home]; return ok })
	want := map[uint16]voxel.Block{}
	for i := range uint16(5) {
		_, err := c.RequestEdit(home, i, voxel.Stone)
		require.NoError(t, err)
		want[i] = voxel.Stone
	}
	p.until("the first acks", func() bool { return len(p.acked) == 5 })
	// Three more, and the server dies under them: some may be stored and
	// unacknowledged, some not even sent on.
	for i := uint16(5); i < 8; i++ {
		_, err := c.RequestEdit(home, i, voxel.Stone)
		require.NoError(t, err)
		want[i] = voxel.Stone
	}
	killed := time.Now()
	a.stop(t, true)
	select {
	case <-c.Done():
	case <-time.After(deadline):
		t.Fatal("the client never noticed its server died")
	}
	c2, err := f.Dial(ctx)
	require.NoError(t, err)
	moved := time.Since(killed)
	t.Cleanup(func() { _ = c2.Close() })
	require.Less(t, moved, failoverWithin, "on another server within %v", failoverWithin)
	t.Logf("on the other server %v after the kill", moved.Round(time.Millisecond))

	p2 := newPlayer(t, c2)
	// The identity counts answers as they arrive, before the player has
	// handled the broadcasts ahead of them: wait for both.
	p2.until("home again with every edit, and every edit answered", func() bool {
		return len(p2.held[home]) == len(want) && f.Identity().Unanswered() == 0
	})
	require.Empty(t, p2.refused)
	got := map[uint16]voxel.Block{}
	for _, e := range p2.held[home] {
		got[e.Index] = e.Block
	}
	require.Equal(t, want, got, "every edit, acknowledged before the kill or retried after it, is in the world")
}

func TestRetriedEditIsAppliedOnce(t *testing.T) {
	nc := natstest.Start(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	join := func(via int) *cluster.World {
		n, err := cluster.Join(ctx, cluster.Options{URLs: nc.URLs(via), Seed: seed, Logger: quietLog()})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, n.Close()) })
		w := n.World()
		w.UnionChanged([]voxel.ChunkPos{home}, nil)
		return w
	}
	wa, wb := join(0), join(1)
	commit := func(w *cluster.World, player uint64, seq uint32, b voxel.Block, want error) {
		t.Helper()
		tag := uint64(player)<<32 | uint64(seq)
		require.Eventually(t, func() bool {
			return w.SubmitEditOnce(tag, player, seq, voxel.BlockEdit{Pos: home, Index: 3, Block: b}) == nil
		},
			deadline, 5*time.Millisecond, "region loaded")
		done := false
		require.Eventually(t, func() bool {
			w.CommittedEdits(func(got uint64, _ voxel.BlockEdit, err error) {
				if got == tag {
					require.ErrorIs(t, err, want)
					done = true
				}
			})
			return done
		}, deadline, 5*time.Millisecond, "committed")
	}
	commit(wa, 5, 1, voxel.Stone, nil) // player 5 through server a: stored, say its ack was lost
	commit(wb, 6, 1, voxel.Air, nil)   // another player changes the block
	// Player 5 retries through server b: acknowledged as done, and handed
	// back as a retry, so the server broadcasts no stale block.
	commit(wb, 5, 1, voxel.Stone, voxel.ErrAlreadyApplied)
	require.Eventually(t, func() bool {
		o, ok := wa.Chunk(home)
		b, _ := o.Get(3)
		return ok && len(o) == 1 && b == voxel.Air
	}, deadline, 5*time.Millisecond, "the retry is acknowledged but not applied again over the later edit")
	o, _ := wb.Chunk(home)
	require.Equal(t, voxel.Overlay{{Index: 3, Block: voxel.Air}}, o)
}

func TestNATSNodeDownEditsGoOnAndItCatchesUp(t *testing.T) {
	nc := natstest.Start(t, 3)
	a := startServer(t, nc, 0) // connected through node 0, the one that goes
	p := join(t, a.clientConfig())
	p.until("home", func() bool { _, ok := p.held[home]; return ok })
	edit := func(from, to uint16) {
		t.Helper()
		for i := from; i < to; i++ {
			_, err := p.c.RequestEdit(home, i, voxel.Stone)
			require.NoError(t, err)
		}
		p.until("acks", func() bool { return len(p.acked) == int(to) })
		require.Empty(t, p.refused)
	}
	edit(0, 5)
	nc.Stop(0)
	edit(5, 10) // acked with two of three nodes (quorum), through another
	stream := "KV_citydrive-77"
	leader, ok := nc.LastSeq(1, stream)
	require.True(t, ok)
	nc.Restart(0)
	edit(10, 12)
	last, _ := nc.LastSeq(1, stream)
	require.Greater(t, last, leader)
	// At least to last: the servers' heartbeats go on writing the same
	// stream, so it may be past last by the time it is read.
	require.Eventually(t, func() bool {
		got, ok := nc.LastSeq(0, stream)
		return ok && got >= last
	}, deadline, 10*time.Millisecond, "the restarted node catches up")
	// A player joining later sees every edit.
	pc := join(t, a.clientConfig())
	pc.until("all twelve edits", func() bool { return len(pc.held[home]) == 12 })
}
