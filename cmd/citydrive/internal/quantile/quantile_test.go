package quantile

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The rank rule on small samples 1..n, where the figure is its rank.
func TestNearestRank(t *testing.T) {
	for _, tc := range []struct {
		n    int
		q    float64
		want float64
	}{
		{1, 0, 1}, {1, 0.5, 1}, {1, 0.99, 1}, {1, 1, 1},
		{2, 0, 1}, {2, 0.5, 1}, {2, 0.51, 2}, {2, 0.99, 2}, {2, 1, 2},
		{3, 0.5, 2}, {3, 0.99, 3},
		{4, 0.25, 1}, {4, 0.5, 2}, {4, 0.75, 3}, {4, 0.99, 4},
		{5, 0.5, 3}, {5, 0.2, 1}, {5, 0.21, 2},
		{10, 0.5, 5}, {10, 0.9, 9}, {10, 0.99, 10},
		{100, 0.5, 50}, {100, 0.99, 99}, {100, 1, 100},
		{100, 0.07, 7},  // 0.07·100 is a hair over 7 in floats
		{100, 0.29, 29}, // and 0.29·100 a hair under 29
		{1000, 0.99, 990},
	} {
		v := make([]float64, tc.n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		assert.Equal(t, tc.want, Sorted(v, tc.q), "q %v of 1..%d", tc.q, tc.n)
	}
	assert.Zero(t, Sorted(nil, 0.99), "no samples")
	assert.Zero(t, Of(nil, 0.5))
}

// Of sorts a copy: the same figure as Sorted, the samples untouched.
func TestOfSortsACopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]float64, 257)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	orig := slices.Clone(v)
	sorted := slices.Sorted(slices.Values(v))
	for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 1} {
		assert.Equal(t, Sorted(sorted, q), Of(v, q), "q %v", q)
	}
	assert.Equal(t, orig, v)
	assert.Equal(t, sorted[len(sorted)-1], Of(v, 1), "q = 1 is the largest")
}
