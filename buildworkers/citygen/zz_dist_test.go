package citygen

import (
	"fmt"
	"testing"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/walker"
)

func TestZZDist(t *testing.T) {
	for _, seed := range []uint64{99, 412, 5} {
		g := roadgraph.New(world.New(seed))
		j := g.JunctionNear(world.Vec2{})
		g.EnsureJunctionArms(j)
		e := j.Arms[0]
		wk, _ := walker.New(walker.DefaultParams())
		items := wk.Walk(g, e.Nodes[1], e.Tangent(1))
		b := NewBuilder(g.World(), 7200)
		hist := map[string][2]int{}
		for _, it := range items {
			r, _ := b.Build(g, it, [3]float64{})
			k := "junction"
			if it.Kind == walker.Segment {
				ed := g.Edge(it.Edge)
				p := ed.Nodes[it.Seg]
				k = g.World().District(p.X, p.Z).String()
				if g.World().Height(p.X, p.Z) < 0.2 {
					k = "water"
				}
			}
			h := hist[k]
			h[0]++
			h[1] += r.Count
			hist[k] = h
		}
		for k, h := range hist {
			fmt.Println(seed, k, h[0], h[1]/h[0])
		}
	}
}
