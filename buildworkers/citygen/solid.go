package citygen

import (
	"math"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Nothing solid stands where a car drives (issue #22). Every solid the
// builder draws (a building mass, a parked car, a pole, a bench, a bollard,
// a bridge rail) is placed through one check, clear: its footprint, grown
// by solidClear, must keep off every carriageway and every junction's
// swept area of the lattice:
//
//   - a carriageway is, for every lattice edge, the points within its half
//     width of its centre line, the line cut back to the part beyond both
//     junctions' radii: world.Surface's edge road;
//   - a junction's swept area is its fan (the centre through both corners
//     of every lattice arm at the junction radius, as buildJunction draws
//     it and world.Surface stands on it) and its arms' mouths ([0, r]
//     along each arm, ± its half width). A car turning between two arms
//     sweeps the whole fan, the part under a sharp kerb corner included.
//
// The one exception is a parked car at its own street's kerb: it stands
// in the parking strip, and of its own street only the lanes (laneReach of
// the centre line) count for it.
//
// The roads are the lattice's (world.Edge, EdgeNodes, Arms,
// JunctionRadiusAt through the builder's world.Cache, b.lat), not the loaded
// graph's, so the answer is a pure function of the seed and the footprint:
// the same whichever edges a worker's mirror holds. A placement that fails
// is not drawn and not emitted; the few that matter move instead (a signal
// or junction lamp pole steps back from the fan onto the corner's
// sidewalk, a corner bollard towards the back of the corner), and the rest
// are dropped: street life is a hash's choice and has nowhere better to go.
const solidClear = 0.1

// roadCells bounds the builder's memo of lattice cells: an item's solids
// touch one cell, rarely two or four, and the workers' items come from
// the few cells around the car.
const roadCells = 9

// cellEdges bounds the edges that can reach a cell: +X edges from the
// MaxSpanCells+1 origins west of it and here, +Z edges from here and the
// cell north.
const cellEdges = world.MaxSpanCells + 3

// segBlock is the run length of an edge's coarse bounding boxes.
const segBlock = 8

// roadEdge is one lattice edge's carriageway.
type roadEdge struct {
	id       uint64
	hw       float64
	L        float64
	lo, hi   float64 // the along range that is the edge's own: [ra, total-rb]
	nodes    [world.MaxSegments]world.Vec2
	nn       int
	min, max world.Vec2 // bounds of the nodes grown by the half width
	bmin     [world.MaxSegments/segBlock + 1]world.Vec2
	bmax     [world.MaxSegments/segBlock + 1]world.Vec2
}

// roadCell is what of the lattice can reach points in one cell: its
// edges, and its junction's swept area (filled on first use).
type roadCell struct {
	cell   world.Cell
	valid  bool
	used   uint64
	edges  [cellEdges]roadEdge
	ne     int
	junc   bool
	jp     world.Vec2
	jready bool
	jr     float64
	// the swept area: the fan's triangles and the arms' mouths, with
	// their bounds
	poly  [3 * maxArms]sweptPoly
	np    int
	reach float64 // distance from jp past which no polygon reaches
}

// sweptPoly is a convex polygon of a junction's swept area: a fan
// triangle or an arm's mouth.
type sweptPoly struct {
	p      [4]world.Vec2
	n      int
	lo, hi world.Vec2
}

func (rc *roadCell) addPoly(pts ...world.Vec2) {
	q := &rc.poly[rc.np]
	rc.np++
	q.n = copy(q.p[:], pts)
	q.lo, q.hi = pts[0], pts[0]
	for _, p := range pts[1:] {
		q.lo, q.hi = vmin(q.lo, p), vmax(q.hi, p)
	}
}

// roadMemo holds the lattice around the builder's placements (read
// through the builder's world.Cache).
type roadMemo struct {
	cells []*roadCell
	clock uint64
	specs [2 * maxArms]world.EdgeSpec
	seen  [4 * cellEdges]uint64
}

func newRoadMemo() roadMemo {
	m := roadMemo{cells: make([]*roadCell, roadCells)}
	for i := range m.cells {
		m.cells[i] = new(roadCell)
	}
	return m
}

// roadCell is the memo's entry for cell c, filled if need be.
func (b *Builder) roadCell(c world.Cell) *roadCell {
	m := &b.roads
	m.clock++
	oldest := m.cells[0]
	for _, rc := range m.cells {
		if rc.valid && rc.cell == c {
			rc.used = m.clock
			return rc
		}
		if !rc.valid || oldest.valid && rc.used < oldest.used {
			oldest = rc
		}
	}
	b.fillCell(oldest, c)
	oldest.used = m.clock
	return oldest
}

// fillCell finds the lattice edges that can reach points in cell c. A road
// strays under half a cell from its lattice line (world.Surface relies on
// the same), so those are the +X edges of c's row that start at most
// MaxSpanCells cells west and end here or east, and the +Z edges of c's
// column that start here or one cell north.
func (b *Builder) fillCell(rc *roadCell, c world.Cell) {
	rc.cell, rc.valid, rc.ne, rc.jready = c, true, 0, false
	for k := int32(0); k <= world.MaxSpanCells; k++ {
		if s, ok := b.lat.Edge(world.EdgeID(world.Cell{I: c.I - k, J: c.J}, world.DirX)); ok && s.B.I >= c.I {
			b.fillEdge(&rc.edges[rc.ne], s)
			rc.ne++
		}
	}
	for _, o := range [2]world.Cell{{I: c.I, J: c.J - 1}, c} {
		if s, ok := b.lat.Edge(world.EdgeID(o, world.DirZ)); ok {
			b.fillEdge(&rc.edges[rc.ne], s)
			rc.ne++
		}
	}
	rc.jp, rc.junc = b.lat.Junction(c)
}

// fillEdge copies the edge's centre line from the graph when it is loaded
// (the graph's nodes are the lattice's, bit for bit) and computes it
// otherwise.
func (b *Builder) fillEdge(e *roadEdge, s world.EdgeSpec) {
	e.id, e.hw = s.ID, s.HalfWidth()
	if ge := b.g.Edge(s.ID); ge != nil {
		e.nn = copy(e.nodes[:], ge.Nodes)
	} else {
		e.nn = len(b.lat.EdgeNodes(s, e.nodes[:0]))
	}
	e.L = e.nodes[1].Sub(e.nodes[0]).Len()
	e.lo = b.lat.JunctionRadiusAt(s.A)
	e.hi = float64(e.nn-1)*e.L - b.lat.JunctionRadiusAt(s.B)
	inf := world.Vec2{X: math.Inf(1), Z: math.Inf(1)}
	e.min, e.max = inf, inf.Scale(-1)
	for k := 0; k < e.nn; k++ {
		p := e.nodes[k]
		lo, hi := world.Vec2{X: p.X - e.hw, Z: p.Z - e.hw}, world.Vec2{X: p.X + e.hw, Z: p.Z + e.hw}
		e.min, e.max = vmin(e.min, lo), vmax(e.max, hi)
		bk := k / segBlock
		if k%segBlock == 0 {
			e.bmin[bk], e.bmax[bk] = lo, hi
			if bk > 0 { // a run's last node is the next run's first
				e.bmin[bk-1], e.bmax[bk-1] = vmin(e.bmin[bk-1], lo), vmax(e.bmax[bk-1], hi)
			}
		} else {
			e.bmin[bk], e.bmax[bk] = vmin(e.bmin[bk], lo), vmax(e.bmax[bk], hi)
		}
	}
}

func vmin(a, b world.Vec2) world.Vec2 {
	return world.Vec2{X: min(a.X, b.X), Z: min(a.Z, b.Z)}
}
func vmax(a, b world.Vec2) world.Vec2 {
	return world.Vec2{X: max(a.X, b.X), Z: max(a.Z, b.Z)}
}

// fillFan computes the cell's junction's fan and mouths from its lattice
// arms, as world.Surface does.
func (b *Builder) fillFan(rc *roadCell) {
	m := &b.roads
	rc.jready = true
	rc.jr = b.lat.JunctionRadiusAt(rc.cell)
	var arms [maxArms]arm
	na := 0
	for _, s := range b.lat.Arms(rc.cell, m.specs[:0]) {
		if na == maxArms {
			break
		}
		var e *roadEdge
		for i := range rc.edges[:rc.ne] {
			if rc.edges[i].id == s.ID {
				e = &rc.edges[i]
			}
		}
		if e == nil {
			continue // not met: every arm of the cell's junction is one of the cell's edges
		}
		d := e.nodes[1].Sub(e.nodes[0]).Norm()
		if s.A != rc.cell {
			d = e.nodes[e.nn-2].Sub(e.nodes[e.nn-1]).Norm()
		}
		arms[na] = arm{d: d, hw: e.hw, angle: math.Atan2(d.Z, d.X)}
		for k := na; k > 0 && arms[k].angle < arms[k-1].angle; k-- {
			arms[k], arms[k-1] = arms[k-1], arms[k]
		}
		na++
	}
	var fan [2 * maxArms]world.Vec2
	nf := 0
	rc.np = 0
	for i := range arms[:na] {
		a := &arms[i]
		ccw := world.Vec2{X: -a.d.Z, Z: a.d.X}
		end := rc.jp.Add(a.d.Scale(rc.jr))
		fan[nf], fan[nf+1] = end.Add(ccw.Scale(-a.hw)), end.Add(ccw.Scale(a.hw))
		nf += 2
		rc.addPoly(rc.jp.Add(ccw.Scale(-a.hw)), fan[nf-2], fan[nf-1], rc.jp.Add(ccw.Scale(a.hw))) // the mouth
	}
	if na == 1 { // a dead end: the surface closes behind the centre
		a := &arms[0]
		ccw := world.Vec2{X: -a.d.Z, Z: a.d.X}
		fan[2] = rc.jp.Add(a.d.Scale(-a.hw)).Add(ccw.Scale(a.hw))
		fan[3] = rc.jp.Add(a.d.Scale(-a.hw)).Add(ccw.Scale(-a.hw))
		nf = 4
	}
	for i := range nf {
		rc.addPoly(rc.jp, fan[i], fan[(i+1)%nf])
	}
	far := 0.0
	for _, q := range rc.poly[:rc.np] {
		for _, p := range q.p[:q.n] {
			far = max(far, p.Sub(rc.jp).Len())
		}
	}
	rc.reach = far
}

// footprint is an oriented rectangle on the ground: centre c, unit axes u
// and v = u.Perp(), half extents hu and hv.
type footprint struct {
	c, u   world.Vec2
	hu, hv float64
}

// local is p in the footprint's frame.
func (f *footprint) local(p world.Vec2) (float64, float64) {
	d := p.Sub(f.c)
	return d.Dot(f.u), d.Z*f.u.X - d.X*f.u.Z
}

// nearSeg reports whether segment pq passes within reach of the
// footprint: its distance to the rectangle is below reach.
func (f *footprint) nearSeg(p, q world.Vec2, reach float64) bool {
	px, pz := f.local(p)
	qx, qz := f.local(q)
	// the segment meets the rectangle: clip it (Liang–Barsky)
	t0, t1 := 0.0, 1.0
	dx, dz := qx-px, qz-pz
	clip := func(den, num float64) bool { // den·t ≤ num
		switch {
		case den == 0:
			return num >= 0
		case den > 0:
			t1 = min(t1, num/den)
		default:
			t0 = max(t0, num/den)
		}
		return t0 <= t1
	}
	if clip(-dx, px+f.hu) && clip(dx, f.hu-px) && clip(-dz, pz+f.hv) && clip(dz, f.hv-pz) {
		return true
	}
	// apart: the nearest points are an end of the segment or a corner
	r2 := reach * reach
	if rectDist2(px, pz, f.hu, f.hv) < r2 || rectDist2(qx, qz, f.hu, f.hv) < r2 {
		return true
	}
	for _, c := range [4][2]float64{{-f.hu, -f.hv}, {f.hu, -f.hv}, {f.hu, f.hv}, {-f.hu, f.hv}} {
		if segDist2(c[0], c[1], px, pz, qx, qz) < r2 {
			return true
		}
	}
	return false
}

// rectDist2 is the squared distance from (x, z) to [-hu,hu]×[-hv,hv].
func rectDist2(x, z, hu, hv float64) float64 {
	dx, dz := max(0, math.Abs(x)-hu), max(0, math.Abs(z)-hv)
	return dx*dx + dz*dz
}

// segDist2 is the squared distance from (x, z) to the segment from
// (ax, az) to (bx, bz).
func segDist2(x, z, ax, az, bx, bz float64) float64 {
	abx, abz := bx-ax, bz-az
	t := 0.0
	if l2 := abx*abx + abz*abz; l2 > 0 {
		t = max(0, min(1, ((x-ax)*abx+(z-az)*abz)/l2))
	}
	dx, dz := x-ax-abx*t, z-az-abz*t
	return dx*dx + dz*dz
}

// overlapsPoly reports whether the footprint and the convex polygon pts
// (at most four points) overlap: separating axes, the footprint's two and
// the polygon's edges' normals.
func (f *footprint) overlapsPoly(pts []world.Vec2) bool {
	var lx, lz [4]float64
	n := len(pts)
	for i, p := range pts {
		lx[i], lz[i] = f.local(p)
	}
	// the footprint's axes
	loX, hiX, loZ, hiZ := lx[0], lx[0], lz[0], lz[0]
	for i := 1; i < n; i++ {
		loX, hiX = min(loX, lx[i]), max(hiX, lx[i])
		loZ, hiZ = min(loZ, lz[i]), max(hiZ, lz[i])
	}
	if loX >= f.hu || hiX <= -f.hu || loZ >= f.hv || hiZ <= -f.hv {
		return false
	}
	// the polygon's edges (either winding)
	for i := range n {
		j := i + 1
		if j == n {
			j = 0
		}
		nx, nz := lz[j]-lz[i], lx[i]-lx[j]
		if nx == 0 && nz == 0 {
			continue
		}
		lo := lx[0]*nx + lz[0]*nz
		hi := lo
		for k := 1; k < n; k++ {
			d := lx[k]*nx + lz[k]*nz
			lo, hi = min(lo, d), max(hi, d)
		}
		r := f.hu*math.Abs(nx) + f.hv*math.Abs(nz) // the rectangle's half extent along n
		if lo >= r || hi <= -r {
			return false
		}
	}
	return true
}

// clear reports whether the footprint [u0,u1]×[v0,v1] of frame f, grown by
// solidClear, keeps off every carriageway and junction swept area of the
// lattice.
func (b *Builder) clear(f *frame, u0, u1, v0, v1 float64) bool {
	return b.clearOf(f, u0, u1, v0, v1, 0, 0)
}

// clearOf is clear for a car parked at the kerb of edge own: of its own
// street only the lanes, ownReach of the centre line, count.
func (b *Builder) clearOf(f *frame, u0, u1, v0, v1 float64, own uint64, ownReach float64) bool {
	fp := footprint{c: f.xz((u0+u1)/2, (v0+v1)/2), u: f.a, hu: (u1-u0)/2 + solidClear, hv: (v1-v0)/2 + solidClear}
	ex := math.Abs(fp.u.X)*fp.hu + math.Abs(fp.u.Z)*fp.hv
	ez := math.Abs(fp.u.Z)*fp.hu + math.Abs(fp.u.X)*fp.hv
	lo, hi := world.CellAt(fp.c.X-ex, fp.c.Z-ez), world.CellAt(fp.c.X+ex, fp.c.Z+ez)
	rad := math.Sqrt(fp.hu*fp.hu + fp.hv*fp.hv)
	m := &b.roads
	seen := m.seen[:0]
	for ci := lo.I; ci <= hi.I; ci++ {
		for cj := lo.J; cj <= hi.J; cj++ {
			rc := b.roadCell(world.Cell{I: ci, J: cj})
			for i := range rc.edges[:rc.ne] {
				e := &rc.edges[i]
				dup := false
				for _, id := range seen {
					dup = dup || id == e.id
				}
				if dup {
					continue
				}
				if len(seen) < cap(seen) {
					seen = append(seen, e.id)
				}
				reach := e.hw
				if e.id == own {
					reach = ownReach
				}
				if !e.clearOf(&fp, ex, ez, reach) {
					return false
				}
			}
			if !rc.junc {
				continue
			}
			if d := fp.c.Sub(rc.jp); !rc.jready && d.Dot(d) < sq(world.AvenueHalfWidth*3+rad) || rc.jready && d.Dot(d) < sq(rc.reach+rad) {
				if !rc.jready {
					b.fillFan(rc)
				}
				if !rc.fanClear(&fp, ex, ez) {
					return false
				}
			}
		}
	}
	return true
}

func sq(x float64) float64 { return x * x }

// clearOf reports whether the footprint (reaching ex, ez from its centre
// along X and Z) stays reach or more from the edge's own centre line.
func (e *roadEdge) clearOf(fp *footprint, ex, ez, reach float64) bool {
	g := reach - e.hw // the bounds are grown by the half width
	if fp.c.X+ex <= e.min.X-g || fp.c.X-ex >= e.max.X+g || fp.c.Z+ez <= e.min.Z-g || fp.c.Z-ez >= e.max.Z+g {
		return true
	}
	for bk := 0; bk*segBlock < e.nn-1; bk++ {
		if fp.c.X+ex <= e.bmin[bk].X-g || fp.c.X-ex >= e.bmax[bk].X+g || fp.c.Z+ez <= e.bmin[bk].Z-g || fp.c.Z-ez >= e.bmax[bk].Z+g {
			continue
		}
		for k := bk * segBlock; k < min(e.nn-1, (bk+1)*segBlock); k++ {
			a, c := max(float64(k)*e.L, e.lo), min(float64(k+1)*e.L, e.hi)
			if c <= a {
				continue // within a junction's radius: the junction's surface
			}
			p0, p1 := e.nodes[k], e.nodes[k+1]
			if fp.nearSeg(p0.Lerp(p1, a/e.L-float64(k)), p0.Lerp(p1, c/e.L-float64(k)), reach) {
				return false
			}
		}
	}
	return true
}

// fanClear reports whether the footprint (reaching ex, ez from its
// centre along X and Z) stays off the junction's fan and its arms' mouths.
func (rc *roadCell) fanClear(fp *footprint, ex, ez float64) bool {
	for i := range rc.np {
		q := &rc.poly[i]
		if fp.c.X+ex <= q.lo.X || fp.c.X-ex >= q.hi.X || fp.c.Z+ez <= q.lo.Z || fp.c.Z-ez >= q.hi.Z {
			continue
		}
		if fp.overlapsPoly(q.p[:q.n]) {
			return false
		}
	}
	return true
}

// solid places one solid thing: it reports whether the box
// [u0,u1]×[y0,y1]×[v0,v1] of frame f is clear and, if so, records its
// obstacle. The caller draws the box only when it is.
func (b *Builder) solid(f *frame, u0, u1, y0, y1, v0, v1 float64, kind slots.ObstacleKind) bool {
	if !b.clear(f, u0, u1, v0, v1) {
		return false
	}
	b.obstacle(f, u0, u1, y0, y1, v0, v1, kind)
	return true
}
