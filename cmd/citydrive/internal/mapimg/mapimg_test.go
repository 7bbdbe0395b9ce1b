package mapimg

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

func TestDrawShowsCarRoadsAndOccupancy(t *testing.T) {
	w := world.New(412)
	g := roadgraph.New(w)
	j := g.JunctionNear(world.Vec2{})
	g.EnsureJunctionArms(j)
	e := j.Arms[0]
	car, heading := e.Nodes[e.Segments()/2], e.Tangent(e.Segments()/2)
	wk, err := walker.New(walker.DefaultParams(), slots.DefaultSlots)
	require.NoError(t, err)
	items := wk.Walk(g, car, heading)
	states := map[int64]SlotState{items[0].Key: SlotBuilt, items[len(items)-1].Key: SlotPending}
	img := Draw(Scene{World: w, Graph: g, Visible: items, Slots: states, Car: car, Heading: heading,
		Centre: car, Size: 200, Scale: 3, MaxCost: 760})
	require.Equal(t, 200, img.Bounds().Dx())
	c := img.RGBAAt(100, 100)
	assert.Equal(t, uint8(255), c.R, "the car is drawn at the centre")
	colours := map[[3]uint8]bool{}
	for y := 0; y < 200; y++ {
		for x := 0; x < 200; x++ {
			p := img.RGBAAt(x, y)
			colours[[3]uint8{p.R, p.G, p.B}] = true
		}
	}
	assert.Greater(t, len(colours), 20, "terrain, water, roads and the cost ramp")
	s := Scene{MaxCost: 760}
	assert.NotEqual(t, s.itemColour(walker.Item{Cost: 0}), s.itemColour(walker.Item{Cost: 700}), "cost is coloured")
	s.Slots = states
	assert.Equal(t, s.itemColour(walker.Item{Key: items[len(items)-1].Key}), s.itemColour(walker.Item{Key: items[len(items)-1].Key, Cost: 5}), "pending items are drawn pale whatever their cost")
}
