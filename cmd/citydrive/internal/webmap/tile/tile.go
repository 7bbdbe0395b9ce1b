// Package tile draws one square of the operator's web map from the seed
// alone: terrain and the lake, districts, the far tier's lots (building
// footprints, parks, fields) and every road of the lattice. It is pure Go
// with no browser in it, so the same code runs natively in tests and in
// the browser as WebAssembly (../wasm).
package tile

import (
	"math"

	"citydrive/buildworkers/citygen"
	"citydrive/cmd/citydrive/internal/raster"
	"citydrive/roadgraph/world"
)

// Colours of the map. Road is what the browser test looks for.
var (
	Road      = [3]uint8{58, 58, 64}
	roadEdge  = [3]uint8{90, 90, 96}
	building  = [3]uint8{120, 108, 104}
	downtownB = [3]uint8{96, 90, 98}
	park      = [3]uint8{86, 150, 72}
	field     = [3]uint8{176, 182, 110}
)

// Spec names a tile: the world position of its top-left corner (X grows
// right, Z grows down, as in `citydrive map`), metres per pixel and its
// size in pixels.
type Spec struct {
	X0, Z0 float64
	Scale  float64
	Size   int
}

// Renderer draws tiles of one world, keeping its caches between tiles.
type Renderer struct {
	w    world.World
	lat  *world.Cache
	xs   []float64
	zs   []float64
	hs   []float64
	spec []world.EdgeSpec
	node []world.Vec2
}

// New returns a renderer of the world of seed.
func New(seed uint64) *Renderer {
	w := world.New(seed)
	return &Renderer{w: w, lat: world.NewCache(w)}
}

// MaxSize bounds a tile's side.
const MaxSize = 1024

// Draw renders s into rgba (4 bytes a pixel, s.Size² pixels, row by row),
// which it returns grown if needed.
func (r *Renderer) Draw(s Spec, rgba []byte) []byte {
	n := s.Size * s.Size * 4
	if cap(rgba) < n {
		rgba = make([]byte, n)
	}
	rgba = rgba[:n]
	c := canvas{s: s, px: rgba}
	r.ground(&c)
	if s.Scale <= 3 {
		r.lots(&c)
	}
	r.roads(&c)
	return rgba
}

type canvas struct {
	s  Spec
	px []byte
}

func (c *canvas) set(x, y int, col [3]uint8) {
	i := (y*c.s.Size + x) * 4
	c.px[i], c.px[i+1], c.px[i+2], c.px[i+3] = col[0], col[1], col[2], 255
}

func (c *canvas) toPixel(p world.Vec2) (float64, float64) {
	return (p.X - c.s.X0) / c.s.Scale, (p.Z - c.s.Z0) / c.s.Scale
}

// groundStep is how many pixels one terrain sample covers on a side
// (terrain changes slowly; roads are drawn at full resolution).
const groundStep = 2

func (r *Renderer) ground(c *canvas) {
	s := c.s
	m := (s.Size + groundStep - 1) / groundStep
	r.xs, r.zs = r.xs[:0], r.zs[:0]
	for i := range m {
		r.xs = append(r.xs, s.X0+(float64(i*groundStep)+0.5*groundStep)*s.Scale)
		r.zs = append(r.zs, s.Z0+(float64(i*groundStep)+0.5*groundStep)*s.Scale)
	}
	if cap(r.hs) < m*m {
		r.hs = make([]float64, m*m)
	}
	hs := r.hs[:m*m]
	for j := range m { // a row at a time: HeightGrid's rows
		r.w.HeightGrid(r.xs, r.zs[j:j+1], hs[j*m:(j+1)*m])
	}
	for j := range m {
		for i := range m {
			h := hs[j*m+i]
			col := groundColour(r.w, h, r.xs[i], r.zs[j])
			for y := j * groundStep; y < min(s.Size, (j+1)*groundStep); y++ {
				for x := i * groundStep; x < min(s.Size, (i+1)*groundStep); x++ {
					c.set(x, y, col)
				}
			}
		}
	}
}

// groundColour is mapimg's palette: water by depth, land by district,
// shaded by height.
func groundColour(w world.World, h, x, z float64) [3]uint8 {
	if h < world.WaterLevel {
		d := math.Min(1, -h/14)
		return [3]uint8{uint8(70 - 40*d), uint8(130 - 60*d), uint8(190 - 50*d)}
	}
	var c [3]float64
	switch w.District(x, z) {
	case world.Downtown:
		c = [3]float64{150, 145, 150}
	case world.Midrise:
		c = [3]float64{170, 165, 150}
	case world.Houses:
		c = [3]float64{165, 180, 125}
	default:
		c = [3]float64{120, 165, 90}
	}
	shade := math.Min(1, h/40)
	return [3]uint8{uint8(c[0] * (0.85 + 0.25*shade)), uint8(math.Min(255, c[1]*(0.85+0.2*shade))), uint8(c[2] * (0.85 + 0.25*shade))}
}

// cells is the lattice range whose edges may cross the tile (mapimg's
// margins: an edge starts at its cell and runs +X or +Z).
func (c *canvas) cells() (i0, i1, j0, j1 int32) {
	s := c.s
	lo := world.CellAt(s.X0, s.Z0)
	hi := world.CellAt(s.X0+float64(s.Size)*s.Scale, s.Z0+float64(s.Size)*s.Scale)
	return lo.I - 4, hi.I + 1, lo.J - 1, hi.J + 1
}

// eachEdge calls fn for every lattice edge that may show on c, once
// each (from its A end), with its nodes (reused: valid during the call).
func (r *Renderer) eachEdge(c *canvas, fn func(e world.EdgeSpec, nodes []world.Vec2)) {
	i0, i1, j0, j1 := c.cells()
	for i := i0; i <= i1; i++ {
		for j := j0; j <= j1; j++ {
			cell := world.Cell{I: i, J: j}
			r.spec = r.lat.Arms(cell, r.spec[:0])
			for _, e := range r.spec {
				if e.A != cell {
					continue
				}
				r.node = r.lat.EdgeNodes(e, r.node[:0])
				fn(e, r.node)
			}
		}
	}
}

func (r *Renderer) lots(c *canvas) {
	r.eachEdge(c, func(e world.EdgeSpec, nodes []world.Vec2) {
		for _, side := range [2]float64{1, -1} {
			citygen.FarLots(r.w, e, nodes, side, func(l citygen.FarLot) {
				switch l.Kind {
				case citygen.FarBuilding:
					col := building
					if l.Floors >= 12 {
						col = downtownB
					}
					c.quad(l.Footprint(), col)
				case citygen.FarPark:
					c.quad(l.Band(), park)
				case citygen.FarField:
					c.quad(l.Band(), field)
				}
			})
		}
	})
}

func (r *Renderer) roads(c *canvas) {
	for pass := range 2 { // a lighter kerb first, the carriageway over it
		r.eachEdge(c, func(e world.EdgeSpec, nodes []world.Vec2) {
			hw, col := e.HalfWidth(), Road
			if pass == 0 {
				hw, col = hw+1.2, roadEdge
			}
			for k := 0; k+1 < len(nodes); k++ {
				c.capsule(nodes[k], nodes[k+1], hw, col)
			}
		})
	}
}

// capsule fills every pixel within rm metres of the segment a-b, by
// mapimg's rule (raster.Capsule), so the roads cover the same pixels.
func (c *canvas) capsule(a, b world.Vec2, rm float64, col [3]uint8) {
	ax, ay := c.toPixel(a)
	bx, by := c.toPixel(b)
	raster.Capsule(ax, ay, bx, by, rm/c.s.Scale, c.s.Size, func(x, y int) { c.set(x, y, col) })
}

// quad fills the convex quadrilateral q.
func (c *canvas) quad(q [4]world.Vec2, col [3]uint8) {
	var xs, ys [4]float64
	for i, p := range q {
		xs[i], ys[i] = c.toPixel(p)
	}
	size := c.s.Size
	x0 := max(0, int(math.Floor(min(xs[0], xs[1], xs[2], xs[3]))))
	x1 := min(size-1, int(math.Ceil(max(xs[0], xs[1], xs[2], xs[3]))))
	y0 := max(0, int(math.Floor(min(ys[0], ys[1], ys[2], ys[3]))))
	y1 := min(size-1, int(math.Ceil(max(ys[0], ys[1], ys[2], ys[3]))))
	if x0 > x1 || y0 > y1 {
		return
	}
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			pos, neg := false, false
			for k := range 4 {
				ax, ay, bx, by := xs[k], ys[k], xs[(k+1)%4], ys[(k+1)%4]
				e := (bx-ax)*(py-ay) - (by-ay)*(px-ax)
				pos = pos || e > 0
				neg = neg || e < 0
			}
			if !(pos && neg) {
				c.set(x, y, col)
			}
		}
	}
}
