package world

import "math"

// The network rule: from every road a player can be on, the roads go on
// without end, and no road ends.
//
// The lattice (lattice.go) first proposes candidate junctions, the raw
// layer: a land cell whose junction's whole surface stands on land, kept
// by a hash. Raw edges join raw junctions as before. On that layer, three
// local rules make the global property hold in an infinite, lazily grown
// world:
//
//  1. Trunks. Every trunkEvery-th avenue row and column is a trunk: every
//     cell on it holds a junction (no hash drops it), and where it crosses
//     the lake the terrain carries it on a causeway (causeway below). Avenue
//     edges never drop, so the trunks form a complete, infinite grid.
//  2. Blocks. The trunks cut the plane into blocks of trunkEvery ×
//     trunkEvery cells. No edge crosses a trunk line without a junction on
//     it (+X edges stop at the first junction, and every trunk cell is one;
//     +Z edges never skip a cell), so a block's interior junctions reach the
//     rest of the world only through the junctions on its own border. A
//     block is small (11 × 11 cells with its border), so which of its
//     junctions connect to the trunks is a breadth-first search over the
//     block alone: a component that does not touch the border is finite, an
//     island or a closed peninsula, and has no roads.
//  3. No dead ends. Within the block, junctions left with one arm are
//     removed, repeatedly (the block's 2-core, which is unique whatever the
//     order). Removing a leaf never disconnects the rest, so what stays is
//     still joined to the trunks, and every junction kept has two arms or
//     more (trunk junctions have two trunk arms at least).
//
// A junction is kept when it is on a trunk or survives its block's rules;
// an edge is kept when both its junctions are. Every kept road is then on
// the one endless, connected network, and every junction has a way on.
// The cost: a block's rule reads its 121 cells' raw junctions once (about
// 121 terrain heights); Cache keeps the answer per block.
const (
	// TrunkEvery is the spacing, in lattice cells, of the trunk rows and
	// columns (a multiple of avenueEvery: trunks are avenues).
	TrunkEvery = 2 * avenueEvery
	blockSide  = TrunkEvery + 1 // cells along a block's side, both borders included
	blockCells = blockSide * blockSide
)

// isTrunk reports whether lattice row or column v is a trunk.
func isTrunk(v int32) bool { return v%TrunkEvery == 0 }

// OnTrunk reports whether cell c lies on a trunk row or column.
func (c Cell) OnTrunk() bool { return isTrunk(c.I) || isTrunk(c.J) }

// Causeway: where a trunk crosses the lake, the terrain rises to a flat
// embankment under it, so the trunk is a road on land, level and straight,
// whatever the lake's size (an edge can bridge at most MaxSpanCells cells).
const (
	causewayTop     = 1.0  // metres above the lake: over the junction and deck thresholds
	causewayHalfTop = 22.0 // half the top's width: a trunk junction's swept area and kerbs with room
	causewaySide    = 0.2  // the embankment falls 1 m in 5 into the lake: no steeper than the terrain elsewhere
)

// distToTrunk is the distance from coordinate v (metres) to the nearest
// trunk line across that axis.
func distToTrunk(v float64) float64 {
	const p = TrunkEvery * CellSize
	return math.Abs(v - p*math.Round(v/p))
}

// withCauseway lifts terrain height h at (x, z) onto the causeway where a
// trunk runs; elsewhere it returns h. Products are rounded (noise.go).
func withCauseway(h, x, z float64) float64 {
	if h >= causewayTop {
		return h
	}
	d := min(distToTrunk(x), distToTrunk(z))
	c := causewayTop - float64(max(0, d-causewayHalfTop)*causewaySide)
	return max(h, c)
}

// OnCauseway reports whether the ground at p is a causeway over the lake:
// land only because a trunk crosses there.
func (w World) OnCauseway(p Vec2) bool {
	return w.lakeHeight(p.X, p.Z) < WaterLevel+0.5
}

// sweptRadius is how far from a junction's centre land must reach: the
// widest junction surface (an avenue's) and a car turning at its rim.
const sweptRadius = AvenueHalfWidth + WalkWidth + junctionMargin + 3.0

// maxSlope bounds the terrain's slope anywhere: Height is Lipschitz with
// this constant, so heights d metres apart differ by at most maxSlope·d.
// It is derived, not measured (the old 0.15 was "far under" what the
// terrain does: seed 0 at x = −145,236 km has 0.18, and slopes of 0.24
// are common on shores). Value noise with quintic fade changes by at most
// 2·15/8 per lattice unit along an axis, so √2 of that in any direction;
// fbm's octaves weigh frequency 2.03^o by 0.5^o over the weights' sum. The
// lake field then moves at most 0.0116 per metre: 0.52 m/m of landRelief;
// the detail adds its own noise (0.08) and its smoothstep's rim (0.26);
// the causeway's embankment is gentler (causewaySide). Sum: 0.86.
// TestHeightSlopeIsBounded samples it.
var maxSlope = func() float64 {
	vn := math.Sqrt2 * 2 * 15.0 / 8 // value noise, per lattice unit
	fbmSlope := func(octaves int) float64 {
		s, amp, f, norm := 0.0, 1.0, 1.0, 0.0
		for range octaves {
			s += amp * f * vn
			norm += amp
			amp *= 0.5
			f *= 2.03
		}
		return s / norm
	}
	lake := fbmSlope(4) / lakeScale
	rim := 1.5 / (0.12 - 0.02) // smoothstep(0.02, 0.12, e)'s steepest
	land := landRelief*lake + detailRelief*(fbmSlope(2)/detailScale+rim*lake)
	return max(land, causewaySide)
}()

// sweptSure: a centre this high above the lake has land all around within
// sweptRadius, so the ring need not be sampled.
var sweptSure = WetMargin + maxSlope*sweptRadius

// sweptSamples points on the ring are sampled first, each needing
// sweptDip above WetMargin (the rule the world was made with); an arc
// between two samples is then proven dry by the slope bound, split in
// halves where the bound alone cannot tell, down to sweptFinest.
const (
	sweptSamples = 32
	sweptFinest  = 0.05 // metres of arc
)

var (
	sweptDip  = 0.15 * sweptRadius * math.Sin(math.Pi/sweptSamples)
	sweptRing = func() (r [sweptSamples]Vec2) {
		for k := range r {
			a := 2 * math.Pi * float64(k) / sweptSamples
			r[k] = Vec2{sweptRadius * math.Cos(a), sweptRadius * math.Sin(a)}
		}
		return r
	}()
)

// sweptOnLand reports whether the whole ring around p at sweptRadius is
// land, high enough that no road there counts as wet (WetMargin): every
// sample sweptDip above that, and every arc between them proven above it.
func (w World) sweptOnLand(p Vec2, h float64) bool {
	if h >= sweptSure {
		return true
	}
	var hs [sweptSamples]float64
	for k, d := range sweptRing {
		hs[k] = w.Height(p.X+d.X, p.Z+d.Z)
		if hs[k] < WaterLevel+WetMargin+sweptDip {
			return false
		}
	}
	step := 2 * math.Pi / sweptSamples
	for k := range hs {
		a := step * float64(k)
		if !w.arcDry(p, a, a+step, hs[k], hs[(k+1)%sweptSamples]) {
			return false
		}
	}
	return true
}

// arcDry proves the ring's arc from angle a0 (height h0) to a1 (h1) above
// WetMargin: along an arc of length s a Lipschitz height is at least
// (h0 + h1 − maxSlope·s) / 2.
func (w World) arcDry(p Vec2, a0, a1, h0, h1 float64) bool {
	s := (a1 - a0) * sweptRadius
	if (h0+h1-maxSlope*s)/2 >= WaterLevel+WetMargin {
		return true
	}
	if s <= sweptFinest {
		return false
	}
	am := (a0 + a1) / 2
	hm := w.Height(p.X+sweptRadius*math.Cos(am), p.Z+sweptRadius*math.Sin(am))
	if hm < WaterLevel+WetMargin {
		return false
	}
	return w.arcDry(p, a0, am, h0, hm) && w.arcDry(p, am, a1, hm, h1)
}

// RawJunction is the lattice's candidate junction in cell c, before the
// network rule: on land with its swept area, kept by a hash; always on a
// trunk.
func (w World) RawJunction(c Cell) (Vec2, bool) {
	if !c.valid() {
		return Vec2{}, false
	}
	p := Vec2{float64(c.I) * CellSize, float64(c.J) * CellSize}
	// Avenues stay straight: no jitter across an avenue's line.
	if !isAvenue(c.I) {
		p.X += junctionJitter * signed(hash64(w.Seed, int64(c.I), int64(c.J), saltJunction))
	}
	if !isAvenue(c.J) {
		p.Z += junctionJitter * signed(hash64(w.Seed, int64(c.I), int64(c.J), saltJunction+100))
	}
	if c.OnTrunk() {
		return p, true // on the causeway, or on land: Height there is at least causewayTop
	}
	h := w.Height(p.X, p.Z)
	if h < WaterLevel+0.5 || c.hash(w, saltJunction+200) >= keepJunction || !w.sweptOnLand(p, h) {
		return Vec2{}, false
	}
	return p, true
}

// blockOrigin is the south-west corner cell (the lowest I and J) of the
// block holding interior cell c.
func blockOrigin(c Cell) Cell {
	return Cell{floorTo(c.I, TrunkEvery), floorTo(c.J, TrunkEvery)}
}

func floorTo(v, m int32) int32 {
	q := v / m
	if v%m != 0 && v < 0 {
		q--
	}
	return q * m
}

// blockNet is the network rule's answer for one block: the raw junctions
// of its cells (border included) and which are kept.
type blockNet struct {
	origin Cell
	valid  bool
	pos    [blockCells]Vec2
	raw    [blockCells]bool
	kept   [blockCells]bool
}

func blockIndex(origin, c Cell) int {
	return int(c.I-origin.I)*blockSide + int(c.J-origin.J)
}

// rawSource answers raw junctions: the World itself, or a Cache's memo.
type rawSource interface {
	RawJunction(c Cell) (Vec2, bool)
}

// compute fills b for the block at origin.
func computeBlock[S rawSource](w World, src S, origin Cell, b *blockNet) {
	b.origin, b.valid = origin, true
	for i := range int32(blockSide) {
		for j := range int32(blockSide) {
			k := blockIndex(origin, Cell{origin.I + i, origin.J + j})
			b.pos[k], b.raw[k] = src.RawJunction(Cell{origin.I + i, origin.J + j})
			b.kept[k] = false
		}
	}
	// The raw edges inside the block, as adjacency lists (at most four).
	var adj [blockCells][4]int16
	var deg [blockCells]int8
	link := func(a, c int) {
		adj[a][deg[a]], deg[a] = int16(c), deg[a]+1
		adj[c][deg[c]], deg[c] = int16(a), deg[c]+1
	}
	for i := range int32(blockSide) {
		for j := range int32(blockSide) {
			a := Cell{origin.I + i, origin.J + j}
			ka := blockIndex(origin, a)
			if !b.raw[ka] {
				continue
			}
			// +X: the first raw junction within MaxSpanCells, inside the block.
			for k := int32(1); k <= MaxSpanCells && i+k < blockSide; k++ {
				kb := blockIndex(origin, Cell{a.I + k, a.J})
				if b.raw[kb] {
					if isAvenue(a.J) || a.hash(w, saltEdge) < keepStreetX {
						link(ka, kb)
					}
					break
				}
			}
			if j+1 < blockSide {
				kb := blockIndex(origin, Cell{a.I, a.J + 1})
				if b.raw[kb] && (isAvenue(a.I) || a.hash(w, saltEdge+1) < keepStreetZ) {
					link(ka, kb)
				}
			}
		}
	}
	// Reach from the border (all trunk cells, all raw).
	var queue [blockCells]int16
	n := 0
	for k := range blockCells {
		i, j := int32(k/blockSide), int32(k%blockSide)
		if i == 0 || j == 0 || i == blockSide-1 || j == blockSide-1 {
			b.kept[k] = true
			queue[n], n = int16(k), n+1
		}
	}
	for q := 0; q < n; q++ {
		a := queue[q]
		for _, c := range adj[a][:deg[a]] {
			if !b.kept[c] {
				b.kept[c] = true
				queue[n], n = c, n+1
			}
		}
	}
	// The 2-core: strip interior junctions with fewer than two kept arms.
	var live [blockCells]int8
	n = 0
	for k := range blockCells {
		if !b.kept[k] {
			continue
		}
		for _, c := range adj[k][:deg[k]] {
			if b.kept[c] {
				live[k]++
			}
		}
		if live[k] < 2 && !onBorder(k) {
			queue[n], n = int16(k), n+1
		}
	}
	for q := 0; q < n; q++ {
		a := queue[q]
		if !b.kept[a] {
			continue
		}
		b.kept[a] = false
		for _, c := range adj[a][:deg[a]] {
			if b.kept[c] {
				// queued once: at the start, or as it falls to one arm
				if live[c]--; live[c] == 1 && !onBorder(int(c)) {
					queue[n], n = c, n+1
				}
			}
		}
	}
	for k := range blockCells {
		b.kept[k] = b.kept[k] && b.raw[k]
	}
}

func onBorder(k int) bool {
	i, j := k/blockSide, k%blockSide
	return i == 0 || j == 0 || i == blockSide-1 || j == blockSide-1
}
