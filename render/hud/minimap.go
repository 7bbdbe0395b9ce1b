package hud

import "math"

// Minimap is what the HUD's map shows: the roads and the other players
// around the car, in world metres relative to the car (x east, z south,
// as the world has them), north-up or turned so the car points up.
type Minimap struct {
	Roads     []float32 // segments x0, z0, x1, z1, relative to the car
	Water     []float32 // world-aligned rectangles x0, z0, x1, z1, relative to the car
	Others    []float32 // remote players x, z, relative to the car
	Heading   float64   // the car's heading: 0 faces +x, increasing towards -z
	HeadingUp bool      // turn the map with the car (else north, -z, is up)
	Range     float32   // metres from the centre to the map's edge
}

// Minimap colours.
var (
	MapBack   = Colour{0.1, 0.11, 0.09, 0.93}
	MapWater  = Colour{0.13, 0.28, 0.46, 1}
	MapEdge   = Colour{0.85, 0.88, 0.9, 0.5}
	MapRoad   = Colour{0.78, 0.8, 0.82, 0.95}
	MapCar    = Colour{1, 0.8, 0.2, 1}
	MapOther  = Colour{0.3, 0.75, 1, 1}
	MapNorth  = Colour{1, 0.45, 0.4, 1}
	roadWidth = float32(1.5) // pixels at scale 1
)

// MapView projects offsets from the car (world metres) into a square of
// the screen (pixels, y down).
type MapView struct {
	CX, CY, Half float32 // the square's centre and half its side, pixels
	scale        float32 // pixels per metre
	cos, sin     float32 // the turn applied after the north-up projection
}

// NewMapView is the view of a square with centre (cx, cy) and half side
// half pixels showing rangeM metres from the car to each edge. North-up
// puts -z at the top; heading-up turns the map so the car's forward
// direction is at the top.
func NewMapView(cx, cy, half, rangeM float32, heading float64, headingUp bool) MapView {
	v := MapView{CX: cx, CY: cy, Half: half, scale: half / max(rangeM, 1e-3), cos: 1}
	if headingUp {
		// North-up draws forward at screen angle -heading; turn it to -90°.
		phi := heading - math.Pi/2
		v.cos, v.sin = float32(math.Cos(phi)), float32(math.Sin(phi))
	}
	return v
}

// Project maps an offset from the car (x, z metres) to screen pixels.
func (v MapView) Project(x, z float32) (px, py float32) {
	sx, sy := x*v.scale, z*v.scale
	return v.CX + sx*v.cos - sy*v.sin, v.CY + sx*v.sin + sy*v.cos
}

// Dir maps a world direction (x, z) to a unit screen direction.
func (v MapView) Dir(x, z float32) (dx, dy float32) {
	dx, dy = x*v.cos-z*v.sin, x*v.sin+z*v.cos
	n := float32(math.Hypot(float64(dx), float64(dy)))
	if n == 0 {
		return 0, -1
	}
	return dx / n, dy / n
}

// Clip cuts the screen segment a→b to the view's square (Liang–Barsky):
// ok is false when no part of it lies inside.
func (v MapView) Clip(ax, ay, bx, by float32) (cx0, cy0, cx1, cy1 float32, ok bool) {
	t0, t1 := float32(0), float32(1)
	dx, dy := bx-ax, by-ay
	// Each edge: p·t ≤ q keeps the inside.
	edges := [4][2]float32{
		{-dx, ax - (v.CX - v.Half)},
		{dx, (v.CX + v.Half) - ax},
		{-dy, ay - (v.CY - v.Half)},
		{dy, (v.CY + v.Half) - ay},
	}
	for _, e := range edges {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return 0, 0, 0, 0, false // parallel and outside
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return 0, 0, 0, 0, false
		}
	}
	return ax + t0*dx, ay + t0*dy, ax + t1*dx, ay + t1*dy, true
}

// ClampToEdge pulls a point outside the square onto its border (a remote
// player out of range still shows which way they are).
func (v MapView) ClampToEdge(px, py, inset float32) (float32, float32) {
	h := v.Half - inset
	dx, dy := px-v.CX, py-v.CY
	m := max(abs32(dx), abs32(dy))
	if m <= h || m == 0 {
		return px, py
	}
	return v.CX + dx*h/m, v.CY + dy*h/m
}

// maxClipped is the most corners a quad can have after clipping to the
// square: each of the four edges adds at most one.
const maxClipped = 8

// ClipQuad cuts a convex quad (screen pixels) to the view's square
// (Sutherland–Hodgman, on fixed arrays: nothing allocated) and returns the
// corners of what is left, n = 0 when nothing is.
func (v MapView) ClipQuad(q [4][2]float32) (out [maxClipped][2]float32, n int) {
	var buf [maxClipped][2]float32
	copy(out[:], q[:])
	n = 4
	lo := [2]float32{v.CX - v.Half, v.CY - v.Half}
	hi := [2]float32{v.CX + v.Half, v.CY + v.Half}
	for edge := range 4 {
		axis, keepBelow := edge/2, edge%2 == 1
		lim := lo[axis]
		if keepBelow {
			lim = hi[axis]
		}
		in := func(p [2]float32) bool {
			if keepBelow {
				return p[axis] <= lim
			}
			return p[axis] >= lim
		}
		m := 0
		for i := range n {
			a, b := out[i], out[(i+1)%n]
			ina, inb := in(a), in(b)
			if ina {
				buf[m] = a
				m++
			}
			if ina != inb {
				t := (lim - a[axis]) / (b[axis] - a[axis])
				buf[m] = [2]float32{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1])}
				m++
			}
		}
		out, n = buf, m
		if n == 0 {
			return out, 0
		}
	}
	return out, n
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// tri appends one solid triangle.
func (l *Layout) tri(ax, ay, bx, by, cx, cy float32, c Colour) {
	if l.Capacity > 0 && len(l.V)/VertexFloats+3 > l.Capacity {
		l.Dropped++
		return
	}
	u := (float32((solidCh-firstCh)*CellW) + CellW/2) / AtlasW
	l.V = append(l.V,
		ax, ay, u, 0.5, c[0], c[1], c[2], c[3],
		bx, by, u, 0.5, c[0], c[1], c[2], c[3],
		cx, cy, u, 0.5, c[0], c[1], c[2], c[3])
}

// Line appends a solid line w pixels wide from (ax, ay) to (bx, by).
func (l *Layout) Line(ax, ay, bx, by, w float32, c Colour) {
	dx, dy := bx-ax, by-ay
	n := float32(math.Hypot(float64(dx), float64(dy)))
	if n == 0 {
		return
	}
	// Half the width across, and a quarter along, so joints overlap.
	nx, ny := -dy/n*w/2, dx/n*w/2
	ex, ey := dx/n*w/4, dy/n*w/4
	ax, ay, bx, by = ax-ex, ay-ey, bx+ex, by+ey
	l.tri(ax+nx, ay+ny, bx+nx, by+ny, bx-nx, by-ny, c)
	l.tri(ax+nx, ay+ny, bx-nx, by-ny, ax-nx, ay-ny, c)
}

// MapRect is where the minimap goes on a screen w×h pixels: a square in
// the top-right corner, side a quarter of the height.
func (l *Layout) MapRect(w, h int) (x0, y0, side float32) {
	sc := l.scale()
	side = float32(math.Round(float64(h) * 0.28))
	return float32(w) - side - 8*sc, 8 * sc, side
}

// Minimap draws m in the square at (x0, y0) of side pixels: a panel, the
// roads clipped to it, the other players as dots (held at the edge when
// out of range), the car as an arrow in the centre, and where north is.
func (l *Layout) Minimap(x0, y0, side float32, m *Minimap) {
	sc := l.scale()
	half := side / 2
	v := NewMapView(x0+half, y0+half, half, m.Range, m.Heading, m.HeadingUp)
	l.Rect(x0-sc, y0-sc, x0+side+sc, y0+side+sc, MapEdge)
	l.Rect(x0, y0, x0+side, y0+side, MapBack)
	for i := 0; i+3 < len(m.Water); i += 4 {
		x0, z0, x1, z1 := m.Water[i], m.Water[i+1], m.Water[i+2], m.Water[i+3]
		var q [4][2]float32
		q[0][0], q[0][1] = v.Project(x0, z0)
		q[1][0], q[1][1] = v.Project(x1, z0)
		q[2][0], q[2][1] = v.Project(x1, z1)
		q[3][0], q[3][1] = v.Project(x0, z1)
		p, n := v.ClipQuad(q)
		for k := 2; k < n; k++ {
			l.tri(p[0][0], p[0][1], p[k-1][0], p[k-1][1], p[k][0], p[k][1], MapWater)
		}
	}
	w := roadWidth * sc
	for i := 0; i+3 < len(m.Roads); i += 4 {
		ax, ay := v.Project(m.Roads[i], m.Roads[i+1])
		bx, by := v.Project(m.Roads[i+2], m.Roads[i+3])
		if ax, ay, bx, by, ok := v.Clip(ax, ay, bx, by); ok {
			l.Line(ax, ay, bx, by, w, MapRoad)
		}
	}
	dot := 2.5 * sc
	for i := 0; i+1 < len(m.Others); i += 2 {
		px, py := v.Project(m.Others[i], m.Others[i+1])
		px, py = v.ClampToEdge(px, py, dot)
		l.Rect(px-dot, py-dot, px+dot, py+dot, MapOther)
	}
	// The car: an arrow along its heading.
	fx, fy := v.Dir(float32(math.Cos(m.Heading)), float32(-math.Sin(m.Heading)))
	s := 6 * sc
	tipX, tipY := v.CX+fx*s, v.CY+fy*s
	l.tri(tipX, tipY, v.CX-fx*s*0.6-fy*s*0.7, v.CY-fy*s*0.6+fx*s*0.7, v.CX-fx*s*0.25, v.CY-fy*s*0.25, MapCar)
	l.tri(tipX, tipY, v.CX-fx*s*0.25, v.CY-fy*s*0.25, v.CX-fx*s*0.6+fy*s*0.7, v.CY-fy*s*0.6-fx*s*0.7, MapCar)
	// North: an N just inside the border, towards -z.
	nx, ny := v.Dir(0, -1)
	gw, gh := GlyphW*sc, GlyphH*sc
	r := half - gh
	l.Text(v.CX+nx*r-gw/2, v.CY+ny*r-gh/2, "N", MapNorth)
}
