// Package gen is the terrain generator: a pure function of the seed and a
// chunk position, safe to share between workers (its memos of road edges
// and column heights hold pure values behind a mutex).
//
// It reads the same world description the roads drape onto
// (citydrive/roadgraph/world). Column rule, per block column (x, z) sampled
// at its centre (x+0.5, z+0.5) with terrain height h:
//
//   - the ground's top face sits at floor(h), and under a road or a junction
//     at floor of the road surface (world.Surface, the rule the city builder
//     and the car use) where that is lower: a level junction on a slope,
//     the ease towards it, or a road between two nodes where the terrain
//     bulges. So no block pokes through a road or a lot ground;
//   - under a road (within the edge's half width of its centre line, or on
//     a junction's surface, on land) the top block is gravel;
//   - the lake (h < WaterLevel) fills with water from the bed up to the water
//     level; beaches (top ≤ beachTop) are sand; then dirt, then stone.
//
// Roads near a chunk column are found once per column (memoised with its
// tops), and only for chunks whose Y range holds a column top; the road
// surface under the candidate columns is one world.SurfaceCache.RoadGrid
// (world.Surface's answers, bit for bit); column heights are one
// world.HeightGrid per chunk column, kept as their floors; blocks are
// written with voxel.Chunk.FillStrata. The generator before issue 16 is
// kept in oracle_test.go, with the version-2 caps queried per column (the
// output must match it block for block) and without them (version 1: the
// output differs only on roads).
package gen

import (
	"math"
	"sync"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

// Version identifies the generator's output. Bump it whenever any chunk
// could come out differently; stored edits record it (voxel/store).
const Version = 2

// Compatible lists the earlier versions whose stored edits still apply:
// version 1 differs only in ground it left above roads, where no edit
// could have been meant to stand.
var Compatible = []uint32{1}

const (
	size      = voxel.ChunkSize
	dirtDepth = 3 // dirt (or sand) blocks under the top block
	beachTop  = 1 // columns whose top face is at or below this are sand
	// waterTop is the first block above the lake surface.
	waterTop = int64(world.WaterLevel)
	// roadSearch: how far (metres) a road's centre line may stray from the
	// straight line between its junctions (curve amplitude 22 m × 1.35,
	// rounded up) plus the widest half width; edges farther away are skipped
	// before their polyline is built.
	roadSearch = 30 + world.AvenueHalfWidth
	// maxSpan: +X edges may skip up to two empty cells.
	maxSpan = world.MaxSpanCells
	// jitterBound bounds how far (metres, per axis) a junction sits off its
	// lattice point: the world's jitter is 25 m; the extra metre covers
	// rounding. TestJitterBoundHolds checks it.
	jitterBound = 26
	// reliefMargin bounds |Height(p) - Height(chunk centre)| within a chunk
	// column (≤ 22.7 m from the centre). From the world's terrain
	// constants: the lake field's value-noise gradient is at most
	// √2·3.75 per lattice unit per octave, summed over 4 octaves at ×2.03
	// frequency and ×0.5 amplitude, normalised by 1.875, times 45 m of
	// relief per 1000 m: ≤ 0.52 m/m, so ≤ 11.8 m; the detail term adds at
	// most ±1.5 m. 24 m leaves a wide margin; TestReliefMarginHolds checks
	// it empirically so a change to the world's terrain is caught.
	reliefMargin = 24
)

// Generator produces chunks for one seed. It is safe for concurrent use.
type Generator struct {
	w world.World
	// edges memoises the road edges chunks have looked at: neighbouring
	// chunks along a road share its edges, and an edge's junctions and
	// centre line cost about 10 µs. Entries are pure functions of the seed
	// and the edge, so the memo never changes a chunk.
	mu    sync.Mutex
	edges map[uint64]*edgeInfo
	// columns memoises the ground tops of chunk columns: a client asks for
	// the chunks above and below a surface chunk too, and each needs the
	// same 1,024 tops (half a surface chunk's cost).
	columns map[[2]int32]*columnHeights
	// surf is the world's road-surface rule (cached; guarded by mu): the
	// ground under a road or a junction never stands above it.
	surf *world.SurfaceCache
}

// columnHeights is a chunk column's ground tops, floor(h) of the terrain
// height at each column centre (index z<<5|x: every rule reads the height
// only through its floor, WaterLevel being whole), and their extremes,
// never written once memoised, and its roads, computed once by the first
// chunk of the column that needs them (they depend on the column alone; a
// road chunk's neighbour above or below often needs them too).
type columnHeights struct {
	top    [voxel.ChunkArea]int32
	lo, hi int64
	once   sync.Once
	roads  *roadInfo
}

// roadInfo is what the roads do to a chunk column.
type roadInfo struct {
	road   [voxel.ChunkArea]bool  // a road or a junction's surface covers the column
	caps   [voxel.ChunkArea]int64 // the first block above the road (world Y) where lower than floor(h), else MaxInt64
	capped bool                   // any cap is set
}

// maxColumns bounds the height memo (4 KiB a column, 13 KiB with its
// roads: at most ~1.7 MiB); when full it starts over.
const maxColumns = 128

// heights returns the memoised tops of chunk column (cx, cz), whose origin
// is (ox, oz): one HeightGrid (bit for bit Height at each centre), floored.
func (g *Generator) heights(cx, cz int32, ox, oz int64) *columnHeights {
	key := [2]int32{cx, cz}
	g.mu.Lock()
	ch := g.columns[key]
	g.mu.Unlock()
	if ch != nil {
		return ch
	}
	ch = new(columnHeights)
	var xs, zs [size]float64
	for i := range size {
		xs[i] = float64(ox) + float64(i) + 0.5
		zs[i] = float64(oz) + float64(i) + 0.5
	}
	var h [voxel.ChunkArea]float64
	g.w.HeightGrid(xs[:], zs[:], h[:])
	// Four running extremes each, so that no chain of compares waits on
	// the one before (heights are bounded by the world's terrain
	// constants: int32 holds their floors).
	var lo, hi [4]int32
	for k := range 4 {
		lo[k], hi[k] = math.MaxInt32, math.MinInt32
	}
	for i := 0; i < voxel.ChunkArea; i += 4 {
		h, top := (*[4]float64)(h[i:]), (*[4]int32)(ch.top[i:])
		for k := range 4 {
			t := int32(math.Floor(h[k]))
			top[k] = t
			lo[k], hi[k] = min(lo[k], t), max(hi[k], t)
		}
	}
	ch.lo = int64(min(lo[0], lo[1], lo[2], lo[3]))
	ch.hi = int64(max(hi[0], hi[1], hi[2], hi[3]))
	g.mu.Lock()
	if len(g.columns) >= maxColumns {
		clear(g.columns)
	}
	g.columns[key] = ch
	g.mu.Unlock()
	return ch
}

// edgeInfo is what markRoads needs of one lattice edge.
type edgeInfo struct {
	ok     bool // the lattice holds the edge
	spec   world.EdgeSpec
	pa, pb world.Vec2
	nodes  []world.Vec2 // the centre line; nil until a chunk needs it
}

// maxEdges bounds the memo (about 2 KiB an edge); when full it starts over.
const maxEdges = 1024

// New returns the generator for seed.
func New(seed uint64) *Generator {
	w := world.New(seed)
	return &Generator{w: w, edges: make(map[uint64]*edgeInfo), columns: make(map[[2]int32]*columnHeights), surf: world.NewSurfaceCache(w)}
}

// edge returns the memoised facts about the edge leaving cell a in
// direction d, with its centre line if withNodes.
func (g *Generator) edge(a world.Cell, d world.Dir, withNodes bool) *edgeInfo {
	id := world.EdgeID(a, d)
	g.mu.Lock()
	info := g.edges[id]
	g.mu.Unlock()
	if info != nil && (info.nodes != nil || !withNodes || !info.ok) {
		return info
	}
	if info == nil {
		info = &edgeInfo{}
		// through the surface cache's junction memo: neighbouring edges
		// share junctions, each a terrain height
		g.mu.Lock()
		if e, ok := g.surf.Edge(id); ok { // false too where cell a holds no junction
			info.ok, info.spec = true, e
			info.pa, _ = g.surf.Junction(e.A)
			info.pb, _ = g.surf.Junction(e.B)
		}
		g.mu.Unlock()
	} else {
		c := *info // stored entries are never written again
		info = &c
	}
	if withNodes && info.ok {
		g.mu.Lock() // the surface cache's memo: its road caps need the same lines
		info.nodes = g.surf.EdgeNodes(info.spec, nil)
		g.mu.Unlock()
	}
	g.mu.Lock()
	if len(g.edges) >= maxEdges {
		clear(g.edges)
	}
	g.edges[id] = info
	g.mu.Unlock()
	return info
}

// Seed is the world seed.
func (g *Generator) Seed() uint64 { return g.w.Seed }

// Chunk returns a freshly generated chunk.
func (g *Generator) Chunk(p voxel.ChunkPos) *voxel.Chunk {
	c := new(voxel.Chunk)
	g.Generate(p, c)
	return c
}

// columns is markRoads' result: per column whether a road covers it, and
// the junctions whose surface may reach the chunk column.
type columns struct {
	road [voxel.ChunkArea]bool // index z<<5|x
	// near: within a road's half width and nearMargin of its centre line
	// (a superset of the columns world.Surface puts on an edge's road,
	// whatever the rounding)
	near      [voxel.ChunkArea]bool
	junctions []world.Vec2
}

// nearMargin (m) covers the rounding difference between rasterise's
// distance and world.Surface's many times over.
const nearMargin = 0.01

// junctionRoad bounds, with room to spare, how far from its centre a
// junction's carriageway reaches.
var junctionRoad = world.JunctionRoadReach + 0.1

// noRoads is the road data of a chunk column no road comes near, and of
// chunks where no top block can lie (roads cannot matter there).
var noRoads = func() *roadInfo {
	ri := new(roadInfo)
	for i := range ri.caps {
		ri.caps[i] = math.MaxInt64
	}
	return ri
}()

// roadsOf computes the roads of the chunk column once.
func (g *Generator) roadsOf(ch *columnHeights, ox, oz int64) *roadInfo {
	ch.once.Do(func() {
		var col columns
		g.markRoads(&col, ox, oz)
		if len(col.junctions) == 0 && col.road == [voxel.ChunkArea]bool{} {
			ch.roads = noRoads
			return
		}
		ri := new(roadInfo)
		ri.capped = g.roadCaps(&col, ox, oz, func(i int) int64 { return int64(ch.top[i]) }, &ri.caps)
		ri.road = col.road
		ch.roads = ri
	})
	return ch.roads
}

// Generate fills c, which must be all air, with chunk p.
func (g *Generator) Generate(p voxel.ChunkPos, c *voxel.Chunk) {
	ox, oy, oz := p.Origin()
	y0, y1 := oy, oy+size
	// Sky and bedrock cost one height sample instead of a grid.
	hc := g.w.Height(float64(ox)+size/2, float64(oz)+size/2)
	if float64(y0) > hc+reliefMargin && y0 >= waterTop {
		return
	}
	if float64(y1) < hc-reliefMargin-dirtDepth-2 {
		c.Fill(voxel.Stone)
		return
	}
	heights := g.heights(p.X, p.Z, ox, oz)
	lo, hi := heights.lo, heights.hi
	// Nothing but air: above every column top and above the water.
	if y0 >= hi && y0 >= waterTop {
		return
	}
	// Nothing but stone: below every column's dirt, however far a road
	// lowers it.
	if y1 <= lo-1-dirtDepth-1-roadDrop {
		c.Fill(voxel.Stone)
		return
	}
	// Roads matter only where a top block can lie in this chunk.
	roads := noRoads
	if hi > y0 && lo-2-roadDrop < y1 {
		roads = g.roadsOf(heights, ox, oz)
	}
	var st voxel.Strata
	st.Deep, st.Fluid, st.Depth = voxel.Stone, voxel.Water, dirtDepth
	st.FluidTop = int(min(max(waterTop-y0, 0), size))
	uniform := roads == noRoads && (lo > beachTop || hi <= beachTop)
	columnStrata(heights, roads, y0, &st, uniform)
	if uniform && lo > beachTop {
		st.Under, st.Cap = allDirt, allGrass
	} else if uniform {
		st.Under, st.Cap = allSand, allSand
	}
	c.FillStrata(&st)
}

// columnStrata sets each column's top in the chunk whose lowest layer is
// y0 and, unless uniform (no roads, and every top on the same side of
// beachTop: the caller sets the kinds), its top block and the three
// under it.
func columnStrata(ch *columnHeights, roads *roadInfo, y0 int64, st *voxel.Strata, uniform bool) {
	tops := &ch.top
	switch {
	case uniform && ch.lo >= y0 && ch.hi-y0 <= size+dirtDepth+1: // no top to cut
		base := int32(y0) // within the tops' range here, so int32 holds it
		for i, t := range tops {
			st.Top[i] = uint8(t - base)
		}
		return
	case uniform:
		for i, t := range tops {
			st.Top[i] = clampTop(int64(t) - y0)
		}
		return
	}
	caps, capped := &roads.caps, roads.capped
	for i, top := range tops {
		t := int64(top) - y0 // local top: the first air block
		if capped && caps[i] != math.MaxInt64 {
			t = min(t, caps[i]-y0)
		}
		topBlock, under := voxel.Grass, voxel.Dirt
		switch {
		case roads.road[i] && int64(top) >= waterTop: // roads on land only: h >= WaterLevel
			topBlock = voxel.Gravel
		case t+y0 <= beachTop:
			topBlock, under = voxel.Sand, voxel.Sand
		}
		st.Top[i], st.Cap[i], st.Under[i] = clampTop(t), topBlock, under
	}
}

// Kinds of every column of a chunk, for the uniform cases.
var (
	allDirt, allGrass, allSand = fillKinds(voxel.Dirt), fillKinds(voxel.Grass), fillKinds(voxel.Sand)
)

func fillKinds(b voxel.Block) (k [voxel.ChunkArea]voxel.Block) {
	for i := range k {
		k[i] = b
	}
	return k
}

// clampTop cuts a local top to Strata's range: at or below 0 no ground
// lies in the chunk, from size+dirtDepth+1 up stone fills it.
func clampTop(t int64) uint8 { return uint8(min(max(t, 0), size+dirtDepth+1)) }

// floor is int64(math.Floor(v)) for finite v in int64's range, without
// math.Floor's check for SSE4.1 at GOAMD64=v1 (the tops of a whole grid
// use math.Floor: there its rounding instruction is the faster).
func floor(v float64) int64 {
	t := int64(v) // towards zero
	if float64(t) > v {
		t--
	}
	return t
}

// roadDrop bounds how many blocks a road's surface lowers a column's top
// (a level junction or its ease on a slope; ≤ 1.7 m seen).
const roadDrop = 3

// junctionReach bounds how far from its centre a junction's surface
// reaches: its radius (widest arm, sidewalk, margin: 13 m) and, between
// arms meeting at a shallow angle, the carriageway where they overlap.
const junctionReach = 24.0

// nearJunctions appends the junctions among js whose surface may reach the
// chunk at (x0, z0), once each.
func nearJunctions(dst []world.Vec2, x0, z0 float64, js ...world.Vec2) []world.Vec2 {
next:
	for _, j := range js {
		if j.X < x0-junctionReach || j.X > x0+size+junctionReach || j.Z < z0-junctionReach || j.Z > z0+size+junctionReach {
			continue
		}
		for _, k := range dst {
			if k == j {
				continue next
			}
		}
		dst = append(dst, j)
	}
	return dst
}

// roadCaps sets caps[i] to the first block above the road surface (world
// Y) for the columns a road or a junction covers where that is lower than
// the ground's top top(i) would be, marking a junction's columns as road
// too, and reports whether any was set: the ground's top is floor(h)
// except where the road's surface is lower (a level junction on a slope,
// and the ease towards it, or between two nodes where the terrain bulges),
// so no block pokes through a road. The world answers for the candidate
// columns at once (world.SurfaceCache.RoadGrid, Surface's answers bit for
// bit): those marked as road, and those within junctionReach of a
// junction (as generator version 2 first asked) that can be on a road at
// all: near an edge's centre line or within reach of a junction's
// carriageway.
func (g *Generator) roadCaps(col *columns, ox, oz int64, top func(i int) int64, caps *[voxel.ChunkArea]int64) bool {
	x0, z0 := float64(ox), float64(oz)
	road := &col.road
	var want, onRoad [voxel.ChunkArea]bool
	var ys [voxel.ChunkArea]float64
	for i := range voxel.ChunkArea {
		want[i] = road[i]
		if want[i] {
			continue
		}
		x, z := x0+float64(i&(size-1))+0.5, z0+float64(i>>voxel.ChunkBits)+0.5
		for _, j := range col.junctions {
			if d2 := (x-j.X)*(x-j.X) + (z-j.Z)*(z-j.Z); d2 < junctionRoad*junctionRoad || col.near[i] && d2 < junctionReach*junctionReach {
				want[i] = true
				break
			}
		}
	}
	for i := range voxel.ChunkArea {
		caps[i] = math.MaxInt64
	}
	if want == [voxel.ChunkArea]bool{} {
		return false
	}
	g.mu.Lock()
	g.surf.RoadGrid(x0, z0, size, want[:], onRoad[:], ys[:])
	g.mu.Unlock()
	any := false
	for i := range voxel.ChunkArea {
		if !want[i] || !onRoad[i] {
			continue
		}
		road[i] = true
		if c := floor(ys[i]); c < top(i) {
			caps[i], any = c, true
		}
	}
	return any
}

// markRoads flags the columns within a road's half width of its centre
// line (their top stays at floor(h), see the package comment).
func (g *Generator) markRoads(col *columns, ox, oz int64) {
	x0, z0 := float64(ox), float64(oz)
	x1, z1 := x0+size, z0+size
	lo := world.CellAt(x0-roadSearch-world.CellSize, z0-roadSearch-world.CellSize)
	hi := world.CellAt(x1+roadSearch+world.CellSize, z1+roadSearch+world.CellSize)
	// reach reports whether an edge whose junctions lie within jitterBound
	// of lattice points spanning [i0, i1] × [j0, j1] can pass the bounding
	// box test below: decided from the lattice alone, before the junctions
	// (a terrain height each) are looked up.
	reach := func(i0, i1, j0, j1 float64) bool {
		const m = jitterBound + roadSearch
		return i1*world.CellSize+m >= x0 && i0*world.CellSize-m <= x1 &&
			j1*world.CellSize+m >= z0 && j0*world.CellSize-m <= z1
	}
	for i := lo.I - maxSpan; i <= hi.I; i++ {
		for j := lo.J; j <= hi.J; j++ {
			fi, fj := float64(i), float64(j)
			dirs := [...]bool{
				world.DirX: reach(fi, fi+maxSpan, fj, fj),
				world.DirZ: reach(fi, fi, fj, fj+1),
			}
			a := world.Cell{I: i, J: j}
			for d, near := range dirs {
				if !near {
					continue
				}
				info := g.edge(a, world.Dir(d), false)
				if !info.ok {
					continue
				}
				pa, pb := info.pa, info.pb
				if math.Max(pa.X, pb.X)+roadSearch < x0 || math.Min(pa.X, pb.X)-roadSearch > x1 ||
					math.Max(pa.Z, pb.Z)+roadSearch < z0 || math.Min(pa.Z, pb.Z)-roadSearch > z1 {
					continue
				}
				if info.nodes == nil {
					info = g.edge(a, world.Dir(d), true)
				}
				rasterise(col, info.nodes, info.spec.HalfWidth(), x0, z0)
				col.junctions = nearJunctions(col.junctions, x0, z0, info.pa, info.pb)
			}
		}
	}
}

// rasterise marks columns whose centre lies within hw of the polyline as
// road, and within hw+nearMargin as near.
// Columns already marked are not tested again (marking is an OR over
// segments, so the order and skipped tests do not matter).
func rasterise(col *columns, nodes []world.Vec2, hw, x0, z0 float64) {
	hw2 := hw * hw
	nw := hw + nearMargin
	nw2 := nw * nw
	for k := 1; k < len(nodes); k++ {
		a, b := nodes[k-1], nodes[k]
		minX := int(math.Floor(math.Min(a.X, b.X) - nw - x0))
		maxX := int(math.Ceil(math.Max(a.X, b.X) + nw - x0))
		minZ := int(math.Floor(math.Min(a.Z, b.Z) - nw - z0))
		maxZ := int(math.Ceil(math.Max(a.Z, b.Z) + nw - z0))
		if maxX < 0 || maxZ < 0 || minX >= size || minZ >= size {
			continue
		}
		ab := b.Sub(a)
		l2 := ab.Dot(ab)
		for z := max(minZ, 0); z <= min(maxZ, size-1); z++ {
			row := (*[size]bool)(col.road[z<<voxel.ChunkBits:])
			near := (*[size]bool)(col.near[z<<voxel.ChunkBits:])
			for x := max(minX, 0); x <= min(maxX, size-1); x++ {
				if row[x] {
					continue
				}
				p := world.Vec2{X: x0 + float64(x) + 0.5, Z: z0 + float64(z) + 0.5}
				t := 0.0
				if l2 > 0 {
					t = clamp01(p.Sub(a).Dot(ab) / l2)
				}
				if d2 := p.Dist2(a.Add(ab.Scale(t))); d2 <= nw2 {
					near[x] = true
					row[x] = d2 <= hw2
				}
			}
		}
	}
}

// clamp01 is math.Max(0, math.Min(1, v)) for v not NaN, without the two
// calls (and, like Max, +0 for -0).
func clamp01(v float64) float64 {
	switch {
	case v >= 1:
		return 1
	case v > 0:
		return v
	}
	return 0
}

// OverlaySource supplies a chunk's edit overlay (voxel/store implements it).
type OverlaySource interface {
	Overlay(voxel.ChunkPos) (voxel.Overlay, error)
}

// WithEdits returns a loader that generates a chunk and applies its edit
// overlay right after generation: the function residency workers run.
func (g *Generator) WithEdits(src OverlaySource) func(voxel.ChunkPos) (*voxel.Chunk, error) {
	return func(p voxel.ChunkPos) (*voxel.Chunk, error) {
		c := g.Chunk(p)
		if src == nil {
			return c, nil
		}
		o, err := src.Overlay(p)
		if err != nil {
			return nil, err
		}
		o.Apply(c)
		return c, nil
	}
}
