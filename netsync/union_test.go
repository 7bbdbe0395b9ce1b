package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"citydrive/voxel"
)

func TestUnionReportsChangesOnce(t *testing.T) {
	a, b, c := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: 2}, voxel.ChunkPos{X: 3}
	type op struct {
		ref bool
		p   voxel.ChunkPos
	}
	ref := func(p voxel.ChunkPos) op { return op{true, p} }
	unref := func(p voxel.ChunkPos) op { return op{false, p} }
	cases := []struct {
		name           string
		before, ops    []op // before: flushed already
		added, removed []voxel.ChunkPos
		size           int
	}{
		{name: "first ref adds", ops: []op{ref(a), ref(b)}, added: []voxel.ChunkPos{a, b}, size: 2},
		{name: "second ref is silent", before: []op{ref(a)}, ops: []op{ref(a)}, size: 1},
		{name: "unref of a shared chunk is silent", before: []op{ref(a), ref(a)}, ops: []op{unref(a)}, size: 1},
		{name: "last unref removes", before: []op{ref(a), ref(a)}, ops: []op{unref(a), unref(a)}, removed: []voxel.ChunkPos{a}},
		{name: "added then removed within a tick is nothing", ops: []op{ref(a), unref(a)}},
		{name: "removed then re-added within a tick is nothing", before: []op{ref(a)}, ops: []op{unref(a), ref(a)}, size: 1},
		{name: "added, dropped, re-added: listed once, first order kept", ops: []op{ref(b), ref(a), unref(b), ref(b), ref(c)},
			added: []voxel.ChunkPos{b, a, c}, size: 3},
		{name: "removed, re-added, removed: listed once", before: []op{ref(a)}, ops: []op{unref(a), ref(a), unref(a)},
			removed: []voxel.ChunkPos{a}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnion()
			apply := func(ops []op) {
				for _, o := range ops {
					if o.ref {
						u.ref(o.p)
					} else {
						u.unref(o.p)
					}
				}
			}
			apply(tc.before)
			u.flush(func(_, _ []voxel.ChunkPos) {})
			apply(tc.ops)
			calls := 0
			var added, removed []voxel.ChunkPos
			u.flush(func(a, r []voxel.ChunkPos) {
				calls++
				added, removed = append(added, a...), append(removed, r...)
			})
			assert.Equal(t, tc.added, added, "added")
			assert.Equal(t, tc.removed, removed, "removed")
			if len(tc.added)+len(tc.removed) == 0 {
				assert.Zero(t, calls, "nothing changed: the world is not called")
			}
			assert.Equal(t, tc.size, u.len())
			u.flush(func(a, r []voxel.ChunkPos) { t.Errorf("second flush reported %v %v", a, r) })
		})
	}
}

// Random refs and unrefs against a plain count map: every flush reports
// exactly the membership changes since the previous one, and the union
// holds no brick nobody wants.
func TestUnionMatchesCountModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := newUnion()
		count := map[voxel.ChunkPos]int{}
		in := map[voxel.ChunkPos]bool{} // membership at the last flush
		for range rapid.IntRange(1, 8).Draw(t, "flushes") {
			for range rapid.IntRange(0, 30).Draw(t, "ops") {
				// Across brick boundaries, negative coordinates included.
				p := voxel.ChunkPos{X: rapid.Int32Range(-5, 5).Draw(t, "x"), Y: rapid.Int32Range(-1, 4).Draw(t, "y"), Z: rapid.Int32Range(-4, 0).Draw(t, "z")}
				if count[p] > 0 && rapid.Bool().Draw(t, "unref") {
					count[p]--
					u.unref(p)
				} else {
					count[p]++
					u.ref(p)
				}
			}
			var added, removed []voxel.ChunkPos
			u.flush(func(a, r []voxel.ChunkPos) { added, removed = append(added, a...), append(removed, r...) })
			var wantAdded, wantRemoved []voxel.ChunkPos
			for p, n := range count {
				switch {
				case n > 0 && !in[p]:
					wantAdded = append(wantAdded, p)
				case n == 0 && in[p]:
					wantRemoved = append(wantRemoved, p)
				}
				in[p] = n > 0
				require.Equal(t, n > 0, u.contains(p))
			}
			members := 0
			for _, on := range in {
				if on {
					members++
				}
			}
			require.Equal(t, members, u.len())
			// Memory follows the union: after a flush every brick held has
			// a chunk some client wants (live counts them), and an emptied
			// brick is kept only as a spare, all zero, for the next one.
			for k, b := range u.bricks {
				n := 0
				for _, c := range b.n {
					if c > 0 {
						n++
					}
				}
				require.Positive(t, n, "brick %v is empty but held", k)
				require.Equal(t, n, b.live, "brick %v", k)
			}
			for _, b := range u.spare {
				require.Equal(t, unionBrick{}, *b, "a spare brick is all zero")
			}
			require.ElementsMatch(t, wantAdded, added)
			require.ElementsMatch(t, wantRemoved, removed)
		}
	})
}

// A server whose players move on for days must not keep the bricks of
// every place they passed: the union frees what nobody wants and reuses
// it for the next area.
func TestUnionFreesWhatNobodyWants(t *testing.T) {
	u := newUnion()
	region := func(x0 int32, f func(voxel.ChunkPos)) {
		for x := x0; x < x0+8; x++ {
			for y := int32(-4); y < 4; y++ {
				for z := int32(0); z < 8; z++ {
					f(voxel.ChunkPos{X: x, Y: y, Z: z})
				}
			}
		}
	}
	region(0, u.ref)
	region(0, u.ref) // two clients
	u.flush(func(_, _ []voxel.ChunkPos) {})
	require.Len(t, u.bricks, 8)
	region(0, u.unref)
	u.flush(func(_, _ []voxel.ChunkPos) {})
	assert.Len(t, u.bricks, 8, "still wanted by one client")
	region(0, u.unref)
	u.flush(func(_, _ []voxel.ChunkPos) {})
	assert.Empty(t, u.bricks, "nobody wants them")
	assert.Len(t, u.spare, 8)
	region(100, u.ref)
	u.flush(func(_, _ []voxel.ChunkPos) {})
	assert.Len(t, u.bricks, 8)
	assert.Empty(t, u.spare, "the next area reuses them")
	assert.Equal(t, 8*8*8, u.len())
}
