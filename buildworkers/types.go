// Package buildworkers builds item geometry off the main goroutine: worker
// goroutines with their own road-graph mirrors, fed by id-keyed change sets
// on the same ordered channel as their build requests; stale results are
// rejected; when workers fail, the main goroutine builds. The Streamer ties
// walker, slot table and pool together on three clocks.
package buildworkers

import (
	"time"

	"citydrive/buildworkers/citygen"
	"citydrive/roadgraph"
	"citydrive/slots"
	"citydrive/walker"
)

// Builder turns one item into geometry. It must be a pure function of the
// world seed, the graph as it sees it, the item and the origin, so a worker
// and the main goroutine produce the same bytes. One Builder per goroutine.
type Builder interface {
	// Build returns false ("missing") when g no longer holds the item.
	Build(g *roadgraph.Graph, it walker.Item, origin [3]float64) (Output, bool)
}

// Output is one built item. Verts, Trees and Obstacles may point into the
// builder's scratch: valid until its next Build.
type Output struct {
	Verts      []uint32 // Count vertices, slots.WordsPerVertex words each
	Count      int
	Bounds     slots.Bounds   // world metres
	Trees      []Tree         // instanced by the renderer
	Obstacles  []slots.Bounds // collision boxes, world metres
	Simplified bool           // detail was dropped to fit the slot
}

// Tree is one tree instance: position relative to the item's origin.
type Tree = citygen.Tree

// Request asks for item geometry for a slot under a given claim.
type Request struct {
	ID     uint64
	Slot   int32
	Claim  uint32
	Item   walker.Item
	Origin [3]float64
	Sent   time.Time // game time of the dispatch (read when paced)
}

// Result is a worker's answer. Verts is a compact copy the receiver owns
// until it hands it back with Pool.Recycle.
type Result struct {
	Request
	Worker     int
	Missing    bool // the worker's mirror does not hold the item
	Failed     bool // the builder panicked (Err says why)
	Err        string
	Verts      []uint32
	Count      int
	Bounds     slots.Bounds
	Trees      []Tree
	Obstacles  []slots.Bounds
	Simplified bool
	Took       time.Duration // the worker's wall time for this build
}

// BuilderFunc adapts a function to Builder.
type BuilderFunc func(g *roadgraph.Graph, it walker.Item, origin [3]float64) (Output, bool)

// Build calls f.
func (f BuilderFunc) Build(g *roadgraph.Graph, it walker.Item, origin [3]float64) (Output, bool) {
	return f(g, it, origin)
}
