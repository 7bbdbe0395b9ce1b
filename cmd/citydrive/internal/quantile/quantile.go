// Package quantile is the one rank rule behind every sample quantile the
// commands report: the soak's, the bench's and the bots' p50s and p99s,
// and the sweep's, which are its soaks'. Each figure is one of the samples
// (no interpolation), chosen by the nearest rank.
package quantile

import (
	"math"
	"slices"
)

// rankSlack keeps q·n an integer where it is one in exact arithmetic: in
// floats 0.07·100 is 7.000000000000001, whose ceiling is a rank too high.
const rankSlack = 1e-9

// Sorted is the q quantile (0 ≤ q ≤ 1) of samples sorted ascending, by the
// nearest rank: the smallest sample with at least q·n of the n samples at
// or below it, sorted[⌈q·n⌉−1], or the first sample when q·n < 1. So the
// p50 of 4 samples is the 2nd, the p99 of 100 the 99th and of 1000 the
// 990th, and q = 1 is the largest. 0 when there are no samples.
func Sorted(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(n) - rankSlack))
	return sorted[min(max(k, 1), n)-1]
}

// Of is Sorted for samples in any order; it sorts a copy and leaves v as
// it is.
func Of(v []float64, q float64) float64 {
	return Sorted(slices.Sorted(slices.Values(v)), q)
}
