package netsync

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
	"citydrive/voxel/plan"
)

func cyl(c voxel.ChunkPos, r int32) []voxel.ChunkPos { return plan.Cylinder(c, r, nil) }

func TestAreaSubscribeLoadsAndDrops(t *testing.T) {
	o := voxel.ChunkPos{}
	east := voxel.ChunkPos{X: 1}
	const max = 2
	type sub struct {
		centre voxel.ChunkPos
		asked  uint32
	}
	cases := []struct {
		name      string
		first     sub  // subscribed, then every chunk of it delivered
		deliver   bool // deliver the first area before the second subscribe
		second    sub
		changed   bool
		entered   []voxel.ChunkPos // any order here; near-first checked below
		left      []voxel.ChunkPos
		drops     []voxel.ChunkPos
		pending   int
		holdsEast bool
	}{
		{name: "same subscription is no change", first: sub{o, 1}, deliver: true, second: sub{o, 1}, holdsEast: true},
		{name: "asked above the maximum is served at the maximum, same as max",
			first: sub{o, max}, deliver: true, second: sub{o, 9}, holdsEast: true},
		{name: "move east: what entered loads, what left goes silently",
			first: sub{o, 1}, deliver: true, second: sub{east, 1}, changed: true,
			entered: []voxel.ChunkPos{{X: 2}, {X: 1, Z: 1}, {X: 1, Z: -1}},
			left:    []voxel.ChunkPos{{X: -1}, {Z: 1}, {Z: -1}},
			pending: 3, holdsEast: true},
		{name: "shrink below what the client asked: ChunkDrop for the served-out chunks it still asked for",
			first: sub{o, 2}, deliver: true, second: sub{o, 1}, changed: true,
			left: diff(cyl(o, 2), cyl(o, 1)), drops: nil, holdsEast: true},
		{name: "undelivered chunks that leave need no drop",
			first: sub{o, 1}, second: sub{east, 1}, changed: true,
			entered: []voxel.ChunkPos{{X: 2}, {X: 1, Z: 1}, {X: 1, Z: -1}},
			left:    []voxel.ChunkPos{{X: -1}, {Z: 1}, {Z: -1}},
			pending: 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newArea()
			var ch areaChange
			require.True(t, a.subscribe(tc.first.centre, tc.first.asked, max, &ch))
			if tc.deliver {
				a.pending = a.pending[:0] // every chunk delivered
			}
			got := a.subscribe(tc.second.centre, tc.second.asked, max, &ch)
			assert.Equal(t, tc.changed, got)
			assert.ElementsMatch(t, tc.entered, ch.entered, "entered")
			assert.ElementsMatch(t, tc.left, ch.left, "left")
			assert.ElementsMatch(t, tc.drops, ch.drops, "drops")
			if tc.changed {
				assert.Len(t, a.pending, tc.pending)
				assert.True(t, slices.IsSortedFunc(a.pending, func(x, y voxel.ChunkPos) int {
					return plan.Compare(tc.second.centre, x, y)
				}), "pending near-first")
				assert.True(t, slices.IsSortedFunc(ch.entered, func(x, y voxel.ChunkPos) int {
					return plan.Compare(tc.second.centre, x, y)
				}), "entered near-first")
			}
			assert.Equal(t, tc.holdsEast, a.holds(east))
			for _, p := range ch.left {
				assert.False(t, a.holds(p), "a chunk that left is not held: no edits, no broadcasts")
			}
		})
	}
}

// The server serving less than asked is the one case that needs drops:
// the client keeps everything inside its own Subscribe.
func TestAreaDropsWhatOnlyTheServerShrank(t *testing.T) {
	a := newArea()
	var ch areaChange
	o := voxel.ChunkPos{}
	a.subscribe(o, 2, 2, &ch)
	a.pending = a.pending[:0] // every chunk delivered
	// Same centre and asked radius, smaller maximum (a server reconfigured
	// between ticks is how the tick sees it).
	require.True(t, a.subscribe(o, 2, 1, &ch))
	want := diff(cyl(o, 2), cyl(o, 1))
	assert.ElementsMatch(t, want, ch.drops)
	assert.ElementsMatch(t, want, ch.left)
	assert.Empty(t, a.pending, "everything still served was delivered")
}

func TestAreaLeaveReleasesEverything(t *testing.T) {
	a := newArea()
	var ch areaChange
	a.subscribe(voxel.ChunkPos{}, 1, 4, &ch)
	a.pending = a.pending[1:] // the nearest, the centre, delivered
	require.True(t, a.holds(voxel.ChunkPos{}))
	left := a.leave(nil)
	assert.ElementsMatch(t, cyl(voxel.ChunkPos{}, 1), left)
	assert.False(t, a.holds(voxel.ChunkPos{}))
	assert.False(t, a.covers(voxel.ChunkPos{}))
}

func TestAreaCoversTheServedCylinder(t *testing.T) {
	a := newArea()
	var ch areaChange
	assert.False(t, a.covers(voxel.ChunkPos{}), "not subscribed")
	a.subscribe(voxel.ChunkPos{}, 9, 2, &ch)
	assert.True(t, a.covers(voxel.ChunkPos{X: 2}))
	assert.True(t, a.covers(voxel.ChunkPos{Y: 1}))
	assert.False(t, a.covers(voxel.ChunkPos{X: 3}), "served radius, not the asked one")
	assert.False(t, a.covers(voxel.ChunkPos{Y: 2}))
}

func diff(a, b []voxel.ChunkPos) []voxel.ChunkPos {
	var out []voxel.ChunkPos
	for _, p := range a {
		if !slices.Contains(b, p) {
			out = append(out, p)
		}
	}
	return out
}

// The area against a model that keeps explicit sets (the pre-issue-12
// implementation): the same changes, the same near-first pending list,
// the same held chunks, over random moves, radius changes and deliveries.
func TestAreaMatchesSetModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := newArea()
		var ch areaChange
		desired := map[voxel.ChunkPos]bool{}
		sent := map[voxel.ChunkPos]bool{}
		var pending []voxel.ChunkPos
		for range rapid.IntRange(1, 12).Draw(t, "steps") {
			if len(pending) > 0 && rapid.Bool().Draw(t, "deliver") {
				k := rapid.IntRange(0, len(pending)).Draw(t, "k")
				for _, p := range pending[:k] {
					sent[p] = true
				}
				pending = pending[k:]
				a.pending = a.pending[k:]
			}
			c := voxel.ChunkPos{X: rapid.Int32Range(-4, 4).Draw(t, "x"), Y: rapid.Int32Range(-2, 2).Draw(t, "y"), Z: rapid.Int32Range(-4, 4).Draw(t, "z")}
			asked := rapid.Uint32Range(0, 6).Draw(t, "asked")
			maxR := rapid.Uint32Range(1, 5).Draw(t, "max")
			r := int32(min(asked, maxR))
			next := map[voxel.ChunkPos]bool{}
			for _, p := range plan.Cylinder(c, r, nil) {
				next[p] = true
			}
			var left, entered, drops []voxel.ChunkPos
			for p := range desired {
				if !next[p] {
					left = append(left, p)
					if sent[p] && plan.InCylinder(c, int32(asked), p) {
						drops = append(drops, p)
					}
					delete(sent, p)
				}
			}
			for p := range next {
				if !desired[p] {
					entered = append(entered, p)
				}
			}
			changed := a.subscribe(c, asked, maxR, &ch)
			if !changed {
				require.Empty(t, left)
				require.Empty(t, entered)
				continue
			}
			desired = next
			pending = pending[:0]
			for _, p := range plan.NearFirst(c, plan.Cylinder(c, r, nil)) {
				if !sent[p] {
					pending = append(pending, p)
				}
			}
			require.ElementsMatch(t, left, ch.left, "left")
			require.ElementsMatch(t, entered, ch.entered, "entered")
			require.ElementsMatch(t, drops, ch.drops, "drops")
			require.Equal(t, plan.NearFirst(c, slices.Clone(ch.entered)), ch.entered, "entered near-first")
			require.Equal(t, append([]voxel.ChunkPos{}, pending...), append([]voxel.ChunkPos{}, a.pending...), "pending near-first")
			for _, p := range plan.Cylinder(voxel.ChunkPos{}, 8, nil) {
				require.Equal(t, sent[p] && desired[p], a.holds(p), "holds %v", p)
			}
		}
	})
}
