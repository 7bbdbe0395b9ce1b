// Package mapimg draws a top-down picture of the road graph with the
// standard library: terrain and lake, districts, roads, junctions, the
// visible set coloured by walk cost, slot occupancy and the car. It is how we
// see whether the city looks like a city, without a GPU.
package mapimg

import (
	"image"
	"image/color"
	"math"

	"citydrive/cmd/citydrive/internal/raster"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/walker"
)

// SlotState is what the slot table says about a visible item.
type SlotState uint8

const (
	SlotUnknown SlotState = iota // no slot information
	SlotPending                  // has a slot, geometry not built yet
	SlotBuilt                    // geometry uploaded
)

// Scene is what to draw.
type Scene struct {
	World   world.World
	Graph   *roadgraph.Graph
	Visible []walker.Item
	Slots   map[int64]SlotState // optional: occupancy by item key
	Car     world.Vec2
	Heading world.Vec2
	Centre  world.Vec2
	Size    int     // pixels per side
	Scale   float64 // metres per pixel
	MaxCost float64 // colour scale for walk cost
}

// Draw renders the scene.
func Draw(s Scene) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, s.Size, s.Size))
	s.drawGround(img)
	s.drawLattice(img)
	for _, e := range s.Graph.Edges() {
		for i := 0; i+1 < len(e.Nodes); i++ {
			s.capsule(img, e.Nodes[i], e.Nodes[i+1], e.HalfWidth, color.RGBA{70, 70, 74, 255})
		}
	}
	visible := map[int64]walker.Item{}
	for _, it := range s.Visible {
		visible[it.Key] = it
	}
	for _, e := range s.Graph.Edges() {
		for i := 0; i+1 < len(e.Nodes); i++ {
			it, ok := visible[e.Key(i)]
			if !ok {
				continue
			}
			c := s.itemColour(it)
			s.capsule(img, e.Nodes[i], e.Nodes[i+1], e.HalfWidth*0.6, c)
		}
	}
	for _, j := range s.Graph.Junctions() {
		c := color.RGBA{30, 30, 30, 255}
		if it, ok := visible[roadgraph.JunctionKey(j.ID)]; ok {
			c = s.itemColour(it)
		}
		s.disc(img, j.Pos, 11, color.RGBA{20, 20, 20, 255})
		s.disc(img, j.Pos, 8, c)
	}
	s.drawCar(img)
	return img
}

// drawLattice draws the roads of the pure world description that the graph
// has not loaded, faintly: the city beyond the streamed part.
func (s Scene) drawLattice(img *image.RGBA) {
	lo := s.toWorld(0, 0)
	hi := s.toWorld(float64(s.Size), float64(s.Size))
	c0, c1 := world.CellAt(lo.X, lo.Z), world.CellAt(hi.X, hi.Z)
	var specs []world.EdgeSpec
	var nodes []world.Vec2
	lat := world.NewCache(s.World) // a junction's network rule is its block's: once per block
	for i := c0.I - 4; i <= c1.I+1; i++ {
		for j := c0.J - 1; j <= c1.J+1; j++ {
			c := world.Cell{I: i, J: j}
			specs = lat.Arms(c, specs[:0])
			for _, e := range specs {
				if e.A != c || s.Graph.Edge(e.ID) != nil {
					continue
				}
				nodes = lat.EdgeNodes(e, nodes[:0])
				for k := 0; k+1 < len(nodes); k++ {
					s.capsule(img, nodes[k], nodes[k+1], e.HalfWidth()*0.5, color.RGBA{120, 120, 125, 255})
				}
			}
		}
	}
}

// itemColour maps walk cost to a yellow→red→purple ramp; pending items are
// drawn hatched grey so slot occupancy shows.
func (s Scene) itemColour(it walker.Item) color.RGBA {
	if st, ok := s.Slots[it.Key]; ok && st == SlotPending {
		return color.RGBA{200, 200, 210, 255}
	}
	t := math.Min(1, float64(it.Cost)/math.Max(1, s.MaxCost))
	stops := [...][3]float64{{255, 235, 60}, {245, 120, 40}, {200, 40, 90}, {90, 30, 140}}
	f := t * float64(len(stops)-1)
	i := min(int(f), len(stops)-2)
	f -= float64(i)
	a, b := stops[i], stops[i+1]
	return color.RGBA{uint8(a[0] + (b[0]-a[0])*f), uint8(a[1] + (b[1]-a[1])*f), uint8(a[2] + (b[2]-a[2])*f), 255}
}

func (s Scene) toWorld(px, py float64) world.Vec2 {
	half := float64(s.Size) / 2
	return world.Vec2{X: s.Centre.X + (px-half)*s.Scale, Z: s.Centre.Z + (py-half)*s.Scale}
}

func (s Scene) toPixel(p world.Vec2) (float64, float64) {
	half := float64(s.Size) / 2
	return (p.X-s.Centre.X)/s.Scale + half, (p.Z-s.Centre.Z)/s.Scale + half
}

func (s Scene) drawGround(img *image.RGBA) {
	for py := 0; py < s.Size; py++ {
		for px := 0; px < s.Size; px++ {
			p := s.toWorld(float64(px)+0.5, float64(py)+0.5)
			h := s.World.Height(p.X, p.Z)
			var c color.RGBA
			if h < world.WaterLevel {
				d := math.Min(1, -h/14)
				c = color.RGBA{uint8(70 - 40*d), uint8(130 - 60*d), uint8(190 - 50*d), 255}
			} else {
				shade := math.Min(1, h/40)
				switch s.World.District(p.X, p.Z) {
				case world.Downtown:
					c = color.RGBA{150, 145, 150, 255}
				case world.Midrise:
					c = color.RGBA{170, 165, 150, 255}
				case world.Houses:
					c = color.RGBA{165, 180, 125, 255}
				default:
					c = color.RGBA{120, 165, 90, 255}
				}
				c.R = uint8(float64(c.R) * (0.85 + 0.25*shade))
				c.G = uint8(math.Min(255, float64(c.G)*(0.85+0.2*shade)))
				c.B = uint8(float64(c.B) * (0.85 + 0.25*shade))
			}
			img.SetRGBA(px, py, c)
		}
	}
}

// capsule fills every pixel within r metres of the segment a-b
// (raster.Capsule: the web map's tiles fill the same ones).
func (s Scene) capsule(img *image.RGBA, a, b world.Vec2, r float64, c color.RGBA) {
	ax, ay := s.toPixel(a)
	bx, by := s.toPixel(b)
	raster.Capsule(ax, ay, bx, by, r/s.Scale, s.Size, func(x, y int) { img.SetRGBA(x, y, c) })
}

func (s Scene) disc(img *image.RGBA, p world.Vec2, r float64, c color.RGBA) {
	s.capsule(img, p, p, r, c)
}

func (s Scene) drawCar(img *image.RGBA) {
	h := s.Heading.Norm()
	side := h.Perp()
	size := math.Max(14, 7*s.Scale)
	tip := s.Car.Add(h.Scale(size))
	l := s.Car.Sub(h.Scale(size * 0.6)).Add(side.Scale(size * 0.7))
	r := s.Car.Sub(h.Scale(size * 0.6)).Sub(side.Scale(size * 0.7))
	s.triangle(img, tip, l, r, color.RGBA{230, 20, 30, 255})
	s.disc(img, s.Car, size*0.2, color.RGBA{255, 255, 255, 255})
}

func (s Scene) triangle(img *image.RGBA, a, b, c world.Vec2, col color.RGBA) {
	ax, ay := s.toPixel(a)
	bx, by := s.toPixel(b)
	cx, cy := s.toPixel(c)
	x0, x1 := int(math.Min(ax, math.Min(bx, cx))), int(math.Max(ax, math.Max(bx, cx)))+1
	y0, y1 := int(math.Min(ay, math.Min(by, cy))), int(math.Max(ay, math.Max(by, cy)))+1
	edge := func(x0, y0, x1, y1, px, py float64) float64 { return (x1-x0)*(py-y0) - (y1-y0)*(px-x0) }
	for y := max(y0, 0); y <= min(y1, s.Size-1); y++ {
		for x := max(x0, 0); x <= min(x1, s.Size-1); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			e0, e1, e2 := edge(ax, ay, bx, by, px, py), edge(bx, by, cx, cy, px, py), edge(cx, cy, ax, ay, px, py)
			if (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0) {
				img.SetRGBA(x, y, col)
			}
		}
	}
}
