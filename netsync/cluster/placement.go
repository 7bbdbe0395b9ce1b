package cluster

import (
	"cmp"
	"slices"
)

// placementView is what one server knows when it decides which regions to
// take and give away: the live servers (sorted), each region's live owner,
// every live server's players per region, and which of its own regions
// have been quiet (no players, no edits) long enough to release.
type placementView struct {
	self    uint32
	live    []uint32
	owner   map[Region]uint32
	players map[Region]map[uint32]int
	quiet   map[Region]bool
	// settling: regions whose owner changed within giveCooldown, not
	// handed on for balance yet.
	settling map[Region]bool
}

// move is one change of a lease: to self takes r, to 0 releases it, to
// another server hands it over.
type move struct {
	r  Region
	to uint32
}

// plan is the placement policy, pure so it is tested by table:
//
//   - Take: a region with our players and no live owner is taken by the
//     server with most players there (ties: the lower load, then the
//     lower slot), so servers racing for it agree; others leave it.
//   - Give: a server's load is the players in the regions it owns (every
//     server's players: once handed over they are all its own). While it
//     is above the fair share (all players over live servers, rounded up)
//     it hands one region to the least loaded server, the one whose move
//     best evens the two, and only if the pair ends strictly more even
//     (the receiver stays below the giver's old load), so no region
//     bounces back and every move lowers the sum of squared loads. A
//     region that changed owner lately (settling) is not handed on: the
//     servers' views of the loads disagree until its players are counted
//     where they went.
//   - Release: an owned region quiet for a while is let go.
//
// One give per round: the loads it is judged on change only once the
// moved region's lease is seen.
func plan(v placementView) []move {
	var out []move
	load := map[uint32]int{}
	total := 0
	for r, per := range v.players {
		n := 0
		for _, c := range per {
			n += c
		}
		total += n
		if o, ok := v.owner[r]; ok {
			load[o] += n
		}
	}
	for _, r := range sortedRegions(v.players) {
		if _, owned := v.owner[r]; owned || v.players[r][v.self] == 0 {
			continue
		}
		if takerOf(v.players[r], load, v.live) == v.self {
			out = append(out, move{r: r, to: v.self})
		}
	}
	for _, r := range sortedRegions(v.quiet) {
		if v.quiet[r] && v.owner[r] == v.self {
			out = append(out, move{r: r, to: 0})
		}
	}
	if len(v.live) < 2 || total == 0 {
		return out
	}
	fair := (total + len(v.live) - 1) / len(v.live)
	mine := load[v.self]
	if mine <= fair {
		return out
	}
	to, best, gap := uint32(0), Region{}, -1
	for _, s := range v.live {
		if s == v.self {
			continue
		}
		for _, r := range sortedRegions(v.players) {
			if v.owner[r] != v.self || v.settling[r] {
				continue
			}
			p := 0
			for _, c := range v.players[r] {
				p += c
			}
			if p == 0 || load[s]+p >= mine {
				continue
			}
			g := abs((mine - p) - (load[s] + p))
			// The most even pair; ties: the receiver already has players
			// there (fewer handovers), then the lower load, slot, region.
			if gap < 0 || g < gap || (g == gap && v.players[r][s] > v.players[best][to]) ||
				(g == gap && v.players[r][s] == v.players[best][to] && load[s] < load[to]) {
				to, best, gap = s, r, g
			}
		}
	}
	if gap >= 0 {
		out = append(out, move{r: best, to: to})
	}
	return out
}

// takerOf is the live server that should take an ownerless region: most
// players there, then the lower load, then the lower slot.
func takerOf(per map[uint32]int, load map[uint32]int, live []uint32) uint32 {
	var best uint32
	for _, s := range live {
		if per[s] == 0 {
			continue
		}
		if best == 0 || per[s] > per[best] || (per[s] == per[best] && load[s] < load[best]) {
			best = s
		}
	}
	return best
}

func sortedRegions[V any](m map[Region]V) []Region {
	rs := make([]Region, 0, len(m))
	for r := range m {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b Region) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Z, b.Z)) })
	return rs
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
