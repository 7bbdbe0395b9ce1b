package citygen

import (
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Road cross-section, metres.
const (
	walkWidth  = world.WalkWidth
	kerbHeight = world.KerbHeight
	kerbWidth  = 0.25
	shoulder   = 0.8 // shoulder strip inside the kerb
	stripeW    = 0.15
	dashPeriod = 6.0 // dashed lines: 3 m paint, 3 m gap
	deckDepth  = 1.2 // deck slab thickness
)

// Dry tints for palette surfaces (G and B only; red carries the index).
const (
	roadG, roadB         = 0.24, 0.25
	shoulderG, shoulderB = 0.33, 0.33
	stripeG, stripeB     = 0.92, 0.9
	waterG, waterB       = 0.36, 0.45
	walkG, walkB         = 0.62, 0.6
)

// seg is the per-build view of one segment.
type seg struct {
	e        *roadgraph.Edge
	i, n     int
	L        float64 // nominal segment length (edge's first segment)
	total    float64 // n*L: the edge's length in the "along" metric
	hw       float64
	p0, p1   world.Vec2
	t        world.Vec2 // chord tangent
	n0, n1   world.Vec2 // left normals at the nodes
	y0, y1   float64    // road surface heights
	h0, h1   float64    // terrain heights at the nodes
	water    bool       // the segment crosses the lake
	deck     bool       // raised above the terrain (bridge or ramp)
	rA, rB   float64    // junction radii at the ends
	sLo, sHi float64    // along range [i*L, (i+1)*L]
	hint     world.District
	lamps    int // lamp flags
}

// point at fraction f of the segment, offset c across (left positive), and
// the road height there.
func (s *seg) at(f, c float64) world.Vec2 {
	p := s.p0.Lerp(s.p1, f)
	n := s.n0.Lerp(s.n1, f)
	return p.Add(n.Scale(c))
}

func (s *seg) y(f float64) float64 { return s.y0 + (s.y1-s.y0)*f }

// junctionRadius is how far from a junction's centre its own surface
// reaches along every arm; segments clip their road there. It comes from
// the lattice (every arm, loaded or not), so it matches world.Surface.
func (b *Builder) junctionRadius(j *roadgraph.Junction) float64 {
	return b.lat.JunctionRadiusAt(world.JunctionCell(j.ID))
}

// roadHeights fills s.y0, s.y1 (and terrain h0, h1) by the world's road
// rule (world.SegmentHeights): the same numbers the car stands on.
func (b *Builder) roadHeights(s *seg) {
	s.y0, s.y1, s.h0, s.h1 = b.w.SegmentHeights(s.e.Nodes, s.i, s.rA, s.rB)
	s.water = s.h0 < world.WaterLevel+world.WetMargin || s.h1 < world.WaterLevel+world.WetMargin
	s.deck = world.IsDeck(s.y0, s.y1, s.h0, s.h1)
}

func (b *Builder) buildSegment(e *roadgraph.Edge, i int) {
	var s seg
	s.e, s.i, s.n = e, i, e.Segments()
	s.L = e.Nodes[1].Sub(e.Nodes[0]).Len()
	s.total = float64(s.n) * s.L
	s.hw = e.HalfWidth
	s.p0, s.p1 = e.Nodes[i], e.Nodes[i+1]
	s.t = s.p1.Sub(s.p0).Norm()
	s.n0, s.n1 = roadgraph.Left(e.Tangent(i)), roadgraph.Left(e.Tangent(i+1))
	s.rA, s.rB = b.junctionRadius(e.A), b.junctionRadius(e.B)
	s.sLo, s.sHi = float64(i)*s.L, float64(i+1)*s.L
	mid := e.Nodes[s.n/2]
	s.hint = b.w.District(mid.X, mid.Z)
	b.roadHeights(&s)

	// Lamps: avenues and bridges on both kerbs, streets on one side.
	avenue := s.hw >= world.AvenueHalfWidth
	switch {
	case avenue || s.water:
		s.lamps = slots.LampLeft | slots.LampRight
	case b.hash(saltTree, int64(e.ID), 7, 0) < 0.5:
		s.lamps = slots.LampLeft
	default:
		s.lamps = slots.LampRight
	}
	if s.deck {
		s.lamps |= slots.LampBridge
	}

	w := &b.wr
	w.mode = frameRoad
	w.roadP, w.roadT, w.roadN, w.roadS = s.p0, s.t, roadgraph.Left(s.t), s.sLo
	w.frameZ = float32(s.hw + float64(s.lamps)*slots.LampFlagScale)

	// The road proper, clipped to stay off the junction surfaces.
	f0 := max(0, (s.rA-s.sLo)/s.L)
	f1 := min(1, (s.total-s.rB-s.sLo)/s.L)
	if s.water {
		b.water(&s)
	}
	if f1 > f0 {
		b.roadSurface(&s, f0, f1)
		if b.level < levelRoadOnly {
			b.lamps(&s)
			if s.deck {
				b.bridge(&s, f0, f1)
			}
		}
		if b.level <= levelNoTrim && !s.deck {
			b.streetLife(&s, f0, f1)
		}
	}
	b.lots(&s)
}

// strip emits the flat band [c0,c1] across the road between fractions f0
// and f1 at height dy above the road surface.
func (b *Builder) strip(s *seg, f0, f1, c0, c1, dy float64) {
	a0, a1 := s.at(f0, c0), s.at(f0, c1)
	b0, b1 := s.at(f1, c0), s.at(f1, c1)
	y0, y1 := s.y(f0)+dy, s.y(f1)+dy
	b.wr.quadUp(at(a0, y0), at(a1, y0), at(b1, y1), at(b0, y1))
}

// wall emits the vertical band at offset c across from height dyLo to dyHi
// above the road surface, facing the side given by sign (+1 left).
func (b *Builder) wall(s *seg, f0, f1, c, dyLo0, dyHi0, dyLo1, dyHi1, sign float64) {
	a, bb := s.at(f0, c), s.at(f1, c)
	y0, y1 := s.y(f0), s.y(f1)
	n := s.n0.Lerp(s.n1, (f0+f1)/2).Norm().Scale(sign)
	b.wr.quadN(at(a, y0+dyLo0), at(bb, y1+dyLo1), at(bb, y1+dyHi1), at(a, y0+dyHi0), hz(n))
}

func (b *Builder) roadSurface(s *seg, f0, f1 float64) {
	w := &b.wr
	hw := s.hw
	inner := hw - shoulder
	w.mat = slots.MaterialRoad
	w.variant = 0
	// carriageway and shoulders
	w.pal(slots.PaletteRoad, roadG, roadB)
	b.strip(s, f0, f1, -inner, 0, 0)
	b.strip(s, f0, f1, 0, inner, 0)
	w.pal(slots.PaletteShoulder, shoulderG, shoulderB)
	b.strip(s, f0, f1, inner, hw, 0)
	b.strip(s, f0, f1, -hw, -inner, 0)
	// markings
	w.pal(slots.PaletteStripe, stripeG, stripeB)
	const dy = 0.02
	e0 := inner - 0.35
	b.strip(s, f0, f1, e0, e0+stripeW, dy)
	b.strip(s, f0, f1, -e0-stripeW, -e0, dy)
	if hw >= world.AvenueHalfWidth {
		b.strip(s, f0, f1, 0.1, 0.1+stripeW, dy)
		b.strip(s, f0, f1, -0.1-stripeW, -0.1, dy)
		b.dashes(s, f0, f1, inner/2, dy)
		b.dashes(s, f0, f1, -inner/2, dy)
	} else {
		b.dashes(s, f0, f1, 0, dy)
	}
	// kerbs and sidewalks
	w.mat = slots.MaterialDefault
	for _, sg := range [2]float64{1, -1} {
		w.pal(slots.PaletteSidewalk, 0.7, 0.7)
		b.wall(s, f0, f1, sg*hw, 0, kerbHeight, 0, kerbHeight, -sg)
		b.stripSide(s, f0, f1, sg, hw, hw+kerbWidth, kerbHeight)
		w.pal(slots.PaletteSidewalk, walkG, walkB)
		if b.level <= levelNoTrim {
			// paving slabs on a 0.9 m grid of along, with joints between
			w.pal(slots.PaletteSidewalk, walkG*0.8, walkB*0.8)
			b.stripSide(s, f0, f1, sg, hw+kerbWidth, hw+walkWidth, kerbHeight-0.005)
			w.pal(slots.PaletteSidewalk, walkG, walkB)
			lo, hi := s.sLo+f0*s.L, s.sLo+f1*s.L
			for k := math.Floor(lo / 0.9); k*0.9 < hi; k++ {
				d0, d1 := max(lo, k*0.9+0.03), min(hi, k*0.9+0.87)
				if d1 <= d0 {
					continue
				}
				g0, g1 := (d0-s.sLo)/s.L, (d1-s.sLo)/s.L
				for c := hw + kerbWidth + 0.03; c+0.5 < hw+walkWidth; c += 0.92 {
					b.stripSide(s, g0, g1, sg, c, c+0.86, kerbHeight)
				}
			}
		} else {
			b.stripSide(s, f0, f1, sg, hw+kerbWidth, hw+walkWidth, kerbHeight)
		}
	}
}

// stripSide is strip on side sg (+1 left, -1 right) for |c| in [c0,c1].
func (b *Builder) stripSide(s *seg, f0, f1, sg, c0, c1, dy float64) {
	if sg > 0 {
		b.strip(s, f0, f1, c0, c1, dy)
	} else {
		b.strip(s, f0, f1, -c1, -c0, dy)
	}
}

// dashes paints a dashed line centred at c: paint where along mod 6 < 3.
func (b *Builder) dashes(s *seg, f0, f1, c, dy float64) {
	lo, hi := s.sLo+f0*s.L, s.sLo+f1*s.L
	for k := math.Floor(lo / dashPeriod); k*dashPeriod < hi; k++ {
		d0, d1 := max(lo, k*dashPeriod), min(hi, k*dashPeriod+dashPeriod/2)
		if d1 > d0 {
			b.strip(s, (d0-s.sLo)/s.L, (d1-s.sLo)/s.L, c-stripeW/2, c+stripeW/2, dy)
		}
	}
}

// lamps places street lamps at multiples of slots.LampSpacing along the edge.
func (b *Builder) lamps(s *seg) {
	lo := max(s.sLo, s.rA+2)
	hi := min(s.sHi, s.total-s.rB-2)
	for k := math.Ceil(lo / slots.LampSpacing); k*slots.LampSpacing < hi; k++ {
		f := (k*slots.LampSpacing - s.sLo) / s.L
		for _, sg := range [2]float64{1, -1} {
			if sg > 0 && s.lamps&slots.LampLeft == 0 || sg < 0 && s.lamps&slots.LampRight == 0 {
				continue
			}
			c := sg * (s.hw + 0.7)
			if s.deck {
				c = sg * (s.hw + walkWidth - 0.4)
			}
			p := s.at(f, c)
			// frame: u along the road, v towards the road centre
			fr := frame{o: p, a: s.t, d: roadgraph.Left(s.t).Scale(-sg)}
			b.streetLamp(&fr, s.y(f)+kerbHeight, s.hw*0.35)
		}
	}
}

// streetLamp: pole at the frame origin, arm reaching reach metres along
// +d. False: the pole is not clear (solid), nothing is drawn.
func (b *Builder) streetLamp(f *frame, y, reach float64) bool {
	const top = 7.5
	if !b.solid(f, -0.12, 0.12, y, y+top, -0.12, 0.12, slots.ObstacleFurniture) {
		return false
	}
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.32, 0.33, 0.35)
	w.box(f, -0.1, 0.1, y, y+top, -0.1, 0.1, facesOpen)
	if b.level <= levelMerged {
		w.box(f, -0.16, 0.16, y, y+0.6, -0.16, 0.16, facesSides) // base
		w.box(f, -0.06, 0.06, y+top-0.25, y+top-0.1, 0.1, reach, facesOpen|faceBottom)
	}
	w.box(f, -0.22, 0.22, y+top-0.4, y+top-0.15, reach-0.2, reach+0.6, facesOpen)
	w.mat = slots.MaterialLamp
	w.rgb(1, 0.9, 0.65)
	p := func(u, v float64) vec3 { return f.p(u, y+top-0.41, v) }
	w.quadN(p(-0.18, reach-0.15), p(0.18, reach-0.15), p(0.18, reach+0.55), p(-0.18, reach+0.55), vec3{0, -1, 0})
	w.mat = slots.MaterialDefault
	return true
}

// water lays the lake surface across the whole lot band of a segment over
// the lake.
func (b *Builder) water(s *seg) {
	w := &b.wr
	w.mat = slots.MaterialWater
	w.pal(slots.PaletteWater, waterG, waterB)
	c := s.hw + roadgraph.LotDepth
	y := world.WaterLevel
	a0, a1 := s.at(0, -c), s.at(0, c)
	b0, b1 := s.at(1, -c), s.at(1, c)
	w.quadN(at(a0, y), at(a1, y), at(b1, y), at(b0, y), up)
	w.mat = slots.MaterialDefault
}

// bridge adds the deck's sides and underside, rails and piers.
func (b *Builder) bridge(s *seg, f0, f1 float64) {
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.55, 0.54, 0.52)
	edge := s.hw + walkWidth
	for _, sg := range [2]float64{1, -1} {
		b.wall(s, f0, f1, sg*edge, -deckDepth, kerbHeight, -deckDepth, kerbHeight, sg)
	}
	// underside, facing down
	{
		a0, a1 := s.at(f0, -edge), s.at(f0, edge)
		b0, b1 := s.at(f1, -edge), s.at(f1, edge)
		y0, y1 := s.y(f0)-deckDepth, s.y(f1)-deckDepth
		w.quadN(at(a0, y0), at(a1, y0), at(b1, y1), at(b0, y1), vec3{0, -1, 0})
	}
	if b.level >= levelMassing {
		return
	}
	// rails: posts every 1.4 m of along, a top rail and a mid rail; a
	// rail that is not clear (solid: where a deck meets a junction, the
	// crossing road's carriageway) is left out, truss and all
	for _, sg := range [2]float64{1, -1} {
		c := sg * (edge - 0.12)
		p0, p1 := s.at(f0, c), s.at(f1, c)
		fr := frame{o: p0, a: p1.Sub(p0).Norm(), d: roadgraph.Left(s.t)}
		l := p1.Sub(p0).Len()
		ya, yb := s.y(f0)+kerbHeight, s.y(f1)+kerbHeight
		// the rail slopes with a ramp: its box spans both ends' heights
		if !b.solid(&fr, 0, l, min(ya, yb), max(ya, yb)+1.1, -0.1, 0.1, slots.ObstacleRail) {
			continue
		}
		w.rgb(0.72, 0.72, 0.7)
		// the rail follows the road's slope: emit it as sloped bands
		for _, r := range [2][2]float64{{0.95, 1.1}, {0.45, 0.55}} {
			q := func(u, dy, v float64) vec3 { return fr.p(u, ya+(yb-ya)*u/l+dy, v) }
			w.quadN(q(0, r[0], -0.07), q(l, r[0], -0.07), q(l, r[1], -0.07), q(0, r[1], -0.07), hz(fr.d).scale(-1))
			w.quadN(q(0, r[0], 0.07), q(l, r[0], 0.07), q(l, r[1], 0.07), q(0, r[1], 0.07), hz(fr.d))
			w.quadN(q(0, r[1], -0.07), q(l, r[1], -0.07), q(l, r[1], 0.07), q(0, r[1], 0.07), up)
		}
		if b.level <= levelNoTrim {
			lo, hi := s.sLo+f0*s.L, s.sLo+f1*s.L
			for k := math.Ceil(lo / 1.4); k*1.4 < hi; k++ {
				f := (k*1.4 - s.sLo) / s.L
				u := (f - f0) / (f1 - f0) * l
				y := s.y(f) + kerbHeight
				w.box(&fr, u-0.06, u+0.06, y, y+0.95, -0.06, 0.06, facesSides)
			}
			if b.level == levelFull {
				// truss: a vertical and a diagonal every 2.1 m, top chord
				w.rgb(0.35, 0.4, 0.48)
				for k := math.Ceil(lo / 2.1); k*2.1 < hi; k++ {
					f := (k*2.1 - s.sLo) / s.L
					u := (f - f0) / (f1 - f0) * l
					y := s.y(f) + kerbHeight
					w.box(&fr, u-0.12, u+0.12, y, y+3.2, sg*0.3-0.12, sg*0.3+0.12, facesSides)
					df := frame{o: fr.xz(u, sg*0.3), a: world.Vec2{X: fr.a.X, Z: fr.a.Z}, d: fr.d}
					for m := 0; m < 4; m++ {
						uu := float64(m) * 0.5
						yy := y + float64(m)*0.8
						w.box(&df, uu-0.1, uu+0.4, yy, yy+0.8, -0.1, 0.1, facesSides)
					}
				}
				q := func(u, dy, v float64) vec3 { return fr.p(u, ya+(yb-ya)*u/l+dy, v) }
				c := sg * 0.3
				w.quadN(q(0, 3.2, c-0.15), q(l, 3.2, c-0.15), q(l, 3.5, c-0.15), q(0, 3.5, c-0.15), hz(fr.d).scale(-1))
				w.quadN(q(0, 3.2, c+0.15), q(l, 3.2, c+0.15), q(l, 3.5, c+0.15), q(0, 3.5, c+0.15), hz(fr.d))
				w.quadN(q(0, 3.5, c-0.15), q(l, 3.5, c-0.15), q(l, 3.5, c+0.15), q(0, 3.5, c+0.15), up)
				w.rgb(0.72, 0.72, 0.7)
				for k := math.Ceil(lo / 0.2); k*0.2 < hi; k++ {
					f := (k*0.2 - s.sLo) / s.L
					u := (f - f0) / (f1 - f0) * l
					y := s.y(f) + kerbHeight
					w.box(&fr, u-0.04, u+0.04, y+0.55, y+0.95, -0.04, 0.04, facesSides)
				}
			}
		}
	}
	// a pier under every fifth node over the water
	if s.i%5 == 0 && s.h0 < world.WaterLevel {
		fr := frame{o: s.p0, a: s.t, d: s.n0}
		w.rgb(0.5, 0.49, 0.47)
		w.box(&fr, -0.9, 0.9, s.h0, s.y0-deckDepth, -s.hw*0.75, s.hw*0.75, facesSides)
		w.box(&fr, -1.2, 1.2, s.y0-deckDepth-0.8, s.y0-deckDepth, -edge+0.3, edge-0.3, facesSides)
	}
}
