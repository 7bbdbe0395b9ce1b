package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

func TestSplitRangesCutsIntoWholeTriangles(t *testing.T) {
	f, c := SplitRanges([]int32{0, 1000, 5000}, []int32{600, 3, 256}, 255, nil, nil)
	assert.Equal(t, []int32{0, 255, 510, 1000, 5000, 5255}, f)
	assert.Equal(t, []int32{255, 255, 90, 3, 255, 1}, c)
	f, c = SplitRanges([]int32{9}, []int32{7}, 2, f[:0], c[:0])
	assert.Equal(t, []int32{9, 12, 15}, f, "at least a triangle a piece")
	assert.Equal(t, []int32{3, 3, 1}, c)
}

// Whatever the ranges, the pieces cover exactly the same vertices in the
// same order, none longer than allowed.
func TestSplitRangesCoversTheSameVertices(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 20).Draw(t, "ranges")
		var first, count []int32
		at := int32(0)
		for i := 0; i < n; i++ {
			at += rapid.Int32Range(0, 500).Draw(t, "gap")
			k := rapid.Int32Range(1, 3000).Draw(t, "count")
			first, count = append(first, at), append(count, k)
			at += k
		}
		most := rapid.Int32Range(1, 1000).Draw(t, "most")
		f, c := SplitRanges(first, count, most, nil, nil)
		var want, got []int32
		for i := range first {
			for v := first[i]; v < first[i]+count[i]; v++ {
				want = append(want, v)
			}
		}
		limit := max(most-most%3, 3)
		for i := range f {
			if c[i] > limit || c[i] <= 0 {
				t.Fatalf("piece %d has %d vertices (most %d)", i, c[i], limit)
			}
			for v := f[i]; v < f[i]+c[i]; v++ {
				got = append(got, v)
			}
		}
		assert.Equal(t, want, got)
	})
}
