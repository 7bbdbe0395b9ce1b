package webgl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRowRunsCoverTheTexelsRowByRow(t *testing.T) {
	const w = 8
	for _, c := range []struct{ first, n int }{{0, 0}, {0, 8}, {3, 2}, {6, 5}, {5, 20}, {16, 1}} {
		seen := make([]int, 0, c.n)
		for _, r := range runsOf(c.first, c.n, w) {
			assert.LessOrEqual(t, r[0]+r[3], w, "a run stays in its row: %v", r)
			assert.Equal(t, len(seen), r[2], "runs follow each other")
			for k := range r[3] {
				seen = append(seen, r[1]*w+r[0]+k)
			}
		}
		want := make([]int, 0, c.n)
		for i := range c.n {
			want = append(want, c.first+i)
		}
		assert.Equal(t, want, seen, "first %d, n %d", c.first, c.n)
	}
	assert.Equal(t, [][4]int{{6, 0, 0, 2}, {0, 1, 2, 8}, {0, 2, 10, 1}}, runsOf(6, 11, w))
}

func runsOf(first, n, w int) [][4]int {
	var out [][4]int
	rowRuns(first, n, w, func(x, y, from, count int) { out = append(out, [4]int{x, y, from, count}) })
	return out
}
