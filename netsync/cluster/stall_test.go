package cluster_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
)

// stallFor is how long the node is stopped: three TTLs (2 s), past the
// TTL and past the client library's idle heartbeat (5 s), as SIGSTOP of
// 10 s is in the drill.
const stallFor = 6 * time.Second

// A NATS node stopped (as by SIGSTOP) and continued: the region's owner,
// connected through it, falls silent; the other server takes the region
// and commits; once the node goes on, the owner's edits made meanwhile
// reach the new owner, nobody counts a live server dead for long, at most
// one server committed at any time and no acked edit is lost. The bucket's
// stream leader may be on the stalled node or not (JetStream places it);
// both are handled.
//
// Known failing (issue #26 item 5, open): in about one run of three a
// server's edits go unanswered for ~18 s after the stall ends ("the server
// owning this region did not answer" past CommitFor), and where the stream
// leader is on the stalled node no heartbeat is stored for the whole
// stall (the other server's remade watches show none of its heartbeats, so
// it judges nobody and takes nothing; the owner then still ignores its
// forwards long after the resume). Run it with CLUSTER_STALL=1 while that
// is being fixed.
func TestStalledNATSNodeServersMoveOnAndRecover(t *testing.T) {
	if os.Getenv("CLUSTER_STALL") == "" {
		t.Skip("known failing, see the comment; CLUSTER_STALL=1 runs it")
	}
	nc := natstest.StartStallable(t, 3)
	a, b := startServer(t, nc, 0), startServer(t, nc, 1) // a through the node that stalls
	rec := recordCommits(t, nc.URL(2), cluster.RegionOf(home))
	pa, pb := join(t, a.clientConfig()), join(t, b.clientConfig())
	pa.until("home", func() bool { _, ok := pa.held[home]; return ok })
	pb.until("home", func() bool { _, ok := pb.held[home]; return ok })
	r := cluster.RegionOf(home)
	pa.editUntilAcked(home, 0, voxel.Stone) // a takes the region
	acked := map[uint16]bool{0: true}
	waitFor(t, "b sees a own the region", deadline, func() bool { return owner(b.node, r) == a.node.Slot() })

	nc.Stall(0)
	stalled := time.Now()
	// b's player edits: forwarded to a (silent), then a's lease lapses and
	// b takes the region and commits.
	took, _ := pb.editUntilAcked(home, 1, voxel.Stone)
	acked[1] = true
	// Where the stalled node leads the bucket's stream, nothing is stored
	// until JetStream elects another leader (which can outlast the stall),
	// so b may only move on after it: either way the edit is acked.
	t.Logf("b's edit acked %v into the stall; the region's owner then: slot %d (a %d, b %d)",
		took.Round(time.Millisecond), owner(b.node, r), a.node.Slot(), b.node.Slot())
	// a's player edits too: a cannot reach NATS; the edit waits.
	seqA, err := pa.c.RequestEdit(home, 2, voxel.Stone)
	require.NoError(t, err)
	if time.Since(stalled) < stallFor {
		pa.until("the stall's end", func() bool { return time.Since(stalled) >= stallFor })
	}

	nc.Resume(0)
	resumed := time.Now()
	pa.until("a's edit made in the stall answered", func() bool { _, r := pa.refused[seqA]; return pa.acked[seqA] || r })
	require.True(t, pa.acked[seqA], "a's edit made in the stall is stored through the new owner: %q", pa.refused[seqA])
	acked[2] = true
	t.Logf("a's edit from the stall acked %v after the node went on", time.Since(resumed).Round(time.Millisecond))
	// Nobody counts itself or another dead for long.
	waitFor(t, "every server live and fresh again", recoverWithin, func() bool {
		return len(cluster.Dead(a.node)) == 0 && len(cluster.Dead(b.node)) == 0 &&
			cluster.Fresh(a.node) && cluster.Fresh(b.node)
	})
	t.Logf("everyone live and fresh %v after the node went on", time.Since(resumed).Round(time.Millisecond))
	took, _ = pa.editUntilAcked(home, 3, voxel.Stone)
	acked[3] = true
	pb.editUntilAcked(home, 4, voxel.Stone)
	acked[4] = true
	waitFor(t, "a's watch shows b's edit", recoverWithin, func() bool { return block(a.node.World(), home, 4) == voxel.Stone })
	pa.until("b's car on a", func() bool { return pa.seesCar(pb.c.Player()) })

	pc := join(t, a.clientConfig())
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
