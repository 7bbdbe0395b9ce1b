// Package citygen builds the geometry of one streamed item — a 4.2 m road
// segment with everything beside it, or one junction — in the slot vertex
// format. It is pure: the output is a function of the world seed, the graph
// as the caller's copy holds it, the item and the origin, so a worker's
// mirror and the main goroutine produce the same bytes. A Builder owns
// reusable scratch buffers and must not be shared between goroutines.
package citygen

import (
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// Tree is one tree instance for the renderer: position relative to the
// build origin, a scale and a variant in [0,1). The layout matches
// buildworkers.Tree so values convert directly.
type Tree struct {
	Pos     [3]float32
	Scale   float32
	Variant float32
}

// Result is one built item. Verts, Trees and Obstacles alias the builder's
// scratch: they are valid until the builder's next Build; copy what you keep.
type Result struct {
	Verts      []uint32       // Count vertices, slots.WordsPerVertex words each
	Count      int            // vertices; always ≤ the builder's maxVerts
	Bounds     slots.Bounds   // world metres, contains every vertex
	Trees      []Tree         // instances, relative to the origin
	Obstacles  []slots.Bounds // collision boxes, world metres
	Simplified bool           // detail was dropped so the item fits its slot
	Level      int            // detail level used (0 = full; see docs/geometry.md)
}

// Lamp flags carried in the street frame's third float
// (halfWidth + flags*slots.LampFlagScale).
const (
	LampLeft     = slots.LampLeft     // lamps stand on the left kerb every LampSpacing m of "along"
	LampRight    = slots.LampRight    // ... and on the right kerb
	LampJunction = slots.LampJunction // a junction with traffic lights (lit from the centre)
	LampBridge   = slots.LampBridge   // the segment is on a bridge deck (lamps on the rails)
)

// LampSpacing is the distance between lamps along a road; a lamp stands at
// every multiple of it (distance from the edge's A end), away from junctions.
const LampSpacing = slots.LampSpacing

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
	maxVerts int
	wr       writer
	trees    []Tree
	obst     []slots.Bounds
	level    int

	farNodes []world.Vec2 // far items' centre line (far.go)

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
	b := &Builder{w: w, maxVerts: maxVerts}
	b.wr.buf = make([]uint32, limit*slots.WordsPerVertex)
	b.wr.limit = limit
	b.trees = make([]Tree, 0, 256)
	b.obst = make([]slots.Bounds, 0, 256)
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
	res := Result{Trees: b.trees, Obstacles: b.obst, Level: b.level, Simplified: b.level > levelFull}
	if b.wr.n > b.maxVerts {
		// Even the road alone does not fit (a slot below a few dozen
		// vertices): hand back nothing rather than a cut item.
		res.Trees, res.Obstacles = b.trees[:0], b.obst[:0]
		return res, true
	}
	res.Count = b.wr.n
	res.Verts = b.wr.buf[:b.wr.n*slots.WordsPerVertex]
	if res.Count > 0 {
		o := b.wr.origin
		res.Bounds = slots.Bounds{
			Min: [3]float64{b.wr.min[0] + o.x, b.wr.min[1] + o.y, b.wr.min[2] + o.z},
			Max: [3]float64{b.wr.max[0] + o.x, b.wr.max[1] + o.y, b.wr.max[2] + o.z},
		}
	}
	return res, true
}

// tree records a tree instance at world (x, y, z).
func (b *Builder) tree(p vec3, scale, variant float64) {
	o := b.wr.origin
	b.trees = append(b.trees, Tree{
		Pos:     [3]float32{float32(p.x - o.x), float32(p.y - o.y), float32(p.z - o.z)},
		Scale:   float32(scale),
		Variant: float32(variant),
	})
}

// obstacle records the world bounds of a box in frame f.
func (b *Builder) obstacle(f *frame, u0, u1, y0, y1, v0, v1 float64) {
	bb := slots.Bounds{Min: [3]float64{math.Inf(1), y0, math.Inf(1)}, Max: [3]float64{math.Inf(-1), y1, math.Inf(-1)}}
	for _, uv := range [4][2]float64{{u0, v0}, {u1, v0}, {u0, v1}, {u1, v1}} {
		p := f.xz(uv[0], uv[1])
		bb.Min[0], bb.Max[0] = math.Min(bb.Min[0], p.X), math.Max(bb.Max[0], p.X)
		bb.Min[2], bb.Max[2] = math.Min(bb.Min[2], p.Z), math.Max(bb.Max[2], p.Z)
	}
	b.obst = append(b.obst, bb)
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
