package citygen

import (
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Lot kinds.
const (
	kindNone = iota
	kindTower
	kindMidrise
	kindHouse
	kindPark
	kindPlaza
	kindField
)

// lot is one plot beside an edge. Lots partition each side of an edge by a
// hash of (edge id, side, lot index) alone, so every segment of the edge
// agrees on them; a lot's parts belong to the segment whose frontage holds
// their anchor (distance along the lot's frontage).
type lot struct {
	id       int64 // edge id*512 + side*256 + index: stable per lot
	sg       float64
	a, b     float64 // usable range, distance along the edge
	fr       frame   // u along the frontage from its start, v away from the road
	lu, dv   float64 // frontage length, depth
	lo, hi   float64 // the u range this segment owns
	district world.District
	kind     int
	seed     uint64
}

// own reports whether this segment builds the part anchored at u.
func (l *lot) own(u float64) bool { return u >= l.lo && u < l.hi }

// span clips [u0,u1] to this segment's share; ok false when empty.
func (l *lot) span(u0, u1 float64) (float64, float64, bool) {
	u0, u1 = max(u0, l.lo), min(u1, l.hi)
	return u0, u1, u1 > u0
}

// r is a per-lot random number in [0,1) for choice k.
func (l *lot) r(k uint64) float64 { return unit(mix64(l.seed ^ k*0x9e3779b97f4a7c15)) }

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// lotWidths by the edge's district: frontage range in metres.
func lotWidth(d world.District) (float64, float64) {
	switch d {
	case world.Downtown:
		return 26, 38
	case world.Midrise:
		return 18, 28
	case world.Houses:
		return 13, 19
	}
	return 30, 52
}

// isX reports whether an edge runs along the lattice's X axis; X edges own
// the corner lots at junctions, Z edges keep clear of them.
func isX(e *roadgraph.Edge) bool {
	_, d := world.EdgeOrigin(e.ID)
	return d == world.DirX
}

// lotClear is how far from the junction j at one end of s.e lots on side sg
// must stay: clear of the crossing road's sidewalk, and clear of its whole
// lot band when the crossing road owns the corner.
func (b *Builder) lotClear(s *seg, j *roadgraph.Junction, atA bool, sg float64) float64 {
	T := s.e.Tangent(0)
	if !atA {
		T = s.e.Tangent(s.n).Scale(-1)
	}
	side := roadgraph.Left(s.e.Tangent(0)).Scale(sg)
	if !atA {
		side = roadgraph.Left(s.e.Tangent(s.n)).Scale(sg)
	}
	clear := s.rB // the junction radii were found once for the segment
	if atA {
		clear = s.rA
	}
	for _, o := range j.Arms {
		if o == s.e {
			continue
		}
		d := armDir(o, j)
		if d.Dot(side) < 0.35 || d.Dot(T) > 0.8 {
			continue
		}
		c := o.HalfWidth + walkWidth + 0.5
		if !isX(s.e) && isX(o) {
			c = o.HalfWidth + roadgraph.LotDepth + 1
		}
		clear = max(clear, c)
	}
	return clear
}

// armDir is the direction edge o leaves junction j.
func armDir(o *roadgraph.Edge, j *roadgraph.Junction) world.Vec2 {
	if o.A.ID == j.ID {
		return o.Tangent(0)
	}
	return o.Tangent(o.Segments()).Scale(-1)
}

// lots builds this segment's share of the lots on both sides.
func (b *Builder) lots(s *seg) {
	if s.water && s.h0 < world.WaterLevel && s.h1 < world.WaterLevel {
		return
	}
	wMin, wMax := lotWidth(s.hint)
	for sideIdx, sg := range [2]float64{1, -1} {
		hide := roadgraph.HideLeft
		if sg < 0 {
			hide = roadgraph.HideRight
		}
		clearA := b.lotClear(s, s.e.A, true, sg)
		clearB := s.total - b.lotClear(s, s.e.B, false, sg)
		if clearB-clearA < 8 {
			continue
		}
		var ground groundRows
		haveGround := false
		pos := -wMax * b.hash(saltLotWidth, int64(s.e.ID), int64(sideIdx), -1)
		for k := int64(0); pos < s.sHi && k < 256; k++ {
			width := wMin + (wMax-wMin)*b.hash(saltLotWidth, int64(s.e.ID), int64(sideIdx), k)
			a, bb := max(pos, clearA), min(pos+width, clearB)
			pos += width
			if bb-a < 8 || bb <= s.sLo || a >= s.sHi {
				continue
			}
			if hidden(s, a, bb, hide) {
				continue
			}
			l := lot{id: int64(s.e.ID)*512 + int64(sideIdx)*256 + k, sg: sg, a: a, b: bb}
			l.seed = mix64(b.w.Seed ^ uint64(l.id)*0x2545f4914f6cdd1d)
			if !b.setupLot(s, &l) {
				continue
			}
			if !haveGround {
				ground = b.groundRows(s, sg)
				haveGround = true
			}
			b.lotGround(s, &l, &ground)
			if b.level < levelRoadOnly {
				b.lotContent(s, &l)
			}
		}
	}
}

// hidden reports whether any node beside [a, b] has another road in its lot
// band on this side.
func hidden(s *seg, a, b float64, hide roadgraph.SideFlags) bool {
	k0 := max(0, int(math.Floor(a/s.L)))
	k1 := min(s.n, int(math.Ceil(b/s.L)))
	for k := k0; k <= k1; k++ {
		if s.e.Flags[k]&hide != 0 {
			return true
		}
	}
	return false
}

// edgePoint is the point at distance along d on the edge, offset c across.
func edgePoint(e *roadgraph.Edge, L, d, c float64) world.Vec2 {
	n := e.Segments()
	f := d / L
	k := min(n-1, max(0, int(math.Floor(f))))
	t := f - float64(k)
	p := e.Nodes[k].Lerp(e.Nodes[k+1], t)
	nn := roadgraph.Left(e.Tangent(k)).Lerp(roadgraph.Left(e.Tangent(k+1)), t).Norm()
	return p.Add(nn.Scale(c))
}

// setupLot fixes the lot's frame, kind and owned range; false = no lot
// (in the lake).
func (b *Builder) setupLot(s *seg, l *lot) bool {
	front := s.hw + walkWidth
	f0 := edgePoint(s.e, s.L, l.a, l.sg*front)
	f1 := edgePoint(s.e, s.L, l.b, l.sg*front)
	ax := f1.Sub(f0)
	l.lu = ax.Len()
	ax = ax.Norm()
	l.fr = frame{o: f0, a: ax, d: roadgraph.Left(ax).Scale(l.sg)}
	l.dv = roadgraph.LotDepth - walkWidth - 0.5
	c := l.fr.xz(l.lu/2, l.dv/2)
	if b.w.Height(c.X, c.Z) < world.WaterLevel+0.3 {
		return false
	}
	l.lo, l.hi = math.Inf(-1), math.Inf(1)
	if l.a < s.sLo {
		l.lo = s.sLo - l.a
	}
	if l.b > s.sHi {
		l.hi = s.sHi - l.a
	}
	l.district = b.w.District(c.X, c.Z)
	r := l.r(1)
	switch l.district {
	case world.Downtown:
		l.kind = kindTower
		if r < 0.1 {
			l.kind = kindPlaza
		}
	case world.Midrise:
		l.kind = kindMidrise
		if r < 0.12 {
			l.kind = kindPark
		}
	case world.Houses:
		l.kind = kindHouse
		if r < 0.1 {
			l.kind = kindPark
		}
	default:
		l.kind = kindField
	}
	return true
}

// groundRows are terrain heights beside the segment's two nodes at the lot
// front, middle and back.
type groundRows struct {
	c [3]float64
	h [2][3]float64
}

func (b *Builder) groundRows(s *seg, sg float64) groundRows {
	var g groundRows
	g.c = [3]float64{sg * (s.hw + walkWidth), sg * (s.hw + walkWidth + roadgraph.LotDepth/2), sg * (s.hw + roadgraph.LotDepth)}
	for ni, f := range [2]float64{0, 1} {
		for ci, c := range g.c {
			p := s.at(f, c)
			g.h[ni][ci] = b.w.Height(p.X, p.Z)
		}
	}
	return g
}

// lotGround drapes the lot's ground over this segment's share of its
// frontage, with a retaining face from the sidewalk down (or up) to it.
func (b *Builder) lotGround(s *seg, l *lot, g *groundRows) {
	fa := (max(l.a, s.sLo) - s.sLo) / s.L
	fb := (min(l.b, s.sHi) - s.sLo) / s.L
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.variant = float32(l.r(2))
	switch l.kind {
	case kindTower, kindPlaza:
		w.rgb(0.56, 0.55, 0.52)
	case kindMidrise:
		w.rgb(0.5, 0.5, 0.48)
	case kindField:
		switch {
		case l.r(3) < 0.45:
			w.rgb(0.45, 0.34, 0.2)
		case l.r(3) < 0.75:
			w.rgb(0.62, 0.56, 0.28)
		default:
			w.rgb(0.36, 0.5, 0.22)
		}
	default:
		w.rgb(0.3, 0.52, 0.22)
	}
	h := func(f float64, ci int) float64 { return g.h[0][ci] + (g.h[1][ci]-g.h[0][ci])*f }
	for ci := 0; ci < 2; ci++ {
		p00, p01 := s.at(fa, g.c[ci]), s.at(fa, g.c[ci+1])
		p10, p11 := s.at(fb, g.c[ci]), s.at(fb, g.c[ci+1])
		w.quadUp(at(p00, h(fa, ci)), at(p01, h(fa, ci+1)), at(p11, h(fb, ci+1)), at(p10, h(fb, ci)))
	}
	// retaining face between the sidewalk and the lot's front edge
	ya, yb := s.y(fa)+kerbHeight, s.y(fb)+kerbHeight
	ga, gb := h(fa, 0), h(fb, 0)
	if math.Abs(ya-ga) > 0.02 || math.Abs(yb-gb) > 0.02 {
		w.pal(slots.PaletteSidewalk, walkG*0.85, walkB*0.85)
		pa, pb := s.at(fa, g.c[0]), s.at(fb, g.c[0])
		n := s.n0.Lerp(s.n1, (fa+fb)/2).Norm().Scale(l.sg)
		if ya+yb < ga+gb {
			n = n.Scale(-1)
		}
		w.quadN(at(pa, ga), at(pb, gb), at(pb, yb), at(pa, ya), hz(n))
	}
}

// base is the level base of a footprint: its lowest corner.
func (b *Builder) base(l *lot, u0, u1, v0, v1 float64) float64 {
	y := math.Inf(1)
	for _, uv := range [4][2]float64{{u0, v0}, {u1, v0}, {u0, v1}, {u1, v1}} {
		p := l.fr.xz(uv[0], uv[1])
		y = min(y, b.w.Height(p.X, p.Z))
	}
	return y
}

// groundAt is the terrain height at lot coordinates (u, v).
func (b *Builder) groundAt(l *lot, u, v float64) float64 {
	p := l.fr.xz(u, v)
	return b.w.Height(p.X, p.Z)
}

func (b *Builder) lotContent(s *seg, l *lot) {
	switch l.kind {
	case kindTower:
		b.tower(l)
	case kindMidrise:
		b.midrise(l)
	case kindHouse:
		b.house(l)
	case kindPark, kindPlaza:
		b.park(l)
	case kindField:
		b.field(l)
	}
}
