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
// a park or a field per lot, by the district at its centre.
func (b *Builder) farLots(spec world.EdgeSpec, side float64) {
	w := &b.wr
	nodes := b.farNodes
	n := len(nodes)
	if n < 2 {
		return
	}
	total := float64(n-1) * nodes[1].Sub(nodes[0]).Len()
	hw := spec.HalfWidth()
	front := hw + farWalk + farSetback
	u := farEndClear
	for k := uint64(0); u < total-farEndClear-farMinLotLen; k++ {
		mid := b.farAt(u, total)
		d := b.w.District(mid.X, mid.Z)
		lo, hi := lotWidth(d)
		r := b.w.Hash01(9100, int64(spec.ID), int64(side), int64(k))
		width := lo + (hi-lo)*r
		u1 := min(u+width, total-farEndClear)
		if u1-u < farMinLotLen {
			break
		}
		b.farLot(spec, side, k, d, u, u1, total, front)
		u = u1
	}
	w.mode = frameJunction
}

// farAt is the point at distance u along the (evenly spaced) centre line.
func (b *Builder) farAt(u, total float64) world.Vec2 {
	nodes := b.farNodes
	n := len(nodes)
	f := u / total * float64(n-1)
	i := min(int(f), n-2)
	return nodes[i].Lerp(nodes[i+1], f-float64(i))
}

func (b *Builder) farLot(spec world.EdgeSpec, side float64, k uint64, d world.District, u0, u1, total, front float64) {
	w := &b.wr
	a := b.farAt(u0, total)
	c := b.farAt(u1, total)
	t := c.Sub(a).Norm()
	nrm := world.Vec2{X: -t.Z * side, Z: t.X * side} // away from the road
	mid := a.Lerp(c, 0.5)
	r := func(salt int64) float64 { return b.w.Hash01(salt, int64(spec.ID), int64(side), int64(k)) }
	depth := 18 + 14*r(9101)
	probe := mid.Add(nrm.Scale(front + depth/2))
	ground := b.w.Height(probe.X, probe.Z)
	f := frame{o: a, a: t, d: nrm}
	L := u1 - u0
	if ground < world.WaterLevel+0.2 {
		// In the lake: water over the lot band (under bridges).
		w.pal(slots.PaletteWater, 0.3, 0.4)
		w.mat = slots.MaterialWater
		y := world.WaterLevel - 0.05
		w.quadN(f.p(0, y, front-farSetback), f.p(L, y, front-farSetback), f.p(L, y, front+depth), f.p(0, y, front+depth), up)
		return
	}
	gy := ground + 0.02
	kind := d
	if d != world.Fields && r(9102) < 0.12 {
		kind = 255 // a park
	}
	switch kind {
	case world.Fields:
		w.rgb(0.42+0.12*float32(r(9103)), 0.5, 0.22)
		w.mat = slots.MaterialFoliage
		w.quadN(f.p(0, gy, front-farSetback), f.p(L, gy, front-farSetback), f.p(L, gy, front+depth), f.p(0, gy, front+depth), up)
		return
	case 255:
		w.rgb(0.28, 0.5, 0.22)
		w.mat = slots.MaterialFoliage
		w.quadN(f.p(0, gy, front-farSetback), f.p(L, gy, front-farSetback), f.p(L, gy, front+depth), f.p(0, gy, front+depth), up)
		return
	}
	var floors int
	switch d {
	case world.Downtown:
		floors = 12 + int(r(9104)*18)
	case world.Midrise:
		floors = 6 + int(r(9104)*6)
	default:
		floors = 2 + int(r(9104)*2)
	}
	// The mass on a level base at the lowest corner (no lot ground: the
	// block ground is under it, and two grounds a few cm apart would fight
	// for depth kilometres out).
	base := min(ground, b.w.Height(a.Add(nrm.Scale(front)).X, a.Add(nrm.Scale(front)).Z)) - 0.3
	top := base + 0.3 + float64(floors)*slots.FarFloorHeight
	g := 1.0
	if L > 14 {
		g = 1.5
	}
	w.variant = float32(r(9105))
	tone := float32(0.45 + 0.35*r(9106))
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
