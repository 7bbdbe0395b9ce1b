package hud

// Menu is a centred overlay over a dimmed frame (the pause menu): a
// title, items with one selected, and a hint line under them.
type Menu struct {
	Title    string
	Items    []string
	Selected int
	Hint     string
	// Compact draws the items one step above the text scale instead of at
	// twice it, for pages of many items (the options screen's key list).
	Compact bool
}

// Menu colours.
var (
	Dim      = Colour{0, 0, 0, 0.45}
	Selected = Colour{0.95, 0.72, 0.22, 1}
	Faint    = Colour{0.75, 0.77, 0.8, 1}
)

// Menu dims the whole w×h screen and draws m in a panel in its centre:
// title and items at twice the text scale, the selected item marked and
// coloured, the hint under them. It returns the panel's rectangle.
func (l *Layout) Menu(w, h int, m *Menu) (x0, y0, x1, y1 float32) {
	sc := l.scale()
	l.Rect(0, 0, float32(w), float32(h), Dim)
	big := Layout{V: l.V, Capacity: l.Capacity, Dropped: l.Dropped, Scale: 2 * sc}
	pad := 12 * sc
	lh := big.LineHeight()
	items := big.Scale
	height := func() float32 {
		ih := (CellH + 3) * items
		return pad + lh*1.6 + float32(len(m.Items))*ih + ih/2 + l.LineHeight() + pad
	}
	if m.Compact {
		items = sc + 1
		if height() > float32(h) && sc > 1 { // a short screen: the text scale itself
			items = sc
		}
	}
	ih := (CellH + 3) * items
	ph := height()
	mark := 2 * CellW * items // "> " before each item
	lw := big.TextWidth(m.Title)
	for _, it := range m.Items {
		lw = max(lw, mark+float32(len([]rune(it)))*CellW*items)
	}
	lw = max(lw, l.TextWidth(m.Hint))
	pw := lw + 2*pad
	x0, y0 = float32(int((float32(w)-pw)/2)), float32(int((float32(h)-ph)/2))
	x1, y1 = x0+pw, y0+ph
	big.Rect(x0, y0, x1, y1, Panel)
	big.Rect(x0, y0, x1, y0+2*sc, Selected)
	big.Text((float32(w)-big.TextWidth(m.Title))/2, y0+pad, m.Title, White)
	big.Scale = items
	y := y0 + pad + lh*1.6
	for i, it := range m.Items {
		c := Faint
		if i == m.Selected {
			c = Selected
			big.Text(x0+pad, y, ">", c)
		}
		big.Text(x0+pad+mark, y, it, c)
		y += ih
	}
	l.V, l.Dropped = big.V, big.Dropped
	l.Text(x0+pad, y+ih/2, m.Hint, Faint)
	return
}
