package citygen

import (
	"math"

	"citydrive/slots"
)

// Facade styles.
const (
	styleGlass   = iota // curtain wall: wide glass, mullions
	stylePunched        // concrete or brick: windows with ledges/sills
	styleHouse          // small windows, frames
)

// mass is one building block: footprint [u0,u1]×[v0,v1] in the lot frame,
// floors from y0.
type mass struct {
	u0, u1, v0, v1 float64
	y0             float64
	floors         int
	fh             float64 // floor height
	bay            float64 // target bay width
	style          int
	shops          bool // ground floor storefronts
	wall, glass    [3]float32
	roof           bool // draw a flat roof with parapet
}

func (m *mass) top() float64 { return m.y0 + float64(m.floors)*m.fh }

// windowVariant gives each window its own value so the city lights up
// window by window at dusk.
func (l *lot) windowVariant(k uint64) float32 { return float32(l.r(1000 + k)) }

// facade builds the parts of mass m this segment owns: per bay the front
// and back walls, windows, trims and roof; the end walls with the end bays.
func (b *Builder) facade(l *lot, m *mass) {
	w := &b.wr
	f := &l.fr
	nb := max(1, int(math.Round((m.u1-m.u0)/m.bay)))
	bw := (m.u1 - m.u0) / float64(nb)
	top := m.top()
	// cheap reject: no bay anchored here
	if !l.ownAny(m.u0, m.u1) {
		return
	}
	lvl := b.level
	firstWin := 0
	if m.shops {
		firstWin = 1
	}
	for bi := 0; bi < nb; bi++ {
		ua, ub := m.u0+float64(bi)*bw, m.u0+float64(bi+1)*bw
		if !l.own((ua + ub) / 2) {
			continue
		}
		w.mat = slots.MaterialBuilding
		w.variant = float32(l.r(7))
		w.col = m.wall
		w.faceV(f, ua, ub, m.y0, top, m.v0, true)
		w.faceV(f, ua, ub, m.y0, top, m.v1, false)
		if bi == 0 {
			w.faceU(f, m.v0, m.v1, m.y0, top, m.u0, true)
		}
		if bi == nb-1 {
			w.faceU(f, m.v0, m.v1, m.y0, top, m.u1, false)
		}
		if m.roof {
			w.rgb(m.wall[0]*0.55, m.wall[1]*0.55, m.wall[2]*0.55)
			w.box(f, ua, ub, top-0.01, top, m.v0, m.v1, faceTop)
			if lvl <= levelNoTrim {
				w.col = m.wall
				w.box(f, ua, ub, top, top+0.9, m.v0, m.v0+0.3, faceV0|faceV1|faceTop)
				w.box(f, ua, ub, top, top+0.9, m.v1-0.3, m.v1, faceV0|faceV1|faceTop)
				if bi == 0 {
					w.box(f, m.u0, m.u0+0.3, top, top+0.9, m.v0+0.3, m.v1-0.3, faceU0|faceU1|faceTop)
				}
				if bi == nb-1 {
					w.box(f, m.u1-0.3, m.u1, top, top+0.9, m.v0+0.3, m.v1-0.3, faceU0|faceU1|faceTop)
				}
			}
		}
		if lvl >= levelRoadOnly {
			continue
		}
		// storefront
		if m.shops {
			w.mat = slots.MaterialWindow
			w.variant = l.windowVariant(uint64(bi))
			w.rgb(0.55, 0.5, 0.38)
			w.faceV(f, ua+0.3, ub-0.3, m.y0+0.3, m.y0+m.fh-0.6, m.v0-0.03, true)
			if lvl <= levelNoTrim {
				w.mat = slots.MaterialDefault
				if bi%2 == 0 {
					w.rgb(0.7, 0.2, 0.15)
				} else {
					w.rgb(0.15, 0.35, 0.5)
				}
				ya := m.y0 + m.fh - 0.4
				a0, a1 := f.p(ua, ya+0.5, m.v0), f.p(ub, ya+0.5, m.v0)
				b0, b1 := f.p(ua, ya, m.v0-1.2), f.p(ub, ya, m.v0-1.2)
				w.quadN(a0, a1, b1, b0, cross(b1.sub(b0), a0.sub(b0)).norm().scale(1))
				w.faceV(f, ua, ub, ya-0.3, ya, m.v0-1.2, true)
			}
		}
		// windows, front and back
		b.windows(l, m, ua, ub, bi, firstWin, top)
	}
	// end walls' windows
	if lvl < levelRoadOnly {
		for end := 0; end < 2; end++ {
			ue, ok := m.u0, l.own(m.u0+bw/2)
			if end == 1 {
				ue, ok = m.u1, l.own(m.u1-bw/2)
			}
			if !ok {
				continue
			}
			ns := max(1, int(math.Round((m.v1-m.v0)/(m.bay*1.6))))
			sw := (m.v1 - m.v0) / float64(ns)
			off := -0.04
			if end == 1 {
				off = 0.04
			}
			w.mat = slots.MaterialWindow
			w.col = m.glass
			for si := 0; si < ns; si++ {
				va, vb := m.v0+float64(si)*sw+0.5, m.v0+float64(si+1)*sw-0.5
				if lvl >= levelMerged {
					w.variant = l.windowVariant(uint64(9000 + end*100 + si))
					w.faceU(f, va, vb, m.y0+m.fh+0.8, top-0.9, ue+off, end == 0)
					continue
				}
				for fl := 1; fl < m.floors; fl++ {
					y := m.y0 + float64(fl)*m.fh
					w.variant = l.windowVariant(uint64(10000 + end*5000 + si*100 + fl))
					w.faceU(f, va, vb, y+0.8, y+m.fh-0.6, ue+off, end == 0)
				}
			}
		}
	}
	w.mat = slots.MaterialDefault
}

// ownAny reports whether any anchor in [u0,u1] may be owned here.
func (l *lot) ownAny(u0, u1 float64) bool { return u1 >= l.lo && u0 < l.hi }

// windows emits one bay's window columns on the front and back facades.
func (b *Builder) windows(l *lot, m *mass, ua, ub float64, bi, firstWin int, top float64) {
	w := &b.wr
	f := &l.fr
	lvl := b.level
	inset := 0.25
	if m.style == styleGlass {
		inset = 0.08
	}
	if m.style == styleHouse {
		inset = bw4(ub - ua)
	}
	for face := 0; face < 2; face++ {
		v, off, front := m.v0, -0.04, true
		if face == 1 {
			v, off, front = m.v1, 0.04, false
		}
		w.mat = slots.MaterialWindow
		w.col = m.glass
		y0 := m.y0 + float64(firstWin)*m.fh
		if lvl >= levelMerged {
			w.variant = l.windowVariant(uint64(bi*4 + face))
			w.faceV(f, ua+inset, ub-inset, y0+0.8, top-0.6, v+off, front)
			continue
		}
		for fl := firstWin; fl < m.floors; fl++ {
			y := m.y0 + float64(fl)*m.fh
			w.variant = l.windowVariant(uint64(bi*4096 + fl*4 + face))
			w.faceV(f, ua+inset, ub-inset, y+0.8, y+m.fh-0.5, v+off, front)
		}
		if lvl > levelFull {
			continue
		}
		// window frames: jambs and head, proud of the glass
		w.mat = slots.MaterialBuilding
		w.rgb(m.wall[0]*0.7, m.wall[1]*0.7, m.wall[2]*0.7)
		off2 := off * 2
		for fl := firstWin; fl < m.floors; fl++ {
			y := m.y0 + float64(fl)*m.fh
			ya, yb := y+0.8, y+m.fh-0.5
			w.faceV(f, ua+inset-0.08, ua+inset+0.06, ya, yb, v+off2, front)
			w.faceV(f, ub-inset-0.06, ub-inset+0.08, ya, yb, v+off2, front)
			w.faceV(f, ua+inset-0.08, ub-inset+0.08, yb-0.1, yb+0.04, v+off2, front)
			if m.style != styleGlass {
				um := (ua + ub) / 2
				w.faceV(f, um-0.04, um+0.04, ya, yb, v+off2, front)
			}
		}
		// trims: ledges per floor (punched), mullions (glass), sills (house)
		w.mat = slots.MaterialBuilding
		w.rgb(m.wall[0]*0.8, m.wall[1]*0.8, m.wall[2]*0.8)
		fv0, fv1, fmask := v-0.22, v, faceV0|faceTop
		if face == 1 {
			fv0, fv1, fmask = v, v+0.22, faceV1|faceTop
		}
		switch m.style {
		case stylePunched, styleHouse:
			for fl := firstWin; fl < m.floors; fl++ {
				y := m.y0 + float64(fl)*m.fh + 0.65
				w.box(f, ua+inset-0.1, ub-inset+0.1, y, y+0.15, fv0, fv1, fmask)
			}
		case styleGlass:
			w.rgb(0.25, 0.27, 0.3)
			w.box(f, ua-0.09, ua+0.09, y0, top, fv0, fv1, fmask&^faceTop|faceU0|faceU1)
			for fl := firstWin; fl < m.floors; fl += 2 {
				y := m.y0 + float64(fl)*m.fh + 0.4
				w.box(f, ua, ub, y, y+0.3, fv0, fv1, fmask)
			}
		}
	}
}

func bw4(bw float64) float64 { return max(0.35, bw*0.28) }

func (b *Builder) tower(l *lot) {
	w := &b.wr
	f := &l.fr
	u0, u1 := 1.5, min(l.lu-1.5, 1.5+34)
	if u1-u0 < 8 {
		b.park(l)
		return
	}
	v0 := 3.5
	v1 := min(l.dv-1, v0+18+12*l.r(10))
	if !l.ownAny(u0-1, u1+1) {
		return
	}
	if !b.clear(f, u0, u1, v0, v1) {
		b.park(l) // every segment of the lot finds the same
		return
	}
	y0 := b.base(l, u0, u1, v0, v1)
	floors := 12 + int(18*l.r(11))
	m := mass{u0: u0, u1: u1, v0: v0, v1: v1, y0: y0, fh: 3.6, bay: 2.0, roof: true, shops: true}
	m.style = styleGlass
	if l.r(12) < 0.4 {
		m.style = stylePunched
	}
	pick := int(l.r(13) * 5)
	walls := [5][3]float32{{0.62, 0.64, 0.66}, {0.48, 0.52, 0.58}, {0.7, 0.66, 0.58}, {0.4, 0.42, 0.45}, {0.78, 0.77, 0.74}}
	glasses := [5][3]float32{{0.2, 0.32, 0.42}, {0.16, 0.24, 0.3}, {0.28, 0.36, 0.4}, {0.22, 0.3, 0.36}, {0.14, 0.2, 0.28}}
	m.wall, m.glass = walls[pick], glasses[pick]
	m.floors = floors
	tiers := 1
	if floors >= 15 && u1-u0 > 14 && v1-v0 > 14 {
		tiers = 2
		m.floors = floors * 3 / 5
	}
	b.facade(l, &m)
	topM := m
	if tiers == 2 {
		t := m
		t.u0, t.u1, t.v0, t.v1 = m.u0+3, m.u1-3, m.v0+3, m.v1-3
		t.y0 = m.top()
		t.floors = floors - m.floors
		t.shops = false
		b.facade(l, &t)
		topM = t
	}
	top := topM.top()
	if l.own((u0 + u1) / 2) {
		b.obstacle(f, u0, u1, y0, top, v0, v1, slots.ObstacleBuilding)
		// entrance canopy and plaza trees
		if b.level <= levelMerged {
			uc := (u0 + u1) / 2
			w.rgb(0.3, 0.3, 0.32)
			w.box(f, uc-3, uc+3, y0+3.6, y0+3.9, v0-2.5, v0, faceV0|faceU0|faceU1|faceTop|faceBottom)
		}
	}
	if b.level <= levelMerged {
		// roof plant: anchored at their own u
		for k := uint64(0); k < 4; k++ {
			uc := topM.u0 + 2 + (topM.u1-topM.u0-4)*l.r(20+k)
			if !l.own(uc) {
				continue
			}
			vc := topM.v0 + 2 + (topM.v1-topM.v0-4)*l.r(30+k)
			w.rgb(0.55, 0.56, 0.57)
			w.box(f, uc-1.2, uc+1.2, top, top+1.6+l.r(40+k), vc-1, vc+1, facesOpen)
			if b.level == levelFull {
				w.rgb(0.25, 0.25, 0.27)
				w.box(f, uc-0.6, uc+0.6, top+1.6+l.r(40+k), top+1.8+l.r(40+k), vc-0.6, vc+0.6, facesOpen)
			}
		}
		uc := (topM.u0 + topM.u1) / 2
		if l.own(uc) && l.r(50) < 0.5 {
			w.rgb(0.7, 0.7, 0.72)
			w.box(f, uc-0.15, uc+0.15, top, top+8+6*l.r(51), (topM.v0+topM.v1)/2-0.15, (topM.v0+topM.v1)/2+0.15, facesOpen)
			w.mat = slots.MaterialLamp
			w.rgb(1, 0.2, 0.1)
			y := top + 8 + 6*l.r(51)
			w.box(f, uc-0.25, uc+0.25, y, y+0.4, (topM.v0+topM.v1)/2-0.25, (topM.v0+topM.v1)/2+0.25, facesOpen)
			w.mat = slots.MaterialDefault
		}
	}
	// plaza trees along the front
	for k := 0; k < 2; k++ {
		u := u0 + 2 + float64(k)*(u1-u0-4)
		if l.own(u) {
			p := f.p(u, 0, 1.6)
			p.y = b.groundAt(l, u, 1.6)
			b.tree(p, 0.8+0.4*l.r(uint64(60+k)), l.r(uint64(70+k)))
		}
	}
}

func (b *Builder) midrise(l *lot) {
	f := &l.fr
	u0, u1 := 0.8, l.lu-0.8
	v0 := 1.0
	v1 := min(l.dv-8, v0+13+6*l.r(10))
	if u1-u0 < 6 {
		b.park(l)
		return
	}
	if !l.ownAny(u0-1, u1+1) {
		b.yard(l, v1)
		return
	}
	if !b.clear(f, u0, u1, v0, v1) {
		b.yard(l, v1+1.5)
		return
	}
	y0 := b.base(l, u0, u1, v0, v1)
	m := mass{u0: u0, u1: u1, v0: v0, v1: v1, y0: y0, fh: 3.2, bay: 1.8, roof: true, shops: l.r(14) < 0.7, style: stylePunched}
	m.floors = 6 + int(6*l.r(11))
	pick := int(l.r(13) * 5)
	walls := [5][3]float32{{0.62, 0.32, 0.24}, {0.74, 0.62, 0.42}, {0.82, 0.78, 0.68}, {0.55, 0.5, 0.46}, {0.68, 0.44, 0.3}}
	m.wall = walls[pick]
	m.glass = [3]float32{0.2, 0.25, 0.3}
	b.facade(l, &m)
	top := m.top()
	w := &b.wr
	if b.level <= levelNoTrim {
		// balconies on the back facade, every other bay
		nb := max(1, int(math.Round((u1-u0)/m.bay)))
		bw := (u1 - u0) / float64(nb)
		for bi := 1; bi < nb; bi += 2 {
			ua, ub := u0+float64(bi)*bw+0.2, u0+float64(bi+1)*bw-0.2
			if !l.own((ua + ub) / 2) {
				continue
			}
			for fl := 1; fl < m.floors; fl++ {
				y := y0 + float64(fl)*m.fh
				w.rgb(0.7, 0.7, 0.68)
				w.box(f, ua, ub, y-0.15, y, v1, v1+1.2, facesOpen|faceBottom)
				w.rgb(0.3, 0.3, 0.32)
				w.box(f, ua, ub, y, y+1.0, v1+1.15, v1+1.2, faceV1|faceV0)
			}
		}
	}
	if b.level <= levelMerged {
		for k := uint64(0); k < 3; k++ {
			uc := u0 + 2 + (u1-u0-4)*l.r(20+k)
			if !l.own(uc) {
				continue
			}
			vc := v0 + 2 + (v1-v0-4)*l.r(30+k)
			w.rgb(0.5, 0.5, 0.52)
			w.box(f, uc-1, uc+1, top, top+1.3, vc-0.8, vc+0.8, facesOpen)
		}
	}
	if l.own((u0 + u1) / 2) {
		b.obstacle(f, u0, u1, y0, top, v0, v1, slots.ObstacleBuilding)
	}
	b.yard(l, v1+1.5)
}

// yard is the paved back yard of a mid-rise lot with parked cars.
func (b *Builder) yard(l *lot, vFront float64) {
	if b.level > levelNoTrim {
		return
	}
	f := &l.fr
	v := vFront + 2.5
	if v+2.5 > l.dv {
		return
	}
	for u := 2.0; u+2 < l.lu; u += 2.8 {
		if !l.own(u) {
			continue
		}
		k := uint64(u * 10)
		if l.r(300+k) < 0.35 {
			continue
		}
		y := b.groundAt(l, u, v)
		b.car(f, u, v, y, l.r(400+k))
	}
	// a tree at the back corner
	if l.own(1) {
		p := f.p(1.5, 0, l.dv-1.5)
		p.y = b.groundAt(l, 1.5, l.dv-1.5)
		b.tree(p, 0.9, l.r(90))
	}
}

// car is a car parked in a yard, facing +d, centred at (u, v) on ground y.
func (b *Builder) car(f *frame, u, v, y, r float64) {
	if b.solid(f, u-0.9, u+0.9, y, y+1.5, v-2.1, v+2.1, slots.ObstacleParkedCar) {
		b.drawCar(f, u, v, y, r)
	}
}

// kerbCar is a car parked at the kerb of edge own, centred on the frame's
// origin and facing +d: it stands on its street's carriageway, outside
// the lanes.
func (b *Builder) kerbCar(f *frame, own uint64, y, r float64) {
	if b.clearOf(f, -0.9, 0.9, -2.1, 2.1, own, laneReach) {
		b.obstacle(f, -0.9, 0.9, y, y+1.5, -2.1, 2.1, slots.ObstacleParkedCar)
		b.drawCar(f, 0, 0, y, r)
	}
}

func (b *Builder) drawCar(f *frame, u, v, y, r float64) {
	w := &b.wr
	cols := [4][3]float32{{0.7, 0.1, 0.1}, {0.15, 0.2, 0.5}, {0.85, 0.85, 0.85}, {0.1, 0.1, 0.1}}
	w.col = cols[int(r*4)]
	w.mat = slots.MaterialCar
	w.box(f, u-0.85, u+0.85, y+0.3, y+1.0, v-2.1, v+2.1, facesOpen)
	w.rgb(0.12, 0.14, 0.18)
	w.box(f, u-0.75, u+0.75, y+1.0, y+1.5, v-1.1, v+0.9, facesOpen)
	w.rgb(0.05, 0.05, 0.05)
	for _, vv := range [2]float64{-1.35, 1.35} {
		w.box(f, u-0.9, u+0.9, y, y+0.6, vv-0.3, vv+0.3, facesOpen)
	}
	w.mat = slots.MaterialDefault
}

func (b *Builder) house(l *lot) {
	w := &b.wr
	f := &l.fr
	lvl := b.level
	// front fence and hedges belong to whoever owns their stretch
	if lvl <= levelMerged {
		b.fence(l)
	}
	u0 := 2.0 + l.r(10)
	u1 := min(l.lu-2, u0+8+4*l.r(11))
	v0 := 5 + 2*l.r(12)
	v1 := v0 + 8 + 3*l.r(13)
	if u1-u0 < 6 {
		return
	}
	if !l.ownAny(u0-1, u1+1) || !b.clear(f, u0, u1, v0, v1) {
		b.garden(l, v1)
		return
	}
	y0 := b.base(l, u0, u1, v0, v1)
	pick := int(l.r(14) * 6)
	walls := [6][3]float32{{0.92, 0.9, 0.84}, {0.9, 0.82, 0.62}, {0.7, 0.78, 0.85}, {0.88, 0.66, 0.58}, {0.8, 0.8, 0.78}, {0.72, 0.62, 0.5}}
	roofs := [3][3]float32{{0.62, 0.24, 0.16}, {0.28, 0.28, 0.3}, {0.45, 0.3, 0.22}}
	m := mass{u0: u0, u1: u1, v0: v0, v1: v1, y0: y0, fh: 2.9, bay: 1.8, style: styleHouse}
	m.floors = 2 + int(1.3*l.r(15))
	m.wall = walls[pick]
	m.glass = [3]float32{0.25, 0.3, 0.35}
	// foundation plinth visible on slopes
	if l.own((u0+u1)/2) && lvl < levelRoadOnly {
		w.rgb(0.5, 0.48, 0.45)
		w.box(f, u0-0.05, u1+0.05, y0-0.6, y0+0.3, v0-0.05, v1+0.05, facesSides)
	}
	b.facade(l, &m)
	top := m.top()
	roof := roofs[int(l.r(16)*3)]
	rise := 2.2 + 1.4*l.r(17)
	nb := max(1, int(math.Round((u1-u0)/m.bay)))
	bw := (u1 - u0) / float64(nb)
	const over = 0.45
	for bi := 0; bi < nb; bi++ {
		ua, ub := u0+float64(bi)*bw, u0+float64(bi+1)*bw
		if !l.own((ua + ub) / 2) {
			continue
		}
		if bi == 0 {
			ua -= over
		}
		if bi == nb-1 {
			ub += over
		}
		w.mat = slots.MaterialBuilding
		w.col = m.wall
		// gable walls
		if bi == 0 {
			w.triN(f.p(u0, top, v0), f.p(u0, top, v1), f.p(u0, top+rise, (v0+v1)/2), hz(f.a).scale(-1))
		}
		if bi == nb-1 {
			w.triN(f.p(u1, top, v0), f.p(u1, top, v1), f.p(u1, top+rise, (v0+v1)/2), hz(f.a))
		}
		w.col = roof
		w.mat = slots.MaterialDefault
		// slope the eaves out by the overhang, keeping the pitch
		ov := over * rise / ((v1 - v0) / 2)
		w.gable(f, ua, ub, v0-over, v1+over, top-ov, rise+ov, false)
		if lvl == levelFull {
			// shingle courses: small steps down each slope
			w.col = [3]float32{roof[0] * 0.8, roof[1] * 0.8, roof[2] * 0.8}
			half := (v1 - v0) / 2
			for c := 1; c < 10; c++ {
				t := float64(c) / 10
				for _, sgn := range [2]float64{-1, 1} {
					v := (v0+v1)/2 + sgn*half*t
					y := top + rise*(1-t) + 0.03
					w.faceV(f, ua, ub, y-0.08, y, v, sgn < 0)
				}
			}
		}
	}
	uc := (u0 + u1) / 2
	if l.own(uc) && lvl < levelRoadOnly {
		b.obstacle(f, u0, u1, y0, top+rise, v0, v1, slots.ObstacleBuilding)
		// door, step and path
		w.rgb(0.35, 0.22, 0.14)
		w.faceV(f, uc-0.5, uc+0.5, y0+0.3, y0+2.3, v0-0.03, true)
		w.rgb(0.6, 0.58, 0.55)
		w.box(f, uc-0.8, uc+0.8, y0-0.3, y0+0.3, v0-1, v0, facesOpen)
		w.rgb(0.66, 0.62, 0.55)
		gy := b.groundAt(l, uc, 0.5)
		w.quadUp(f.p(uc-0.6, gy+0.03, 0.3), f.p(uc+0.6, gy+0.03, 0.3), f.p(uc+0.6, y0+0.03, v0-1), f.p(uc-0.6, y0+0.03, v0-1))
	}
	uch := u0 + 1 + (u1-u0-2)*l.r(18)
	if l.own(uch) && lvl <= levelMerged {
		w.rgb(0.5, 0.3, 0.25)
		vc := (v0+v1)/2 + 1.2
		w.box(f, uch-0.4, uch+0.4, top+0.5, top+rise+1.2, vc-0.4, vc+0.4, facesOpen)
	}
	b.garden(l, v1)
}

// fence runs along the lot's front: posts, pickets and rails.
func (b *Builder) fence(l *lot) {
	w := &b.wr
	f := &l.fr
	ua, ub, ok := l.span(0, l.lu)
	if !ok {
		return
	}
	ya, yb := b.groundAt(l, ua, 0.3), b.groundAt(l, ub, 0.3)
	w.mat = slots.MaterialDefault
	if l.r(5) < 0.5 {
		// hedge
		w.rgb(0.16, 0.36, 0.14)
		w.mat = slots.MaterialFoliage
		q := func(u, dy, v float64) vec3 {
			return f.p(u, ya+(yb-ya)*(u-ua)/(ub-ua)+dy, v)
		}
		w.quadN(q(ua, 0, 0), q(ub, 0, 0), q(ub, 1.1, 0), q(ua, 1.1, 0), hz(f.d).scale(-1))
		w.quadN(q(ua, 0, 0.7), q(ub, 0, 0.7), q(ub, 1.1, 0.7), q(ua, 1.1, 0.7), hz(f.d))
		w.quadN(q(ua, 1.1, 0), q(ub, 1.1, 0), q(ub, 1.1, 0.7), q(ua, 1.1, 0.7), up)
		w.mat = slots.MaterialDefault
		return
	}
	w.rgb(0.92, 0.92, 0.9)
	if b.level == levelFull {
		for u := math.Ceil(ua/0.3) * 0.3; u < ub; u += 0.3 {
			if u < 0.5 || u > l.lu-0.5 {
				continue
			}
			y := ya + (yb-ya)*(u-ua)/(ub-ua)
			w.box(f, u-0.05, u+0.05, y, y+1.0, 0.2, 0.26, faceV0|faceV1|faceTop)
		}
	}
	q := func(u, dy, v float64) vec3 { return f.p(u, ya+(yb-ya)*(u-ua)/(ub-ua)+dy, v) }
	for _, r := range [2]float64{0.3, 0.75} {
		w.quadN(q(ua, r, 0.18), q(ub, r, 0.18), q(ub, r+0.1, 0.18), q(ua, r+0.1, 0.18), hz(f.d).scale(-1))
	}
}

// garden: side hedge, a shed, flower beds and trees behind the house.
func (b *Builder) garden(l *lot, vBack float64) {
	w := &b.wr
	f := &l.fr
	if b.level >= levelMassing {
		return
	}
	if l.own(0.2) {
		y := b.groundAt(l, 0.2, l.dv/2)
		w.rgb(0.18, 0.38, 0.15)
		w.mat = slots.MaterialFoliage
		w.box(f, 0, 0.8, y-0.3, y+1.5, 1, l.dv-0.5, facesOpen)
		w.mat = slots.MaterialDefault
	}
	us := 1.5 + (l.lu-5)*l.r(80)
	vs := min(l.dv-3, vBack+4+6*l.r(81))
	if l.own(us) && vs > vBack+2 {
		y := b.groundAt(l, us, vs)
		w.rgb(0.45, 0.35, 0.25)
		w.box(f, us-1.2, us+1.2, y-0.2, y+2.1, vs-1, vs+1, facesSides)
		w.rgb(0.3, 0.3, 0.32)
		w.gable(f, us-1.4, us+1.4, vs-1.2, vs+1.2, y+2.1, 0.8, true)
	}
	// a kitchen garden: rows of plants across the lot behind the house
	if b.level == levelFull {
		va, vb := vBack+2.5, min(l.dv-2.5, vBack+12)
		ua, ub, ok := l.span(1.5, l.lu-1.5)
		if ok && vb > va {
			ya, yb := b.groundAt(l, ua, (va+vb)/2), b.groundAt(l, ub, (va+vb)/2)
			w.rgb(0.25, 0.48, 0.16)
			w.mat = slots.MaterialFoliage
			for v := va; v < vb; v += 0.8 {
				for u := math.Ceil(ua/0.7) * 0.7; u < ub; u += 0.7 {
					y := ya + (yb-ya)*(u-ua)/max(0.01, ub-ua)
					w.box(f, u-0.25, u+0.25, y-0.1, y+0.4, v-0.25, v+0.25, facesOpen)
				}
			}
			w.mat = slots.MaterialDefault
		}
	}
	for k := uint64(0); k < 3; k++ {
		u := 1 + (l.lu-2)*l.r(100+k)
		if !l.own(u) {
			continue
		}
		v := vBack + 2 + (l.dv-vBack-3)*l.r(110+k)
		p := f.p(u, 0, v)
		p.y = b.groundAt(l, u, v)
		b.tree(p, 0.6+0.5*l.r(120+k), l.r(130+k))
	}
	if b.level <= levelNoTrim {
		for k := uint64(0); k < 2; k++ {
			u := 1.5 + (l.lu-3)*l.r(140+k)
			if !l.own(u) {
				continue
			}
			y := b.groundAt(l, u, 2)
			w.rgb(0.5, 0.35, 0.25)
			w.box(f, u-1, u+1, y-0.1, y+0.3, 1.5, 3, facesOpen)
			w.rgb(0.8, 0.3+0.4*float32(l.r(150+k)), 0.5)
			w.mat = slots.MaterialFoliage
			w.box(f, u-0.9, u+0.9, y+0.3, y+0.45, 1.6, 2.9, faceTop)
			w.mat = slots.MaterialDefault
		}
	}
}

// park: paths, benches, a pond or fountain and plenty of trees.
func (b *Builder) park(l *lot) {
	w := &b.wr
	f := &l.fr
	ua, ub, ok := l.span(0, l.lu)
	if !ok {
		return
	}
	plaza := l.kind == kindPlaza || l.kind == kindTower
	vm := l.dv / 2
	ya, yb := b.groundAt(l, ua, vm), b.groundAt(l, ub, vm)
	q := func(u, v float64) vec3 { return f.p(u, ya+(yb-ya)*(u-ua)/(ub-ua)+0.04, v) }
	w.rgb(0.72, 0.66, 0.52)
	w.quadUp(q(ua, vm-1.2), q(ub, vm-1.2), q(ub, vm+1.2), q(ua, vm+1.2))
	uc := l.lu / 2
	if l.own(uc) {
		y := b.groundAt(l, uc, 0)
		w.quadUp(f.p(uc-1.2, y+0.04, 0), f.p(uc+1.2, y+0.04, 0), f.p(uc+1.2, y+0.04, l.dv-1), f.p(uc-1.2, y+0.04, l.dv-1))
		yc := b.groundAt(l, uc, vm)
		if b.level <= levelMerged {
			// pond with a rim, or a fountain on plazas
			w.rgb(0.6, 0.58, 0.55)
			r := 3.5
			w.box(f, uc-r, uc+r, yc-0.2, yc+0.4, vm-r, vm-r+0.4, facesOpen)
			w.box(f, uc-r, uc+r, yc-0.2, yc+0.4, vm+r-0.4, vm+r, facesOpen)
			w.box(f, uc-r, uc-r+0.4, yc-0.2, yc+0.4, vm-r+0.4, vm+r-0.4, facesOpen)
			w.box(f, uc+r-0.4, uc+r, yc-0.2, yc+0.4, vm-r+0.4, vm+r-0.4, facesOpen)
			w.mat = slots.MaterialWater
			w.pal(slots.PaletteWater, waterG, waterB)
			w.quadN(f.p(uc-r+0.4, yc+0.25, vm-r+0.4), f.p(uc+r-0.4, yc+0.25, vm-r+0.4), f.p(uc+r-0.4, yc+0.25, vm+r-0.4), f.p(uc-r+0.4, yc+0.25, vm+r-0.4), up)
			w.mat = slots.MaterialDefault
			if plaza {
				w.rgb(0.75, 0.74, 0.7)
				w.box(f, uc-0.4, uc+0.4, yc, yc+2.2, vm-0.4, vm+0.4, facesOpen)
			}
		}
	}
	// benches along the path
	if b.level <= levelNoTrim {
		for u := math.Ceil(ua/7)*7 + 3.5; u < ub; u += 7 {
			y := b.groundAt(l, u, vm+1.8)
			w.rgb(0.45, 0.3, 0.18)
			w.box(f, u-0.9, u+0.9, y+0.4, y+0.5, vm+1.5, vm+2.0, facesOpen|faceBottom)
			w.box(f, u-0.9, u+0.9, y+0.5, y+0.95, vm+1.95, vm+2.05, facesSides|faceTop)
			w.rgb(0.2, 0.2, 0.2)
			w.box(f, u-0.8, u-0.7, y, y+0.4, vm+1.6, vm+1.9, facesSides)
			w.box(f, u+0.7, u+0.8, y, y+0.4, vm+1.6, vm+1.9, facesSides)
		}
	}
	// trees on a jittered grid; each anchored at its own u
	for u := math.Ceil(ua/6)*6 + 1; u < ub; u += 6 {
		if u > l.lu-1 {
			break
		}
		for v := 3.0; v < l.dv-1; v += 6.5 {
			if math.Abs(v-vm) < 2.5 || math.Abs(u-uc) < 2 && plaza {
				continue
			}
			k := uint64(u*7) ^ uint64(v*131)
			if l.r(200+k) < 0.3 {
				continue
			}
			uu, vv := u+1.5*(l.r(210+k)-0.5), v+1.5*(l.r(220+k)-0.5)
			p := f.p(uu, 0, vv)
			p.y = b.groundAt(l, uu, vv)
			b.tree(p, 0.7+0.6*l.r(230+k), l.r(240+k))
		}
	}
}

// field: crop rows parallel to the road, a hedge with trees at the back
// and now and then a barn with a silo.
func (b *Builder) field(l *lot) {
	w := &b.wr
	f := &l.fr
	ua, ub, ok := l.span(0, l.lu)
	if !ok {
		return
	}
	vBack := l.dv - 1
	h := [3]float64{b.groundAt(l, ua, 0), b.groundAt(l, ua, vBack), 0}
	hb := [2]float64{b.groundAt(l, ub, 0), b.groundAt(l, ub, vBack)}
	ground := func(u, v float64) float64 {
		tu, tv := (u-ua)/(ub-ua), v/vBack
		a := h[0] + (h[1]-h[0])*tv
		c := hb[0] + (hb[1]-hb[0])*tv
		return a + (c-a)*tu
	}
	crop := l.r(3)
	rowGap := 0.9
	switch {
	case b.level >= levelMassing:
		rowGap = 0
	case b.level >= levelMerged:
		rowGap = 2.2
	}
	barn := l.r(60) < 0.25
	barnU := 4 + (l.lu-16)*l.r(61)
	w.mat = slots.MaterialFoliage
	if rowGap > 0 {
		switch {
		case crop < 0.45: // ploughed / vegetables: green ridges
			w.rgb(0.3, 0.5, 0.18)
		case crop < 0.75: // grain: golden ridges
			w.rgb(0.78, 0.68, 0.32)
		default: // meadow: sparse tufts
			w.rgb(0.32, 0.55, 0.22)
			rowGap *= 2
		}
		for v := 1.5; v < vBack-0.5; v += rowGap {
			u0, u1 := ua, ub
			if barn && v > 8 && v < 24 {
				// leave the farmyard free
				if ub > barnU-2 && ua < barnU+14 {
					if ua < barnU-2 {
						u1 = barnU - 2
					} else if ub > barnU+14 {
						u0 = barnU + 14
					} else {
						continue
					}
				}
			}
			if u1-u0 < 0.2 {
				continue
			}
			y0, y1 := ground(u0, v), ground(u1, v)
			if crop < 0.45 && b.level == levelFull {
				// vegetables: one plant every 0.9 m along the row, anchored
				// on the lot's own grid so neighbours continue the row
				for u := math.Ceil(u0/0.9) * 0.9; u+0.35 < u1; u += 0.9 {
					y := y0 + (y1-y0)*(u-u0)/(u1-u0)
					w.box(f, u-0.35, u+0.35, y-0.1, y+0.35, v-0.3, v+0.3, facesOpen)
				}
				continue
			}
			q := func(u, dy, vv float64) vec3 { return f.p(u, y0+(y1-y0)*(u-u0)/(u1-u0)+dy, vv) }
			n0 := hz(f.d).scale(-0.6).add(up.scale(0.8)).norm()
			n1 := hz(f.d).scale(0.6).add(up.scale(0.8)).norm()
			w.quadN(q(u0, 0, v-0.4), q(u1, 0, v-0.4), q(u1, 0.5, v-0.1), q(u0, 0.5, v-0.1), n0)
			w.quadN(q(u0, 0, v+0.4), q(u1, 0, v+0.4), q(u1, 0.5, v+0.1), q(u0, 0.5, v+0.1), n1)
			w.quadN(q(u0, 0.5, v-0.1), q(u1, 0.5, v-0.1), q(u1, 0.5, v+0.1), q(u0, 0.5, v+0.1), up)
		}
	}
	// back hedge with trees
	if b.level <= levelMerged {
		w.rgb(0.2, 0.36, 0.15)
		y0, y1 := ground(ua, vBack), ground(ub, vBack)
		q := func(u, dy, v float64) vec3 { return f.p(u, y0+(y1-y0)*(u-ua)/(ub-ua)+dy, v) }
		w.quadN(q(ua, -0.2, vBack-0.6), q(ub, -0.2, vBack-0.6), q(ub, 1.6, vBack-0.6), q(ua, 1.6, vBack-0.6), hz(f.d).scale(-1))
		w.quadN(q(ua, 1.6, vBack-0.6), q(ub, 1.6, vBack-0.6), q(ub, 1.6, vBack+0.6), q(ua, 1.6, vBack+0.6), up)
		w.quadN(q(ua, -0.2, vBack+0.6), q(ub, -0.2, vBack+0.6), q(ub, 1.6, vBack+0.6), q(ua, 1.6, vBack+0.6), hz(f.d))
		if l.own(0.3) {
			yh := ground(max(0.3, ua), l.dv/2)
			w.box(f, 0, 0.6, yh-0.2, yh+1.4, 0.5, vBack-0.6, facesOpen)
		}
	}
	w.mat = slots.MaterialDefault
	for u := math.Ceil(ua/9)*9 + 4; u < ub; u += 9 {
		k := uint64(u)
		if l.r(500+k) < 0.5 {
			continue
		}
		p := f.p(u, ground(u, vBack), vBack)
		b.tree(p, 0.9+0.6*l.r(510+k), l.r(520+k))
	}
	if barn && l.own(barnU+5) && l.lu > 18 && b.clear(f, barnU, barnU+14, 10, 22) {
		y := b.base(l, barnU, barnU+10, 10, 22)
		w.rgb(0.55, 0.18, 0.12)
		w.mat = slots.MaterialBuilding
		w.box(f, barnU, barnU+10, y-0.3, y+5, 10, 22, facesSides)
		w.triN(f.p(barnU, y+5, 10), f.p(barnU+10, y+5, 10), f.p(barnU+5, y+8.5, 10), hz(f.d).scale(-1))
		w.triN(f.p(barnU, y+5, 22), f.p(barnU+10, y+5, 22), f.p(barnU+5, y+8.5, 22), hz(f.d))
		w.rgb(0.9, 0.88, 0.82)
		w.faceV(f, barnU+3.5, barnU+6.5, y, y+3.8, 9.97, true)
		// roof ridge along v: swap frame axes
		rf := frame{o: f.o, a: f.d, d: f.a}
		w.rgb(0.3, 0.3, 0.32)
		w.mat = slots.MaterialDefault
		w.gable(&rf, 9.6, 22.4, barnU-0.4, barnU+10.4, y+4.77, 3.73, false)
		// silo
		w.rgb(0.75, 0.75, 0.72)
		w.box(f, barnU+11, barnU+14, y-0.3, y+10, 13, 16, facesSides)
		w.rgb(0.4, 0.42, 0.45)
		w.gable(f, barnU+10.8, barnU+14.2, 12.8, 16.2, y+10, 1.5, true)
		b.obstacle(f, barnU, barnU+14, y, y+10, 10, 22, slots.ObstacleBuilding)
	}
}
