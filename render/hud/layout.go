package hud

import "math"

// VertexFloats is the size of one HUD vertex: x, y (pixels, origin top
// left), u, v (atlas, 0..1, v down), r, g, b, a.
const VertexFloats = 8

// Colour is RGBA in [0,1].
type Colour [4]float32

// Colours used by the HUD.
var (
	White    = Colour{1, 1, 1, 1}
	Panel    = Colour{0, 0, 0, 0.55}
	BarTrack = Colour{0.12, 0.12, 0.14, 0.85}
	BarFill  = Colour{0.95, 0.72, 0.22, 1}
)

// Layout appends HUD quads (two triangles each) into a buffer, stopping at
// a vertex capacity: what does not fit is dropped, never overrun.
type Layout struct {
	V        []float32
	Capacity int // in vertices
	Dropped  int // quads that did not fit
	Scale    float32
}

// ScaleFor picks an integer text scale for a framebuffer height: 1 up to
// about 540 px, 2 at 720, 3 at 1080, 4 at 1440.
func ScaleFor(fbH int) float32 {
	return float32(max(1, int(math.Round(float64(fbH)/360))))
}

func (l *Layout) quad(x0, y0, x1, y1, u0, v0, u1, v1 float32, c Colour) {
	if l.Capacity > 0 && len(l.V)/VertexFloats+6 > l.Capacity {
		l.Dropped++
		return
	}
	put := func(x, y, u, v float32) {
		l.V = append(l.V, x, y, u, v, c[0], c[1], c[2], c[3])
	}
	put(x0, y0, u0, v0)
	put(x1, y0, u1, v0)
	put(x1, y1, u1, v1)
	put(x0, y0, u0, v0)
	put(x1, y1, u1, v1)
	put(x0, y1, u0, v1)
}

// Rect appends a solid rectangle.
func (l *Layout) Rect(x0, y0, x1, y1 float32, c Colour) {
	u := (float32((solidCh-firstCh)*CellW) + CellW/2) / AtlasW
	v := float32(0.5)
	l.quad(x0, y0, x1, y1, u, v, u, v, c)
}

// Text appends one line of text with its top-left corner at x, y and
// returns its width in pixels.
func (l *Layout) Text(x, y float32, s string, c Colour) float32 {
	sc := l.scale()
	cx := x
	for _, r := range s {
		if r != ' ' {
			cu := float32(cell(r) * CellW)
			l.quad(cx, y, cx+GlyphW*sc, y+GlyphH*sc, cu/AtlasW, 0, (cu+GlyphW)/AtlasW, float32(GlyphH)/AtlasH, c)
		}
		cx += CellW * sc
	}
	return cx - x
}

func (l *Layout) scale() float32 {
	if l.Scale <= 0 {
		return 1
	}
	return l.Scale
}

// TextWidth is the width in pixels of s at the layout's scale.
func (l *Layout) TextWidth(s string) float32 {
	return float32(len([]rune(s))) * CellW * l.scale()
}

// LineHeight is the distance between text lines in pixels.
func (l *Layout) LineHeight() float32 { return (CellH + 3) * l.scale() }

// Lines draws text lines at the top left on a translucent panel.
func (l *Layout) Lines(lines []string) {
	if len(lines) == 0 {
		return
	}
	sc := l.scale()
	pad := 4 * sc
	w := float32(0)
	for _, s := range lines {
		w = max(w, l.TextWidth(s))
	}
	x, y := 6*sc, 6*sc
	l.Rect(x, y, x+w+2*pad, y+float32(len(lines))*l.LineHeight()+2*pad-3*sc, Panel)
	for i, s := range lines {
		l.Text(x+pad, y+pad+float32(i)*l.LineHeight(), s, White)
	}
}

// ProgressBar draws a centred loading bar for fraction p (clamped to
// [0,1]) with a label above it, on a screen w×h pixels. It returns the bar's
// rectangle (x0, y0, x1, y1) and the x where the fill ends.
func (l *Layout) ProgressBar(w, h int, p float64, label string) (x0, y0, x1, y1, fill float32) {
	if !(p >= 0) {
		p = 0
	}
	p = math.Min(p, 1)
	sc := l.scale()
	bw := float32(w) * 0.5
	bh := 12 * sc
	x0 = (float32(w) - bw) / 2
	y0 = float32(h)*0.5 - bh/2
	x1, y1 = x0+bw, y0+bh
	l.Rect(x0-2*sc, y0-2*sc, x1+2*sc, y1+2*sc, BarTrack)
	fill = x0 + bw*float32(p)
	if p > 0 {
		l.Rect(x0, y0, fill, y1, BarFill)
	}
	if label != "" {
		l.Text((float32(w)-l.TextWidth(label))/2, y0-2*sc-l.LineHeight(), label, White)
	}
	return
}
