package hud

import "unicode/utf8"

// Player is the player's HUD, what a driver looks at: the speed, the time
// of day and a one-line notice. The game formats the strings only when
// what they show changes; drawing them allocates nothing.
type Player struct {
	Speed  string // "87"
	Unit   string // "KM/H"
	Clock  string // time of day, "17:30" ("": not shown)
	Notice string // one line the player should read now ("": none)
}

// Player HUD colours.
var (
	Accent     = Colour{0.95, 0.72, 0.22, 1} // the bar over a panel
	SpeedPanel = Colour{0.03, 0.035, 0.045, 0.62}
	UnitText   = Colour{0.8, 0.82, 0.86, 1}
	NoticeText = Colour{1, 0.93, 0.78, 1}
)

// speedDigits is the width the speed's panel keeps, in digits, so that it
// does not jump as the speed passes 10 and 100.
const speedDigits = 3

// margin is the HUD's distance from the screen's edges at scale 1 (the
// minimap's, MapRect).
const margin = 8

// SpeedRect is where the speed's panel goes on a screen w×h pixels: the
// bottom-right corner.
func (l *Layout) SpeedRect(w, h int) (x0, y0, x1, y1 float32) {
	sc := l.scale()
	big := 3 * sc
	pad := 6 * sc
	digits := speedDigits * CellW * big
	unit := 4 * CellW * sc // "KM/H"
	x1, y1 = float32(w)-margin*sc, float32(h)-margin*sc
	return x1 - (pad + digits + 3*sc + unit + pad), y1 - (pad + GlyphH*big + pad), x1, y1
}

// PlayerHUD draws p's speed and time of day on a screen w×h pixels: the
// speed in large digits with its unit in the bottom-right corner, and the
// time of day under the minimap, whose bottom edge is at mapBottom
// (MapRect; its right edge is the screen's margin). The notice is drawn
// apart (Notice), over a menu.
func (l *Layout) PlayerHUD(w, h int, p *Player, mapBottom float32) {
	sc := l.scale()
	if p.Speed != "" {
		x0, y0, x1, y1 := l.SpeedRect(w, h)
		l.Rect(x0, y0, x1, y1, SpeedPanel)
		l.Rect(x0, y0, x1, y0+sc, Accent)
		pad := 6 * sc
		unitW := l.TextWidth(p.Unit)
		ux := x1 - pad - unitW
		l.Text(ux, y1-pad-GlyphH*sc, p.Unit, UnitText)
		big := Layout{V: l.V, Capacity: l.Capacity, Dropped: l.Dropped, Scale: 3 * sc}
		big.Text(ux-3*sc-big.TextWidth(p.Speed), y0+pad, p.Speed, White)
		l.V, l.Dropped = big.V, big.Dropped
	}
	if p.Clock != "" {
		pad := 4 * sc
		tw := l.TextWidth(p.Clock)
		x1 := float32(w) - margin*sc
		y0 := mapBottom + 4*sc
		l.Rect(x1-tw-2*pad, y0, x1, y0+GlyphH*sc+2*pad, SpeedPanel)
		l.Text(x1-pad-tw, y0+pad, p.Clock, White)
	}
}

// Notice draws p's notice line centred at the bottom of a screen w×h
// pixels, clear of the speed's panel (the whole width without a speed),
// on a panel with an accent bar; what does not fit is cut off.
func (l *Layout) Notice(w, h int, p *Player) {
	text := p.Notice
	if text == "" {
		return
	}
	sc := l.scale()
	pad := 5 * sc
	sx, sy0, _, sy1 := l.SpeedRect(w, h)
	y1 := sy1
	room := 2*(sx-float32(w)/2) - 2*margin*sc // centred, clear of the speed on both sides
	if p.Speed == "" {
		room = float32(w) - 2*margin*sc
	} else if room < 24*CellW*sc { // a narrow screen: over the speed, the whole width
		room, y1 = float32(w)-2*margin*sc, sy0-4*sc
	}
	n := 0 // the bytes of text that fit
	width := float32(0)
	for i, r := range text {
		if width+CellW*sc > room-2*pad {
			break
		}
		width += CellW * sc
		n = i + utf8.RuneLen(r)
	}
	if n == 0 {
		return
	}
	text = text[:n]
	x0 := float32(int((float32(w) - width - 2*pad) / 2))
	y0 := y1 - (GlyphH*sc + 2*pad)
	l.Rect(x0, y0, x0+width+2*pad, y1, SpeedPanel)
	l.Rect(x0, y0, x0+2*sc, y1, Accent)
	l.Text(x0+pad, y0+pad, text, NoticeText)
}
