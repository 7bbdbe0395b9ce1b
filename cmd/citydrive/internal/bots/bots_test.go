package bots

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

// A bot reports the height a player's car would have: on a bridge, the
// deck, not the water under it.
func TestBotRidesTheRoadSurface(t *testing.T) {
	w := world.New(412)
	surf := world.NewSurfaceCache(w)
	var deck world.Vec2
	found := false
	for i := int32(-40); i < 40 && !found; i++ {
		for j := int32(-40); j < 40 && !found; j++ {
			if e, ok := w.Edge(world.EdgeID(world.Cell{I: i, J: j}, world.DirX)); ok {
				nodes := w.EdgeNodes(e, nil)
				if m := nodes[len(nodes)/2]; w.IsWater(m.X, m.Z) {
					deck, found = m, true
				}
			}
		}
	}
	require.True(t, found, "a bridge near the origin")
	ch, y := chunkAt(surf, deck)
	assert.InDelta(t, world.WaterLevel+world.DeckClear, y, 1e-9, "on the deck")
	want, _ := voxel.ChunkOf(int64(math.Floor(deck.X)), int64(math.Floor(y)), int64(math.Floor(deck.Z)))
	assert.Equal(t, want, voxel.ChunkPos(ch))
	assert.Equal(t, surf.Surface(deck.X, deck.Z).Y, y)
}
