package traffic

import (
	"math"

	"citydrive/roadgraph/world"
)

// Far traffic: the vehicles a player sees down the street but that cannot
// meet the car. Near the car (within the radius the flow is asked for)
// every vehicle is placed exactly and reacts to the car; beyond it, out
// to the plan's radius, a vehicle is only drawn. The planning goroutine
// samples every planned vehicle where the schedule has it at fixed
// instants of world time (every FarStep seconds: the same instants for
// every player), and the frame interpolates the two samples around its
// time for the few hundred vehicles in the camera's view: a cache line
// and a few multiplications each, where placing one exactly reads its
// lane and turn. Two players at the same world time interpolate the same
// samples, so they see the same far traffic; the interpolation is within
// a few centimetres of the schedule (the lanes are straight between their
// nodes and a turn bends little in FarStep).
const (
	// FarStep is the spacing in world seconds of the samples.
	FarStep = 0.1
	// farSamples covers MaxPlanSpan on the grid of FarStep, both ends.
	farSamples = int(MaxPlanSpan/FarStep) + 2
	// farSlack bounds (metres) how far an interpolated vehicle may lie
	// from its scheduled self: a vehicle within it of the near radius is
	// placed exactly to tell whether the flow has it.
	farSlack = 1.0
)

// bodyRadius bounds a vehicle around its centre, for the view.
const bodyRadius = 3.5

// A FarVehicle is a far vehicle as drawn: where it stands and its unit
// heading (float32: it is only drawn).
type FarVehicle struct {
	Key Key
	Pos world.Vec2
	Y   float32
	Dir [2]float32
}

// farSample is one vehicle at one sample instant, relative to the plan's
// centre (float32 is ample within a few kilometres); X is NaN when it is
// not on the road then.
type farSample struct {
	x, z, y, dx, dz float32
}

// View bounds what a camera sees of the ground, seen from above: a point
// p is in view when every half-plane has N·(p−Eye) + D ≥ −r for a body of
// radius r around p. No half-planes: everything is in view.
type View struct {
	Eye    world.Vec2
	planes [maxViewPlanes]viewPlane
	n      int
}

type viewPlane struct {
	nx, nz, d float64
}

// maxViewPlanes: a frustum's six.
const maxViewPlanes = 6

// AddPlane adds the half-plane of a camera plane n·(x−eye) + d ≥ 0 (its
// normal pointing in, camera-relative), for points whose height relative
// to the eye lies in [yLo, yHi]: its least restrictive value over them.
// A plane the heights make no bound of is dropped; one that excludes every
// such point leaves nothing in view.
func (v *View) AddPlane(nx, ny, nz, d, yLo, yHi float64) {
	d += max(ny*yLo, ny*yHi)
	if math.Abs(nx) < 1e-9 && math.Abs(nz) < 1e-9 {
		if d >= 0 {
			return // no bound on the ground
		}
		nx, nz = 0, 0 // nothing on the ground passes (d < 0 everywhere)
	}
	if v.n < maxViewPlanes {
		v.planes[v.n] = viewPlane{nx, nz, d}
		v.n++
	}
}

// Sees reports whether a body of radius r at p may be in view.
func (v *View) Sees(p world.Vec2, r float64) bool {
	x, z := p.X-v.Eye.X, p.Z-v.Eye.Z
	for i := 0; i < v.n; i++ {
		pl := &v.planes[i]
		if pl.nx*x+pl.nz*z+pl.d < -r {
			return false
		}
	}
	return true
}

// Far samples are binned by where their vehicle is in the middle of the
// window (or as near to it as it is on the road), in farCells×farCells
// square cells over the plan's reach, so a frame reads the samples of the
// cells its view and radius reach alone.
const (
	farCells = 32
	// farTravel bounds how far a vehicle gets from its middle sample in
	// the window (the fastest lane for half of MaxPlanSpan), with
	// planMargin's room for rounding.
	farTravel = avenueSpeedMax*MaxPlanSpan/2 + planMargin
)

// sample fills p's far samples from its records, placing each at every
// sample instant of its window exactly as At would (s, the planner's
// schedule, places those a record does not hold itself). They are stored
// by cell, and within that by instant: a frame reads two short rows of
// each cell it looks into.
func (s *Schedule) sample(p *Plan) {
	p.j0 = math.Floor(p.t0 / FarStep)
	p.ns = int(math.Ceil(p.t1/FarStep)-p.j0) + 1
	p.ns = max(2, min(p.ns, farSamples))
	p.cellSize = 2 * (p.radius + p.slack + farTravel) / farCells
	ns := p.ns
	// every record's samples in record order first (scratch), and the
	// cell of the one on the road nearest the middle
	p.scratch = p.scratch[:len(p.recs)*ns]
	p.recCell = p.recCell[:len(p.recs)]
	var count [farCells*farCells + 1]int32
	nan := float32(math.NaN())
	for i := range p.recs {
		r := &p.recs[i]
		cell, from := int32(-1), ns // from: how far from the middle the cell's sample is
		for j := 0; j < ns; j++ {
			t := (p.j0 + float64(j)) * FarStep
			v, ok := r.place(s, t)
			sm := &p.scratch[i*ns+j]
			if !ok {
				*sm = farSample{x: nan}
				continue
			}
			*sm = farSample{x: float32(v.Pos.X - p.centre.X), z: float32(v.Pos.Z - p.centre.Z),
				y: float32(v.Y), dx: float32(v.Dir.X), dz: float32(v.Dir.Z)}
			if d := abs(2*j - (ns - 1)); d < from {
				cell, from = p.cellOf(v.Pos), d
			}
		}
		p.recCell[i] = cell
		if cell >= 0 {
			count[cell+1]++
		}
	}
	for c := 1; c < len(count); c++ {
		count[c] += count[c-1]
	}
	p.cellStart = count
	n := int(count[farCells*farCells])
	p.keys, p.recOf = p.keys[:n], p.recOf[:n]
	p.samples = p.samples[:n*ns]
	next := count
	for i, c := range p.recCell {
		if c < 0 {
			continue // never on the road at a sample: never drawn
		}
		at := next[c]
		next[c]++
		p.keys[at], p.recOf[at] = p.recs[i].key, int32(i)
		for j := 0; j < ns; j++ {
			p.samples[j*n+int(at)] = p.scratch[i*ns+j]
		}
	}
}

func abs(x int) int { return max(x, -x) }

// cellOf is the far cell holding world point q (clamped to the grid).
func (p *Plan) cellOf(q world.Vec2) int32 {
	half := float64(farCells) / 2
	ci := max(0, min(farCells-1, int(math.Floor((q.X-p.centre.X)/p.cellSize+half))))
	cj := max(0, min(farCells-1, int(math.Floor((q.Z-p.centre.Z)/p.cellSize+half))))
	return int32(cj*farCells + ci)
}

// AppendFar appends to dst the vehicles beyond near and within far of
// centre at world time t that view may see (nil: every one), from the
// flow's plan: the ones Update, asked for near, does not place. None when
// the plan does not cover t, centre and far (the frame then shows only
// the flow's). Vehicles held up by the car are the flow's wherever they
// are. It allocates nothing when dst has room.
func (f *Flow) AppendFar(t float64, centre world.Vec2, near, far float64, view *View, dst []FarVehicle) []FarVehicle {
	p := f.plan
	if p == nil || !p.Covers(t, centre, far) || p.ns < 2 {
		return dst
	}
	jf := t/FarStep - p.j0
	j := max(0, min(p.ns-2, int(math.Floor(jf))))
	a := float32(jf - float64(j))
	n := len(p.keys)
	row0, row1 := p.samples[j*n:(j+1)*n], p.samples[(j+1)*n:(j+2)*n]
	if view != nil && view.n == 0 {
		view = nil
	}
	// a cell's vehicles are within reach of its centre all window long
	reach := p.cellSize*math.Sqrt2/2 + farTravel + bodyRadius
	innerCell := near - farSlack - reach
	var rv *relView
	if view != nil {
		v := view.relativeTo(p.centre, bodyRadius)
		rv = &v
	}
	for c := 0; c < farCells*farCells; c++ {
		lo, hi := p.cellStart[c], p.cellStart[c+1]
		if lo == hi {
			continue
		}
		cc := world.Vec2{X: p.centre.X + (float64(c%farCells)+0.5-farCells/2)*p.cellSize,
			Z: p.centre.Z + (float64(c/farCells)+0.5-farCells/2)*p.cellSize}
		d2 := cc.Dist2(centre)
		if d2 > (far+reach)*(far+reach) || innerCell > 0 && d2 < innerCell*innerCell {
			continue // all beyond far, or all the flow's
		}
		if view != nil && !view.Sees(cc, reach) {
			continue
		}
		dst = f.appendFarCell(t, centre, near, far, rv, p, row0[lo:hi], row1[lo:hi], int(lo), a, dst)
	}
	return dst
}

// relView is a View's half-planes relative to a plan's centre, in float32
// as the samples are (a vehicle's body radius folded in).
type relView struct {
	planes [maxViewPlanes][3]float32
	n      int
}

func (v *View) relativeTo(origin world.Vec2, r float64) relView {
	var rv relView
	rv.n = v.n
	ox, oz := origin.X-v.Eye.X, origin.Z-v.Eye.Z
	for i := 0; i < v.n; i++ {
		pl := &v.planes[i]
		rv.planes[i] = [3]float32{float32(pl.nx), float32(pl.nz), float32(pl.nx*ox + pl.nz*oz + pl.d + r)}
	}
	return rv
}

// sees is View.Sees for a point relative to the origin rv was made for.
func (rv *relView) sees(x, z float32) bool {
	for i := 0; i < rv.n; i++ {
		pl := &rv.planes[i]
		if pl[0]*x+pl[1]*z+pl[2] < 0 {
			return false
		}
	}
	return true
}

// appendFarCell is AppendFar over the vehicles from index base whose
// samples around t are row0 and row1, a of the way from one to the other.
func (f *Flow) appendFarCell(t float64, centre world.Vec2, near, far float64, view *relView, p *Plan, row0, row1 []farSample, base int, a float32, dst []FarVehicle) []FarVehicle {
	// the centre relative to the plan's, as the samples are
	cx, cz := float32(centre.X-p.centre.X), float32(centre.Z-p.centre.Z)
	far2 := float32(far * far)
	inner, outer := float32(max(0, near-farSlack)), float32(near+farSlack)
	inner2, outer2 := inner*inner, outer*outer
	row1 = row1[:len(row0)]
	for i := range row0 {
		s0, s1 := &row0[i], &row1[i]
		if s0.x != s0.x || s1.x != s1.x { // NaN: off the road at one end
			continue
		}
		x, z := s0.x+a*(s1.x-s0.x), s0.z+a*(s1.z-s0.z)
		rx, rz := x-cx, z-cz
		d2 := rx*rx + rz*rz
		if d2 > far2 || d2 < inner2 {
			continue
		}
		if view != nil && !view.sees(x, z) {
			continue
		}
		pos := world.Vec2{X: p.centre.X + float64(x), Z: p.centre.Z + float64(z)}
		k := p.keys[base+i]
		y := s0.y + a*(s1.y-s0.y)
		// a unit heading (through a tight turn the two samples' differ)
		dx, dz := s0.dx+a*(s1.dx-s0.dx), s0.dz+a*(s1.dz-s0.dz)
		inv := 1 / float32(math.Sqrt(float64(dx*dx+dz*dz)))
		dx, dz = dx*inv, dz*inv
		if d2 <= outer2 {
			// near the near radius: the flow has it when its scheduled
			// self is within near
			v, ok := p.recs[p.recOf[base+i]].place(f.s, t)
			if !ok || v.Pos.Dist2(centre) <= near*near {
				continue
			}
			pos, y, dx, dz = v.Pos, float32(v.Y), float32(v.Dir.X), float32(v.Dir.Z)
		}
		if f.index.platoonMayLag(k.Edge, k.Lane, k.Cycle) && f.lagIndex(k) >= 0 {
			continue // held up: the flow places it
		}
		dst = append(dst, FarVehicle{})
		o := &dst[len(dst)-1]
		o.Key, o.Pos, o.Y, o.Dir = k, pos, y, [2]float32{dx, dz}
	}
	return dst
}
