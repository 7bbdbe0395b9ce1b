package world

import (
	"fmt"
	"math"
)

// The road network lives on a jittered square lattice. Each cell may hold a
// junction; edges join a junction to its neighbour in +X (possibly skipping
// up to two empty cells, which is how long bridges cross the lake) and to its
// direct neighbour in +Z. Every fact below is a pure function of the seed
// and the cell, so any exploration order yields the same junctions, edges,
// shapes and ids.
const (
	CellSize       = 150.0 // metres between lattice points
	SegmentLength  = 4.2   // metres of road per item
	MaxSegments    = 128   // segments per edge must stay below this (item keys)
	junctionJitter = 25.0  // metres a junction may sit off its lattice point
	avenueEvery    = 5     // every 5th row/column is a straight avenue
	MaxSpanCells   = 3     // +X edges may skip up to two empty cells (bridges)
	curveAmplitude = 22.0  // metres of lateral wander on curving roads
	keepJunction   = 0.94  // chance a land cell holds a junction
	keepStreetX    = 0.85  // chance a non-avenue +X street exists
	keepStreetZ    = 0.78  // chance a non-avenue +Z street exists

	// MaxCellCoord bounds lattice coordinates so ids (and item keys) fit in
	// 63 bits: 2^25 cells of 150 m is five million kilometres of city.
	MaxCellCoord = 1<<25 - 1

	AvenueHalfWidth = 9.0 // metres from centre line to kerb
	StreetHalfWidth = 6.0
)

// Cell is a lattice coordinate.
type Cell struct{ I, J int32 }

func (c Cell) valid() bool {
	return c.I >= -MaxCellCoord && c.I <= MaxCellCoord && c.J >= -MaxCellCoord && c.J <= MaxCellCoord
}

// CellAt is the lattice cell whose point is nearest to (x, z).
func CellAt(x, z float64) Cell {
	return Cell{int32(math.Round(x / CellSize)), int32(math.Round(z / CellSize))}
}

// Dir is the direction of an edge from its first junction.
type Dir uint8

const (
	DirX Dir = iota // towards +X
	DirZ            // towards +Z
)

// EdgeSpec names one edge of the lattice: it runs from junction A to B.
type EdgeSpec struct {
	ID   uint64
	A, B Cell
	Dir  Dir
}

func zigzag(v int32) uint64   { return uint64(uint32((v << 1) ^ (v >> 31))) }
func unzigzag(u uint64) int32 { return int32(u>>1) ^ -int32(u&1) }

func cellIndex(c Cell) uint64 { return zigzag(c.I)<<26 | zigzag(c.J) }

func cellFromIndex(i uint64) Cell {
	return Cell{unzigzag(i >> 26), unzigzag(i & (1<<26 - 1))}
}

// JunctionID is the stable id of the junction in cell c (never 0).
func JunctionID(c Cell) uint64 { return cellIndex(c) + 1 }

// JunctionCell inverts JunctionID.
func JunctionCell(id uint64) Cell { return cellFromIndex(id - 1) }

// EdgeID is the stable id of the edge leaving cell a in direction d (never 0).
func EdgeID(a Cell, d Dir) uint64 { return cellIndex(a)<<1 | uint64(d) + 1 }

// EdgeOrigin inverts EdgeID.
func EdgeOrigin(id uint64) (Cell, Dir) {
	v := id - 1
	return cellFromIndex(v >> 1), Dir(v & 1)
}

func (c Cell) hash(w World, salt int64) float64 {
	return unit(hash64(w.Seed, int64(c.I), int64(c.J), salt))
}

func isAvenue(v int32) bool { return v%avenueEvery == 0 }

// Junction returns the position of the junction in cell c, if c holds
// one: a raw junction the network rule keeps (network.go). This form
// computes the cell's whole block; a Cache answers from its memo.
func (w World) Junction(c Cell) (Vec2, bool) {
	p, ok := w.RawJunction(c)
	if !ok || c.OnTrunk() {
		return p, ok
	}
	var b blockNet
	computeBlock(w, w, blockOrigin(c), &b)
	return p, b.kept[blockIndex(b.origin, c)]
}

// junctionSource answers where junctions are: the World itself, or a
// Cache in front of it. The functions below take it as a type parameter,
// not an interface, so passing the World (a plain value) does not box it
// on the heap: the builders and the car's surface queries must not
// allocate.
type junctionSource interface {
	Junction(c Cell) (Vec2, bool)    // kept by the network rule
	RawJunction(c Cell) (Vec2, bool) // the lattice's candidate
}

// edgeX finds the +X edge leaving a junction in cell a, if any: the raw
// lattice's edge (to the first raw junction east), when the network rule
// keeps both its ends.
func edgeX[S junctionSource](w World, src S, a Cell) (EdgeSpec, bool) {
	for k := int32(1); k <= MaxSpanCells; k++ {
		b := Cell{a.I + k, a.J}
		if _, ok := src.RawJunction(b); ok {
			if !isAvenue(a.J) && a.hash(w, saltEdge) >= keepStreetX || !kept(src, a) || !kept(src, b) {
				return EdgeSpec{}, false
			}
			return EdgeSpec{ID: EdgeID(a, DirX), A: a, B: b, Dir: DirX}, true
		}
	}
	return EdgeSpec{}, false
}

func kept[S junctionSource](src S, c Cell) bool {
	_, ok := src.Junction(c)
	return ok
}

// edgeZ finds the +Z edge leaving a junction in cell a, if any. Z edges
// never skip a cell, so they never cross a long X span without a junction.
func edgeZ[S junctionSource](w World, src S, a Cell) (EdgeSpec, bool) {
	b := Cell{a.I, a.J + 1}
	if !isAvenue(a.I) && a.hash(w, saltEdge+1) >= keepStreetZ || !kept(src, a) || !kept(src, b) {
		return EdgeSpec{}, false
	}
	return EdgeSpec{ID: EdgeID(a, DirZ), A: a, B: b, Dir: DirZ}, true
}

// Arms appends to dst the edges that meet at the junction in cell c, in a
// fixed order (+X, +Z, -X, -Z). It returns dst unchanged if c holds no
// junction.
func (w World) Arms(c Cell, dst []EdgeSpec) []EdgeSpec { return arms(w, w, c, dst) }

func arms[S junctionSource](w World, src S, c Cell, dst []EdgeSpec) []EdgeSpec {
	if _, ok := src.Junction(c); !ok {
		return dst
	}
	if e, ok := edgeX(w, src, c); ok {
		dst = append(dst, e)
	}
	if e, ok := edgeZ(w, src, c); ok {
		dst = append(dst, e)
	}
	for k := int32(1); k <= MaxSpanCells; k++ {
		a := Cell{c.I - k, c.J}
		if _, ok := src.RawJunction(a); ok {
			if e, ok := edgeX(w, src, a); ok && e.B == c {
				dst = append(dst, e)
			}
			break
		}
	}
	if e, ok := edgeZ(w, src, Cell{c.I, c.J - 1}); ok {
		dst = append(dst, e)
	}
	return dst
}

// Edge returns the spec of edge id, if the lattice holds it.
func (w World) Edge(id uint64) (EdgeSpec, bool) { return edge(w, w, id) }

func edge[S junctionSource](w World, src S, id uint64) (EdgeSpec, bool) {
	if id == 0 {
		return EdgeSpec{}, false
	}
	a, d := EdgeOrigin(id)
	if d > DirZ || !a.valid() {
		return EdgeSpec{}, false
	}
	if _, ok := src.Junction(a); !ok {
		return EdgeSpec{}, false
	}
	if d == DirX {
		return edgeX(w, src, a)
	}
	return edgeZ(w, src, a)
}

// IsAvenue reports whether e is a wide, straight avenue.
func (e EdgeSpec) IsAvenue() bool {
	if e.Dir == DirX {
		return isAvenue(e.A.J)
	}
	return isAvenue(e.A.I)
}

// HalfWidth is the distance from the centre line to the kerb.
func (e EdgeSpec) HalfWidth() float64 {
	if e.IsAvenue() {
		return AvenueHalfWidth
	}
	return StreetHalfWidth
}

func (e EdgeSpec) String() string {
	return fmt.Sprintf("edge %d (%d,%d)->(%d,%d)", e.ID, e.A.I, e.A.J, e.B.I, e.B.J)
}

const curveSamples = 96

// EdgeNodes appends the edge's centre-line polyline to dst: evenly spaced
// nodes, one segment (at most SegmentLength long) between consecutive nodes.
// Avenues and spans over the lake are straight; streets wander.
func (w World) EdgeNodes(e EdgeSpec, dst []Vec2) []Vec2 { return edgeNodes(w, w, e, dst) }

func edgeNodes[S junctionSource](w World, src S, e EdgeSpec, dst []Vec2) []Vec2 {
	pa, _ := src.Junction(e.A)
	pb, _ := src.Junction(e.B)
	d := pb.Sub(pa)
	side := d.Perp().Norm()
	amp1, amp2 := 0.0, 0.0
	if !e.IsAvenue() && !w.spansWater(pa, pb) {
		h := hash64(w.Seed, int64(e.ID), 0, saltCurve)
		amp1 = curveAmplitude * signed(h)
		amp2 = curveAmplitude * 0.35 * signed(mix(h))
	}
	at := func(t float64) Vec2 {
		// sin(πt) squared leaves both junctions along the straight line
		// between them (a zero slope at t = 0 and 1): arms meet at the
		// lattice's angles, never in a hairpin a car cannot turn
		s := math.Sin(math.Pi * t)
		off := float64(amp1*s*s) + float64(amp2*math.Sin(2*math.Pi*t)*s)
		return pa.Lerp(pb, t).Add(side.Scale(off))
	}
	// Arc length by dense sampling, then resample at equal arc steps.
	var cum [curveSamples + 1]float64
	prev := pa
	for i := 1; i <= curveSamples; i++ {
		p := at(float64(i) / curveSamples)
		cum[i] = cum[i-1] + p.Sub(prev).Len()
		prev = p
	}
	total := cum[curveSamples]
	n := int(math.Ceil(total/SegmentLength - 1e-9))
	n = max(1, min(n, MaxSegments-1))
	dst = append(dst, pa)
	k := 0
	for s := 1; s < n; s++ {
		target := total * float64(s) / float64(n)
		for cum[k+1] < target {
			k++
		}
		f := (target - cum[k]) / (cum[k+1] - cum[k])
		dst = append(dst, at((float64(k)+f)/curveSamples))
	}
	return append(dst, pb)
}

// spansWater reports whether the straight line a→b crosses the lake.
func (w World) spansWater(a, b Vec2) bool {
	const probes = 8
	for i := 1; i < probes; i++ {
		p := a.Lerp(b, float64(i)/probes)
		if w.IsWater(p.X, p.Z) {
			return true
		}
	}
	return false
}
