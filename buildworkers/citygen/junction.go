package citygen

import (
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

const maxArms = 8

type arm struct {
	e     *roadgraph.Edge
	d     world.Vec2 // direction away from the junction
	hw    float64
	angle float64
}

// buildJunction: the crossing surface, kerb corners with sidewalks,
// crossings and stop lines, and traffic lights (or a lamp).
func (b *Builder) buildJunction(j *roadgraph.Junction) {
	var arms [maxArms]arm
	na := 0
	maxHW := world.StreetHalfWidth
	for _, e := range j.Arms {
		if na == maxArms {
			break
		}
		d := armDir(e, j)
		arms[na] = arm{e: e, d: d, hw: e.HalfWidth, angle: math.Atan2(d.Z, d.X)}
		maxHW = max(maxHW, e.HalfWidth)
		na++
	}
	// insertion sort by angle: small, allocation-free, deterministic
	for i := 1; i < na; i++ {
		for k := i; k > 0 && arms[k].angle < arms[k-1].angle; k-- {
			arms[k], arms[k-1] = arms[k-1], arms[k]
		}
	}
	J := j.Pos
	y := b.w.Height(J.X, J.Z)
	r := b.junctionRadius(j)
	lights := na >= 3
	flags := 0
	if lights {
		flags = slots.LampJunction
	}
	w := &b.wr
	w.mode = frameJunction
	w.junctionP = J
	w.frameZ = float32(maxHW + float64(flags)*slots.LampFlagScale)

	// surface: a fan through the arms' end corners, sorted by angle
	var pts [2 * maxArms]world.Vec2
	np := 0
	for i := 0; i < na; i++ {
		a := &arms[i]
		ccw := world.Vec2{X: -a.d.Z, Z: a.d.X}
		pts[np] = J.Add(a.d.Scale(r)).Add(ccw.Scale(-a.hw))
		pts[np+1] = J.Add(a.d.Scale(r)).Add(ccw.Scale(a.hw))
		np += 2
	}
	w.mat = slots.MaterialRoad
	w.pal(slots.PaletteRoad, roadG, roadB)
	if na < 2 {
		// a dead end: close the surface behind the centre
		if na == 0 {
			return
		}
		a := &arms[0]
		ccw := world.Vec2{X: -a.d.Z, Z: a.d.X}
		pts[np] = J.Add(a.d.Scale(-a.hw)).Add(ccw.Scale(a.hw))
		pts[np+1] = J.Add(a.d.Scale(-a.hw)).Add(ccw.Scale(-a.hw))
		np += 2
	}
	for i := 0; i < np; i++ {
		p, q := pts[i], pts[(i+1)%np]
		w.triN(at(J, y), at(p, y), at(q, y), up)
	}
	// each arm's mouth: crossing, stop line
	for i := 0; i < na; i++ {
		a := &arms[i]
		fr := frame{o: J, a: a.d, d: roadgraph.Left(a.d)}
		inner := a.hw - shoulder
		w.mat = slots.MaterialRoad
		w.pal(slots.PaletteShoulder, shoulderG, shoulderB)
		w.box(&fr, 0, r, y, y+0.005, inner, a.hw, faceTop)
		w.box(&fr, 0, r, y, y+0.005, -a.hw, -inner, faceTop)
		w.pal(slots.PaletteStripe, stripeG, stripeB)
		if b.level < levelRoadOnly {
			for x := -inner + 0.3; x+0.5 < inner-0.2; x += 1.0 {
				w.box(&fr, r-3.4, r-0.6, y, y+0.02, x, x+0.5, faceTop)
			}
		}
		w.box(&fr, r-4.1, r-3.7, y, y+0.02, 0.15, inner, faceTop)
	}
	// kerb corners between neighbouring arms
	for i := 0; i < na && na >= 2; i++ {
		a, c := &arms[i], &arms[(i+1)%na]
		gap := c.angle - a.angle
		if gap <= 0 {
			gap += 2 * math.Pi
		}
		k := world.JunctionKerbCorner(J, r, a.d, a.hw, c.d, c.hw, gap)
		in, out, co, sharp := &k.In, &k.Out, k.Fill, k.Sharp
		const n = world.KerbCornerSteps
		yt := y + kerbHeight
		for k := 0; k < n; k++ {
			w.mat = slots.MaterialDefault
			w.pal(slots.PaletteSidewalk, walkG, walkB)
			w.quadN(at(in[k], yt), at(in[k+1], yt), at(out[k+1], yt), at(out[k], yt), up)
			w.pal(slots.PaletteSidewalk, 0.7, 0.7)
			m := in[k].Lerp(in[k+1], 0.5)
			nrm := hz(J.Sub(m).Norm())
			w.quadN(at(in[k], y), at(in[k+1], y), at(in[k+1], yt), at(in[k], yt), nrm)
			if sharp {
				w.pal(slots.PaletteSidewalk, walkG, walkB)
				w.triN(at(co, yt), at(out[k], yt), at(out[k+1], yt), up)
			}
		}
		if sharp && b.level <= levelNoTrim {
			// bollards around the corner: 15 % of the way across its
			// sidewalk, or further back where the kerb bulges into the
			// fan a turning car sweeps; none where a pointed corner's
			// sidewalk lies on an arm's carriageway
			w.rgb(0.3, 0.3, 0.3)
			for k := 1; k < n; k++ {
				for step := range bollardSteps {
					p := in[k].Add(out[k].Sub(in[k]).Scale(0.15 + 0.1*float64(step)))
					fr := frame{o: p, a: world.Vec2{X: 1}, d: world.Vec2{Z: 1}}
					if b.solid(&fr, -0.08, 0.08, yt, yt+0.9, -0.08, 0.08, slots.ObstacleFurniture) {
						w.box(&fr, -0.08, 0.08, yt, yt+0.9, -0.08, 0.08, facesOpen)
						break
					}
				}
			}
		}
	}
	if b.level >= levelRoadOnly {
		return
	}
	// Traffic lights on each approach's right-hand corner, or one lamp. The
	// pole stands by the stop line 0.8 m behind the kerb, or, where that is
	// in the fan a turning car sweeps (the kerb corner bulges into it) or
	// on the next arm's road (a pointed corner), the first clear spot
	// further back across the sidewalk, then further out along the arm;
	// the signal head stays over the same lane.
	for i := 0; i < na; i++ {
		a := &arms[i]
		if !lights && i > 0 {
			break
		}
		left := roadgraph.Left(a.d) // inbound traffic's right-hand side
		offset := 0.0
		if lights {
			_, axis := world.EdgeOrigin(a.e.ID)
			offset = traffic.SignalOffset(j.ID, axis)
		}
	search:
		for back := range poleBackSteps {
			for out := range poleOutSteps {
				across := 0.8 + 0.25*float64(out)
				p := J.Add(a.d.Scale(r - 1 + float64(back))).Add(left.Scale(a.hw + across))
				fr := frame{o: p, a: a.d, d: left.Scale(-1)}
				if !lights && b.streetLamp(&fr, y+kerbHeight, a.hw*0.4+across-0.8) ||
					lights && b.trafficLight(&fr, y+kerbHeight, a.hw*0.55+across-0.8, offset) {
					break search
				}
			}
		}
	}
}

// Where a junction's pole or corner bollard may step back to (solid.go):
// bollards in steps of a tenth of the corner's sidewalk, poles in steps of
// 0.25 m across (up to 2.3 m behind the kerb) and 1 m along the arm.
const (
	bollardSteps  = 8
	poleOutSteps  = 7
	poleBackSteps = 4
)

// trafficLight: a pole at the frame origin with a mast arm over the lanes
// (along +d) and a signal head facing the approaching traffic (+a). Its
// three lamps are MaterialSignal with the lamp in the variant and the
// approach's signal offset (traffic.SignalOffset) in the street frame's
// along: the shader lights the one the traffic obeys at the world clock.
// False: the pole is not clear (solid), nothing is drawn.
func (b *Builder) trafficLight(f *frame, y, reach, offset float64) bool {
	const h = 6.2
	if !b.solid(f, -0.14, 0.14, y, y+h, -0.14, 0.14, slots.ObstacleFurniture) {
		return false
	}
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.22, 0.23, 0.25)
	w.box(f, -0.12, 0.12, y, y+h, -0.12, 0.12, facesOpen)
	w.box(f, -0.08, 0.08, y+h-0.4, y+h-0.2, 0.12, reach+0.3, facesOpen|faceBottom)
	w.rgb(0.12, 0.12, 0.12)
	w.box(f, -0.2, 0.2, y+h-1.6, y+h-0.4, reach-0.2, reach+0.2, facesOpen|faceBottom)
	// a pedestrian head on the pole
	w.box(f, 0.12, 0.32, y+2.2, y+2.9, -0.15, 0.15, facesOpen|faceBottom)
	w.mat = slots.MaterialSignal
	mode := w.mode
	w.mode, w.signalOffset = frameSignal, offset
	cols := [3][3]float32{{1, 0.12, 0.08}, {1, 0.7, 0.1}, {0.2, 1, 0.4}}
	for k := 0; k < 3; k++ {
		w.col = cols[k]
		w.variant = float32(k) * slots.SignalLampStep
		yk := y + h - 0.6 - float64(k)*0.38
		w.faceU(f, reach-0.13, reach+0.13, yk-0.3, yk, 0.21, false)
	}
	w.mode, w.variant = mode, 0
	w.mat = slots.MaterialDefault
	return true
}
