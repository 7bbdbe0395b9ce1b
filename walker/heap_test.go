package walker

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/roadgraph/world"
)

// The heap hands back its entries by cost, then tie, whatever order they
// were pushed and popped in.
func TestHeapPopsInRankOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h minHeap[int]
	var pushed []entry[int]
	for i := range 500 {
		e := entry[int]{cost: float64(rng.IntN(20)), tie: uint64(rng.IntN(4)), v: i}
		h.push(e.cost, e.tie, e.v)
		pushed = append(pushed, e)
	}
	rank := func(e entry[int]) [2]float64 { return [2]float64{e.cost, float64(e.tie)} }
	var want, got [][2]float64
	for _, e := range pushed {
		want = append(want, rank(e))
	}
	slices.SortFunc(want, func(a, b [2]float64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for range pushed {
		cost, v := h.pop()
		assert.Equal(t, pushed[v].cost, cost, "entry %d comes back with its cost", v)
		got = append(got, rank(pushed[v]))
	}
	assert.Equal(t, want, got)
	assert.Empty(t, h)
}

// cellTie keeps the far walk's order of cells: by I, then J, negative
// before positive.
func TestCellTieOrdersCellsByIThenJ(t *testing.T) {
	cells := []world.Cell{{I: -3, J: -1}, {I: -3, J: 5}, {I: 0, J: 0}, {I: 0, J: 1}, {I: 2, J: -9}, {I: 1 << 30, J: -1 << 31}}
	for i := 1; i < len(cells); i++ {
		assert.Less(t, cellTie(cells[i-1]), cellTie(cells[i]), "%v before %v", cells[i-1], cells[i])
	}
}
