package world

import "math"

// The road's cross-section and the bridge rule, named once: the city
// builder draws with them and Surface answers with them, so a car stands
// on exactly what is drawn.
const (
	WalkWidth  = 3.0  // kerb face to the lot front: the sidewalk (or the deck edge on a bridge)
	KerbHeight = 0.15 // sidewalk top above the carriageway
	DeckClear  = 3.2  // bridge deck above the water
	DeckSlope  = 0.1  // ramp gradient towards a bridge
	// rampNodes is how many nodes either side of a node are searched for
	// water: at DeckSlope the lift is gone DeckClear/DeckSlope = 32 m from
	// the water, within the eighth 4.2 m segment.
	rampNodes = 7
	// WetMargin: a node this little above the water counts as wet, so the
	// deck clears the shoreline rather than grazing it.
	WetMargin = 0.2
	// deckMin is how far above the terrain a node's road must be for its
	// segment to count as a deck (drawn with sides, rails and piers).
	deckMin = 0.6
	// junctionBlend: past a junction's radius the road eases from the
	// junction's level surface to its own rule over this many metres, so
	// there is no step where the two meet (on a slope, or at a ramp).
	junctionBlend = 10.0
	// junctionMargin is the junction surface's reach past its widest arm's
	// sidewalk.
	junctionMargin = 1.0
)

// junctionRadius is how far from a junction's centre its own flat surface
// reaches along every arm, given the half width of its widest arm (at
// least StreetHalfWidth); segments clip their road there.
func junctionRadius(maxHalfWidth float64) float64 {
	return max(maxHalfWidth, StreetHalfWidth) + WalkWidth + junctionMargin
}

// edgeEnds are the junction surfaces at an edge's two ends: radius and
// height.
type edgeEnds struct{ ra, rb, ya, yb float64 }

// nodeRoadY is the road height at node k of an edge with n segments of
// length L, given the terrain height at nodes lo..lo+len(hs)-1 (which must
// cover k±rampNodes clipped to [0, n]). The road follows the terrain; near
// water it rises onto a deck at DeckClear with ramps at DeckSlope; within
// junctionBlend past either end's junction radius it eases to that
// junction's height.
func nodeRoadY(hs []float64, lo, k, n int, L float64, ends edgeEnds) float64 {
	y := hs[k-lo]
	best := math.Inf(1)
	for m := max(0, k-rampNodes); m <= min(n, k+rampNodes); m++ {
		if hs[m-lo] < WaterLevel+WetMargin {
			best = min(best, math.Abs(float64(m-k))*L)
		}
	}
	if !math.IsInf(best, 1) {
		y = max(y, WaterLevel+DeckClear-DeckSlope*best)
	}
	wa := clamp01((float64(k)*L - ends.ra) / junctionBlend)
	wb := clamp01((float64(n-k)*L - ends.rb) / junctionBlend)
	y = ends.ya + (y-ends.ya)*wa
	return ends.yb + (y-ends.yb)*wb
}

func clamp01(v float64) float64 { return max(0, min(1, v)) }

// SegmentHeights is the road rule for segment i of an edge whose centre
// line is nodes (from junction A to junction B, whose surfaces reach ra
// and rb along it; see JunctionRadiusAt): the road heights y0, y1 and the
// terrain heights h0, h1 at its two nodes. Heights between the nodes are
// linear in the distance along, and the road is level across.
func (w World) SegmentHeights(nodes []Vec2, i int, ra, rb float64) (y0, y1, h0, h1 float64) {
	n := len(nodes) - 1
	L := nodes[1].Sub(nodes[0]).Len()
	lo, hi := max(0, i-rampNodes), min(n, i+1+rampNodes)
	var hs [2*rampNodes + 2]float64
	for k := lo; k <= hi; k++ {
		hs[k-lo] = w.Height(nodes[k].X, nodes[k].Z)
	}
	ends := edgeEnds{ra: ra, rb: rb, ya: w.Height(nodes[0].X, nodes[0].Z), yb: w.Height(nodes[n].X, nodes[n].Z)}
	return nodeRoadY(hs[:], lo, i, n, L, ends), nodeRoadY(hs[:], lo, i+1, n, L, ends), hs[i-lo], hs[i+1-lo]
}

// IsDeck reports whether a segment with these node heights is drawn as a
// deck (over water, or raised clear of the terrain on a ramp).
func IsDeck(y0, y1, h0, h1 float64) bool {
	return h0 < WaterLevel+WetMargin || h1 < WaterLevel+WetMargin || y0 > h0+deckMin || y1 > h1+deckMin
}

// Surface is what stands under a point: the road, a sidewalk, a deck, the
// ground, or the lake.
type Surface struct {
	Y      float64 // height of the surface (the water level over the lake)
	Road   bool    // on a carriageway or a junction (not a sidewalk)
	Bridge bool    // on a raised deck: a bridge or its ramps, sidewalks included
	Water  bool    // open water: no road or deck here, not drivable
}

// Surface is the drivable surface at (x, z): the road where a road or a
// junction is drawn (sidewalks KerbHeight higher), decks over the lake and
// on their ramps, the terrain elsewhere, and Water where the terrain is
// under the lake with no deck above it. It is a pure function of the seed
// and the position. This form recomputes the nearby roads on every call;
// a SurfaceCache answers the same for a moving car at a fraction of the
// cost.
func (w World) Surface(x, z float64) Surface {
	c := &SurfaceCache{w: w, jc: newCache(w, oneQueryJunctions, oneQueryBlocks), entries: make([]*cellRoads, 0, surfaceCells)}
	return c.Surface(x, z)
}

// Junction memo sizes: a one-off query looks at the lattice cells around
// five cells' arms; a cache, at those around its cells.
// A query near a block's corner reads the network rule of up to four.
const (
	oneQueryJunctions = 64
	surfaceJunctions  = 256
	oneQueryBlocks    = 4
	surfaceBlocks     = 4
)

// surfaceCells bounds a SurfaceCache: a query touches at most five cells
// (four +X origins in its row and one more +Z origin in its column), so
// this holds a car's neighbourhood and the rows it just left, at ~9 KB a
// cell (a load client runs one per bot).
const surfaceCells = 24

// SurfaceCache answers World.Surface from per-cell road data (the cell's
// junction and the edges leaving it, with node heights), computed once per
// cell and reused: the car asks several times per physics step at 120 Hz.
// Storage is allocated once per entry and recycled least-recently-used, so
// steady-state queries do not allocate. Not safe for concurrent use.
type SurfaceCache struct {
	w       World
	jc      *Cache // junction positions: every fill asks about the same few cells
	entries []*cellRoads
	clock   uint64
	last    int       // index of the latest hit: most queries repeat a cell
	grid    *roadGrid // RoadGrid's scratch, made on first use
	// lines holds the centre lines computed last: a cell's edges are its
	// junction's arms too, and a generator rasterises the edges it caps
	// (EdgeNodes). Nil in the one-off form.
	lines     *[memoLines]lineMemo
	linesNext int
}

// memoLines bounds the centre-line memo (2 KiB a line): the edges around
// one query's cells and their junctions' arms.
const memoLines = 24

type lineMemo struct {
	id    uint64 // 0: empty (edge ids are never 0)
	n     int
	nodes [MaxSegments]Vec2
}

// edgeNodes is the centre line of e, memoised. The slice is valid until
// the next call.
func (c *SurfaceCache) edgeNodes(e EdgeSpec, buf []Vec2) []Vec2 {
	if c.lines == nil {
		return c.jc.EdgeNodes(e, buf)
	}
	for i := range c.lines {
		if m := &c.lines[i]; m.id == e.ID {
			return m.nodes[:m.n]
		}
	}
	m := &c.lines[c.linesNext]
	c.linesNext = (c.linesNext + 1) % memoLines
	m.n = len(c.jc.EdgeNodes(e, m.nodes[:0]))
	m.id = e.ID
	return m.nodes[:m.n]
}

// EdgeNodes is World.EdgeNodes through the cache's memo.
func (c *SurfaceCache) EdgeNodes(e EdgeSpec, dst []Vec2) []Vec2 {
	var buf [MaxSegments]Vec2
	return append(dst, c.edgeNodes(e, buf[:0])...)
}

// NewSurfaceCache returns an empty cache for w.
func NewSurfaceCache(w World) *SurfaceCache {
	return &SurfaceCache{w: w, jc: newCache(w, surfaceJunctions, surfaceBlocks), entries: make([]*cellRoads, 0, surfaceCells), lines: new([memoLines]lineMemo)}
}

// NewSurfaceCacheCells is NewSurfaceCache holding cells lattice cells
// (at least the default): for queries spread over a wider area than one
// car's, such as a district's traffic.
func NewSurfaceCacheCells(w World, cells int) *SurfaceCache {
	c := NewSurfaceCache(w)
	c.entries = make([]*cellRoads, max(cells, surfaceCells))
	// Allocated up front, holding no cell yet (least recently used first),
	// so that a wide area's queries never allocate.
	for i := range c.entries {
		c.entries[i] = &cellRoads{cell: Cell{I: math.MinInt32, J: math.MinInt32}}
	}
	return c
}

// World is the world behind the cache.
func (c *SurfaceCache) World() World { return c.w }

// Junction is World.Junction through the cache's junction memo.
func (c *SurfaceCache) Junction(cell Cell) (Vec2, bool) { return c.jc.Junction(cell) }

// Edge is World.Edge through the cache's junction memo.
func (c *SurfaceCache) Edge(id uint64) (EdgeSpec, bool) { return c.jc.Edge(id) }

// A cell's entry is filled in two steps: the junction's position and the
// edges' specs and coarse boxes at once (a few junction lookups), the
// centre lines, node heights and the junction's fan only when a query
// falls in their reach (most cells a query visits have edges that cannot
// reach it, and a centre line costs ~10 µs).
type cellRoads struct {
	cell  Cell
	used  uint64
	edges [2]edgeRoad
	n     int
	j     junctionRoad
}

// maxFan bounds a junction's surface polygon: two corners per arm, and a
// lattice junction has at most four arms (+X, +Z, -X, -Z).
const maxFan = 8

// junctionRoad is a junction's level surface as the city builder draws it:
// a fan from the centre through each arm's two corners at the junction
// radius, sorted by angle, the arms' mouths, and the kerb corners between
// neighbouring arms.
type junctionRoad struct {
	ok    bool
	ready bool // the fields below p are filled
	cell  Cell
	p     Vec2
	y, r  float64
	fan   [maxFan]Vec2
	nf    int
	// each arm's mouth, [0, r] along it and ±hw across, is drawn too
	arm [maxFan / 2]struct {
		d  Vec2
		hw float64
	}
	na     int
	corner [maxFan / 2]KerbCorner // between arm i and the next; na of them from two arms on
	// Boxes around each corner and each of its steps, grown by
	// cornerMargin, and the squared radius around p past which no fan
	// triangle or arm mouth reaches: most points near a junction lie
	// outside most of them, and these say so without the triangle tests.
	cbox  [maxFan / 2]box
	sbox  [maxFan / 2][KerbCornerSteps]box
	fanR2 float64
}

// cornerMargin grows a kerb corner's bounding box far past any rounding
// of the triangle tests, so the box never turns away a point they accept.
const cornerMargin = 0.01

// blockSegs is the run length of an edge's coarse bounding boxes.
const blockSegs = 8

// edgeRoad is one edge as Surface needs it: the centre line, the road
// height at every node, and the junction surfaces at its ends.
type edgeRoad struct {
	spec EdgeSpec
	// clo, chi bound every node grown by the road's reach, from the
	// junctions alone: the lateral wander is at most curveWander
	clo, chi     Vec2
	ready        bool // the fields below are filled
	hw, L, total float64
	nodes        [MaxSegments]Vec2
	ys, hs       [MaxSegments]float64
	nn           int // nodes
	lo, hi       Vec2
	// Bounding boxes (road band included) of runs of blockSegs segments:
	// a query scans only the runs that can hold it.
	blo, bhi [MaxSegments/blockSegs + 1]Vec2
	ra, rb   float64 // junction radii
	ya, yb   float64 // junction surface heights
}

func (c *SurfaceCache) cellRoads(cell Cell) *cellRoads {
	c.clock++
	if c.last < len(c.entries) && c.entries[c.last].cell == cell {
		e := c.entries[c.last]
		e.used = c.clock
		return e
	}
	oldest := -1
	for i, e := range c.entries {
		if e.cell == cell {
			e.used, c.last = c.clock, i
			return e
		}
		if oldest < 0 || e.used < c.entries[oldest].used {
			oldest = i
		}
	}
	var e *cellRoads
	if len(c.entries) < cap(c.entries) {
		e = new(cellRoads)
		c.entries = append(c.entries, e)
		c.last = len(c.entries) - 1
	} else {
		e = c.entries[oldest]
		c.last = oldest
	}
	c.fill(e, cell)
	e.used = c.clock
	return e
}

// fill computes the edges leaving cell.
func (c *SurfaceCache) fill(e *cellRoads, cell Cell) {
	e.cell, e.n, e.j.ok, e.j.ready = cell, 0, false, false
	p, ok := c.jc.Junction(cell)
	if !ok {
		return
	}
	e.j.ok, e.j.cell, e.j.p = true, cell, p
	var specs [2]EdgeSpec
	ns := 0
	if s, ok := edgeX(c.w, c.jc, cell); ok {
		specs[ns], ns = s, ns+1
	}
	if s, ok := edgeZ(c.w, c.jc, cell); ok {
		specs[ns], ns = s, ns+1
	}
	for _, s := range specs[:ns] {
		r := &e.edges[e.n]
		pb, _ := c.jc.Junction(s.B)
		m := curveWander + s.HalfWidth() + WalkWidth
		r.spec, r.ready = s, false
		r.clo = Vec2{X: min(p.X, pb.X) - m, Z: min(p.Z, pb.Z) - m}
		r.chi = Vec2{X: max(p.X, pb.X) + m, Z: max(p.Z, pb.Z) + m}
		e.n++
	}
}

// curveWander bounds how far (metres) a centre line's nodes stray from the
// straight line between its junctions (the two sine terms of edgeNodes),
// with a metre to spare.
const curveWander = curveAmplitude*1.35 + 1

// edgeNear reports whether the edge can reach p, filling it if so.
func (c *SurfaceCache) edgeNear(r *edgeRoad, p Vec2) bool {
	if p.X < r.clo.X || p.X > r.chi.X || p.Z < r.clo.Z || p.Z > r.chi.Z {
		return false
	}
	if !r.ready {
		c.fillEdge(r, r.spec)
		r.ready = true
	}
	return true
}

// junctionCoarse bounds the reach of any junction's surface from its
// centre (surfaceAt's reach for the widest radius), with a metre to spare.
var junctionCoarse = junctionRadius(maxHalfWidth) + WalkWidth + maxHalfWidth + 1

// junctionNear reports whether the junction can reach p, filling it if so.
func (c *SurfaceCache) junctionNear(j *junctionRoad, p Vec2) bool {
	if !j.ok || p.Dist2(j.p) > junctionCoarse*junctionCoarse {
		return false
	}
	if !j.ready {
		c.fillJunction(j, j.cell)
		j.ready = true
	}
	return true
}

func (c *SurfaceCache) fillEdge(r *edgeRoad, s EdgeSpec) {
	w := c.w
	var buf [MaxSegments]Vec2
	nodes := c.edgeNodes(s, buf[:0])
	r.nn = copy(r.nodes[:], nodes)
	n := r.nn - 1
	r.hw = s.HalfWidth()
	r.L = r.nodes[1].Sub(r.nodes[0]).Len()
	r.total = float64(n) * r.L
	for k := 0; k <= n; k++ {
		r.hs[k] = w.Height(r.nodes[k].X, r.nodes[k].Z)
	}
	r.ra, r.ya = junctionSurface(w, c.jc, s.A)
	r.rb, r.yb = junctionSurface(w, c.jc, s.B)
	ends := edgeEnds{ra: r.ra, rb: r.rb, ya: r.ya, yb: r.yb}
	for k := 0; k <= n; k++ {
		r.ys[k] = nodeRoadY(r.hs[:r.nn], 0, k, n, r.L, ends)
	}
	reach := r.hw + WalkWidth
	empty := func() (Vec2, Vec2) {
		return Vec2{X: math.Inf(1), Z: math.Inf(1)}, Vec2{X: math.Inf(-1), Z: math.Inf(-1)}
	}
	grow := func(lo, hi *Vec2, p Vec2) {
		lo.X, lo.Z = min(lo.X, p.X-reach), min(lo.Z, p.Z-reach)
		hi.X, hi.Z = max(hi.X, p.X+reach), max(hi.Z, p.Z+reach)
	}
	r.lo, r.hi = empty()
	for k, p := range r.nodes[:r.nn] {
		grow(&r.lo, &r.hi, p)
		if b := k / blockSegs; k%blockSegs == 0 {
			r.blo[b], r.bhi[b] = empty()
			grow(&r.blo[b], &r.bhi[b], p)
			if b > 0 {
				grow(&r.blo[b-1], &r.bhi[b-1], p) // a run's last node is the next run's first
			}
		} else {
			grow(&r.blo[b], &r.bhi[b], p)
		}
	}
}

// fillJunction computes the fan of the junction in cell.
func (c *SurfaceCache) fillJunction(j *junctionRoad, cell Cell) {
	j.p, j.ok = c.jc.Junction(cell)
	j.r, j.y = junctionSurface(c.w, c.jc, cell)
	j.nf = 0
	type arm struct {
		d     Vec2
		hw    float64
		angle float64
	}
	var specs [4]EdgeSpec
	var arms [4]arm
	na := 0
	var buf [MaxSegments]Vec2
	for _, e := range c.jc.Arms(cell, specs[:0]) {
		nodes := c.edgeNodes(e, buf[:0])
		d := nodes[1].Sub(nodes[0]).Norm()
		if e.A != cell {
			n := len(nodes) - 1
			d = nodes[n-1].Sub(nodes[n]).Norm()
		}
		arms[na] = arm{d: d, hw: e.HalfWidth(), angle: math.Atan2(d.Z, d.X)}
		for k := na; k > 0 && arms[k].angle < arms[k-1].angle; k-- {
			arms[k], arms[k-1] = arms[k-1], arms[k]
		}
		na++
	}
	j.na = na
	for i, a := range arms[:na] {
		j.arm[i].d, j.arm[i].hw = a.d, a.hw
		ccw := Vec2{X: -a.d.Z, Z: a.d.X}
		j.fan[j.nf] = j.p.Add(a.d.Scale(j.r)).Add(ccw.Scale(-a.hw))
		j.fan[j.nf+1] = j.p.Add(a.d.Scale(j.r)).Add(ccw.Scale(a.hw))
		j.nf += 2
	}
	for i := 0; i < na && na >= 2; i++ {
		a, c := arms[i], arms[(i+1)%na]
		gap := c.angle - a.angle
		if gap <= 0 {
			gap += 2 * math.Pi
		}
		j.corner[i] = JunctionKerbCorner(j.p, j.r, a.d, a.hw, c.d, c.hw, gap)
		cb := box{lo: j.corner[i].In[0], hi: j.corner[i].In[0]}
		for s := range KerbCornerSteps {
			j.sbox[i][s] = j.corner[i].stepBounds(s)
			cb.grow(j.sbox[i][s].lo)
			cb.grow(j.sbox[i][s].hi)
		}
		j.cbox[i] = cb
	}
	if na == 1 {
		// a dead end: the surface closes behind the centre
		a := arms[0]
		ccw := Vec2{X: -a.d.Z, Z: a.d.X}
		j.fan[2] = j.p.Add(a.d.Scale(-a.hw)).Add(ccw.Scale(a.hw))
		j.fan[3] = j.p.Add(a.d.Scale(-a.hw)).Add(ccw.Scale(-a.hw))
		j.nf = 4
	}
	// The fan's triangles lie within its farthest corner of p (they are
	// convex, with p a vertex), the arms' mouths within √(r²+hw²).
	far := 0.0
	for _, f := range j.fan[:j.nf] {
		far = max(far, f.Sub(j.p).Len())
	}
	for _, a := range j.arm[:j.na] {
		far = max(far, math.Hypot(j.r, a.hw))
	}
	far += cornerMargin
	j.fanR2 = far * far
}

// surfaceAt is the junction's surface at p: the fan and the arms' mouths
// are carriageway, the kerb corners between the arms sidewalk.
func (j *junctionRoad) surfaceAt(p Vec2) (Surface, bool) {
	if reach := j.r + WalkWidth + maxHalfWidth; !j.ok || p.Dist2(j.p) > reach*reach {
		return Surface{}, false
	}
	// The kerb corners are drawn a kerb above the fan they overlap.
	if j.na >= 2 {
		for i := range j.corner[:j.na] {
			if !j.cbox[i].holds(p) {
				continue
			}
			for s := range KerbCornerSteps {
				if j.sbox[i][s].holds(p) && j.corner[i].stepContains(s, p) {
					return Surface{Y: j.y + KerbHeight}, true
				}
			}
		}
	}
	if p.Dist2(j.p) > j.fanR2 {
		return Surface{}, false
	}
	// The fan and the arms' mouths are the same carriageway: the mouths
	// (two dot products each) first.
	q := p.Sub(j.p)
	for _, a := range j.arm[:j.na] {
		if u := q.Dot(a.d); u >= 0 && u <= j.r && math.Abs(q.Dot(a.d.Perp())) <= a.hw {
			return Surface{Y: j.y, Road: true}, true
		}
	}
	for i := 0; i < j.nf; i++ {
		next := i + 1
		if next == j.nf {
			next = 0
		}
		if inTriangle(p, j.p, j.fan[i], j.fan[next]) {
			return Surface{Y: j.y, Road: true}, true
		}
	}
	return Surface{}, false
}

// JunctionRoadReach bounds how far from a junction's centre its
// carriageway (the fan and the arms' mouths) reaches: √(r²+hw²) for the
// widest radius and half width, and the fan test's margin.
var JunctionRoadReach = math.Hypot(junctionRadius(maxHalfWidth), maxHalfWidth) + cornerMargin

// maxHalfWidth bounds every road's half width: with the sidewalk it bounds
// how far past the radius a junction's corners reach.
const maxHalfWidth = AvenueHalfWidth

func inTriangle(p, a, b, c Vec2) bool {
	cross := func(o, u, v Vec2) float64 { return (u.X-o.X)*(v.Z-o.Z) - (u.Z-o.Z)*(v.X-o.X) }
	d1, d2, d3 := cross(p, a, b), cross(p, b, c), cross(p, c, a)
	neg := d1 < 0 || d2 < 0 || d3 < 0
	pos := d1 > 0 || d2 > 0 || d3 > 0
	return !(neg && pos)
}

// JunctionRadiusAt is JunctionRadius for the junction in cell j, from the
// half widths of all its lattice arms.
func (w World) JunctionRadiusAt(j Cell) float64 { return junctionRadiusAt(w, w, j) }

func junctionRadiusAt[S junctionSource](w World, src S, j Cell) float64 {
	var buf [4]EdgeSpec
	hw := StreetHalfWidth
	for _, a := range arms(w, src, j, buf[:0]) {
		hw = max(hw, a.HalfWidth())
	}
	return junctionRadius(hw)
}

// junctionSurface is the radius and height of the junction in cell j: the
// junction is level at the terrain height of its centre.
func junctionSurface[S junctionSource](w World, src S, j Cell) (r, y float64) {
	p, _ := src.Junction(j)
	return junctionRadiusAt(w, src, j), w.Height(p.X, p.Z)
}

// Surface is World.Surface through the cache.
func (c *SurfaceCache) Surface(x, z float64) Surface {
	p := Vec2{X: x, Z: z}
	cell := CellAt(x, z)
	// A road strays at most ~67 m (jitter, wander, half width, sidewalk)
	// from its lattice line, under half a cell: only +X edges of this row
	// starting up to MaxSpanCells cells to the west and +Z edges of this
	// column starting here or one cell north can reach p. The cells'
	// other edges fail the bounding-box test at once.
	var best Surface
	found := false
	// Where surfaces overlap (arms meeting at a sharp angle, a kerb corner
	// over a junction's fan) the higher one is what is seen.
	take := func(s Surface) {
		if !found || seenOver(s, best) {
			best, found = s, true
		}
	}
	consider := func(r *edgeRoad) {
		if !c.edgeNear(r, p) {
			return
		}
		if p.X < r.lo.X || p.X > r.hi.X || p.Z < r.lo.Z || p.Z > r.hi.Z {
			return
		}
		if s, ok := r.surfaceAt(p); ok {
			take(s)
		}
	}
	for i := cell.I - MaxSpanCells; i <= cell.I; i++ {
		e := c.cellRoads(Cell{I: i, J: cell.J})
		for k := 0; k < e.n; k++ {
			consider(&e.edges[k])
		}
	}
	e := c.cellRoads(Cell{I: cell.I, J: cell.J - 1})
	for k := 0; k < e.n; k++ {
		consider(&e.edges[k])
	}
	if j := &c.cellRoads(cell).j; c.junctionNear(j, p) {
		if s, ok := j.surfaceAt(p); ok {
			take(s)
		}
	}
	if found {
		return best
	}
	h := c.w.Height(x, z)
	if h < WaterLevel {
		return Surface{Y: WaterLevel, Water: true}
	}
	return Surface{Y: h}
}

// seenOver reports whether s is what is seen where it overlaps best: the
// higher one, and the road on a tie. The outcome's height and Road do not
// depend on the order surfaces are taken in.
func seenOver(s, best Surface) bool { return s.Y > best.Y || s.Y == best.Y && s.Road }

// surfaceAt is the road's surface at p if p lies on this edge's road,
// sidewalks or junction ends.
func (r *edgeRoad) surfaceAt(p Vec2) (Surface, bool) {
	bestD2, bestK, bestT := math.Inf(1), -1, 0.0
	for b := 0; b*blockSegs < r.nn-1; b++ {
		if p.X < r.blo[b].X || p.X > r.bhi[b].X || p.Z < r.blo[b].Z || p.Z > r.bhi[b].Z {
			continue
		}
		for k := b * blockSegs; k < min(r.nn-1, (b+1)*blockSegs); k++ {
			a, b := r.nodes[k], r.nodes[k+1]
			if d2, t := segDist(p.X-a.X, p.Z-a.Z, b.X-a.X, b.Z-a.Z); d2 < bestD2 {
				bestD2, bestK, bestT = d2, k, t
			}
		}
	}
	return r.surfaceNear(bestK, bestT, bestD2)
}

// segDist is the squared distance from p to a segment from a to b and
// where along it (0..1) the nearest point lies, given ap = p-a and
// ab = b-a. Surface and RoadGrid share it, so they agree bit for bit;
// every product is rounded before it is added (explicit float64), or at
// GOAMD64=v3 the compiler would fuse multiply-adds differently where it is
// inlined into different code.
func segDist(apx, apz, abx, abz float64) (d2, t float64) {
	t = (float64(apx*abx) + float64(apz*abz)) / (float64(abx*abx) + float64(abz*abz))
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	dx, dz := apx-float64(abx*t), apz-float64(abz*t)
	return float64(dx*dx) + float64(dz*dz), t
}

// surfaceNear is the road's surface at a point whose nearest segment is k
// (-1: none), at t along it and squared distance d2.
func (r *edgeRoad) surfaceNear(k int, t, d2 float64) (Surface, bool) {
	if reach := r.hw + WalkWidth; k < 0 || d2 > reach*reach {
		return Surface{}, false
	}
	c := math.Sqrt(d2)
	along := (float64(k) + t) * r.L
	// Within a junction's radius the segment is not drawn: the junction's
	// fan is the carriageway there and its kerb corners the sidewalk.
	if along <= r.ra || along >= r.total-r.rb {
		return Surface{}, false
	}
	y := r.ys[k] + (r.ys[k+1]-r.ys[k])*t
	deck := IsDeck(r.ys[k], r.ys[k+1], r.hs[k], r.hs[k+1])
	if c <= r.hw {
		return Surface{Y: y, Road: true, Bridge: deck}, true
	}
	return Surface{Y: y + KerbHeight, Bridge: deck}, true
}
