package bots

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

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
