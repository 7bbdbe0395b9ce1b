package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// lapseWithin is the bound: a dead server's regions are another's
// within it.
const lapseWithin = 3 * time.Second

// joinNode joins a node through NATS node via, advertising addr; pause,
// if set, makes it pausable (cluster.WithPause).
func joinLeased(t *testing.T, nc *natstest.Cluster, via, replicas int, addr string, pause **cluster.Pause) *cluster.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opt := cluster.Options{URLs: nc.URLs(via), Seed: seed, Replicas: replicas, Logger: quietLog(), Advertise: addr}
	if pause != nil {
		*pause = cluster.WithPause(&opt)
	}
	n, err := cluster.Join(ctx, opt)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.Close()) })
	if pause != nil {
		p := *pause
		t.Cleanup(p.Thaw) // before Close (cleanups run last first)
	}
	return n
}

// edit submits one edit through w and returns its outcome.
func edit(t *testing.T, w *cluster.World, player uint64, seq uint32, e voxel.BlockEdit) <-chan error {
	t.Helper()
	tag := player<<32 | uint64(seq)
	require.Eventually(t, func() bool { return w.SubmitEditOnce(tag, player, seq, e) == nil },
		deadline, 5*time.Millisecond, "the region loads")
	out := make(chan error, 1)
	go func() {
		end := time.After(2 * deadline)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var got error
			done := false
			// CommittedEdits is the tick's; one reader per world here.
			w.CommittedEdits(func(tg uint64, _ voxel.BlockEdit, err error) {
				if tg == tag {
					got, done = err, true
				}
			})
			if done {
				out <- got
				return
			}
			select {
			case <-tick.C:
			case <-end:
				out <- fmt.Errorf("edit %d/%d: no outcome within %v", player, seq, 2*deadline)
				return
			}
		}
	}()
	return out
}

func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, within, 5*time.Millisecond, what)
}

func owner(n *cluster.Node, r cluster.Region) uint32 {
	s, _ := n.Owners().OwnerSlot(r)
	return s
}

func block(w *cluster.World, pos voxel.ChunkPos, idx uint16) voxel.Block {
	o, _ := w.Chunk(pos)
	b, _ := o.Get(idx)
	return b
}

func TestDeadServersRegionsLapseAndAnotherTakesThem(t *testing.T) {
	nc := natstest.Start(t, 1)
	var pause *cluster.Pause
	a := joinLeased(t, nc, 0, 1, "a:1", &pause)
	b := joinLeased(t, nc, 0, 1, "b:1", nil)
	r := cluster.RegionOf(home)
	a.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	b.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	// a takes the region with its first edit; the edit is acked.
	require.NoError(t, <-edit(t, a.World(), 1, 1, voxel.BlockEdit{Pos: home, Index: 0, Block: voxel.Stone}))
	waitFor(t, "b sees a own the region", deadline, func() bool { return owner(b, r) == a.Slot() })
	addr, ok := b.Owners().Owner(r)
	require.True(t, ok)
	require.Equal(t, "a:1", addr, "the directory hands out the owner's advertised address")
	// b has a player there, so b is the one to take it when a goes.
	b.Cars().Publish([]wire.CarSnapshot{wire.QuantiseCar(b.FirstPlayer()+1, 1, 8, 40, 8, 0, 0)})

	// a stops dead: no heartbeat, no write, nothing released.
	pause.Freeze()
	stopped := time.Now()
	waitFor(t, "b owns the region", 2*lapseWithin, func() bool { return owner(b, r) == b.Slot() })
	took := time.Since(stopped)
	t.Logf("region taken %v after its owner stopped", took.Round(time.Millisecond))
	require.Less(t, took, lapseWithin)
	addr, ok = b.Owners().Coords().Owner(r.X, r.Z)
	require.True(t, ok)
	require.Equal(t, "b:1", addr)

	// The acked edit is there, and b commits the next one itself.
	waitFor(t, "b holds a's edit", deadline, func() bool { return block(b.World(), home, 0) == voxel.Stone })
	require.NoError(t, <-edit(t, b.World(), 2, 1, voxel.BlockEdit{Pos: home, Index: 1, Block: voxel.Stone}))
	require.Equal(t, voxel.Stone, block(b.World(), home, 0))
}

// A lease lapsing under a live server: a is paused mid-write past its
// TTL, b takes the region and commits, then a wakes and sends the write
// it had prepared from what it saw before. The fence refuses it (it would
// have stored a's stale value over b's edit), a finds the new owner and
// its edit goes through b: every edit is in the chunk once.
func TestPausedOwnersWriteIsFencedAndNoEditIsLost(t *testing.T) {
	nc := natstest.Start(t, 3)
	var pause *cluster.Pause
	a := joinLeased(t, nc, 0, 3, "a:1", &pause)
	b := joinLeased(t, nc, 1, 3, "b:1", nil)
	r := cluster.RegionOf(home)
	rec := recordCommits(t, nc.URL(2), r)
	a.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	b.World().UnionChanged([]voxel.ChunkPos{home}, nil)
	require.NoError(t, <-edit(t, a.World(), 1, 1, voxel.BlockEdit{Pos: home, Index: 0, Block: voxel.Stone}))
	waitFor(t, "b sees a own the region", deadline, func() bool { return owner(b, r) == a.Slot() })
	waitFor(t, "b holds a's edit", deadline, func() bool { return block(b.World(), home, 0) == voxel.Stone })

	pause.Freeze()
	late := edit(t, a.World(), 1, 2, voxel.BlockEdit{Pos: home, Index: 1, Block: voxel.Sand})
	select {
	case <-pause.Writing(): // a's write is prepared, its lease checked, and a stops
	case <-time.After(deadline):
		t.Fatal("a never reached its write")
	}
	// b's edit: forwarded to a (no answer: a is paused), then a's lease
	// lapses and b takes the region and commits it itself.
	require.NoError(t, <-edit(t, b.World(), 2, 1, voxel.BlockEdit{Pos: home, Index: 2, Block: voxel.Gravel}))
	require.Equal(t, b.Slot(), owner(b, r))
	require.Zero(t, cluster.FencedWrites(a))

	pause.Thaw()
	require.NoError(t, <-late, "a's edit goes through the new owner")
	// At most one committer at any time: in the bucket's history every
	// chunk write came from the lease holder of that moment (without the
	// fence a's paused write lands after b's takeover and this fails).
	rec.requireOneCommitter(a.Slot(), b.Slot())
	want := voxel.Overlay{{Index: 0, Block: voxel.Stone}, {Index: 1, Block: voxel.Sand}, {Index: 2, Block: voxel.Gravel}}
	for name, n := range map[string]*cluster.Node{"a": a, "b": b} {
		waitFor(t, name+" holds every edit", deadline, func() bool {
			o, _ := n.World().Chunk(home)
			return equalOverlay(o, want)
		})
	}
	require.GreaterOrEqual(t, cluster.FencedWrites(a), 1.0, "a's paused write was refused by the fence")
	require.GreaterOrEqual(t, cluster.Forwarded(a), 1.0, "and sent on to b")
}

func TestPlayersOverTheFairShareMoveRegionsToTheIdleServer(t *testing.T) {
	nc := natstest.Start(t, 1)
	a := joinLeased(t, nc, 0, 1, "a:1", nil)
	b := joinLeased(t, nc, 0, 1, "b:1", nil)
	// Four of a's players in four regions, none of b's: a takes all four,
	// then hands two to b (fair share: 4 players over 2 servers).
	var cars []wire.CarSnapshot
	var rs []cluster.Region
	for i := range 4 {
		x := float64(i)*cluster.RegionChunks*voxel.ChunkSize + 8
		cars = append(cars, wire.QuantiseCar(a.FirstPlayer()+uint32(i)+1, 1, x, 40, 8, 0, 0))
		rs = append(rs, cluster.RegionOf(voxel.ChunkAt(x, 40, 8)))
	}
	a.Cars().Publish(cars)
	count := func(n *cluster.Node, slot uint32) int {
		c := 0
		for _, r := range rs {
			if owner(n, r) == slot {
				c++
			}
		}
		return c
	}
	waitFor(t, "two regions each", 3*deadline, func() bool {
		return count(a, a.Slot()) == 2 && count(a, b.Slot()) == 2 && count(b, b.Slot()) == 2
	})
}

func TestOneWatchPerServerWhateverItWatches(t *testing.T) {
	nc := natstest.Start(t, 1)
	a := joinLeased(t, nc, 0, 1, "a:1", nil)
	conn, err := nats.Connect(nc.URL(0))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	js, err := jetstream.New(conn)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	stream, err := js.Stream(ctx, fmt.Sprintf("KV_citydrive-%d", seed))
	require.NoError(t, err)
	consumers := func() int {
		info, err := stream.Info(ctx)
		require.NoError(t, err)
		return info.State.Consumers
	}
	w := a.World()
	var chunks []voxel.ChunkPos
	for i := range int32(12) {
		chunks = append(chunks, voxel.ChunkPos{X: i * cluster.RegionChunks, Y: 1, Z: -i * cluster.RegionChunks})
	}
	w.UnionChanged(chunks[:6], nil)
	waitFor(t, "six regions loaded", deadline, w.Ready)
	w.UnionChanged(chunks[6:], chunks[:2])
	waitFor(t, "ten regions loaded", deadline, w.Ready)
	waitFor(t, "one consumer on the bucket", deadline, func() bool { return consumers() == 1 })
	_, ok := w.Chunk(chunks[11])
	require.True(t, ok)
	_, ok = w.Chunk(chunks[0])
	require.True(t, ok, "a region left stays watched for watchLinger")
}

// The watch is made again whenever the watched regions change; another
// server's edits of a region watched throughout arrive each exactly once,
// none lost across the restarts and none repeated.
func TestRewatchingLosesAndRepeatsNothing(t *testing.T) {
	nc := natstest.Start(t, 1)
	a := joinLeased(t, nc, 0, 1, "a:1", nil)
	b := joinLeased(t, nc, 0, 1, "b:1", nil)
	wa, wb := a.World(), b.World()
	wa.UnionChanged([]voxel.ChunkPos{home}, nil)
	wb.UnionChanged([]voxel.ChunkPos{home}, nil)
	waitFor(t, "a loaded", deadline, wa.Ready)
	const n = 60
	// Each edit in a chunk of its own: a value missed is a chunk missed
	// (one chunk's later value would carry its earlier edits along).
	chunk := func(i uint16) voxel.ChunkPos {
		return voxel.ChunkPos{X: int32(i % cluster.RegionChunks), Y: 1, Z: int32(i / cluster.RegionChunks)}
	}
	require.Equal(t, cluster.RegionOf(home), cluster.RegionOf(chunk(n-1)))
	heard := map[voxel.ChunkPos]int{}
	drain := func() {
		wa.CommittedEdits(func(tag uint64, e voxel.BlockEdit, err error) {
			require.NoError(t, err)
			heard[e.Pos]++
		})
	}
	// b edits as fast as it can while a's watched set changes under the
	// edits, a region in and out, over and over (each change makes a's
	// watch again).
	committed := make(chan error, 1)
	go func() {
		left := map[uint64]bool{}
		for i := range uint16(n) {
			tag := uint64(9)<<32 | uint64(i+1)
			left[tag] = true
			for wb.SubmitEditOnce(tag, 9, uint32(i)+1, voxel.BlockEdit{Pos: chunk(i), Index: 5, Block: voxel.Stone}) != nil {
				time.Sleep(time.Millisecond) // loading or busy: the commit path is what is tested
			}
		}
		end := time.After(2 * deadline)
		for len(left) > 0 {
			var err error
			wb.CommittedEdits(func(tag uint64, _ voxel.BlockEdit, e error) {
				delete(left, tag)
				err = errors.Join(err, e)
			})
			if err != nil {
				committed <- err
				return
			}
			select {
			case <-end:
				committed <- fmt.Errorf("%d edits without an outcome", len(left))
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		committed <- nil
	}()
	for i := int32(1); ; i++ {
		far := voxel.ChunkPos{X: i * cluster.RegionChunks * 3, Y: 1}
		wa.UnionChanged([]voxel.ChunkPos{far}, nil)
		waitFor(t, "the watch takes the region in", deadline, func() bool {
			drain()
			return wa.Ready()
		})
		wa.UnionChanged(nil, []voxel.ChunkPos{far})
		drain()
		select {
		case err := <-committed:
			require.NoError(t, err)
			goto done
		case <-time.After(time.Millisecond):
		}
	}
done:
	t.Logf("a's watch made %v times", cluster.WatchStarts(a))
	waitFor(t, "a heard every edit", deadline, func() bool {
		drain()
		return len(heard) == n
	})
	for pos, c := range heard {
		require.Equal(t, 1, c, "the edit of chunk %v heard once", pos)
	}
}
