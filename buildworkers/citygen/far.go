package citygen

import (
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// Far items: one whole lattice edge at coarse detail, built from the pure
// world description alone (no graph): the road strip with sidewalks,
// sampled every farStep nodes; building masses on lots along both sides
// (heights by district, the facade's window grid drawn by the shader from
// the street frame, see slots.MaterialFarFacade); parks and fields as
// ground; water where the lots are in the lake. A far item's Seg carries its
// slot's vertex capacity (the far tier's slot size): past it the lots go,
// the road stays.
const (
	farStep      = 4    // edge nodes per road quad (16.8 m)
	farSink      = 0.12 // far roads sit this far below the near surface
	farEndClear  = 34.0 // metres kept clear of lots at either junction
	farSetback   = 3.5  // lot frontage behind the sidewalk
	farWalk      = 2.5  // sidewalk width
	farMinLotLen = 10.0
)

// buildFar builds far item it (Kind walker.Far). ok is false when the
// lattice holds no such edge.
func (b *Builder) buildFar(it walker.Item, origin [3]float64) (Result, bool) {
	spec, ok := b.lat.Edge(it.Edge)
	if !ok {
		return Result{}, false
	}
	limit := int(it.Seg)
	if limit <= 0 {
		limit = slots.DefaultFarVertsPerSlot
	}
	b.farNodes = b.lat.EdgeNodes(spec, b.farNodes[:0])
	pass := 0
	for ; pass < 2; pass++ {
		b.wr.reset(origin)
		b.trees = b.trees[:0]
		b.obst = b.obst[:0]
		b.farRoad(spec)
		b.farGround(spec)
		if pass == 0 {
			b.farLots(spec, 1)
			b.farLots(spec, -1)
		}
		if b.wr.n <= limit {
			break
		}
	}
	return b.result(pass, limit), true
}

// farY is the coarse road surface height at p: the terrain, or a deck over
// the lake.
func (b *Builder) farY(p world.Vec2) float64 {
	h := b.w.Height(p.X, p.Z)
	if h < world.WaterLevel+world.WetMargin {
		return world.WaterLevel + world.DeckClear
	}
	return h
}

// farSample returns sample k of the coarse centre line and its left normal.
func (b *Builder) farSample(k, n int) (world.Vec2, world.Vec2) {
	i := min(k*farStep, n-1)
	nodes := b.farNodes
	a, c := nodes[max(i-1, 0)], nodes[min(i+1, n-1)]
	t := c.Sub(a).Norm()
	return nodes[i], world.Vec2{X: -t.Z, Z: t.X}
}

func (b *Builder) farRoad(spec world.EdgeSpec) {
	w := &b.wr
	n := len(b.farNodes)
	hw := spec.HalfWidth()
	samples := (n-1+farStep-1)/farStep + 1
	w.mode = frameJunction // no lamps in the far tier
	w.junctionP = b.farNodes[0]
	w.frameZ = 0
	w.mat = slots.MaterialRoad
	for k := 0; k+1 < samples; k++ {
		p0, n0 := b.farSample(k, n)
		p1, n1 := b.farSample(k+1, n)
		y0, y1 := b.farY(p0)-farSink, b.farY(p1)-farSink
		for _, band := range [3][3]float64{{-hw, hw, 0}, {hw, hw + farWalk, 0.15}, {-hw - farWalk, -hw, 0.15}} {
			if band[2] == 0 {
				w.pal(slots.PaletteRoad, 0.3, 0.3)
				w.mat = slots.MaterialRoad
			} else {
				w.pal(slots.PaletteSidewalk, 0.55, 0.53)
				w.mat = slots.MaterialDefault
			}
			c0, c1 := band[0], band[1]
			dy := band[2]
			w.quadUp(at(p0.Add(n0.Scale(c0)), y0+dy), at(p1.Add(n1.Scale(c0)), y1+dy),
				at(p1.Add(n1.Scale(c1)), y1+dy), at(p0.Add(n0.Scale(c1)), y0+dy))
		}
	}
}

// farBlock is how far ground reaches either side of a +X edge: half a
// lattice cell, so the block between two streets is covered once (+Z edges
// lay no ground: their lots stand on the +X edges' ground).
const farBlock = world.CellSize / 2

// farGround lays coarse terrain beside a +X edge, from the sidewalk out to
// half a cell, skipping quads that dip into the lake (the lake shows there).
func (b *Builder) farGround(spec world.EdgeSpec) {
	if spec.Dir != world.DirX {
		return
	}
	w := &b.wr
	n := len(b.farNodes)
	in := spec.HalfWidth() + farWalk
	samples := (n-1+farStep-1)/farStep + 1
	w.mat = slots.MaterialDefault
	for k := 0; k+1 < samples; k++ {
		p0, n0 := b.farSample(k, n)
		p1, n1 := b.farSample(k+1, n)
		for _, side := range [2]float64{1, -1} {
			a0, a1 := p0.Add(n0.Scale(side*in)), p1.Add(n1.Scale(side*in))
			c0, c1 := p0.Add(n0.Scale(side*farBlock)), p1.Add(n1.Scale(side*farBlock))
			ha0, ha1 := b.w.Height(a0.X, a0.Z), b.w.Height(a1.X, a1.Z)
			hc0, hc1 := b.w.Height(c0.X, c0.Z), b.w.Height(c1.X, c1.Z)
			if min(min(ha0, ha1), min(hc0, hc1)) < world.WaterLevel+0.1 {
				continue
			}
			mid := a0.Lerp(c1, 0.5)
			if b.w.District(mid.X, mid.Z) == world.Downtown {
				w.rgb(0.46, 0.46, 0.44)
			} else {
				w.rgb(0.3, 0.44, 0.2)
			}
			const dy = -0.08
			w.quadUp(at(a0, ha0+dy), at(a1, ha1+dy), at(c1, hc1+dy), at(c0, hc0+dy))
		}
	}
}

// farLots places lots along one side (+1 left) of the edge: a building mass,
// a park or a field per lot, by the district at its centre (FarLots).
func (b *Builder) farLots(spec world.EdgeSpec, side float64) {
	FarLots(b.w, spec, b.farNodes, side, b.farLot)
	b.wr.mode = frameJunction
}

// FarLotKind is what stands on a far lot.
type FarLotKind uint8

const (
	FarBuilding FarLotKind = iota
	FarPark
	FarField
	FarWater // the lot band is in the lake
)

// FarLot is one lot beside a lattice edge as the far tier builds it: a
// pure function of the world, the edge and its nodes, so the operator's
// web map draws the same footprints (cmd/citydrive/internal/webmap).
type FarLot struct {
	Kind FarLotKind
	// Frame: origin O on the road's centre line, unit A along the road and
	// unit D away from it; L is the lot's length along A, Front and Depth
	// the band it covers away from the road (Front to Front+Depth).
	O, A, D      world.Vec2
	L            float64
	Front, Depth float64
	Ground       float64                  // terrain height at the lot's middle
	Floors       int                      // buildings only
	r            func(salt int64) float64 // the lot's hashes
}

// Footprint is the building's base (the lot minus its margins), as four
// corners: the far tier's mass.
func (l FarLot) Footprint() [4]world.Vec2 {
	g := 1.0
	if l.L > 14 {
		g = 1.5
	}
	return l.quad(g, l.L-g, l.Front, l.Front+l.Depth*0.85)
}

// Band is the whole lot band (parks, fields, water).
func (l FarLot) Band() [4]world.Vec2 { return l.quad(0, l.L, l.Front-farSetback, l.Front+l.Depth) }

func (l FarLot) quad(u0, u1, v0, v1 float64) [4]world.Vec2 {
	p := func(u, v float64) world.Vec2 { return l.O.Add(l.A.Scale(u)).Add(l.D.Scale(v)) }
	return [4]world.Vec2{p(u0, v0), p(u1, v0), p(u1, v1), p(u0, v1)}
}

// FarLots calls each for every lot along one side (+1 left) of the edge
// spec whose centre line is nodes (evenly spaced, as EdgeNodes gives).
func FarLots(w world.World, spec world.EdgeSpec, nodes []world.Vec2, side float64, each func(FarLot)) {
	n := len(nodes)
	if n < 2 {
		return
	}
	total := float64(n-1) * nodes[1].Sub(nodes[0]).Len()
	hw := spec.HalfWidth()
	front := hw + farWalk + farSetback
	u := farEndClear
	for k := uint64(0); u < total-farEndClear-farMinLotLen; k++ {
		mid := farAt(nodes, u, total)
		d := w.District(mid.X, mid.Z)
		lo, hi := lotWidth(d)
		r := w.Hash01(9100, int64(spec.ID), int64(side), int64(k))
		width := lo + (hi-lo)*r
		u1 := min(u+width, total-farEndClear)
		if u1-u < farMinLotLen {
			break
		}
		each(farLot(w, spec, side, k, d, farAt(nodes, u, total), farAt(nodes, u1, total), u1-u, front))
		u = u1
	}
}

// farAt is the point at distance u along the (evenly spaced) centre line.
func farAt(nodes []world.Vec2, u, total float64) world.Vec2 {
	n := len(nodes)
	f := u / total * float64(n-1)
	i := min(int(f), n-2)
	return nodes[i].Lerp(nodes[i+1], f-float64(i))
}

func farLot(w world.World, spec world.EdgeSpec, side float64, k uint64, d world.District, a, c world.Vec2, L, front float64) FarLot {
	t := c.Sub(a).Norm()
	nrm := world.Vec2{X: -t.Z * side, Z: t.X * side} // away from the road
	mid := a.Lerp(c, 0.5)
	r := func(salt int64) float64 { return w.Hash01(salt, int64(spec.ID), int64(side), int64(k)) }
	depth := 18 + 14*r(9101)
	probe := mid.Add(nrm.Scale(front + depth/2))
	l := FarLot{O: a, A: t, D: nrm, L: L, Front: front, Depth: depth, Ground: w.Height(probe.X, probe.Z), r: r}
	switch {
	case l.Ground < world.WaterLevel+0.2:
		l.Kind = FarWater
	case d == world.Fields:
		l.Kind = FarField
	case r(9102) < 0.12:
		l.Kind = FarPark
	default:
		switch d {
		case world.Downtown:
			l.Floors = 12 + int(r(9104)*18)
		case world.Midrise:
			l.Floors = 6 + int(r(9104)*6)
		default:
			l.Floors = 2 + int(r(9104)*2)
		}
	}
	return l
}

func (b *Builder) farLot(l FarLot) {
	w := &b.wr
	f := frame{o: l.O, a: l.A, d: l.D}
	front, depth, L, ground := l.Front, l.Depth, l.L, l.Ground
	switch l.Kind {
	case FarWater:
		// In the lake: water over the lot band (under bridges).
		w.pal(slots.PaletteWater, 0.3, 0.4)
		w.mat = slots.MaterialWater
		y := world.WaterLevel - 0.05
		w.quadN(f.p(0, y, front-farSetback), f.p(L, y, front-farSetback), f.p(L, y, front+depth), f.p(0, y, front+depth), up)
		return
	case FarField:
		gy := ground + 0.02
		w.rgb(0.42+0.12*float32(l.r(9103)), 0.5, 0.22)
		w.mat = slots.MaterialFoliage
		w.quadN(f.p(0, gy, front-farSetback), f.p(L, gy, front-farSetback), f.p(L, gy, front+depth), f.p(0, gy, front+depth), up)
		return
	case FarPark:
		gy := ground + 0.02
		w.rgb(0.28, 0.5, 0.22)
		w.mat = slots.MaterialFoliage
		w.quadN(f.p(0, gy, front-farSetback), f.p(L, gy, front-farSetback), f.p(L, gy, front+depth), f.p(0, gy, front+depth), up)
		return
	}
	// The mass on a level base at the lowest corner (no lot ground: the
	// block ground is under it, and two grounds a few cm apart would fight
	// for depth kilometres out).
	a := l.O
	nrm := l.D
	base := min(ground, b.w.Height(a.Add(nrm.Scale(front)).X, a.Add(nrm.Scale(front)).Z)) - 0.3
	top := base + 0.3 + float64(l.Floors)*slots.FarFloorHeight
	g := 1.0
	if L > 14 {
		g = 1.5
	}
	w.variant = float32(l.r(9105))
	tone := float32(0.45 + 0.35*l.r(9106))
	w.rgb(tone, tone*0.97, tone*0.92)
	w.mat = slots.MaterialFarFacade
	b.farMass(&f, g, L-g, base, top, front, front+depth*0.85)
	w.mode = frameJunction
	w.frameZ = 0
}

// farMass emits the four walls and the roof of a building mass in frame f.
// Walls carry facade coordinates in the street frame (along: metres across
// the face, across: metres above the base), so the shader draws the window
// grid and lights it at night; the roof is plain.
func (b *Builder) farMass(f *frame, u0, u1, y0, y1, v0, v1 float64) {
	w := &b.wr
	w.mode = frameFacade
	face := func(p0, p1 world.Vec2, n world.Vec2) {
		w.facadeP, w.facadeT, w.facadeY = p0, p1.Sub(p0).Norm(), y0
		w.quadN(at(p0, y0), at(p1, y0), at(p1, y1), at(p0, y1), hz(n))
	}
	c00, c10 := f.xz(u0, v0), f.xz(u1, v0)
	c01, c11 := f.xz(u0, v1), f.xz(u1, v1)
	face(c00, c10, f.d.Scale(-1))
	face(c11, c01, f.d)
	face(c01, c00, f.a.Scale(-1))
	face(c10, c11, f.a)
	w.mode = frameJunction
	w.junctionP = c00
	w.mat = slots.MaterialBuilding
	w.quadN(f.p(u0, y1, v0), f.p(u1, y1, v0), f.p(u1, y1, v1), f.p(u0, y1, v1), up)
}
