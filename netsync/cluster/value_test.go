package cluster

import (
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
	v, dup := v.with(voxel.BlockEdit{Pos: p, Index: 3, Block: voxel.Stone}, 7, 1)
	require.False(t, dup)
	v, dup = v.with(voxel.BlockEdit{Pos: p, Index: 3, Block: voxel.Air}, 8, 1) // another player
	require.False(t, dup)
	again, dup := v.with(voxel.BlockEdit{Pos: p, Index: 3, Block: voxel.Stone}, 7, 1) // the retry
	require.True(t, dup)
	assert.Equal(t, voxel.Overlay{{Index: 3, Block: voxel.Air}}, again.overlay)
	v, dup = v.with(voxel.BlockEdit{Pos: p, Index: 4, Block: voxel.Stone}, 7, 2)
	require.False(t, dup)

	b, err := v.encode(wire.NewEncoder())
	require.NoError(t, err)
	got, err := decodeValue(b, p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, v, got)
	_, err = decodeValue(b, voxel.ChunkPos{}, wire.DefaultLimits)
	assert.Error(t, err, "a value under another chunk's key")

	// The stamps are bounded: the oldest player is forgotten.
	for i := range uint64(maxStamps + 5) {
		v, _ = v.with(voxel.BlockEdit{Pos: p, Index: 9, Block: voxel.Stone}, 100+i, 1)
	}
	assert.Len(t, v.stamps, maxStamps)
	assert.Equal(t, uint64(100+maxStamps+4), v.stamps[maxStamps-1].player)
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
	v, _ := chunkValue{pos: p}.with(voxel.BlockEdit{Pos: p, Index: 7, Block: voxel.Stone}, 9, 1)
	b, _ := v.encode(wire.NewEncoder())
	f.Add(b)
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
