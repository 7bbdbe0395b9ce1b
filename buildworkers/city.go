package buildworkers

import (
	"citydrive/buildworkers/citygen"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/walker"
)

// cityBuilder adapts the city generator to Builder.
type cityBuilder struct{ b *citygen.Builder }

// NewCityBuilder returns the real geometry builder for world w, fitting
// results into maxVerts vertices (the slot size).
func NewCityBuilder(w world.World, maxVerts int) Builder {
	return cityBuilder{citygen.NewBuilder(w, maxVerts)}
}

func (c cityBuilder) Build(g *roadgraph.Graph, it walker.Item, origin [3]float64) (Output, bool) {
	return c.b.Build(g, it, origin)
}
