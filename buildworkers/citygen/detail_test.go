package citygen

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/slots"
)

func triArea(verts []uint32, v int) float64 {
	var p [3][3]float64
	for k := 0; k < 3; k++ {
		o := (v + k) * slots.WordsPerVertex
		x, y, z := slots.UnpackPos(verts[o], verts[o+1])
		p[k] = [3]float64{float64(x), float64(y), float64(z)}
	}
	a := [3]float64{p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]}
	c := [3]float64{p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]}
	x, y, z := a[1]*c[2]-a[2]*c[1], a[2]*c[0]-a[0]*c[2], a[0]*c[1]-a[1]*c[0]
	return 0.5 * math.Sqrt(x*x+y*y+z*z)
}

// Near items put their small triangles last, marked as detail, whole
// triangles at a time; the coarse prefix keeps every large triangle, and far
// items have no details.
func TestNearItemsEndWithTheirDetails(t *testing.T) {
	g, items, o := drive(t, 412)
	b := NewBuilder(g.World(), slots.DefaultVertsPerSlot)
	total, coarse := 0, 0
	for _, it := range items {
		r, ok := b.Build(g, it, o)
		require.True(t, ok)
		c := slots.CoarseCount(r.Verts, r.Count)
		for v := 0; v < r.Count; v++ {
			require.Equal(t, v >= c, slots.IsDetail(r.Verts, v), "item %d vertex %d of %d (coarse %d): partitioned", it.Key, v, r.Count, c)
		}
		for v := 0; v+2 < r.Count; v += 3 {
			a := triArea(r.Verts, v)
			if v >= c {
				assert.Less(t, a, slots.DetailArea*1.05, "item %d detail triangle at %d (5 %% for the quantised positions)", it.Key, v)
			} else if a < slots.DetailArea/2 {
				coarse++ // small but not from a quad or triangle of the writer's (strips)
			}
		}
		total += r.Count
	}
	detail := 0
	for _, it := range items {
		r, _ := b.Build(g, it, o)
		detail += r.Count - slots.CoarseCount(r.Verts, r.Count)
	}
	share := float64(detail) / float64(total)
	t.Logf("%d vertices, %.0f%% detail; %d small coarse vertices", total, 100*share, coarse*3)
	assert.Greater(t, share, 0.4, "most vertices of a city item are small details")
	assert.Less(t, share, 0.9, "the coarse prefix keeps the masses")
}
