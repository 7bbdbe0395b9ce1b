package cluster_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
)

// stallFor is how long the node is stopped at least: three TTLs (2 s),
// past the TTL and past the client library's idle heartbeat (5 s), as
// SIGSTOP of 10 s is in the drill.
const stallFor = 6 * time.Second

// A NATS node stopped (as by SIGSTOP) and continued: the region's owner a
// is connected through it (b may be too), and the node's TCP connections
// stay open, so only unanswered pings tell. Every server leaves the node
// within cluster.StallWithin and reconnects to another; b's edit, made in
// the stall, is acked (forwarded to a on its new node, or committed by b
// if a's lease lapsed meanwhile); a's edit made in the stall is acked
// within recoverWithin of the node going on; nobody counts a live server
// dead for long, at most one server committed at any time and no acked
// edit is lost. The bucket's stream leader may be on the stalled node or
// not (JetStream places it): on it, nothing is stored until the other two
// elect a leader (JetStream's election timeout, 4-9 s), so b's edit may
// take that long; both are handled. 12-19 s a run.
func TestStalledNATSNodeServersMoveOnAndRecover(t *testing.T) {
	nc := natstest.StartStallable(t, 3)
	a, b := startServer(t, nc, 0), startServer(t, nc, 1)
	// The node to stall: the one a's edits connection is on (the client
	// library picks one of the URLs at random); b may be on it too.
	ae, ac := cluster.ConnectedTo(a.node)
	var n int
	_, err := fmt.Sscanf(ae, "n%d", &n)
	require.NoError(t, err, "a's node %q", ae)
	stall, stalledNode := n-1, ae
	rec := recordCommitsOff(t, nc.URL((stall+1)%3), cluster.RegionOf(home), stalledNode)
	pa, pb := join(t, a.clientConfig()), join(t, b.clientConfig())
	pa.until("home", func() bool { _, ok := pa.held[home]; return ok })
	pb.until("home", func() bool { _, ok := pb.held[home]; return ok })
	r := cluster.RegionOf(home)
	pa.editUntilAcked(home, 0, voxel.Stone) // a takes the region
	acked := map[uint16]bool{0: true}
	waitFor(t, "b sees a own the region", deadline, func() bool { return owner(b.node, r) == a.node.Slot() })

	ae, ac = cluster.ConnectedTo(a.node)
	require.Equal(t, stalledNode, ae, "a still on its node")
	be, bc := cluster.ConnectedTo(b.node)
	meta, leader := nc.Leaders(fmt.Sprintf("KV_citydrive-%d", seed))
	t.Logf("stalling %s: meta leader n%d, stream leader n%d; a (slot %d) on %s/%s, b (slot %d) on %s/%s",
		stalledNode, meta+1, leader+1, a.node.Slot(), ae, ac, b.node.Slot(), be, bc)
	nc.Stall(stall)
	stalled := time.Now()
	// The fix: nobody stays on the silent node (the library's default
	// pings would keep a and b there for minutes).
	waitFor(t, "every connection off the stalled node", cluster.StallWithin+time.Second, func() bool {
		for _, node := range []*cluster.Node{a.node, b.node} {
			if e, c := cluster.ConnectedTo(node); e == stalledNode || c == stalledNode || e == "" || c == "" {
				return false
			}
		}
		return true
	})
	t.Logf("every connection off %s %v into the stall", stalledNode, time.Since(stalled).Round(time.Millisecond))
	// b's player edits: forwarded to a (on its new node, once b's forward
	// lost with a's old connection has timed out), or committed by b if
	// a's lease lapsed while a moved.
	took, _ := pb.editUntilAcked(home, 1, voxel.Stone)
	acked[1] = true
	// Where the stalled node leads the bucket's stream, nothing is stored
	// until JetStream elects another leader (which can outlast the stall),
	// so b may only move on after it: either way the edit is acked.
	t.Logf("b's edit acked %v after it was made, %v into the stall; the region's owner then: slot %d (a %d, b %d)",
		took.Round(time.Millisecond), time.Since(stalled).Round(time.Millisecond), owner(b.node, r), a.node.Slot(), b.node.Slot())
	// a's player edits too, before the node goes on.
	seqA, err := pa.c.RequestEdit(home, 2, voxel.Stone)
	require.NoError(t, err)
	if time.Since(stalled) < stallFor {
		pa.until("the stall's end", func() bool { return time.Since(stalled) >= stallFor })
	}

	nc.Resume(stall)
	resumed := time.Now()
	pa.within("a's edit made in the stall answered", recoverWithin, func() bool { _, r := pa.refused[seqA]; return pa.acked[seqA] || r })
	require.True(t, pa.acked[seqA], "a's edit made in the stall is stored: %q", pa.refused[seqA])
	acked[2] = true
	t.Logf("a's edit from the stall acked %v after the node went on", time.Since(resumed).Round(time.Millisecond))
	// Nobody counts itself or another dead for long.
	waitFor(t, "every server live and fresh again", recoverWithin, func() bool {
		return len(cluster.Dead(a.node)) == 0 && len(cluster.Dead(b.node)) == 0 &&
			cluster.Fresh(a.node) && cluster.Fresh(b.node)
	})
	t.Logf("everyone live and fresh %v after the node went on", time.Since(resumed).Round(time.Millisecond))
	pa.editUntilAcked(home, 3, voxel.Stone)
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
	rec.requireWrites(len(acked))
}
