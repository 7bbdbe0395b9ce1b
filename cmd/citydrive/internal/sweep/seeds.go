package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxRuns bounds a sweep (seeds × hours): a typo such as 1-10000000 is an
// error at once rather than a week of soaking.
const MaxRuns = 100_000

// ParseSeeds reads a seed list: comma-separated seeds and inclusive
// ranges, "1-1000" or "1,5,7-9". Seeds are kept in the order given; a
// seed given twice, an empty item, a range that runs backwards and a
// list longer than max are errors.
func ParseSeeds(s string, max int) ([]uint64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no seeds: want a list such as 1-1000 or 1,5,7-9")
	}
	var seeds []uint64
	seen := map[uint64]bool{}
	for item := range strings.SplitSeq(s, ",") {
		lo, hi, err := parseSeedItem(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		// Checked before expanding, so a huge range costs nothing.
		if hi-lo >= uint64(max) || len(seeds)+int(hi-lo+1) > max {
			return nil, fmt.Errorf("more than %d seeds", max)
		}
		for seed := lo; ; seed++ {
			if seen[seed] {
				return nil, fmt.Errorf("seed %d is listed twice", seed)
			}
			seen[seed] = true
			seeds = append(seeds, seed)
			if seed == hi {
				break
			}
		}
	}
	return seeds, nil
}

// parseSeedItem reads "N" or "A-B" (A ≤ B).
func parseSeedItem(item string) (lo, hi uint64, err error) {
	if item == "" {
		return 0, 0, fmt.Errorf("empty item in the seed list")
	}
	a, b, isRange := strings.Cut(item, "-")
	lo, err = parseSeed(a, item)
	if err != nil || !isRange {
		return lo, lo, err
	}
	hi, err = parseSeed(b, item)
	if err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("seed range %q runs backwards", item)
	}
	return lo, hi, nil
}

func parseSeed(s, item string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad seed %q: want N or A-B with whole numbers ≥ 0", item)
	}
	return v, nil
}

// ParseHours reads a comma-separated list of times of day in [0, 24]
// (decimal hours: 17.5 is half past five); an hour given twice is an error.
func ParseHours(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no hours: want a list such as 0,17.5")
	}
	var hours []float64
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		h, err := strconv.ParseFloat(item, 64)
		if err != nil || math.IsNaN(h) || h < 0 || h > 24 {
			return nil, fmt.Errorf("bad hour %q: want a time of day in 0..24", item)
		}
		for _, prev := range hours {
			if prev == h {
				return nil, fmt.Errorf("hour %s is listed twice", item)
			}
		}
		hours = append(hours, h)
	}
	return hours, nil
}
