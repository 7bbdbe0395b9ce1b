package raster

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func covered(ax, ay, bx, by, r float64, size int) map[[2]int]bool {
	got := map[[2]int]bool{}
	Capsule(ax, ay, bx, by, r, size, func(x, y int) { got[[2]int{x, y}] = true })
	return got
}

// A capsule covers the pixels whose centres lie within its radius of the
// segment, clipped to the picture; a radius under a pixel still draws.
func TestCapsuleCoversThePixelsWithinItsRadius(t *testing.T) {
	got := covered(2, 5.5, 8, 5.5, 1, 10)
	for x := 0; x < 10; x++ {
		for y := 0; y < 10; y++ {
			in := x >= 1 && x <= 8 && y >= 5 && y <= 5 || // along it
				(x >= 2 && x <= 7 && (y == 4 || y == 6)) // a pixel either side
			assert.Equal(t, in, got[[2]int{x, y}], "pixel %d,%d", x, y)
		}
	}
	assert.Len(t, covered(-5, -5, -3, -3, 1, 10), 0, "outside the picture")
	assert.Equal(t, map[[2]int]bool{{4, 4}: true}, covered(4.5, 4.5, 4.5, 4.5, 0.1, 10), "a dot")
}
