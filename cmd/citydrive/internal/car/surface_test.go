package car

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers/citygen"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// worldEnv is the real road surface with nothing in the way.
type worldEnv struct{ s *world.SurfaceCache }

func (e worldEnv) Surface(x, z float64) world.Surface { return e.s.Surface(x, z) }
func (e worldEnv) AppendObstacles(dst []slots.Obstacle, _, _, _ float64) []slots.Obstacle {
	return dst
}
func (e worldEnv) Solid(_, _, _ int64) bool { return false }

// drawnTop is the height of the highest road-top triangle of item it (as
// citygen builds it) over (x, z), if any.
func drawnTop(t *testing.T, b *citygen.Builder, g *roadgraph.Graph, it walker.Item, x, z float64) (float64, bool) {
	o := [3]float64{math.Round(x), 0, math.Round(z)}
	r, ok := b.Build(g, it, o)
	require.True(t, ok)
	top, found := math.Inf(-1), false
	for k := 0; k+2 < r.Count; k += 3 {
		v0 := slots.Decode(r.Verts[k*slots.WordsPerVertex:])
		if v0.Material != slots.MaterialRoad || v0.Normal[1] < 0.7 {
			continue
		}
		var p [3][3]float64
		for m := range 3 {
			v := slots.Decode(r.Verts[(k+m)*slots.WordsPerVertex:])
			for a := range 3 {
				p[m][a] = float64(v.Pos[a]) + o[a]
			}
		}
		if y, in := triangleHeight(p, x, z); in && y > top {
			top, found = y, true
		}
	}
	return top, found
}

func triangleHeight(p [3][3]float64, x, z float64) (float64, bool) {
	a, b, c := p[0], p[1], p[2]
	d := (b[2]-c[2])*(a[0]-c[0]) + (c[0]-b[0])*(a[2]-c[2])
	if math.Abs(d) < 1e-9 {
		return 0, false
	}
	l1 := ((b[2]-c[2])*(x-c[0]) + (c[0]-b[0])*(z-c[2])) / d
	l2 := ((c[2]-a[2])*(x-c[0]) + (a[0]-c[0])*(z-c[2])) / d
	l3 := 1 - l1 - l2
	if l1 < 0 || l2 < 0 || l3 < 0 {
		return 0, false
	}
	return l1*a[1] + l2*b[1] + l3*c[1], true
}

// TestCarRestsOnTheRoadThatIsDrawn parks a car on every kind of road
// (avenue, street, bridge deck, ramp, junction) on two seeds and checks it
// stands on the road top citygen draws under it, within 5 cm.
func TestCarRestsOnTheRoadThatIsDrawn(t *testing.T) {
	const tolerance = 0.05
	for _, seed := range []uint64{412, 7} {
		w := world.New(seed)
		g := roadgraph.New(w)
		g.EnsureAround(world.Vec2{})
		g.EnsureAround(bridgeSpan(t, w))
		b := citygen.NewBuilder(w, slots.DefaultVertsPerSlot)
		env := worldEnv{world.NewSurfaceCache(w)}
		seen := map[string]int{}
		park := func(kind string, it walker.Item, p, dir world.Vec2) {
			if seen[kind] >= 6 {
				return
			}
			top, ok := drawnTop(t, b, g, it, p.X, p.Z)
			if !ok {
				return // the junction's kerb corner, say: no road drawn here
			}
			c := New(p, dir, env)
			run(c, Input{}, env, 0.5, nil)
			require.Equal(t, p, c.Pos, "at rest it stays put")
			where := fmt.Sprintf("seed %d %s at (%.1f, %.1f)", seed, kind, p.X, p.Z)
			require.InDelta(t, top, c.Y, tolerance, where)
			require.True(t, c.Surface.Road, where)
			seen[kind]++
		}
		for _, e := range g.Edges() {
			if !e.A.Expanded || !e.B.Expanded {
				continue // its end junctions are not drawn yet
			}
			ra := w.JunctionRadiusAt(world.JunctionCell(e.A.ID))
			rb := w.JunctionRadiusAt(world.JunctionCell(e.B.ID))
			for i := 0; i < e.Segments(); i++ {
				y0, y1, h0, h1 := w.SegmentHeights(e.Nodes, i, ra, rb)
				kind := "street"
				switch {
				case h0 < world.WaterLevel && h1 < world.WaterLevel:
					kind = "bridge"
				case world.IsDeck(y0, y1, h0, h1) && h0 > world.WaterLevel+1 && h1 > world.WaterLevel+1:
					kind = "ramp"
				case e.HalfWidth >= world.AvenueHalfWidth:
					kind = "avenue"
				}
				// in the right-hand lane, in the middle of the segment
				t := e.Nodes[i+1].Sub(e.Nodes[i]).Norm()
				p := e.Nodes[i].Lerp(e.Nodes[i+1], 0.5).Add(roadgraph.Left(t).Scale(-e.HalfWidth / 2))
				park(kind, walker.Item{Kind: walker.Segment, Key: e.Key(i), Edge: e.ID, Seg: int32(i)}, p, t)
			}
		}
		for _, j := range g.Junctions() {
			if j.Expanded && len(j.Arms) > 0 {
				park("junction", walker.Item{Kind: walker.Junction, Key: roadgraph.JunctionKey(j.ID), Junction: j.ID}, j.Pos.Add(world.Vec2{X: 1.5, Z: -1}), world.Vec2{X: 1})
			}
		}
		t.Logf("seed %d: cars parked %v", seed, seen)
		for _, kind := range []string{"avenue", "street", "bridge", "ramp", "junction"} {
			assert.Positive(t, seen[kind], "seed %d: no car on a %s", seed, kind)
		}
	}
}

// bridgeSpan is a point over the lake on an edge of the lattice.
func bridgeSpan(t *testing.T, w world.World) world.Vec2 {
	for r := int32(0); r < 60; r++ {
		for i := -r; i <= r; i++ {
			for j := -r; j <= r; j++ {
				if max(i, -i, j, -j) != r {
					continue
				}
				if e, ok := w.Edge(world.EdgeID(world.Cell{I: i, J: j}, world.DirX)); ok {
					nodes := w.EdgeNodes(e, nil)
					if m := nodes[len(nodes)/2]; w.IsWater(m.X, m.Z) {
						return m
					}
				}
			}
		}
	}
	t.Fatal("no bridge within 60 cells")
	return world.Vec2{}
}
