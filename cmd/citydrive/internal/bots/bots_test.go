package bots

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/netsync/wire"
	"citydrive/roadgraph/world"
	"citydrive/slots"
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
	assert.Equal(t, want, ch)
	assert.Equal(t, surf.Surface(deck.X, deck.Z).Y, y)
}

// A bot facing a direction reports the heading the game's car has when it
// faces the same way, so other players see it pointing where it drives.
func TestBotHeadingMatchesTheGame(t *testing.T) {
	pos := world.Vec2{X: 10, Z: -20}
	for _, deg := range []float64{0, 30, 90, 135, 180, 225, 270, 300} {
		a := deg * math.Pi / 180
		dir := world.Vec2{X: math.Cos(a), Z: math.Sin(a)}
		game := car.New(pos, dir, flatRoad{})
		want := wire.QuantiseCar(0, 0, pos.X, 0, pos.Z, game.Heading, 30)
		got := snapshot(pos, 0, dir, 30)
		assert.Equal(t, want.Heading, got.Heading, "direction %v°", deg)
		// And the heading points along dir, as the game's Forward reads it.
		f := game.Forward()
		assert.InDelta(t, dir.X, f.X, 1e-9)
		assert.InDelta(t, dir.Z, f.Z, 1e-9)
	}
}

// flatRoad is an endless flat road with nothing on it.
type flatRoad struct{}

func (flatRoad) Surface(_, _ float64) world.Surface { return world.Surface{Road: true} }
func (flatRoad) AppendObstacles(dst []slots.Obstacle, _, _, _ float64) []slots.Obstacle {
	return dst
}
func (flatRoad) Solid(_, _, _ int64) bool { return false }
