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
// indices [a, b) of points o+i+0.5, with a metre to spare either side so
// rounding never drops a point.
func span(lo, hi, o float64, a, b int) (int, int) {
	from := math.Floor(lo - o - 1.5)
	to := math.Ceil(hi - o + 0.5)
	if from > float64(b) || to < float64(a) {
		return 0, 0
	}
	return max(a, int(from)), min(b, int(to))
}

// roadGrid is RoadGrid's per-point state, kept by the cache between calls.
type roadGrid struct {
	found []bool
	best  []Surface
	// the nearest segment of the edge being rasterised
	d2, t []float64
	k     []int32
}

func (c *SurfaceCache) gridScratch(n int) *roadGrid {
	g := c.grid
	if g == nil || len(g.found) < n {
		g = &roadGrid{found: make([]bool, n), best: make([]Surface, n), d2: make([]float64, n), t: make([]float64, n), k: make([]int32, n)}
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
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			g.d2[j*b.n+i], g.k[j*b.n+i] = math.Inf(1), -1
		}
	}
	reach := r.hw + WalkWidth
	for k := 0; k < r.nn-1; k++ {
		p, q := r.nodes[k], r.nodes[k+1]
		si0, si1 := span(math.Min(p.X, q.X)-reach, math.Max(p.X, q.X)+reach, b.x0, i0, i1)
		sj0, sj1 := span(math.Min(p.Z, q.Z)-reach, math.Max(p.Z, q.Z)+reach, b.z0, j0, j1)
		for j := sj0; j < sj1; j++ {
			for i := si0; i < si1; i++ {
				idx := j*b.n + i
				if !b.want[idx] {
					continue
				}
				if d2, t := r.segDist(b.point(i, j), k); d2 < g.d2[idx] {
					g.d2[idx], g.t[idx], g.k[idx] = d2, t, int32(k)
				}
			}
		}
	}
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			idx := j*b.n + i
			if g.k[idx] < 0 {
				continue
			}
			p := b.point(i, j)
			if p.X < r.lo.X || p.X > r.hi.X || p.Z < r.lo.Z || p.Z > r.hi.Z {
				continue
			}
			if s, ok := r.surfaceNear(int(g.k[idx]), g.t[idx], g.d2[idx]); ok {
				g.take(idx, s)
			}
		}
	}
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
