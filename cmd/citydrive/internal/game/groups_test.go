package game

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/scene"
	"citydrive/slots"
)

// Slots go to the group of their origin, with bounds relative to it; a
// slot of one origin more than the groups hold is refused, and a reset
// starts over.
func TestOriginGroups(t *testing.T) {
	var o originGroups
	a, b, c := [3]float64{0, 0, 0}, [3]float64{2048, 0, 0}, [3]float64{0, 0, 4096}
	box := slots.Bounds{Min: [3]float64{2050, 1, 3}, Max: [3]float64{2060, 5, 9}}
	require.NotNil(t, o.add(a, 1, 30, box))
	d := o.add(b, 2, 60, box)
	require.NotNil(t, d)
	assert.Equal(t, scene.SlotDraw{Slot: 2, Count: 60, Min: mgl32.Vec3{2, 1, 3}, Max: mgl32.Vec3{12, 5, 9}}, *d)
	d.Age = 1.5 // the caller completes the draw in place
	require.NotNil(t, o.add(a, 3, 90, box))
	require.Equal(t, 2, scene.MaxGroups, "the case below fills the groups")
	assert.Nil(t, o.add(c, 4, 90, box), "a third origin waits for its rebuild")

	g := o.groups()
	require.Len(t, g, 2)
	assert.Equal(t, mgl64.Vec3(a), g[0].Origin)
	assert.Equal(t, []int{1, 3}, slotsOf(g[0]))
	assert.Equal(t, mgl64.Vec3(b), g[1].Origin)
	assert.Equal(t, []int{2}, slotsOf(g[1]))
	assert.Equal(t, float32(1.5), g[1].Slots[0].Age)

	o.reset()
	assert.Empty(t, o.groups())
	require.NotNil(t, o.add(c, 5, 6, box))
	g = o.groups()
	require.Len(t, g, 1)
	assert.Equal(t, mgl64.Vec3(c), g[0].Origin)
	assert.Equal(t, []int{5}, slotsOf(g[0]))
}

func slotsOf(g scene.Group) []int {
	var out []int
	for _, d := range g.Slots {
		out = append(out, d.Slot)
	}
	return out
}
