package world

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestIDsRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := Cell{
			I: rapid.Int32Range(-MaxCellCoord, MaxCellCoord).Draw(rt, "i"),
			J: rapid.Int32Range(-MaxCellCoord, MaxCellCoord).Draw(rt, "j"),
		}
		require.Equal(rt, c, JunctionCell(JunctionID(c)))
		for _, d := range []Dir{DirX, DirZ} {
			id := EdgeID(c, d)
			got, gd := EdgeOrigin(id)
			require.Equal(rt, c, got)
			require.Equal(rt, d, gd)
			// Item keys edgeID*128+seg stay positive int64s.
			require.Less(t, id, uint64(math.MaxInt64/MaxSegments))
		}
	})
}

func TestArmsAreSymmetric(t *testing.T) {
	w := New(412)
	for i := int32(-15); i < 15; i++ {
		for j := int32(-15); j < 15; j++ {
			c := Cell{i, j}
			for _, e := range w.Arms(c, nil) {
				require.True(t, e.A == c || e.B == c)
				other := e.B
				if other == c {
					other = e.A
				}
				found := false
				for _, f := range w.Arms(other, nil) {
					found = found || f.ID == e.ID
				}
				require.True(t, found, "%v is an arm of both ends", e)
				spec, ok := w.Edge(e.ID)
				require.True(t, ok)
				require.Equal(t, e, spec)
			}
		}
	}
}

func TestEdgeNodesAreShortEvenAndPure(t *testing.T) {
	w := New(7)
	n := 0
	for i := int32(-10); i < 10; i++ {
		for j := int32(-10); j < 10; j++ {
			for _, e := range w.Arms(Cell{i, j}, nil) {
				a := w.EdgeNodes(e, nil)
				b := New(7).EdgeNodes(e, make([]Vec2, 0, 3))
				require.Equal(t, a, b)
				require.Less(t, len(a)-1, MaxSegments)
				pa, _ := w.Junction(e.A)
				pb, _ := w.Junction(e.B)
				assert.Equal(t, pa, a[0])
				assert.Equal(t, pb, a[len(a)-1])
				for k := 1; k < len(a); k++ {
					require.LessOrEqual(t, a[k].Sub(a[k-1]).Len(), SegmentLength+0.01, "a segment is 4.2 m to a centimetre")
				}
				n++
			}
		}
	}
	assert.Greater(t, n, 100)
}

func TestTerrainIsSmoothAndHasLakeAndLand(t *testing.T) {
	w := New(412)
	water, land := 0, 0
	for x := -3000.0; x < 3000; x += 25 {
		for z := -3000.0; z < 3000; z += 25 {
			h := w.Height(x, z)
			if w.IsWater(x, z) {
				water++
			} else {
				land++
			}
			// Roads drape on the terrain: slopes stay gentle.
			dh := math.Abs(w.Height(x+1, z) - h)
			require.Less(t, dh, 0.25, "slope at %v,%v", x, z)
		}
	}
	assert.Greater(t, water, land/10, "a city on a lake")
	assert.Greater(t, land, water/2)
}

func TestDistrictsVary(t *testing.T) {
	w := New(412)
	seen := map[District]bool{}
	for x := -5000.0; x < 5000; x += 100 {
		for z := -5000.0; z < 5000; z += 100 {
			seen[w.District(x, z)] = true
		}
	}
	assert.Len(t, seen, 4)
}

func TestCacheAgreesWithWorld(t *testing.T) {
	w := New(99)
	c := NewCache(w)
	for round := 0; round < 2; round++ { // the second round answers from the cache
		for i := int32(-12); i < 12; i++ {
			for j := int32(-12); j < 12; j++ {
				cell := Cell{i, j}
				p1, ok1 := w.Junction(cell)
				p2, ok2 := c.Junction(cell)
				require.Equal(t, ok1, ok2)
				require.Equal(t, p1, p2)
				a1, a2 := w.Arms(cell, nil), c.Arms(cell, nil)
				require.Equal(t, a1, a2)
				for _, e := range a1 {
					require.Equal(t, w.EdgeNodes(e, nil), c.EdgeNodes(e, nil))
				}
				for _, d := range []Dir{DirX, DirZ} {
					e1, ok1 := w.Edge(EdgeID(cell, d))
					e2, ok2 := c.Edge(EdgeID(cell, d))
					require.Equal(t, ok1, ok2)
					require.Equal(t, e1, e2)
				}
			}
		}
	}
}
