package citygen

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// TestKerbCarsStayOutOfTheLane builds the streets around the origin and
// checks every parked car at a kerb: turned with its street, it is as wide
// across the road as drawn and leaves the lane clear, however far the
// street is turned off the axes; an axis-aligned box around the same car
// (what obstacles used to be) reaches into the lane once the street turns
// by 10° or more.
func TestKerbCarsStayOutOfTheLane(t *testing.T) {
	w := world.New(412)
	g := roadgraph.New(w)
	g.EnsureAround(world.Vec2{})
	b := NewBuilder(w, slots.DefaultVertsPerSlot)
	kinds := map[slots.ObstacleKind]int{}
	kerbCars, turned := 0, 0
	for _, e := range g.Edges() {
		for i := 0; i < e.Segments(); i++ {
			if e.Nodes[i].Len() > 400 {
				continue
			}
			it := walker.Item{Kind: walker.Segment, Key: e.Key(i), Edge: e.ID, Seg: int32(i)}
			r, ok := b.Build(g, it, [3]float64{math.Round(e.Nodes[i].X), 0, math.Round(e.Nodes[i].Z)})
			require.True(t, ok)
			mid := e.Nodes[i].Lerp(e.Nodes[i+1], 0.5)
			along := e.Nodes[i+1].Sub(e.Nodes[i]).Norm()
			across := roadgraph.Left(along)
			for _, o := range r.Obstacles {
				kinds[o.Kind]++
				require.InDelta(t, 1, math.Hypot(o.Axis[0], o.Axis[1]), 1e-9)
				require.Less(t, o.Y0, o.Y1)
				c := world.Vec2{X: o.Centre[0], Z: o.Centre[1]}.Sub(mid)
				off := math.Abs(c.Dot(across))
				if o.Kind != slots.ObstacleParkedCar || math.Abs(off-(e.HalfWidth-kerbCarInset)) > 0.05 || math.Abs(c.Dot(along)) > 0.1 {
					continue // a yard car, not this segment's kerb car
				}
				kerbCars++
				dir := [2]float64{across.X, across.Z}
				require.InDelta(t, 0.9, o.Extent(dir), 1e-6, "as wide across its street as drawn")
				require.Greater(t, off-o.Extent(dir), laneReach, "clear of the lane")
				deg := math.Abs(math.Mod(math.Atan2(along.Z, along.X)*180/math.Pi, 90))
				deg = math.Min(deg, 90-deg)
				if deg >= 10 {
					turned++
					box := math.Abs(dir[0])*o.Extent([2]float64{1, 0}) + math.Abs(dir[1])*o.Extent([2]float64{0, 1})
					assert.Less(t, off-box, laneReach, "an axis-aligned box at %.0f° reaches into the lane", deg)
				}
			}
		}
	}
	t.Logf("obstacles by kind %v; kerb cars %d, on streets turned ≥ 10°: %d", kinds, kerbCars, turned)
	require.Positive(t, turned, "some streets are turned 10° or more")
	for _, k := range []slots.ObstacleKind{slots.ObstacleBuilding, slots.ObstacleParkedCar, slots.ObstacleFurniture} {
		assert.Positive(t, kinds[k], "%v", k)
	}
}
