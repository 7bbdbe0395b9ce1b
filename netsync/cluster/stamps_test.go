package cluster

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// One player's request in a property run.
type streamEdit struct {
	player uint64
	seq    uint32
	index  uint16
	block  voxel.Block
}

// Any players' edit streams over a few blocks of one chunk, delivered in
// any order, each any number of times (a handover's forward and resend,
// a retry), within the window: every request ends applied once in its
// player's order, and each answer that acknowledges a request does so
// only with its effect in the value (the block holds what the player's
// newest acknowledged edit of it set). The first format's rule (only
// the newest sequence kept, anything older a duplicate) fails this: an
// older edit arriving late was acknowledged and never stored.
func TestStampsApplyAnyDeliveryOnceInPlayerOrder(t *testing.T) {
	p := voxel.ChunkPos{X: 3, Y: -1, Z: 2}
	rapid.Check(t, func(rt *rapid.T) {
		players := rapid.IntRange(1, 4).Draw(rt, "players")
		var all []streamEdit
		for pl := range players {
			player := uint64(pl + 1)
			// Near the wrap too; gaps are the player's edits of other
			// chunks. 30 edits, gaps ≤ 2: all inside the window.
			seq := rapid.OneOf(rapid.Uint32(), rapid.Uint32Range(^uint32(0)-40, ^uint32(0))).Draw(rt, "first")
			n := rapid.IntRange(1, 30).Draw(rt, "edits")
			for range n {
				// Each player its own blocks: the outcome is then fixed
				// by its own order (between players arrival decides).
				all = append(all, streamEdit{
					player: player, seq: seq,
					index: uint16(pl*4 + rapid.IntRange(0, 3).Draw(rt, "block")),
					block: voxel.Block(rapid.IntRange(1, 9).Draw(rt, "kind")),
				})
				seq += uint32(rapid.IntRange(1, 2).Draw(rt, "gap"))
			}
		}
		// Deliveries: each edit once at least, some again, in any order.
		var deliveries []int
		for i := range all {
			deliveries = append(deliveries, i)
			for range rapid.IntRange(0, 2).Draw(rt, "copies") {
				deliveries = append(deliveries, i)
			}
		}
		deliveries = rapid.Permutation(deliveries).Draw(rt, "order")

		v := chunkValue{pos: p}
		acked := make([]bool, len(all))
		for _, i := range deliveries {
			e := all[i]
			next, done, err := v.with(voxel.BlockEdit{Pos: p, Index: e.index, Block: e.block}, e.player, e.seq)
			require.NoError(rt, err, "request %d of player %d", e.seq, e.player)
			if done == applied {
				// Stored through the bucket: what the next server reads.
				b, err := next.encode(wire.NewEncoder())
				require.NoError(rt, err)
				next, err = decodeValue(b, p, wire.DefaultLimits)
				require.NoError(rt, err)
			} else {
				require.Equal(rt, v, next, "%v leaves the value as it was", done)
			}
			v = next
			acked[i] = true
			want := newestAcked(all, acked)
			for idx, e := range want {
				got, _ := v.overlay.Get(idx)
				require.Equal(rt, e.block, got, "block %d after %v request %d of player %d: its newest acknowledged edit is %d's",
					idx, done, all[i].seq, all[i].player, e.seq)
			}
		}
		// Every request answered: the stream applied once in order.
		var once voxel.Overlay
		byOrder := slices.Clone(all)
		slices.SortFunc(byOrder, func(a, b streamEdit) int {
			if a.player != b.player {
				return cmp.Compare(a.player, b.player)
			}
			return int(int32(a.seq - b.seq)) // serial order: one player's span is inside the window
		})
		for _, e := range byOrder {
			once = once.With(e.index, e.block)
		}
		require.Equal(rt, once, v.overlay)
	})
}

// newestAcked is, per block, the acknowledged edit with the newest
// sequence (per player's serial order: blocks are not shared).
func newestAcked(all []streamEdit, acked []bool) map[uint16]streamEdit {
	out := map[uint16]streamEdit{}
	for i, e := range all {
		if !acked[i] {
			continue
		}
		if o, ok := out[e.index]; !ok || wire.SeqNewer(e.seq, o.seq) {
			out[e.index] = e
		}
	}
	return out
}

// A shared chunk's stamps stay bounded however many players edit it and
// however far their windows reach: the encoded value is at most the
// stated worst case.
func TestStampsWorstCaseSize(t *testing.T) {
	p := voxel.ChunkPos{}
	v := chunkValue{pos: p}
	for pl := range uint64(maxStamps + 3) {
		for s := range uint32(2 * stampWindow) {
			var err error
			v, _, err = v.with(voxel.BlockEdit{Pos: p, Index: uint16(s), Block: voxel.Stone}, pl+1, s)
			require.NoError(t, err)
		}
	}
	require.Len(t, v.stamps, maxStamps)
	for _, s := range v.stamps {
		require.Len(t, s.done, 1+stampWindow, "the newest and the full window")
	}
	b, err := v.encode(wire.NewEncoder())
	require.NoError(t, err)
	overlay, err := wire.NewEncoder().AppendFrame(nil, &wire.ChunkEdits{Pos: p, Edits: v.overlay}, wire.ChunkCap)
	require.NoError(t, err)
	require.Equal(t, 1+maxStamps*stampSizeMax, len(b)-len(overlay), fmt.Sprintf("stamps of %d bytes", len(b)-len(overlay)))
}
