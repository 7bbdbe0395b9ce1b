package cluster

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

func TestRegionsAndKeysRoundTripNegativeCoordinates(t *testing.T) {
	cases := map[voxel.ChunkPos]Region{
		{X: 0, Y: 0, Z: 0}:          {0, 0},
		{X: 15, Y: -3, Z: 16}:       {0, 1},
		{X: -1, Y: 1, Z: -16}:       {-1, -1},
		{X: -17, Y: 9, Z: -15}:      {-2, -1},
		{X: 1<<31 - 1, Z: -1 << 31}: {(1<<31 - 1) / 16, -1 << 27},
	}
	for p, r := range cases {
		assert.Equal(t, r, RegionOf(p), "%v", p)
		k := chunkKey(p)
		assert.Regexp(t, `^[-/_=.a-zA-Z0-9]+$`, k, "KV key charset")
		got, err := parseKey(k)
		require.NoError(t, err, k)
		assert.Equal(t, p, got)
		assert.Regexp(t, `^`+regionFilter(r)[:len(regionFilter(r))-1], k, "the region's watch filter matches its keys")
	}
	for _, bad := range []string{"meta.servers", "c.0.0.1.2", "c.0.0.1.2.x", "c.1.0.1.2.3", "c.0.0.99999999999.0.0"} {
		_, err := parseKey(bad)
		assert.Error(t, err, bad)
	}
}

func TestValueAppliesARequestOnce(t *testing.T) {
	p := voxel.ChunkPos{X: -2, Y: 1, Z: 5}
	v := chunkValue{pos: p}
	with := func(idx uint16, b voxel.Block, player uint64, seq uint32, want outcome) {
		t.Helper()
		next, got, err := v.with(voxel.BlockEdit{Pos: p, Index: idx, Block: b}, player, seq)
		require.NoError(t, err)
		require.Equal(t, want, got)
		if got != applied {
			require.Equal(t, v, next, "a request not applied leaves the value as it was")
		}
		v = next
	}
	with(3, voxel.Stone, 7, 1, applied)
	with(3, voxel.Air, 8, 1, applied)     // another player
	with(3, voxel.Stone, 7, 1, duplicate) // the retry
	assert.Equal(t, voxel.Overlay{{Index: 3, Block: voxel.Air}}, v.overlay)
	with(4, voxel.Stone, 7, 2, applied)

	b, err := v.encode(wire.NewEncoder())
	require.NoError(t, err)
	got, err := decodeValue(b, p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, v, got)
	_, err = decodeValue(b, voxel.ChunkPos{}, wire.DefaultLimits)
	assert.Error(t, err, "a value under another chunk's key")

	// The stamps are bounded: the oldest player is forgotten.
	for i := range uint64(maxStamps + 5) {
		v, _, _ = v.with(voxel.BlockEdit{Pos: p, Index: 9, Block: voxel.Stone}, 100+i, 1)
	}
	assert.Len(t, v.stamps, maxStamps)
	assert.Equal(t, uint64(100+maxStamps+4), v.stamps[maxStamps-1].player)
}

// The handover's case: a player's older edit arrives after its newer one
// of the same chunk was stored. The old value kept only the newest
// sequence and acknowledged the older as a duplicate without storing it.
func TestValueAppliesAnOlderEditArrivingLate(t *testing.T) {
	p := voxel.ChunkPos{X: 1}
	v := chunkValue{pos: p}
	at := func(idx uint16, b voxel.Block) voxel.BlockEdit { return voxel.BlockEdit{Pos: p, Index: idx, Block: b} }
	v, done, err := v.with(at(5, voxel.Stone), 7, 110)
	require.NoError(t, err)
	require.Equal(t, applied, done)

	// Seq 109, another block: stored now, and a duplicate from then on.
	v, done, err = v.with(at(6, voxel.Sand), 7, 109)
	require.NoError(t, err)
	require.Equal(t, applied, done)
	assert.Equal(t, voxel.Overlay{{Index: 5, Block: voxel.Stone}, {Index: 6, Block: voxel.Sand}}, v.overlay)
	_, done, err = v.with(at(6, voxel.Sand), 7, 109)
	require.NoError(t, err)
	assert.Equal(t, duplicate, done)

	// Seq 108 of the block seq 110 set: the player's newer block stays.
	next, done, err := v.with(at(5, voxel.Air), 7, 108)
	require.NoError(t, err)
	assert.Equal(t, superseded, done)
	assert.Equal(t, v, next)

	// A newer edit of a block an older pending one will set is not
	// superseded by it: order is by sequence, not arrival.
	v, done, err = v.with(at(6, voxel.Air), 7, 112)
	require.NoError(t, err)
	require.Equal(t, applied, done)
	_, done, err = v.with(at(6, voxel.Stone), 7, 111)
	require.NoError(t, err)
	assert.Equal(t, superseded, done)

	// Older than the window: refused, never acknowledged unstored.
	_, _, err = v.with(at(7, voxel.Stone), 7, 112-stampWindow-1)
	assert.ErrorIs(t, err, errEditTooOld)
	v, done, err = v.with(at(7, voxel.Stone), 7, 112-stampWindow)
	require.NoError(t, err, "the window's oldest is still placed")
	assert.Equal(t, applied, done)

	// Far ahead: the window moves on, what falls out of it is refused.
	v, _, err = v.with(at(8, voxel.Stone), 7, 112+stampWindow)
	require.NoError(t, err)
	_, _, err = v.with(at(6, voxel.Stone), 7, 111)
	assert.ErrorIs(t, err, errEditTooOld)
	_, done, err = v.with(at(6, voxel.Air), 7, 112)
	require.NoError(t, err)
	assert.Equal(t, duplicate, done, "the window's oldest is still known")
}

// Sequences wrap (uint32): the window is by serial arithmetic.
func TestStampWindowAcrossTheWrap(t *testing.T) {
	p := voxel.ChunkPos{}
	v := chunkValue{pos: p}
	v, _, err := v.with(voxel.BlockEdit{Pos: p, Index: 1, Block: voxel.Stone}, 3, 2)
	require.NoError(t, err)
	v, done, err := v.with(voxel.BlockEdit{Pos: p, Index: 2, Block: voxel.Stone}, 3, ^uint32(0)-1)
	require.NoError(t, err)
	assert.Equal(t, applied, done, "4 below 2, across the wrap")
	assert.Equal(t, []doneEdit{{2, 1}, {^uint32(0) - 1, 2}}, v.stamps[0].done)
	b, err := v.encode(wire.NewEncoder())
	require.NoError(t, err)
	got, err := decodeValue(b, p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, v, got)
}

// Values of the first format (buckets and backups made before the
// window) are still read: each stamp then knows its newest request only,
// a retry of it is a duplicate, an older one is refused.
func TestValueOfTheFirstFormatIsRead(t *testing.T) {
	p := voxel.ChunkPos{X: 1, Y: 2, Z: 3}
	b, err := wire.NewEncoder().AppendFrame(nil, &wire.ChunkEdits{Pos: p, Edits: voxel.Overlay{{Index: 7, Block: voxel.Stone}}}, wire.ChunkCap)
	require.NoError(t, err)
	b = append(b, 2, // two stamps: player, newest sequence
		0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 5,
		0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 1, 0)
	v, err := decodeValue(b, p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, voxel.Overlay{{Index: 7, Block: voxel.Stone}}, v.overlay)
	require.Equal(t, []stamp{legacyStamp(9, 5), legacyStamp(4, 256)}, v.stamps)

	e := voxel.BlockEdit{Pos: p, Index: 8, Block: voxel.Sand}
	_, done, err := v.with(e, 9, 5)
	require.NoError(t, err)
	assert.Equal(t, duplicate, done)
	_, _, err = v.with(e, 9, 4)
	assert.ErrorIs(t, err, errEditTooOld)
	v, done, err = v.with(e, 9, 7)
	require.NoError(t, err)
	assert.Equal(t, applied, done)
	_, done, err = v.with(voxel.BlockEdit{Pos: p, Index: 9, Block: voxel.Sand}, 9, 6)
	require.NoError(t, err)
	assert.Equal(t, applied, done, "between the old newest and the new one: known")
	_, _, err = v.with(e, 9, 4)
	assert.ErrorIs(t, err, errEditTooOld, "below the old newest: still unknown")

	// Written back, it is the new format and reads the same.
	out, err := v.encode(wire.NewEncoder())
	require.NoError(t, err)
	again, err := decodeValue(out, p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, v, again)
	assert.Equal(t, byte(stampsV2|2), out[4+binary.BigEndian.Uint32(out)], "the count byte carries the flag")
}

func TestDecodeValueRefusesBadStamps(t *testing.T) {
	p := voxel.ChunkPos{}
	head, err := wire.NewEncoder().AppendFrame(nil, &wire.ChunkEdits{Pos: p, Edits: voxel.Overlay{{Index: 1, Block: 1}}}, wire.ChunkCap)
	require.NoError(t, err)
	one := func(player uint64, seq uint32, known byte, mask uint64, idx ...uint16) []byte {
		b := binary.BigEndian.AppendUint64(nil, player)
		b = binary.BigEndian.AppendUint32(b, seq)
		b = append(b, known)
		b = binary.BigEndian.AppendUint64(b, mask)
		for _, i := range idx {
			b = binary.BigEndian.AppendUint16(b, i)
		}
		return b
	}
	value := func(n byte, stamps ...[]byte) []byte {
		b := append(slices.Clone(head), n)
		for _, s := range stamps {
			b = append(b, s...)
		}
		return b
	}
	ok := value(stampsV2|1, one(5, 10, 64, 0b101, 1, 2, 3))
	v, err := decodeValue(ok, p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, []doneEdit{{10, 1}, {9, 2}, {7, 3}}, v.stamps[0].done)

	for name, b := range map[string][]byte{
		"no stamps byte":      head,
		"too many":            value(stampsV2|maxStamps+1, one(5, 10, 64, 0, 1)),
		"old, too many":       value(maxStamps+1, make([]byte, (maxStamps+1)*legacyStampSize)),
		"old, cut short":      value(1, make([]byte, legacyStampSize-1)),
		"cut short":           ok[:len(ok)-1],
		"fixed part short":    value(stampsV2|1, one(5, 10, 64, 0)[:stampFixed-1]),
		"trailing":            append(slices.Clone(ok), 0),
		"known > window":      value(stampsV2|1, one(5, 10, stampWindow+1, 0, 1)),
		"mask beyond known":   value(stampsV2|1, one(5, 10, 2, 0b100, 1, 2)),
		"block out of chunk":  value(stampsV2|1, one(5, 10, 64, 0, voxel.ChunkVolume)),
		"player 0":            value(stampsV2|1, one(0, 10, 64, 0, 1)),
		"player twice":        value(stampsV2|2, one(5, 10, 64, 0, 1), one(5, 11, 64, 0, 1)),
		"old, player 0":       value(1, make([]byte, legacyStampSize)),
		"more than the limit": value(stampsV2|1, make([]byte, stampSizeMax+1)),
	} {
		_, err := decodeValue(b, p, wire.DefaultLimits)
		assert.ErrorIs(t, err, errBadValue, name)
	}
}

func TestDiffListsChangedBlocks(t *testing.T) {
	old := voxel.Overlay{{Index: 1, Block: 1}, {Index: 5, Block: 2}}
	new := voxel.Overlay{{Index: 1, Block: 1}, {Index: 3, Block: 4}, {Index: 5, Block: 3}}
	assert.Equal(t, []voxel.Edit{{Index: 3, Block: 4}, {Index: 5, Block: 3}}, diff(old, new, nil))
	assert.Empty(t, diff(new, new, nil))
}

func TestRegionsCountChunks(t *testing.T) {
	rs := newRegions()
	a, b := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: 2}
	w := voxel.ChunkPos{X: -1}
	in, out := rs.update([]voxel.ChunkPos{a, b, w}, nil, nil, nil)
	assert.ElementsMatch(t, []Region{{0, 0}, {-1, 0}}, in)
	assert.Empty(t, out)
	in, out = rs.update(nil, []voxel.ChunkPos{a, w}, nil, nil)
	assert.Empty(t, in)
	assert.Equal(t, []Region{{-1, 0}}, out, "region 0 still holds b")
	_, out = rs.update(nil, []voxel.ChunkPos{b}, nil, nil)
	assert.Equal(t, []Region{{0, 0}}, out)
}

// FuzzDecodeValue: values come from a bucket other processes write; the
// decoder must reject garbage without panicking or allocating by declared
// length.
func FuzzDecodeValue(f *testing.F) {
	p := voxel.ChunkPos{X: 1, Y: 2, Z: 3}
	v, _, _ := chunkValue{pos: p}.with(voxel.BlockEdit{Pos: p, Index: 7, Block: voxel.Stone}, 9, 1)
	b, _ := v.encode(wire.NewEncoder())
	f.Add(b)
	// A window with older requests placed, and one stamp of each format.
	for _, seq := range []uint32{5, 3, 70} {
		v, _, _ = v.with(voxel.BlockEdit{Pos: p, Index: uint16(seq), Block: voxel.Sand}, 9, seq)
	}
	b, _ = v.encode(wire.NewEncoder())
	f.Add(b)
	old, _ := wire.NewEncoder().AppendFrame(nil, &wire.ChunkEdits{Pos: p, Edits: v.overlay}, wire.ChunkCap)
	f.Add(append(old, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1))
	f.Add([]byte{0, 0, 0, 1, 0x90, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeValue(b, p, wire.DefaultLimits)
		if err != nil {
			return
		}
		out, err := v.encode(wire.NewEncoder())
		require.NoError(t, err)
		again, err := decodeValue(out, p, wire.DefaultLimits)
		require.NoError(t, err)
		require.Equal(t, v, again)
	})
}
