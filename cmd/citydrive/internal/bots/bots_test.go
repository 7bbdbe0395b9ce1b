package bots

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/netsync/wire"
	"citydrive/roadgraph/world"
)

// A bot facing a direction reports the heading the game's car has when it
// faces the same way, so other players see it pointing where it drives.
func TestBotHeadingMatchesTheGame(t *testing.T) {
	flat := func(x, z float64) float64 { return 0 }
	pos := world.Vec2{X: 10, Z: -20}
	for _, deg := range []float64{0, 30, 90, 135, 180, 225, 270, 300} {
		a := deg * math.Pi / 180
		dir := world.Vec2{X: math.Cos(a), Z: math.Sin(a)}
		game := car.New(pos, dir, flat)
		want := wire.QuantiseCar(0, 0, pos.X, 0, pos.Z, game.Heading, 30)
		got := snapshot(pos, 0, dir, 30)
		assert.Equal(t, want.Heading, got.Heading, "direction %v°", deg)
		// And the heading points along dir, as the game's Forward reads it.
		f := game.Forward()
		assert.InDelta(t, dir.X, f.X, 1e-9)
		assert.InDelta(t, dir.Z, f.Z, 1e-9)
	}
}
