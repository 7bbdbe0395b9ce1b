package citygen

import (
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Street life: cars parked along the kerb of streets and furniture on the
// sidewalks (benches, bins, bollards, hydrants, bus shelters on avenues).
// It is fine detail, so the first simplification level drops it.
const (
	kerbCarChance = 0.6  // a parked car on a street segment's side
	kerbCarInset  = 1.15 // car centre inside the kerb line, metres
	furnitureAt   = 0.6  // furniture centre from the kerb stone, metres
	// junctionParkGap keeps the first metres past a junction's surface
	// free of parked cars, as parking rules do, so a car turning in does
	// not meet one across its path.
	junctionParkGap = 10.0
	// laneReach is how far from the centre line a car driving in its lane
	// (2.5 m out) reaches with its 0.9 m half width: a car parked at the
	// kerb stays outside it (solid.go).
	laneReach = 2.5 + 0.9
)

// streetLife places a kerb car and a piece of furniture on each side.
// Where roads meet (near a junction, or at a shallow angle) one road's
// kerb or sidewalk can lie on another's carriageway: solid's check drops
// what would stand there.
func (b *Builder) streetLife(s *seg, f0, f1 float64) {
	avenue := s.hw >= world.AvenueHalfWidth
	whole := f0 <= 0 && f1 >= 1 // not clipped by a junction
	parking := s.sLo >= s.rA+junctionParkGap && s.sHi <= s.total-s.rB-junctionParkGap
	y := s.y(0.5)
	for k, sg := range [2]float64{1, -1} {
		side := roadgraph.Left(s.t).Scale(sg) // outwards, towards the kerb
		if r := b.hash(saltKerbCar, int64(s.e.ID), int64(s.i), int64(k)); parking && !avenue && s.hint != world.Fields && r < kerbCarChance {
			fr := frame{o: s.at(0.5, sg*(s.hw-kerbCarInset)), a: side, d: s.t}
			b.kerbCar(&fr, s.e.ID, y, r/kerbCarChance)
		}
		r := b.hash(saltFurniture, int64(s.e.ID), int64(s.i), int64(k))
		f := 0.25 + 0.5*b.hash(saltFurniture, int64(s.e.ID), int64(s.i), int64(k)+2)
		if f < f0 || f > f1 {
			continue
		}
		// u along the road, v outwards from the kerb
		fr := frame{o: s.at(f, sg*(s.hw+kerbWidth+furnitureAt)), a: s.t, d: side}
		yw := s.y(f) + kerbHeight
		switch {
		case avenue && whole && r < 0.1:
			b.busShelter(&fr, yw)
		case r < 0.3:
			b.bench(&fr, yw)
		case r < 0.5:
			b.bin(&fr, yw)
		case r < 0.65:
			b.bollards(&fr, yw)
		case r < 0.75:
			b.hydrant(&fr, yw)
		}
	}
}

func (b *Builder) bench(f *frame, y float64) {
	if !b.solid(f, -0.9, 0.9, y, y+0.95, 0.25, 0.82, slots.ObstacleFurniture) {
		return
	}
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.25, 0.25, 0.27)
	for _, u := range [2]float64{-0.7, 0.7} {
		w.box(f, u-0.05, u+0.05, y, y+0.45, 0.3, 0.75, facesOpen)
	}
	w.rgb(0.45, 0.3, 0.18)
	w.box(f, -0.9, 0.9, y+0.42, y+0.48, 0.25, 0.8, facesOpen|faceBottom)
	w.box(f, -0.9, 0.9, y+0.55, y+0.95, 0.75, 0.82, facesOpen)
}

func (b *Builder) bin(f *frame, y float64) {
	if !b.solid(f, -0.28, 0.28, y, y+0.92, 0.07, 0.63, slots.ObstacleFurniture) {
		return
	}
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.15, 0.32, 0.2)
	w.box(f, -0.25, 0.25, y, y+0.85, 0.1, 0.6, facesOpen)
	w.rgb(0.1, 0.1, 0.1)
	w.box(f, -0.28, 0.28, y+0.85, y+0.92, 0.07, 0.63, facesOpen)
}

func (b *Builder) bollards(f *frame, y float64) {
	w := &b.wr
	w.mat = slots.MaterialDefault
	for _, u := range [3]float64{-1.2, 0, 1.2} {
		if !b.solid(f, u-0.09, u+0.09, y, y+0.8, -0.09, 0.09, slots.ObstacleFurniture) {
			continue
		}
		w.rgb(0.3, 0.3, 0.32)
		w.box(f, u-0.08, u+0.08, y, y+0.8, -0.08, 0.08, facesOpen)
		w.rgb(0.9, 0.9, 0.9)
		w.box(f, u-0.09, u+0.09, y+0.62, y+0.7, -0.09, 0.09, facesSides)
	}
}

func (b *Builder) hydrant(f *frame, y float64) {
	if !b.solid(f, -0.2, 0.2, y, y+0.72, 0.06, 0.34, slots.ObstacleFurniture) {
		return
	}
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.75, 0.12, 0.1)
	w.box(f, -0.14, 0.14, y, y+0.6, 0.06, 0.34, facesOpen)
	w.box(f, -0.24, 0.24, y+0.35, y+0.45, 0.15, 0.25, facesOpen|faceBottom)
	w.box(f, -0.09, 0.09, y+0.6, y+0.72, 0.11, 0.29, facesOpen)
}

// busShelter: posts, a roof, a back pane and a bench, facing the road.
func (b *Builder) busShelter(f *frame, y float64) {
	if !b.solid(f, -2, 2, y, y+2.62, 0.2, 1.6, slots.ObstacleFurniture) {
		return
	}
	w := &b.wr
	w.mat = slots.MaterialDefault
	w.rgb(0.3, 0.32, 0.35)
	for _, u := range [2]float64{-1.8, 1.8} {
		w.box(f, u-0.06, u+0.06, y, y+2.5, 1.4, 1.52, facesOpen)
		w.box(f, u-0.06, u+0.06, y, y+2.5, 0.2, 0.32, facesOpen)
	}
	w.box(f, -2, 2, y+2.5, y+2.62, 0.1, 1.6, facesOpen|faceBottom)
	w.mat = slots.MaterialWindow
	w.rgb(0.55, 0.68, 0.75)
	w.box(f, -1.8, 1.8, y+0.2, y+2.4, 1.44, 1.48, facesSides)
	w.mat = slots.MaterialDefault
	w.rgb(0.45, 0.3, 0.18)
	w.box(f, -1.4, 1.4, y+0.45, y+0.52, 1.0, 1.4, facesOpen|faceBottom)
}
