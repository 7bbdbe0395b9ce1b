package gen

// The generator as it was before issue 16 (1,024 Height calls and block-wise
// column fills per surface chunk), kept as the oracle the fast generator must
// match block for block.

import (
	"math"

	"citydrive/roadgraph/world"
	"citydrive/voxel"
)

// oracleColumns is the per-chunk precomputation: the terrain top (first air
// block, world Y) of each column and whether a road covers it.
type oracleColumns struct {
	top       [voxel.ChunkArea]int64 // index z<<5|x
	water     [voxel.ChunkArea]bool
	road      [voxel.ChunkArea]bool
	lo, hi    int64 // min and max top
	junctions []world.Vec2
}

// oracleGenerate fills c, which must be all air, with chunk p as
// generator version 2 does: the ground under a road or a junction capped
// at the road's surface (world.SurfaceCache.Surface per column).
func (g *Generator) oracleGenerate(p voxel.ChunkPos, c *voxel.Chunk) { g.oracle(p, c, true) }

// oracleGenerateV1 is generator version 1, when issue 16 was filed: no
// road caps, gravel only within a road's half width of its centre line.
func (g *Generator) oracleGenerateV1(p voxel.ChunkPos, c *voxel.Chunk) { g.oracle(p, c, false) }

func (g *Generator) oracle(p voxel.ChunkPos, c *voxel.Chunk, caps bool) {
	ox, oy, oz := p.Origin()
	y0, y1 := oy, oy+size
	// Sky and bedrock cost one height sample instead of 1024.
	hc := g.w.Height(float64(ox)+size/2, float64(oz)+size/2)
	if float64(y0) > hc+reliefMargin && y0 >= waterTop {
		return
	}
	if float64(y1) < hc-reliefMargin-dirtDepth-2 {
		c.Fill(voxel.Stone)
		return
	}
	var col oracleColumns
	col.lo, col.hi = math.MaxInt64, math.MinInt64
	for z := range size {
		for x := range size {
			h := g.w.Height(float64(ox)+float64(x)+0.5, float64(oz)+float64(z)+0.5)
			t := int64(math.Floor(h))
			i := z<<voxel.ChunkBits | x
			col.top[i], col.water[i] = t, h < world.WaterLevel
			col.lo, col.hi = min(col.lo, t), max(col.hi, t)
		}
	}
	// Nothing but air: above every column top and above the water.
	if y0 >= col.hi && y0 >= waterTop {
		return
	}
	// Nothing but stone: below every column's dirt, however far a road
	// lowers it.
	if y1 <= col.lo-1-dirtDepth-1-roadDrop {
		c.Fill(voxel.Stone)
		return
	}
	// Roads matter only where a top block can lie in this chunk.
	if col.hi > y0 && col.lo-2-roadDrop < y1 {
		g.oracleMarkRoads(&col, ox, oz)
		var capAt [voxel.ChunkArea]int64
		if caps && g.oracleRoadCaps(&col.road, col.junctions, ox, oz, func(i int) int64 { return col.top[i] }, &capAt) {
			for i := range col.top {
				col.top[i] = min(col.top[i], capAt[i])
			}
		}
	}
	for z := range size {
		for x := range size {
			i := z<<voxel.ChunkBits | x
			t := col.top[i]
			topBlock, under := voxel.Grass, voxel.Dirt
			switch {
			case col.road[i] && !col.water[i]:
				topBlock = voxel.Gravel
			case t <= beachTop:
				topBlock, under = voxel.Sand, voxel.Sand
			}
			fill := func(from, to int64, b voxel.Block) {
				from, to = max(from, y0), min(to, y1)
				if from < to {
					c.FillColumn(x, z, int(from-y0), int(to-y0), b)
				}
			}
			fill(math.MinInt64, t-1-dirtDepth, voxel.Stone)
			fill(t-1-dirtDepth, t-1, under)
			fill(t-1, t, topBlock)
			fill(t, waterTop, voxel.Water)
		}
	}
}

// oracleMarkRoads flags the columns within a road's half width of its centre
// line, lowering their top to floor(h) (see the package comment).
func (g *Generator) oracleMarkRoads(col *oracleColumns, ox, oz int64) {
	x0, z0 := float64(ox), float64(oz)
	x1, z1 := x0+size, z0+size
	lo := world.CellAt(x0-roadSearch-world.CellSize, z0-roadSearch-world.CellSize)
	hi := world.CellAt(x1+roadSearch+world.CellSize, z1+roadSearch+world.CellSize)
	var buf [world.MaxSegments + 1]world.Vec2
	any := false
	for i := lo.I - maxSpan; i <= hi.I; i++ {
		for j := lo.J; j <= hi.J; j++ {
			a := world.Cell{I: i, J: j}
			if _, ok := g.w.Junction(a); !ok {
				continue
			}
			for _, d := range [...]world.Dir{world.DirX, world.DirZ} {
				e, ok := g.w.Edge(world.EdgeID(a, d))
				if !ok {
					continue
				}
				pa, _ := g.w.Junction(e.A)
				pb, _ := g.w.Junction(e.B)
				if math.Max(pa.X, pb.X)+roadSearch < x0 || math.Min(pa.X, pb.X)-roadSearch > x1 ||
					math.Max(pa.Z, pb.Z)+roadSearch < z0 || math.Min(pa.Z, pb.Z)-roadSearch > z1 {
					continue
				}
				nodes := g.w.EdgeNodes(e, buf[:0])
				if oracleRasterise(col, nodes, e.HalfWidth(), x0, z0) {
					any = true
				}
				col.junctions = nearJunctions(col.junctions, x0, z0, pa, pb)
			}
		}
	}
	if !any {
		return
	}
	for z := range size {
		for x := range size {
			i := z<<voxel.ChunkBits | x
			if col.road[i] && !col.water[i] {
				h := g.w.Height(x0+float64(x)+0.5, z0+float64(z)+0.5)
				col.top[i] = int64(math.Floor(h))
				col.lo = min(col.lo, col.top[i])
			}
		}
	}
}

// oracleRasterise marks columns whose centre lies within hw of the polyline.
func oracleRasterise(col *oracleColumns, nodes []world.Vec2, hw, x0, z0 float64) bool {
	hit := false
	for k := 1; k < len(nodes); k++ {
		a, b := nodes[k-1], nodes[k]
		minX := int(math.Floor(math.Min(a.X, b.X) - hw - x0))
		maxX := int(math.Ceil(math.Max(a.X, b.X) + hw - x0))
		minZ := int(math.Floor(math.Min(a.Z, b.Z) - hw - z0))
		maxZ := int(math.Ceil(math.Max(a.Z, b.Z) + hw - z0))
		if maxX < 0 || maxZ < 0 || minX >= size || minZ >= size {
			continue
		}
		ab := b.Sub(a)
		l2 := ab.Dot(ab)
		for z := max(minZ, 0); z <= min(maxZ, size-1); z++ {
			for x := max(minX, 0); x <= min(maxX, size-1); x++ {
				p := world.Vec2{X: x0 + float64(x) + 0.5, Z: z0 + float64(z) + 0.5}
				t := 0.0
				if l2 > 0 {
					t = math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l2))
				}
				if p.Dist2(a.Add(ab.Scale(t))) <= hw*hw {
					col.road[z<<voxel.ChunkBits|x] = true
					hit = true
				}
			}
		}
	}
	return hit
}

// oracleRoadCaps is roadCaps as generator version 2 first had it: one
// world.SurfaceCache.Surface query per candidate column.
func (g *Generator) oracleRoadCaps(road *[voxel.ChunkArea]bool, junctions []world.Vec2, ox, oz int64, top func(i int) int64, caps *[voxel.ChunkArea]int64) bool {
	x0, z0 := float64(ox), float64(oz)
	any := false
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range voxel.ChunkArea {
		caps[i] = math.MaxInt64
		x, z := x0+float64(i&(size-1))+0.5, z0+float64(i>>voxel.ChunkBits)+0.5
		if !road[i] {
			near := false
			for _, j := range junctions {
				if dx, dz := x-j.X, z-j.Z; dx*dx+dz*dz < junctionReach*junctionReach {
					near = true
					break
				}
			}
			if !near {
				continue
			}
		}
		s := g.surf.Surface(x, z)
		if !s.Road || s.Water {
			continue
		}
		road[i] = true
		if c := int64(math.Floor(s.Y)); c < top(i) {
			caps[i], any = c, true
		}
	}
	return any
}
