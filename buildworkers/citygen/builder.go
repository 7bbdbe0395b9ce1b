// Package citygen builds the geometry of one streamed item — a 4.2 m road
// segment with everything beside it, or one junction — in the slot vertex
// format. It is pure: the output is a function of the world seed, the graph
// as the caller's copy holds it, the item and the origin, so a worker's
// mirror and the main goroutine produce the same bytes. A Builder owns
// reusable scratch buffers and must not be shared between goroutines.
package citygen

import (
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// Result is one built item. Verts, Trees and Obstacles alias the builder's
// scratch: they are valid until the builder's next Build; copy what you keep.
type Result struct {
	Verts      []uint32         // Count vertices, slots.WordsPerVertex words each
	Count      int              // vertices; always ≤ the builder's maxVerts
	Bounds     slots.Bounds     // world metres, contains every vertex
	Trees      []slots.Tree     // instances, relative to the origin
	Obstacles  []slots.Obstacle // collision shapes, world metres
	Simplified bool             // detail was dropped so the item fits its slot
	Level      int              // detail level used (0 = full; see docs/geometry.md)
}

// Detail levels, tried in order until an item fits its slot.
const (
	levelFull     = iota // everything
	levelNoTrim          // no ledges, mullions, sills, shingles, pickets
	levelMerged          // window bands merged over floors, no furniture/cars
	levelMassing         // plain building masses, one window band per face
	levelRoadOnly        // road surface, kerbs, sidewalks and lot ground
	levelCount
)

// scratchFactor sizes the scratch relative to the slot: builds are measured
// in full even past it (counting continues), so this only bounds memory.
const scratchFactor = 3

// Builder builds items. One per goroutine.
type Builder struct {
	w        world.World
	lat      *world.Cache // the network rule per block: uncached, a junction costs a block
	maxVerts int
	wr       writer
	trees    []slots.Tree
	obst     []slots.Obstacle
	level    int

	farNodes []world.Vec2 // far items' centre line (far.go)

	// roads is the lattice's roads around the solids placed (solid.go)
	roads roadMemo

	// per-build state
	g *roadgraph.Graph
}

// NewBuilder returns a builder for world w whose results hold at most
// maxVerts vertices (the slot size; slots.DefaultVertsPerSlot by default).
func NewBuilder(w world.World, maxVerts int) *Builder {
	if maxVerts < 1 {
		maxVerts = slots.DefaultVertsPerSlot
	}
	limit := max(maxVerts*scratchFactor, 16384)
	b := &Builder{w: w, lat: world.NewCache(w), maxVerts: maxVerts, roads: newRoadMemo()}
	b.wr.buf = make([]uint32, limit*slots.WordsPerVertex)
	b.wr.dbuf = make([]uint32, limit*slots.WordsPerVertex)
	b.wr.limit = limit
	b.trees = make([]slots.Tree, 0, 256)
	b.obst = make([]slots.Obstacle, 0, 256)
	return b
}

// MaxVerts is the slot size this builder fits results into.
func (b *Builder) MaxVerts() int { return b.maxVerts }

// Build builds item it from graph g with positions relative to origin. It
// returns false when g does not hold the item's edge or junction ("missing":
// the caller builds it elsewhere). The result never holds more than maxVerts
// vertices: an item that would is rebuilt at lower detail levels and marked
// Simplified; it is never truncated.
func (b *Builder) Build(g *roadgraph.Graph, it walker.Item, origin [3]float64) (Result, bool) {
	if it.Kind == walker.Far {
		return b.buildFar(it, origin)
	}
	var e *roadgraph.Edge
	var j *roadgraph.Junction
	switch it.Kind {
	case walker.Segment:
		e = g.Edge(it.Edge)
		if e == nil || it.Seg < 0 || int(it.Seg) >= e.Segments() {
			return Result{}, false
		}
	case walker.Junction:
		j = g.Junction(it.Junction)
		if j == nil {
			return Result{}, false
		}
	default:
		return Result{}, false
	}
	b.g = g
	b.wr.details = true // small triangles last: see slots/detail.go
	defer func() { b.wr.details = false }()
	for level := levelFull; level < levelCount; level++ {
		b.level = level
		b.wr.reset(origin)
		b.trees = b.trees[:0]
		b.obst = b.obst[:0]
		if e != nil {
			b.buildSegment(e, int(it.Seg))
		} else {
			b.buildJunction(j)
		}
		if b.wr.n <= b.maxVerts {
			break
		}
	}
	b.g = nil
	return b.result(b.level, b.maxVerts), true
}

// result is the item just written at detail level: its vertices (detail
// triangles last), their bounds in world metres, its trees and obstacles.
// When even that level needs more than limit vertices (the road alone
// overflows a tiny slot) it is empty, never a cut item.
func (b *Builder) result(level, limit int) Result {
	res := Result{Trees: b.trees, Obstacles: b.obst, Level: level, Simplified: level > levelFull}
	if b.wr.n > limit {
		res.Trees, res.Obstacles = b.trees[:0], b.obst[:0]
		return res
	}
	b.wr.finish()
	res.Count = b.wr.n
	res.Verts = b.wr.buf[:b.wr.n*slots.WordsPerVertex]
	if res.Count > 0 {
		o := b.wr.origin
		res.Bounds = slots.Bounds{
			Min: [3]float64{b.wr.min[0] + o.x, b.wr.min[1] + o.y, b.wr.min[2] + o.z},
			Max: [3]float64{b.wr.max[0] + o.x, b.wr.max[1] + o.y, b.wr.max[2] + o.z},
		}
	}
	return res
}

// tree records a tree instance at world (x, y, z).
func (b *Builder) tree(p vec3, scale, variant float64) {
	o := b.wr.origin
	b.trees = append(b.trees, slots.Tree{
		Pos:     [3]float32{float32(p.x - o.x), float32(p.y - o.y), float32(p.z - o.z)},
		Scale:   float32(scale),
		Variant: float32(variant),
	})
}

// obstacle records the box [u0,u1]×[y0,y1]×[v0,v1] of frame f as an
// oriented collision box of the given kind, turned as it is drawn. Only
// solid calls it, and the building masses after their clear (several
// segments draw a mass; the one owning its centre records it).
func (b *Builder) obstacle(f *frame, u0, u1, y0, y1, v0, v1 float64, kind slots.ObstacleKind) {
	c := f.xz((u0+u1)/2, (v0+v1)/2)
	b.obst = append(b.obst, slots.Obstacle{
		Centre: [2]float64{c.X, c.Z},
		Axis:   [2]float64{f.a.X, f.a.Z},
		Half:   [2]float64{(u1 - u0) / 2, (v1 - v0) / 2},
		Y0:     y0, Y1: y1,
		Kind: kind,
	})
}

// hash is the builder's seeded randomness.
func (b *Builder) hash(salt, x, y, z int64) float64 { return b.w.Hash01(salt, x, y, z) }

// Salts for Hash01: every independent choice gets its own.
const (
	saltLotWidth = 1000 + iota
	saltLotKind
	saltBuilding
	saltWindow
	saltTree
	saltCar
	saltRoof
	saltField
	saltKerbCar
	saltFurniture
)
