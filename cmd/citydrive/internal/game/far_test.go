package game

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/render/scene"
	"citydrive/slots"
)

// The near mask marks the cells under near bounds (centres inside), and a
// far slot is skipped only when every block under it is fully marked.
func TestNearMaskAndFarSkip(t *testing.T) {
	f := &farView{}
	m := &f.mask
	m.N, m.Cell, m.Cells = maskN, maskCell, make([]uint8, maskN*maskN)
	m.OriginX, m.OriginZ = -512, -512
	near := slots.Bounds{Min: [3]float64{-100, 0, -100}, Max: [3]float64{100, 10, 100}}
	markBounds(m, near)
	at := func(x, z float64) uint8 { return m.Cells[int((z+512)/4)*maskN+int((x+512)/4)] }
	assert.Equal(t, uint8(1), at(0, 0))
	assert.Equal(t, uint8(1), at(-99, 99))
	assert.Equal(t, uint8(0), at(-103, 0), "outside the bounds")
	assert.Equal(t, uint8(0), at(150, 150))
	// full blocks, as updateMask computes them
	nb := maskN / blockCells
	f.full = make([]bool, nb*nb)
	for bj := 0; bj < nb; bj++ {
		for bi := 0; bi < nb; bi++ {
			all := true
			for j := bj * blockCells; j < (bj+1)*blockCells; j++ {
				for i := bi * blockCells; i < (bi+1)*blockCells; i++ {
					all = all && m.Cells[j*maskN+i] != 0
				}
			}
			f.full[bj*nb+bi] = all
		}
	}
	assert.True(t, f.underNear(slots.Bounds{Min: [3]float64{-60, 0, -60}, Max: [3]float64{60, 5, 60}}), "wholly under near items")
	assert.False(t, f.underNear(slots.Bounds{Min: [3]float64{-60, 0, -60}, Max: [3]float64{120, 5, 60}}), "sticks out: drawn, the mask hides the covered part")
	assert.False(t, f.underNear(slots.Bounds{Min: [3]float64{-900, 0, 0}, Max: [3]float64{-800, 5, 10}}), "outside the mask")
	var _ scene.NearMask = *m
}
