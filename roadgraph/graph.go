// Package roadgraph holds the part of the endless road network that exists
// around the car: junctions and edges grown lazily from the pure lattice in
// package world, evicted when far away, with per-node side flags and id-keyed
// change sets that keep worker mirrors in step. It is pure policy: no
// goroutines, no GL.
package roadgraph

import (
	"math"
	"slices"

	"citydrive/roadgraph/world"
)

// SideFlags are two bits per node: which sides of the road must stay free of
// lots because another road runs there.
type SideFlags uint8

const (
	HideLeft  SideFlags = 1 << 0
	HideRight SideFlags = 1 << 1
	sideMask            = HideLeft | HideRight
)

// LotDepth is how far beyond the kerb lots (and buildings) reach; another
// road inside that band hides the side.
const LotDepth = 40.0

// Edge is a road between two junctions with its centre-line polyline.
// Segment i runs from Nodes[i] to Nodes[i+1].
type Edge struct {
	ID        uint64
	A, B      *Junction // A at Nodes[0], B at Nodes[len-1]
	Nodes     []world.Vec2
	Flags     []SideFlags // one per node
	HalfWidth float64
	Min, Max  world.Vec2 // bounding box of Nodes
	// Born is the graph's signature when the edge was loaded: edges with
	// Born above a signature you saw are new to you.
	Born uint64
}

// Segments is the number of items this edge yields.
func (e *Edge) Segments() int { return len(e.Nodes) - 1 }

// Key is the item key of segment i.
func (e *Edge) Key(i int) int64 { return SegmentKey(e.ID, i) }

// SegmentKey is the stable item key of segment i of edge id.
func SegmentKey(edgeID uint64, i int) int64 { return int64(edgeID)*world.MaxSegments + int64(i) }

// JunctionKey is the stable item key of a junction.
func JunctionKey(id uint64) int64 { return -int64(id) }

// Junction is where edges meet.
type Junction struct {
	ID  uint64
	Pos world.Vec2
	// Expanded is true once every lattice arm is loaded; eviction of an arm
	// clears it so the next walk regrows what is missing.
	Expanded bool
	Arms     []*Edge // loaded arms, in lattice order
}

// Graph is the loaded part of the road network. The zero value is not
// usable; call New (source graph) or NewMirror (fed by change sets).
type Graph struct {
	world     world.World
	lattice   *world.Cache // junction positions memoised: growth asks repeatedly
	edges     map[uint64]*Edge
	edgeList  []*Edge // sorted by id: deterministic iteration
	junctions map[uint64]*Junction
	junctList []*Junction // sorted by id
	signature uint64
	specs     []world.EdgeSpec // scratch of EnsureJunctionArms and JunctionNear
	armSpecs  []world.EdgeSpec // scratch of relinkArms (called inside the loops above)
	// Evicted edges and junctions are recycled (with their slices), so a
	// car driving on grows the graph without allocating in steady state.
	// Pointers to an evicted edge or junction are invalid after EvictFar.
	freeEdges  []*Edge
	freeJuncts []*Junction
}

// initialCapacity sizes maps and lists for a typical loaded neighbourhood.
const initialCapacity = 512

// New returns an empty graph grown from the world w. It allocates its
// working set up front (a few hundred kilobytes) so that growing and
// evicting while driving allocates nothing.
func New(w world.World) *Graph {
	g := &Graph{
		world:      w,
		lattice:    world.NewCache(w),
		edges:      make(map[uint64]*Edge, initialCapacity),
		edgeList:   make([]*Edge, 0, initialCapacity),
		junctions:  make(map[uint64]*Junction, initialCapacity),
		junctList:  make([]*Junction, 0, initialCapacity),
		freeEdges:  make([]*Edge, 0, initialCapacity),
		freeJuncts: make([]*Junction, 0, initialCapacity),
		specs:      make([]world.EdgeSpec, 0, 8),
		armSpecs:   make([]world.EdgeSpec, 0, 8),
	}
	nodes := make([]world.Vec2, preallocEdges*world.MaxSegments)
	flags := make([]SideFlags, preallocEdges*world.MaxSegments)
	for i := 0; i < preallocEdges; i++ {
		lo, hi := i*world.MaxSegments, (i+1)*world.MaxSegments
		g.freeEdges = append(g.freeEdges, &Edge{Nodes: nodes[lo:lo:hi], Flags: flags[lo:lo:hi]})
	}
	arms := make([]*Edge, preallocEdges*4)
	for i := 0; i < preallocEdges; i++ {
		g.freeJuncts = append(g.freeJuncts, &Junction{Arms: arms[i*4 : i*4 : i*4+4]})
	}
	return g
}

// preallocEdges is how many edges (and junctions) a graph holds ready:
// more than the eviction radius keeps loaded around a car.
const preallocEdges = 256

// World returns the world description the graph grows from.
func (g *Graph) World() world.World { return g.world }

// Signature changes whenever anything a mirror holds changes. It is a plain
// counter: comparing it costs nothing.
func (g *Graph) Signature() uint64 { return g.signature }

// Edge returns the loaded edge with id, or nil.
func (g *Graph) Edge(id uint64) *Edge { return g.edges[id] }

// Junction returns the loaded junction with id, or nil.
func (g *Graph) Junction(id uint64) *Junction { return g.junctions[id] }

// Edges returns the loaded edges sorted by id. Do not modify.
func (g *Graph) Edges() []*Edge { return g.edgeList }

// Junctions returns the loaded junctions sorted by id. Do not modify.
func (g *Graph) Junctions() []*Junction { return g.junctList }

func insertSorted[T any](list []T, v T, id func(T) uint64) []T {
	i, _ := slices.BinarySearchFunc(list, id(v), func(x T, k uint64) int {
		return cmpU64(id(x), k)
	})
	return slices.Insert(list, i, v)
}

func removeSorted[T any](list []T, key uint64, id func(T) uint64) []T {
	i, ok := slices.BinarySearchFunc(list, key, func(x T, k uint64) int {
		return cmpU64(id(x), k)
	})
	if !ok {
		return list
	}
	return slices.Delete(list, i, i+1)
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func edgeID(e *Edge) uint64      { return e.ID }
func junctID(j *Junction) uint64 { return j.ID }

// ensureJunction loads the junction in cell c (without its arms).
func (g *Graph) ensureJunction(c world.Cell) *Junction {
	id := world.JunctionID(c)
	if j := g.junctions[id]; j != nil {
		return j
	}
	pos, ok := g.lattice.Junction(c)
	if !ok {
		return nil
	}
	j := g.newJunction()
	j.ID, j.Pos = id, pos
	g.junctions[id] = j
	g.junctList = insertSorted(g.junctList, j, junctID)
	g.signature++
	return j
}

// JunctionNear loads and returns the junction where a drive from p starts:
// the nearest to p on land, searching outwards ring by ring of lattice
// cells (some cells hold no junction), or, with none on land within
// TrunkEvery/2 rings, the nearest on a causeway. Every cell is within
// TrunkEvery/2 cells of a trunk, where every cell holds one, so the search
// always finds a junction, and every junction is on the endless network.
func (g *Graph) JunctionNear(p world.Vec2) *Junction {
	c := world.CellAt(p.X, p.Z)
	var land, causeway world.Cell
	landD, causewayD := math.Inf(1), math.Inf(1)
	for r := int32(0); r <= world.TrunkEvery/2 && math.IsInf(landD, 1); r++ {
		for di := -r; di <= r; di++ {
			for dj := -r; dj <= r; dj++ {
				if max(di, -di, dj, -dj) != r {
					continue // inner rings were searched already
				}
				cc := world.Cell{I: c.I + di, J: c.J + dj}
				pos, ok := g.lattice.Junction(cc)
				if !ok || len(g.lattice.Arms(cc, g.specs[:0])) == 0 {
					continue
				}
				d := pos.Dist2(p)
				switch {
				case !g.world.OnCauseway(pos) && d < landD:
					land, landD = cc, d
				case g.world.OnCauseway(pos) && d < causewayD:
					causeway, causewayD = cc, d
				}
			}
		}
	}
	switch {
	case !math.IsInf(landD, 1):
		return g.ensureJunction(land)
	case !math.IsInf(causewayD, 1):
		return g.ensureJunction(causeway)
	}
	return nil
}

// EnsureAround loads every edge that could pass near p: the arms of every
// junction within MaxSpanCells lattice cells (no edge is longer than that).
// It is how a walk finds the road under a car that arrives somewhere new.
func (g *Graph) EnsureAround(p world.Vec2) {
	c := world.CellAt(p.X, p.Z)
	const r = world.MaxSpanCells
	for di := int32(-r); di <= r; di++ {
		for dj := int32(-r); dj <= r; dj++ {
			cc := world.Cell{I: c.I + di, J: c.J + dj}
			if j := g.junctions[world.JunctionID(cc)]; j != nil {
				g.EnsureJunctionArms(j)
			} else if _, ok := g.lattice.Junction(cc); ok {
				if j := g.ensureJunction(cc); j != nil {
					g.EnsureJunctionArms(j)
				}
			}
		}
	}
}

// EnsureJunctionArms loads every edge that meets at junction j (and the
// junctions at their far ends). Cheap when j is already expanded.
func (g *Graph) EnsureJunctionArms(j *Junction) {
	if j.Expanded {
		return
	}
	g.specs = g.lattice.Arms(world.JunctionCell(j.ID), g.specs[:0])
	for _, spec := range g.specs {
		if g.edges[spec.ID] == nil {
			g.addEdge(spec)
		}
	}
	j.Expanded = true
	g.relinkArms(j)
	g.signature++
}

func (g *Graph) addEdge(spec world.EdgeSpec) *Edge {
	a, b := g.ensureJunction(spec.A), g.ensureJunction(spec.B)
	g.signature++
	e := g.newEdge()
	e.ID, e.A, e.B, e.HalfWidth, e.Born = spec.ID, a, b, spec.HalfWidth(), g.signature
	e.Nodes = g.lattice.EdgeNodes(spec, e.Nodes)
	e.Flags = resizeFlags(e.Flags, len(e.Nodes))
	e.updateBounds()
	g.edges[e.ID] = e
	g.edgeList = insertSorted(g.edgeList, e, edgeID)
	g.relinkArms(a)
	g.relinkArms(b)
	g.flagsForNewEdge(e)
	g.signature++
	return e
}

func (e *Edge) updateBounds() {
	e.Min = world.Vec2{X: math.Inf(1), Z: math.Inf(1)}
	e.Max = world.Vec2{X: math.Inf(-1), Z: math.Inf(-1)}
	for _, p := range e.Nodes {
		e.Min.X, e.Min.Z = math.Min(e.Min.X, p.X), math.Min(e.Min.Z, p.Z)
		e.Max.X, e.Max.Z = math.Max(e.Max.X, p.X), math.Max(e.Max.Z, p.Z)
	}
}

// relinkArms rebuilds j.Arms from the loaded edges, in lattice order.
func (g *Graph) relinkArms(j *Junction) {
	j.Arms = j.Arms[:0]
	g.armSpecs = g.lattice.Arms(world.JunctionCell(j.ID), g.armSpecs[:0])
	for _, spec := range g.armSpecs {
		if e := g.edges[spec.ID]; e != nil {
			j.Arms = append(j.Arms, e)
		}
	}
}

// EvictFar drops every edge whose bounding box lies farther than keep from
// p, then every junction left without a loaded arm. Junctions that lost an
// arm are marked unexpanded so a later walk regrows them identically.
// It returns the number of edges evicted.
func (g *Graph) EvictFar(p world.Vec2, keep float64) int {
	evicted := 0
	for i := 0; i < len(g.edgeList); {
		e := g.edgeList[i]
		if boxDist2(e.Min, e.Max, p) <= keep*keep {
			i++
			continue
		}
		g.edgeList = slices.Delete(g.edgeList, i, i+1)
		delete(g.edges, e.ID)
		for _, j := range [2]*Junction{e.A, e.B} {
			j.Expanded = false
			g.relinkArms(j)
		}
		g.refreshFlagsAround(e)
		g.freeEdges = append(g.freeEdges, e)
		evicted++
	}
	for i := 0; i < len(g.junctList); {
		j := g.junctList[i]
		if len(j.Arms) > 0 {
			i++
			continue
		}
		g.junctList = slices.Delete(g.junctList, i, i+1)
		delete(g.junctions, j.ID)
		g.freeJuncts = append(g.freeJuncts, j)
	}
	if evicted > 0 {
		g.signature++
	}
	return evicted
}

// boxDist2 is the squared distance from p to the box [min, max].
func boxDist2(min, max, p world.Vec2) float64 {
	dx := math.Max(0, math.Max(min.X-p.X, p.X-max.X))
	dz := math.Max(0, math.Max(min.Z-p.Z, p.Z-max.Z))
	return dx*dx + dz*dz
}

// newEdge returns a recycled edge (its slices emptied, capacity kept) or a
// new one.
func (g *Graph) newEdge() *Edge {
	n := len(g.freeEdges)
	if n == 0 {
		return &Edge{}
	}
	e := g.freeEdges[n-1]
	g.freeEdges = g.freeEdges[:n-1]
	*e = Edge{Nodes: e.Nodes[:0], Flags: e.Flags[:0]}
	return e
}

func (g *Graph) newJunction() *Junction {
	n := len(g.freeJuncts)
	if n == 0 {
		return &Junction{Arms: make([]*Edge, 0, 4)}
	}
	j := g.freeJuncts[n-1]
	g.freeJuncts = g.freeJuncts[:n-1]
	clear(j.Arms[:cap(j.Arms)])
	*j = Junction{Arms: j.Arms[:0]}
	return j
}

// resizeFlags returns f with length n, all zero, reusing its capacity.
func resizeFlags(f []SideFlags, n int) []SideFlags {
	if cap(f) < n {
		return make([]SideFlags, n)
	}
	f = f[:n]
	clear(f)
	return f
}
