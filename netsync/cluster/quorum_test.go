package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
)

// commitFor is the tests' CommitFor: an edit NATS cannot store is refused
// after it (10 s by default; the handling is the same).
const commitFor = 2 * time.Second

// recoverWithin bounds how long after NATS is whole again every server's
// watch shows the others' edits (the TTL it waits to judge its watch
// stalled, the restart, and slack for a loaded box).
const recoverWithin = 8 * time.Second

// carSeq is the sequence of the newest snapshot of player's car p holds.
func (p *player) carSeq(player uint32) (uint32, bool) {
	for _, c := range p.c.Cars(nil) {
		if c.Player == player {
			return c.Seq, true
		}
	}
	return 0, false
}

// editUntilAcked edits (pos, idx) through p again and again, a new request
// each time the last is refused, until one is acked; it returns how long
// that took and the last refusal.
func (p *player) editUntilAcked(pos voxel.ChunkPos, idx uint16, b voxel.Block) (time.Duration, string) {
	p.t.Helper()
	start := time.Now()
	var last string
	for {
		seq, err := p.c.RequestEdit(pos, idx, b)
		require.NoError(p.t, err)
		p.until("an answer", func() bool { _, r := p.refused[seq]; return p.acked[seq] || r })
		if p.acked[seq] {
			return time.Since(start), last
		}
		last = p.refused[seq]
		require.Less(p.t, time.Since(start), deadline, "acked again within %v (last refusal %q)", deadline, last)
	}
}

// Two of three NATS nodes lost: the bucket has no quorum. Edits are refused
// with a reason the player reads, cars keep flowing on the surviving node,
// and once the nodes are back edits are acked again and every edit acked
// before, during or after is stored.
func TestTwoNATSNodesLostEditsRefusedCarsGoOnAllRecovers(t *testing.T) {
	t0 := time.Now()
	nc := natstest.Start(t, 3)
	t.Logf("start %v", time.Since(t0))
	opt := func() cluster.Options {
		return cluster.Options{URLs: nc.URLs(0), Seed: seed, Replicas: 3, Logger: quietLog(),
			World: cluster.WorldOptions{CommitFor: commitFor}}
	}
	// Both servers on node 0, the survivor.
	a, b := startServerOpt(t, opt(), nil), startServerOpt(t, opt(), nil)
	rec := recordCommits(t, nc.URL(0), cluster.RegionOf(home)) // from the stream's start
	pa, pb := join(t, a.clientConfig()), join(t, b.clientConfig())
	pa.until("home", func() bool { _, ok := pa.held[home]; return ok })
	pa.until("b's car on a", func() bool { return pa.seesCar(pb.c.Player()) })
	acked := map[uint16]bool{}
	for i := range uint16(4) {
		pa.editUntilAcked(home, i, voxel.Stone)
		acked[i] = true
	}

	t.Logf("set up %v", time.Since(t0))
	t0 = time.Now()
	nc.Stop(1)
	nc.Stop(2)
	lost := time.Now()
	t.Logf("stopping two nodes took %v", lost.Sub(t0).Round(time.Millisecond))
	before, _ := pa.carSeq(pb.c.Player())
	seq, err := pa.c.RequestEdit(home, 10, voxel.Stone)
	require.NoError(t, err)
	pa.until("the edit refused", func() bool { _, r := pa.refused[seq]; return r || pa.acked[seq] })
	require.False(t, pa.acked[seq], "no quorum: nothing can be stored, so nothing may be acked")
	reason := pa.refused[seq]
	t.Logf("refused %v after the loss: %q", time.Since(lost).Round(time.Millisecond), reason)
	require.True(t, strings.HasPrefix(reason, voxel.ErrNotSaved.Error()), "the player hears why: %q", reason)
	require.Contains(t, reason, cluster.ErrStoreDown.Error(), "and that the store is down, not a timeout's name")
	require.Less(t, time.Since(lost), commitFor+deadline/3, "refused in about CommitFor, not hanging")
	// Cars go on: the observer's view of b's car moved on during the
	// outage (a car not relayed for a second is forgotten).
	now, ok := pa.carSeq(pb.c.Player())
	require.True(t, ok, "b's car still shown on a")
	require.Greater(t, now, before, "b's car kept moving on a")
	pb.until("a's car on b", func() bool { s, ok := pb.carSeq(pa.c.Player()); return ok && s > 0 })

	t0 = time.Now()
	nc.Restart(1)
	nc.Restart(2)
	t.Logf("restarting two nodes took %v", time.Since(t0).Round(time.Millisecond))
	took, last := pa.editUntilAcked(home, 11, voxel.Stone)
	acked[11] = true
	t.Logf("edits acked again %v after the nodes returned (last refusal %q)", took.Round(time.Millisecond), last)
	// b's watch is live again: it shows a's edit soon, not once the
	// client library's consumer gives up on its idle heartbeat (the
	// leaser remakes a watch silent for a TTL; the make runs off the
	// watch goroutine and is made again if it takes a TTL). The edit
	// must be stored at all: an edit acked as its CommitFor ran out just
	// after a refence was never written, and this waited in vain.
	waitFor(t, "b's watch shows a's edit", recoverWithin, func() bool { return block(b.node.World(), home, 11) == voxel.Stone })
	t.Logf("b's watch shows it %v after the nodes returned", time.Since(t0).Round(time.Millisecond))
	pb.editUntilAcked(home, 12, voxel.Stone)
	acked[12] = true

	// Every acked edit is stored: a player joining now holds them all.
	pc := join(t, b.clientConfig())
	t.Cleanup(func() {
		if t.Failed() {
			oa, _ := a.node.World().Chunk(home)
			ob, _ := b.node.World().Chunk(home)
			t.Logf("pc holds %v; a's world %v; b's world %v", pc.held[home], oa, ob)
		}
	})
	pc.until("every acked edit", func() bool {
		for i := range acked {
			if blk, _ := pc.block(home, i); blk != voxel.Stone {
				return false
			}
		}
		return true
	})
	rec.requireOneCommitter()
}
