package world

import "math"

// RoadGrid answers Surface for a square grid of column centres at once,
// for the terrain generator: point (i, j) is (x0+i+0.5, z0+j+0.5), index
// j*n+i. Where want is set it sets road to whether Surface there is a road
// (a carriageway or a junction) and, if so, y to its height; elsewhere it
// leaves both alone. The answers are Surface's bit for bit (same edges and
// junction per point, same arithmetic, same overlap rule) but the cells'
// roads are looked up once per grid instead of per point and each segment
// is tested only against the points within its reach. len(want),
// len(road) and len(y) must be at least n*n.
func (c *SurfaceCache) RoadGrid(x0, z0 float64, n int, want, road []bool, y []float64) {
	g := c.gridScratch(n * n)
	for i := range n * n {
		g.found[i] = false
	}
	// Points in the same cell see the same edges and junction (Surface's
	// choice depends on the point's cell alone); CellAt is separable, so
	// the cells are runs of columns and rows.
	for ja := 0; ja < n; {
		cj := CellAt(0, z0+float64(ja)+0.5).J
		jb := ja + 1
		for jb < n && CellAt(0, z0+float64(jb)+0.5).J == cj {
			jb++
		}
		for ia := 0; ia < n; {
			ci := CellAt(x0+float64(ia)+0.5, 0).I
			ib := ia + 1
			for ib < n && CellAt(x0+float64(ib)+0.5, 0).I == ci {
				ib++
			}
			b := gridBlock{x0: x0, z0: z0, n: n, ia: ia, ib: ib, ja: ja, jb: jb, want: want}
			// The same cells as Surface, edges processed right after
			// their lookup (a later lookup may recycle the entry).
			for i := ci - MaxSpanCells; i <= ci; i++ {
				e := c.cellRoads(Cell{I: i, J: cj})
				for k := 0; k < e.n; k++ {
					g.edge(c, &e.edges[k], &b)
				}
			}
			e := c.cellRoads(Cell{I: ci, J: cj - 1})
			for k := 0; k < e.n; k++ {
				g.edge(c, &e.edges[k], &b)
			}
			if jr := &c.cellRoads(Cell{I: ci, J: cj}).j; jr.ok {
				g.junction(c, jr, &b)
			}
			ia = ib
		}
		ja = jb
	}
	for i := range n * n {
		if want[i] && g.found[i] && g.best[i].Road {
			road[i], y[i] = true, g.best[i].Y
		} else if want[i] {
			road[i] = false
		}
	}
}

// gridBlock is the part of a grid whose points lie in one cell: columns
// [ia, ib), rows [ja, jb).
type gridBlock struct {
	x0, z0         float64
	n              int
	ia, ib, ja, jb int
	want           []bool
}

func (b *gridBlock) point(i, j int) Vec2 {
	return Vec2{X: b.x0 + float64(i) + 0.5, Z: b.z0 + float64(j) + 0.5}
}

// span clips [lo, hi] (metres, along one axis from origin o) to the
// indices [a, b) of points o+i+0.5 (0 ≤ a ≤ b), with metres to spare
// either side so rounding never drops a point.
func span(lo, hi, o float64, a, b int) (int, int) {
	// two metres to spare: truncation stands in for floor (no SSE4.1
	// rounding at GOAMD64=v1) where the value is positive
	from, to := lo-o-2, hi-o+2
	if from > float64(b) || to < float64(a) {
		return 0, 0
	}
	i0, i1 := a, b
	if from > float64(a) {
		i0 = int(from)
	}
	if to < float64(b) {
		i1 = int(to) + 1
	}
	return i0, i1
}

// lowerBoundSlack (m²) covers the rounding of a squared distance to a
// segment, ~1e-13 m² here, many times over.
const lowerBoundSlack = 1e-6

// roadGrid is RoadGrid's per-point state, kept by the cache between calls.
type roadGrid struct {
	found []bool
	best  []Surface
	// the nearest segment of the edge being rasterised, valid where
	// stamp is epoch
	d2, t   []float64
	k       []int32
	stamp   []uint32
	epoch   uint32
	touched [][2]int16 // (i, j)
}

func (c *SurfaceCache) gridScratch(n int) *roadGrid {
	g := c.grid
	if g == nil || len(g.found) < n {
		g = &roadGrid{found: make([]bool, n), best: make([]Surface, n), d2: make([]float64, n), t: make([]float64, n), k: make([]int32, n), stamp: make([]uint32, n), touched: make([][2]int16, 0, n)}
		c.grid = g
	}
	return g
}

func (g *roadGrid) take(i int, s Surface) {
	if !g.found[i] || seenOver(s, g.best[i]) {
		g.best[i], g.found[i] = s, true
	}
}

// edge takes edge r's surface at the block's wanted points: the nearest
// segment over those whose box (grown by the road's reach) holds the
// point, which is surfaceAt's over its runs wherever either is in reach,
// first index on ties in both.
func (g *roadGrid) edge(c *SurfaceCache, r *edgeRoad, b *gridBlock) {
	// Surface skips points outside the edge's coarse box, then outside
	// its box.
	if ci0, ci1 := span(r.clo.X, r.chi.X, b.x0, b.ia, b.ib); ci0 >= ci1 {
		return
	}
	if cj0, cj1 := span(r.clo.Z, r.chi.Z, b.z0, b.ja, b.jb); cj0 >= cj1 {
		return
	}
	if !r.ready {
		c.fillEdge(r, r.spec)
		r.ready = true
	}
	i0, i1 := span(r.lo.X, r.hi.X, b.x0, b.ia, b.ib)
	j0, j1 := span(r.lo.Z, r.hi.Z, b.z0, b.ja, b.jb)
	if i0 >= i1 || j0 >= j1 {
		return
	}
	// Points not stamped with this edge's epoch have no nearest segment
	// yet; those that get one are listed in touched.
	if g.epoch++; g.epoch == 0 { // wrapped: old stamps could match
		clear(g.stamp)
		g.epoch = 1
	}
	ep := g.epoch
	g.touched = g.touched[:0]
	// The nearest segment over those in reach, first index on ties, in
	// two passes. A segment's nearest point to p is inside it only where p
	// is beside it (its projection falls on the segment); elsewhere it is
	// an end. So: each segment at the points beside it, then each node at
	// the points where it is no farther than the best so far (and in
	// reach), testing the two segments it ends. The tie rule makes the
	// order of the tests irrelevant.
	reach := r.hw + WalkWidth
	r2 := reach * reach
	for k := 0; k < r.nn-1; k++ {
		if g.skipBlock(r, b, k, i0, i1, j0, j1) {
			k += blockSegs - 1
			continue
		}
		p, q := r.nodes[k], r.nodes[k+1]
		sj0, sj1 := span(min(p.Z, q.Z)-reach, max(p.Z, q.Z)+reach, b.z0, j0, j1)
		si0, si1 := span(min(p.X, q.X)-reach, max(p.X, q.X)+reach, b.x0, i0, i1)
		abx, abz := q.X-p.X, q.Z-p.Z
		den := abx*abx + abz*abz
		for j := sj0; j < sj1; j++ {
			pz := b.z0 + float64(j) + 0.5
			// beside: 0 ≤ (px-p.X)·abx + (pz-p.Z)·abz ≤ den
			cz := (pz - p.Z) * abz
			ri0, ri1 := si0, si1
			if math.Abs(abx) < 1e-9 {
				if cz < 0 || cz > den {
					continue
				}
			} else {
				u0, u1 := p.X-cz/abx, p.X+(den-cz)/abx
				ri0, ri1 = span(min(u0, u1), max(u0, u1), b.x0, si0, si1)
			}
			for i := ri0; i < ri1; i++ {
				if idx := j*b.n + i; b.want[idx] {
					g.try(idx, i, j, k, ep, b.x0+float64(i)+0.5-p.X, pz-p.Z, abx, abz)
				}
			}
		}
	}
	for m := 0; m < r.nn; m++ {
		if bk := min(m, r.nn-2); bk%blockSegs == 0 && m < r.nn-1 && g.skipBlock(r, b, bk, i0, i1, j0, j1) {
			m += blockSegs - 1
			continue
		}
		nd := r.nodes[m]
		sj0, sj1 := span(nd.Z-reach, nd.Z+reach, b.z0, j0, j1)
		for j := sj0; j < sj1; j++ {
			pz := b.z0 + float64(j) + 0.5
			dz := pz - nd.Z
			w := math.Sqrt(max(r2-dz*dz, 0))
			ri0, ri1 := span(nd.X-w, nd.X+w, b.x0, i0, i1)
			for i := ri0; i < ri1; i++ {
				idx := j*b.n + i
				if !b.want[idx] {
					continue
				}
				px := b.x0 + float64(i) + 0.5
				dx := px - nd.X
				dn2 := dx*dx + dz*dz
				if dn2 > r2+lowerBoundSlack || g.stamp[idx] == ep && dn2 > g.d2[idx]+lowerBoundSlack {
					continue
				}
				for k := max(m-1, 0); k <= min(m, r.nn-2); k++ {
					a, c := r.nodes[k], r.nodes[k+1]
					g.try(idx, i, j, k, ep, px-a.X, pz-a.Z, c.X-a.X, c.Z-a.Z)
				}
			}
		}
	}
	for _, ij := range g.touched {
		idx := int(ij[1])*b.n + int(ij[0])
		p := b.point(int(ij[0]), int(ij[1]))
		if p.X < r.lo.X || p.X > r.hi.X || p.Z < r.lo.Z || p.Z > r.hi.Z {
			continue
		}
		if s, ok := r.surfaceNear(int(g.k[idx]), g.t[idx], g.d2[idx]); ok {
			g.take(idx, s)
		}
	}
}

// try tests segment k (ap = p - its start, ab its direction) as point
// idx's nearest.
func (g *roadGrid) try(idx, i, j, k int, ep uint32, apx, apz, abx, abz float64) {
	if g.stamp[idx] != ep {
		g.stamp[idx] = ep
		g.touched = append(g.touched, [2]int16{int16(i), int16(j)})
		g.d2[idx], g.t[idx] = segDist(apx, apz, abx, abz)
		g.k[idx] = int32(k)
		return
	}
	if g.k[idx] == int32(k) {
		return
	}
	if d2, t := segDist(apx, apz, abx, abz); d2 < g.d2[idx] || d2 == g.d2[idx] && int32(k) < g.k[idx] {
		g.d2[idx], g.t[idx], g.k[idx] = d2, t, int32(k)
	}
}

// skipBlock reports whether the run of segments from k (a multiple of
// blockSegs), whose box is grown by the reach, misses the grid's
// [i0, i1) × [j0, j1).
func (g *roadGrid) skipBlock(r *edgeRoad, b *gridBlock, k, i0, i1, j0, j1 int) bool {
	if k%blockSegs != 0 {
		return false
	}
	bl := k / blockSegs
	bi0, bi1 := span(r.blo[bl].X, r.bhi[bl].X, b.x0, i0, i1)
	bj0, bj1 := span(r.blo[bl].Z, r.bhi[bl].Z, b.z0, j0, j1)
	return bi0 >= bi1 || bj0 >= bj1
}

// junction takes the junction's surface at the block's wanted points
// within its reach.
func (g *roadGrid) junction(c *SurfaceCache, jr *junctionRoad, b *gridBlock) {
	// the box around the coarse reach, then the fan if it touches
	reach := junctionCoarse
	if i0, i1 := span(jr.p.X-reach, jr.p.X+reach, b.x0, b.ia, b.ib); i0 >= i1 {
		return
	}
	if j0, j1 := span(jr.p.Z-reach, jr.p.Z+reach, b.z0, b.ja, b.jb); j0 >= j1 {
		return
	}
	if !jr.ready {
		c.fillJunction(jr, jr.cell)
		jr.ready = true
	}
	reach = jr.r + WalkWidth + maxHalfWidth
	i0, i1 := span(jr.p.X-reach, jr.p.X+reach, b.x0, b.ia, b.ib)
	j0, j1 := span(jr.p.Z-reach, jr.p.Z+reach, b.z0, b.ja, b.jb)
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			idx := j*b.n + i
			if !b.want[idx] {
				continue
			}
			if s, ok := jr.surfaceAt(b.point(i, j)); ok {
				g.take(idx, s)
			}
		}
	}
}
