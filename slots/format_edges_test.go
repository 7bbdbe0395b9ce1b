package slots

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/walker"
)

// Out of range clamps at both ends of every axis (a top clamp one step too
// far would carry into the next field).
func TestPositionClampsAtTheTopOfEveryAxis(t *testing.T) {
	x, y, z := UnpackPos(PackPos(-1e6, 1e6, 1e6))
	assert.InDelta(t, -PosRangeXZ, x, 0.01)
	assert.InDelta(t, PosRangeY, y, 0.01)
	assert.InDelta(t, PosRangeXZ, z, 0.01)
}

// Every palette entry survives packing (the index is -(red+1) rounded),
// and a plain zero red is a colour, not a palette entry.
func TestPaletteIndicesRoundTrip(t *testing.T) {
	for i := range PaletteSize {
		w := PackColour(PaletteRed(i), 0.5, 0.25)
		assert.Equal(t, uint32(i+1), w>>24, "entry %d", i)
		assert.Equal(t, uint32(0), w&0xff, "entry %d: no red of its own", i)
	}
	w := PackColour(0, 0.5, 0.25)
	assert.Equal(t, uint32(0), w>>24, "red 0 is black, not palette entry 0")
}

// EncodeWide encodes as many vertices as both sides hold: all of wide into
// a larger dst, as many as dst holds of a longer wide.
func TestEncodeWideStopsAtTheShorterSide(t *testing.T) {
	wide := make([]float32, 3*FloatsPerVertex)
	for i := range 3 {
		wide[i*FloatsPerVertex] = float32(i + 1) // x
	}
	big := make([]uint32, 10*WordsPerVertex)
	require.Equal(t, 3, EncodeWide(big, wide))
	x, _, _ := UnpackPos(big[2*WordsPerVertex], big[2*WordsPerVertex+1])
	assert.InDelta(t, 3, x, 0.01)
	assert.Equal(t, uint32(0), big[3*WordsPerVertex], "nothing past the input")
	small := make([]uint32, 2*WordsPerVertex)
	assert.Equal(t, 2, EncodeWide(small, wide))
}

// Each slot's obstacles live in their own part of the shared backing
// array: filling one slot leaves the others' as they were.
func TestSlotsKeepTheirOwnObstacles(t *testing.T) {
	tab, _ := newTable(t, 3, 36)
	tab.Sync([]walker.Item{item(128, 0), item(256, 1), item(384, 2)})
	box := func(k ObstacleKind, x float64) Obstacle { return BoxObstacle([2]float64{x, 0}, 0, 1, 1, 0, 2, k) }
	var slots [3]int32
	for i, key := range []int64{128, 256, 384} {
		s, ok := tab.SlotOf(key)
		require.True(t, ok)
		slots[i] = s
	}
	for i, s := range slots {
		tab.SetObstacles(s, []int64{128, 256, 384}[i], []Obstacle{box(ObstacleBuilding, float64(10*i)), box(ObstacleParkedCar, float64(10*i+1))})
	}
	for i, s := range slots {
		got := tab.Obstacles(s)
		require.Len(t, got, 2, "slot %d", s)
		assert.Equal(t, box(ObstacleBuilding, float64(10*i)), got[0], "slot %d", s)
		assert.Equal(t, box(ObstacleParkedCar, float64(10*i+1)), got[1], "slot %d", s)
	}
}
