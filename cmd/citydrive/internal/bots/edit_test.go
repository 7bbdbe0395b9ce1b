package bots

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

// A bot edits blocks around its car, on both sides and at road level: up
// to 8 m off along X and Z, from 3 m below the surface to 1 m above it.
func TestBotEditsNearItsCar(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p, y := world.Vec2{X: 100.5, Z: -40.25}, 12.3
	minX, maxX := int64(math.MaxInt64), int64(math.MinInt64)
	minZ, maxZ := minX, maxX
	minY, maxY := minX, maxX
	for range 2000 {
		x, by, z := editNear(rng, p, y)
		assert.GreaterOrEqual(t, x, int64(math.Floor(p.X-8)))
		assert.LessOrEqual(t, x, int64(math.Floor(p.X+8)))
		assert.GreaterOrEqual(t, z, int64(math.Floor(p.Z-8)))
		assert.LessOrEqual(t, z, int64(math.Floor(p.Z+8)))
		assert.GreaterOrEqual(t, by, int64(math.Floor(y-3)))
		assert.LessOrEqual(t, by, int64(math.Floor(y+1)))
		minX, maxX = min(minX, x), max(maxX, x)
		minZ, maxZ = min(minZ, z), max(maxZ, z)
		minY, maxY = min(minY, by), max(maxY, by)
	}
	// Spread over the whole box, not bunched at one corner.
	assert.Equal(t, [2]int64{92, 108}, [2]int64{minX, maxX})
	assert.Equal(t, [2]int64{-49, -33}, [2]int64{minZ, maxZ})
	assert.Equal(t, [2]int64{9, 13}, [2]int64{minY, maxY})
}

// A bot places every kind of block but air.
func TestBotPlacesEveryBlockButAir(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	seen := map[voxel.Block]bool{}
	for range 1000 {
		b := editBlock(rng)
		assert.True(t, b.Valid(), "block %d", b)
		assert.NotEqual(t, voxel.Air, b)
		seen[b] = true
	}
	assert.Len(t, seen, int(voxel.NumBlocks-1))
}

// An acknowledged edit counts as lost unless its block holds it or a
// later edit of the same block; the records round-trip through a file.
func TestCheckEditsFindsTheLostOnes(t *testing.T) {
	p := voxel.ChunkPos{X: 1}
	edits := []Edit{
		{Bot: 0, Seq: 1, Pos: p, Index: 1, Block: voxel.Stone, Acked: true}, // stored
		{Bot: 0, Seq: 2, Pos: p, Index: 2, Block: voxel.Stone, Acked: true}, // overwritten by its own later one
		{Bot: 0, Seq: 3, Pos: p, Index: 2, Block: voxel.Sand, Acked: false},
		{Bot: 1, Seq: 1, Pos: p, Index: 3, Block: voxel.Stone, Acked: true}, // lost: the block holds nobody's
		{Bot: 1, Seq: 2, Pos: p, Index: 4, Block: voxel.Stone, Acked: true}, // lost: not stored at all
	}
	var buf bytes.Buffer
	require.NoError(t, Report{Bots: []Bot{{Edits: edits}}}.WriteEdits(&buf))
	back, err := ReadEdits(&buf, 100)
	require.NoError(t, err)
	require.Equal(t, edits, back)
	stored := map[uint16]voxel.Block{1: voxel.Stone, 2: voxel.Sand, 3: voxel.Sand}
	l := CheckEdits(back, func(q voxel.ChunkPos, i uint16) (voxel.Block, bool) {
		b, ok := stored[i]
		return b, ok && q == p
	})
	assert.Equal(t, 4, l.Acked)
	assert.Equal(t, []Edit{edits[3], edits[4]}, l.Lost)

	_, err = ReadEdits(strings.NewReader(`{"i":40000}`), 100)
	assert.ErrorContains(t, err, "out of range")
	_, err = ReadEdits(strings.NewReader("{}\n{}\n"), 1)
	assert.ErrorContains(t, err, "more than 1")
}
