package wire

import (
	"bytes"
	"compress/flate"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// cylinder lists the chunks of a subscription around base.
func cylinder(base voxel.ChunkPos, r int32) map[voxel.ChunkPos]bool {
	set := map[voxel.ChunkPos]bool{}
	for dy := -r / 2; dy <= r/2; dy++ {
		for dz := -r; dz <= r; dz++ {
			for dx := -r; dx <= r; dx++ {
				if dx*dx+dz*dz <= r*r {
					set[voxel.ChunkPos{X: base.X + dx, Y: base.Y + dy, Z: base.Z + dz}] = true
				}
			}
		}
	}
	return set
}

func flated(t *testing.T, raw []byte) int {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	require.NoError(t, err)
	_, err = w.Write(raw)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Len()
}

// Frames are not compressed, and this is the measurement behind it
// (docs/networking.md): driving, the chunk stream carries one slab of
// defaults per chunk crossed, well under the few hundred bytes where
// compressing starts to pay; only a whole new area (join, teleport) is
// bigger, once.
func TestChunkDefaultsSizesAndCompression(t *testing.T) {
	base := voxel.ChunkPos{X: 1234, Z: -987}
	for _, r := range []int32{4, 8} {
		old, now := cylinder(base, r), cylinder(voxel.ChunkPos{X: base.X + 1, Z: base.Z}, r)
		slab := &ChunkDefaults{Base: voxel.ChunkPos{X: base.X + 1, Z: base.Z}}
		area := &ChunkDefaults{Base: base}
		for p := range now {
			if !old[p] {
				slab.Pos = append(slab.Pos, p)
			}
		}
		for p := range old {
			area.Pos = append(area.Pos, p)
		}
		enc := NewEncoder()
		rawSlab, err := enc.Append(nil, slab)
		require.NoError(t, err)
		rawArea, err := enc.Append(nil, area)
		require.NoError(t, err)
		t.Logf("radius %d: crossing slab %d chunks %d B (flate %d B); whole area %d chunks %d B (flate %d B)",
			r, len(slab.Pos), len(rawSlab), flated(t, rawSlab), len(area.Pos), len(rawArea), flated(t, rawArea))
		assert.LessOrEqual(t, len(rawSlab), 12+3*len(slab.Pos), "3 bytes a chunk")
		if r == 4 {
			assert.Less(t, len(rawSlab), 200, "a crossing at the game's radius stays small")
		}
	}
}
