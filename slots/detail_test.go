package slots

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCoarseCountFindsTheFirstDetailVertex(t *testing.T) {
	verts := func(coarse, detail int) []uint32 {
		w := make([]uint32, (coarse+detail)*WordsPerVertex)
		for i := coarse; i < coarse+detail; i++ {
			w[i*WordsPerVertex+DetailWord] = DetailBit | 0x00ff_00ff // other bits stay
		}
		return w
	}
	for _, c := range []struct{ coarse, detail int }{{0, 0}, {3, 0}, {0, 3}, {3, 3}, {4200, 1800}, {6, 7194}} {
		n := c.coarse + c.detail
		assert.Equal(t, c.coarse, CoarseCount(verts(c.coarse, c.detail), n), "%d + %d", c.coarse, c.detail)
	}
	// A prefix ending inside a triangle is cut back to whole triangles.
	assert.Equal(t, 3, CoarseCount(verts(4, 2), 6))
	assert.Equal(t, 6, CoarseCount(verts(8, 1), 9))
	// Only the first count vertices are looked at.
	assert.Equal(t, 3, CoarseCount(verts(6, 3), 3))
	// Other bits of the word are not the detail bit.
	w := verts(6, 0)
	w[DetailWord] = 0xfeff_ffff
	assert.Equal(t, 6, CoarseCount(w, 6))
}
