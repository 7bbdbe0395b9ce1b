package citygen

import (
	"testing"

	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// What the renderer's packed world programs (render.Passes.Pack, the
// software GL profile) take from a triangle's provoking vertex alone is
// the same at its three vertices: the colour (word 2), the normal, the
// material and variant (word 3) and the street frame's half-width, lamp
// flags and occlusion (word 5). And each program's material branches
// cover its items: far items hold no windows, lamps or signals, near ones
// no far facades.
func TestFacesAreFlatWhereThePackedProgramsAssumeIt(t *testing.T) {
	check := func(t *testing.T, r Result, far bool) {
		for v := 0; v+2 < r.Count; v += 3 {
			w := r.Verts[v*slots.WordsPerVertex:]
			for k := 1; k < 3; k++ {
				u := w[k*slots.WordsPerVertex:]
				require.Equal(t, w[3], u[3], "vertex %d of triangle %d: normal, material or variant differ", k, v/3)
				require.Equal(t, w[5], u[5], "vertex %d of triangle %d: street frame's width, lamps or occlusion differ", k, v/3)
				require.Equal(t, w[2], u[2], "vertex %d of triangle %d: colour differs", k, v/3)
			}
			m := int(w[3] >> 16 & 0xff)
			if far {
				require.NotContains(t, []int{slots.MaterialWindow, slots.MaterialLamp, slots.MaterialSignal}, m, "far item")
			} else {
				require.NotEqual(t, slots.MaterialFarFacade, m, "near item")
			}
		}
	}
	for _, seed := range []uint64{99, 412, 7} {
		g, items, o := drive(t, seed)
		b := NewBuilder(g.World(), slots.DefaultVertsPerSlot)
		for _, it := range items {
			r, ok := b.Build(g, it, o)
			require.True(t, ok)
			check(t, r, false)
		}
		w := world.New(seed)
		car, _ := w.Junction(world.Cell{I: 3, J: 0})
		fw, err := walker.NewFar(w, walker.DefaultFarParams(), slots.DefaultFarSlots)
		require.NoError(t, err)
		fb := NewBuilder(w, slots.DefaultVertsPerSlot)
		for _, it := range fw.Walk(car, world.Vec2{Z: 1}) {
			it.Seg = slots.DefaultFarVertsPerSlot
			r, ok := fb.Build(nil, it, [3]float64{})
			require.True(t, ok)
			check(t, r, true)
		}
	}
}
