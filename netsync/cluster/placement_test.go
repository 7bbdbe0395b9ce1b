package cluster

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

func TestPlan(t *testing.T) {
	r1, r2, r3, r4 := Region{0, 0}, Region{1, 0}, Region{2, 0}, Region{3, 0}
	pl := func(kv ...any) map[uint32]int { // slot, n, slot, n…
		m := map[uint32]int{}
		for i := 0; i < len(kv); i += 2 {
			m[uint32(kv[i].(int))] = kv[i+1].(int)
		}
		return m
	}
	tests := []struct {
		name string
		v    placementView
		want []move
	}{
		{"a region with our players and no owner is taken",
			placementView{self: 1, live: []uint32{1, 2}, players: map[Region]map[uint32]int{r1: pl(1, 1)}},
			[]move{{r1, 1}}},
		{"the server with most players there takes it, the other leaves it",
			placementView{self: 1, live: []uint32{1, 2}, players: map[Region]map[uint32]int{r1: pl(1, 1, 2, 3)}},
			nil},
		{"a tie goes to the lower slot",
			placementView{self: 2, live: []uint32{1, 2}, players: map[Region]map[uint32]int{r1: pl(1, 2, 2, 2)}},
			nil},
		{"an owned region is not taken",
			placementView{self: 1, live: []uint32{1, 2}, owner: map[Region]uint32{r1: 2}, players: map[Region]map[uint32]int{r1: pl(1, 1)}},
			nil},
		{"within the fair share nothing moves",
			placementView{self: 1, live: []uint32{1, 2}, owner: map[Region]uint32{r1: 1, r2: 2},
				players: map[Region]map[uint32]int{r1: pl(1, 2), r2: pl(2, 2)}},
			nil},
		{"over the fair share: the move that evens the pair best, to the least loaded",
			placementView{self: 1, live: []uint32{1, 2, 3}, owner: map[Region]uint32{r1: 1, r2: 1, r3: 1, r4: 2},
				players: map[Region]map[uint32]int{r1: pl(1, 1), r2: pl(1, 2), r3: pl(1, 3), r4: pl(2, 3)}},
			// loads 6, 3, 0; fair 3: moving r3 (3) to server 3 evens 6/0 to 3/3
			[]move{{r3, 3}}},
		{"no move that would not make the pair more even",
			placementView{self: 1, live: []uint32{1, 2}, owner: map[Region]uint32{r1: 1, r2: 2},
				players: map[Region]map[uint32]int{r1: pl(1, 5), r2: pl(2, 1)}},
			// 5 vs 1, fair 3: r1 is one region of 5; moving it gives 0/6
			nil},
		{"ties prefer the server that already has players there",
			placementView{self: 1, live: []uint32{1, 2, 3}, owner: map[Region]uint32{r1: 1, r2: 1},
				players: map[Region]map[uint32]int{r1: pl(1, 2), r2: pl(1, 1, 3, 1)}},
			// loads 4, 0, 0, fair 2: r1 (2) to 2 or 3 evens 4/0 to 2/2; r2 (2) too, and 3 has players in r2
			[]move{{r2, 3}}},
		{"a region that changed owner lately is not handed on; another is",
			placementView{self: 1, live: []uint32{1, 2, 3}, owner: map[Region]uint32{r1: 1, r2: 1, r3: 1, r4: 2},
				players:  map[Region]map[uint32]int{r1: pl(1, 1), r2: pl(1, 2), r3: pl(1, 3), r4: pl(2, 3)},
				settling: map[Region]bool{r3: true}},
			// as above, but r3 just arrived: of the rest, r1 (1) to server 2 evens 6/3 to 5/4
			[]move{{r1, 2}}},
		{"nothing settled to hand on: nothing moves",
			placementView{self: 1, live: []uint32{1, 2}, owner: map[Region]uint32{r1: 1, r2: 1},
				players:  map[Region]map[uint32]int{r1: pl(1, 3), r2: pl(1, 3)},
				settling: map[Region]bool{r1: true, r2: true}},
			nil},
		{"a quiet owned region is released",
			placementView{self: 1, live: []uint32{1}, owner: map[Region]uint32{r1: 1}, quiet: map[Region]bool{r1: true}},
			[]move{{r1, 0}}},
		{"a lone server keeps everything",
			placementView{self: 1, live: []uint32{1}, owner: map[Region]uint32{r1: 1, r2: 1},
				players: map[Region]map[uint32]int{r1: pl(1, 9), r2: pl(1, 9)}},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, plan(tc.v))
		})
	}
}

// Servers applying plan to what they all see converge: every move lowers
// the sum of squared loads, so none bounces back.
func TestPlanSettles(t *testing.T) {
	live := []uint32{1, 2, 3}
	owner := map[Region]uint32{}
	players := map[Region]map[uint32]int{}
	for i := range 12 {
		r := Region{int32(i), 0}
		owner[r] = 1
		players[r] = map[uint32]int{1: 1 + i%3}
	}
	for round := range 50 {
		moved := false
		for _, s := range live {
			for _, m := range plan(placementView{self: s, live: live, owner: owner, players: players}) {
				require.NotZero(t, m.to)
				owner[m.r] = m.to
				moved = true
			}
		}
		if !moved {
			load := map[uint32]int{}
			for r, o := range owner {
				load[o] += players[r][1]
			}
			t.Logf("settled after %d rounds: %v", round, load)
			for _, s := range live {
				assert.LessOrEqual(t, load[s], 9, "fair share 8, regions of up to 3")
			}
			return
		}
	}
	t.Fatal("placement never settled")
}

type fakeEntry struct {
	jetstream.KeyValueEntry
	key string
	val []byte
	rev uint64
	op  jetstream.KeyValueOp
}

func (e fakeEntry) Key() string                     { return e.key }
func (e fakeEntry) Value() []byte                   { return e.val }
func (e fakeEntry) Revision() uint64                { return e.rev }
func (e fakeEntry) Operation() jetstream.KeyValueOp { return e.op }

// A directory judges liveness by its own clock, and only while its own
// heartbeat comes back: a stalled watch counts nobody dead.
func TestDirectoryLiveness(t *testing.T) {
	now := time.Unix(100, 0)
	d := newDirectory(1, 2*time.Second, func() time.Time { return now })
	beatOf := func(slot uint32, rev uint64, addr string) {
		b, err := encodeBeat(beat{Addr: addr})
		require.NoError(t, err)
		_, err = d.apply(fakeEntry{key: liveKey(slot), val: b, rev: rev, op: jetstream.KeyValuePut})
		require.NoError(t, err)
	}
	r := Region{3, -4}
	beatOf(1, 1, "me:1")
	beatOf(2, 2, "b:1")
	_, err := d.apply(fakeEntry{key: ownKey(r), val: slotValue(2), rev: 3, op: jetstream.KeyValuePut})
	require.NoError(t, err)
	addr, ok := d.Owner(r)
	require.True(t, ok)
	assert.Equal(t, "b:1", addr)

	// Our watch stalls: nothing comes, 3 s pass; nobody is judged.
	now = now.Add(3 * time.Second)
	d.expire()
	_, ok = d.Owner(r)
	assert.True(t, ok, "no judgement on a stale view")
	// Our heartbeat comes back, b's does not: b is dead.
	beatOf(1, 4, "me:1")
	d.expire()
	_, ok = d.Owner(r)
	assert.False(t, ok, "b's lease lapsed")
	// b beats again (it was paused): alive, its lease holds again (its
	// writes since were fenced; only the lease key says who owns).
	beatOf(2, 5, "b:1")
	_, ok = d.Owner(r)
	assert.True(t, ok)
	// An old revision changes nothing.
	_, err = d.apply(fakeEntry{key: ownKey(r), val: slotValue(1), rev: 2, op: jetstream.KeyValuePut})
	require.NoError(t, err)
	s, _ := d.OwnerSlot(r)
	assert.EqualValues(t, 2, s)
	// A release.
	_, err = d.apply(fakeEntry{key: ownKey(r), rev: 6, op: jetstream.KeyValueDelete})
	require.NoError(t, err)
	_, ok = d.OwnerSlot(r)
	assert.False(t, ok)
	// Hostile values are errors, not owners.
	_, err = d.apply(fakeEntry{key: ownKey(r), val: []byte("x"), rev: 7, op: jetstream.KeyValuePut})
	assert.Error(t, err)
	_, err = d.apply(fakeEntry{key: liveKey(3), val: []byte("{"), rev: 8, op: jetstream.KeyValuePut})
	assert.Error(t, err)
}

func TestForwardCodec(t *testing.T) {
	r := request{player: 1<<63 | 5, seq: 7, e: voxel.BlockEdit{Pos: voxel.ChunkPos{X: -3, Y: 2, Z: 1 << 30}, Index: 4095, Block: voxel.Stone}}
	got, err := decodeForward(encodeForward(r))
	require.NoError(t, err)
	assert.Equal(t, r, got)
	b := encodeForward(r)
	_, err = decodeForward(b[:len(b)-1])
	assert.Error(t, err)
	b[0] = 9
	_, err = decodeForward(b)
	assert.Error(t, err)
	st, rev, reason, err := decodeReply(encodeReply(fwdFailed, 3, "no"))
	require.NoError(t, err)
	assert.Equal(t, []any{fwdFailed, uint64(3), "no"}, []any{st, rev, reason})
	_, _, _, err = decodeReply([]byte{0, 0})
	assert.Error(t, err)
}

func FuzzDecodeForward(f *testing.F) {
	f.Add(encodeForward(request{player: 1, seq: 2, e: voxel.BlockEdit{Index: 3, Block: voxel.Stone}}))
	f.Add(encodeReply(fwdStored, 9, "x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeForward(b); err == nil {
			assert.Equal(t, b, encodeForward(r))
		}
		if st, rev, reason, err := decodeReply(b); err == nil {
			assert.Equal(t, b, encodeReply(st, rev, reason))
		}
	})
}

func FuzzDecodeBeat(f *testing.F) {
	b, _ := encodeBeat(beat{Addr: "127.0.0.1:4701", Regions: [][3]int32{{1, -2, 3}}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, v []byte) {
		got, err := decodeBeat(v)
		if err != nil {
			return
		}
		assert.LessOrEqual(t, len(got.Addr), maxAddrLen)
		assert.LessOrEqual(t, len(got.Regions), maxBeatRegions)
	})
}

// A region whose owner the watch just showed changing is settling in the
// view (not handed on for balance) until giveCooldown has passed.
func TestViewMarksARegionThatJustMovedSettling(t *testing.T) {
	now := time.Unix(100, 0)
	ttl := 2 * time.Second
	d := newDirectory(1, ttl, func() time.Time { return now })
	for slot, rev := range map[uint32]uint64{1: 1, 2: 2} {
		b, err := encodeBeat(beat{Addr: "s:1"})
		require.NoError(t, err)
		_, err = d.apply(fakeEntry{key: liveKey(slot), val: b, rev: rev, op: jetstream.KeyValuePut})
		require.NoError(t, err)
	}
	r := Region{1, 1}
	_, err := d.apply(fakeEntry{key: ownKey(r), val: slotValue(1), rev: 3, op: jetstream.KeyValuePut})
	require.NoError(t, err)
	assert.True(t, d.view(1, nil).settling[r], "just taken")
	now = now.Add(giveCooldown(ttl) - time.Millisecond)
	assert.True(t, d.view(1, nil).settling[r])
	now = now.Add(time.Millisecond)
	assert.False(t, d.view(1, nil).settling[r], "settled after the cooldown")
}
