package citygen

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// Far items: every edge of a far walk builds within the far slot, its
// vertices inside its bounds, roads on the palette, facades with window
// coordinates; the same item builds the same bytes.
func TestFarItemsFitAndAreCoarse(t *testing.T) {
	w := world.New(412)
	car, _ := w.Junction(world.Cell{I: 3, J: 0})
	fw, err := walker.NewFar(w, walker.DefaultFarParams(), slots.DefaultFarSlots)
	require.NoError(t, err)
	items := fw.Walk(car, world.Vec2{Z: 1})
	require.NotEmpty(t, items)
	b := NewBuilder(w, slots.DefaultVertsPerSlot)
	b2 := NewBuilder(w, slots.DefaultVertsPerSlot)
	origin := [3]float64{256 * float64(int(car.X/256)), 0, 256 * float64(int(car.Z/256))}
	total, most, facades, roads, simplified := 0, 0, 0, 0, 0
	for _, it := range items {
		it.Seg = slots.DefaultFarVertsPerSlot
		r, ok := b.Build(nil, it, origin)
		require.True(t, ok)
		require.LessOrEqual(t, r.Count, slots.DefaultFarVertsPerSlot)
		require.Zero(t, r.Count%3)
		if r.Simplified {
			simplified++
		}
		total += r.Count
		most = max(most, r.Count)
		eps := slots.PosMaxErrorMM/1000 + 1e-4
		for v := 0; v < r.Count; v++ {
			x := slots.Decode(r.Verts[v*slots.WordsPerVertex:])
			for k := 0; k < 3; k++ {
				p := float64(x.Pos[k]) + origin[k]
				require.GreaterOrEqual(t, p, r.Bounds.Min[k]-eps)
				require.LessOrEqual(t, p, r.Bounds.Max[k]+eps)
			}
			switch x.Material {
			case slots.MaterialRoad:
				require.Equal(t, slots.PaletteRoad, x.Palette)
				roads++
			case slots.MaterialFarFacade:
				require.GreaterOrEqual(t, x.Across, float32(-0.01), "height above the base")
				facades++
			}
			require.Zero(t, x.Lamps, "no lamps far out")
		}
		again, _ := b2.Build(nil, it, origin)
		require.Equal(t, r.Verts, again.Verts)
	}
	t.Logf("%d far items: %d vertices (avg %d, max %d), %d simplified, %d road and %d facade vertices",
		len(items), total, total/len(items), most, simplified, roads, facades)
	assert.Greater(t, facades, 0)
	assert.Greater(t, roads, 0)
	// A missing edge is "missing".
	_, ok := b.Build(nil, walker.Item{Kind: walker.Far}, origin)
	assert.False(t, ok)
}

func BenchmarkBuildFar(b *testing.B) {
	w := world.New(412)
	car, _ := w.Junction(world.Cell{I: 3, J: 0})
	fw, _ := walker.NewFar(w, walker.DefaultFarParams(), slots.DefaultFarSlots)
	items := fw.Walk(car, world.Vec2{Z: 1})
	bd := NewBuilder(w, slots.DefaultVertsPerSlot)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it := items[i%len(items)]
		it.Seg = slots.DefaultFarVertsPerSlot
		bd.Build(nil, it, [3]float64{})
	}
}
