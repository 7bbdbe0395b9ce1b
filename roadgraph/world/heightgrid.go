package world

import "math"

// HeightGrid is Height over a small grid of nearby points, bit for bit (and
// like Height with every product rounded before it is added, noise.go says
// why):
// out[j*len(xs)+i] = w.Height(xs[i], zs[j]), for ascending xs and zs. It
// performs exactly Height's floating-point operations in the same order per
// point, but shares what points have in common: each octave's lattice
// coordinates and fades once per grid column and row, each lattice value
// once per grid (a 32 m chunk touches at most 3×3 lattice points of any
// octave), valueNoise's blend along X (times the octave's amplitude) and the
// difference between neighbouring lattice rows once per lattice row rather
// than per point; per point, all octaves of a field are one pass (a multiply
// and two adds each). The voxel generator calls it once per chunk instead of Height
// 1,024 times. Grids wider than the buffers fall back to Height per point.
func (w World) HeightGrid(xs, zs []float64, out []float64) {
	nx, nz := len(xs), len(zs)
	var lake, detail field
	if nx == 0 || nz == 0 || nx > gridMax || nz > gridMax || len(out) < nx*nz ||
		!lake.prepare(w.Seed, saltLake, lakeOctaves, xs, zs, lakeScale) {
		w.heightPoints(xs, zs, out)
		return
	}
	detailReady := false
	var e, h [gridMax]float64
	for j := range nz {
		land, inland := lake.lakeRow(j, &e)
		if land > 0 && nx < gridMax { // the padding columns read as land
			land = 0
			for _, v := range e[:nx] {
				land += b2i(v > 0.02)
			}
		}
		switch {
		case land == 0:
			for i, e := range &e {
				h[i] = max(float64(e*landRelief), lakeFloor) // math.Max: never NaN or -0 here
			}
		case !detailReady && !detail.prepare(w.Seed, saltDetail, detailOctaves, xs, zs, detailScale):
			w.heightPoints(xs, zs, out)
			return
		default:
			detailReady = true
			detail.landRow(j, &e, &h, inland, land == gridMax)
		}
		for i, x := range xs {
			out[j*nx+i] = withCauseway(h[i], x, zs[j])
		}
	}
}

// lakeRow sets e[i] to Height's lake field e at grid point (i, j) and
// counts the points with e > 0.02 (the detail field is needed), reporting
// too whether all lie beyond rampSure: fbm's four octaves fused in one
// pass, in fbm's order, its division by norm and the bias. fbm starts its
// sum at 0; starting at the first octave's value differs only if that is
// -0, which a blend of signed values never is.
func (f *field) lakeRow(j int, e *[gridMax]float64) (land int, inland bool) {
	_ = [1]struct{}{}[lakeOctaves-4] // written for four octaves
	b0, d0, t0 := f.at(0, j)
	b1, d1, t1 := f.at(1, j)
	b2, d2, t2 := f.at(2, j)
	b3, d3, t3 := f.at(3, j)
	norm := f.norm
	shore := 0
	for i := range e { // all of them: columns past the grid are ignored
		s := b0[i] + float64(d0[i]*t0)
		s += b1[i] + float64(d1[i]*t1)
		s += b2[i] + float64(d2[i]*t2)
		s += b3[i] + float64(d3[i]*t3)
		v := s/norm + lakeBias
		e[i] = v
		land += b2i(v > 0.02)
		shore += b2i(v <= rampSure)
	}
	return land, shore == 0
}

// b2i is 1 for true (a count kept without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// landRow sets h[i] to Height at grid point (i, j) from the lake field e
// (lakeRow's) and the detail field f (two octaves fused as in lakeRow).
// Inland rows (every e beyond rampSure, where smoothstep is exactly 1 and
// x·1 is x) add the detail as it is. Rows all on land add it times
// smoothstep(0.02, 0.12, e) with its clamps, without branches: 1 beyond
// rampSure (the same sum), 0 at e ≤ 0.02 (h + ±0 is h, which Height
// leaves alone there). Rows partly in the lake skip the lake's points.
func (f *field) landRow(j int, e, h *[gridMax]float64, inland, allLand bool) {
	_ = [1]struct{}{}[detailOctaves-2] // written for two octaves
	b0, d0, t0 := f.at(0, j)
	b1, d1, t1 := f.at(1, j)
	norm := f.norm
	if inland {
		for i, e := range e {
			d := b0[i] + float64(d0[i]*t0)
			d += b1[i] + float64(d1[i]*t1)
			h[i] = float64(e*landRelief) + float64(detailRelief*(d/norm)) // ≥ 5.4 - 1.5 m: above lakeFloor
		}
		return
	}
	if !allLand {
		for i, e := range e {
			hi := float64(e * landRelief)
			if e > 0.02 {
				d := b0[i] + float64(d0[i]*t0)
				d += b1[i] + float64(d1[i]*t1)
				d = float64(detailRelief * (d / norm))
				if e <= rampSure {
					d = float64(d * smoothRamp(e))
				}
				hi += d
			}
			if hi < lakeFloor { // max(lakeFloor, h): h is never NaN
				hi = lakeFloor
			}
			h[i] = hi
		}
		return
	}
	lo, span := rampLo, rampHi-rampLo
	for i, e := range e {
		d := b0[i] + float64(d0[i]*t0)
		d += b1[i] + float64(d1[i]*t1)
		t := min(max((e-lo)/span, 0), 1) // smoothstep's clamps: never NaN
		hi := float64(e*landRelief) + float64(float64(detailRelief*(d/norm))*float64(t*t*(3-2*t)))
		if hi < lakeFloor { // max(lakeFloor, h): h is never NaN
			hi = lakeFloor
		}
		h[i] = hi
	}
}

// smoothRamp is smoothstep(0.02, 0.12, e) for e > 0.02, where its Max is
// the identity: the same operations without math.Min/Max calls. The edges
// are variables so the compiler subtracts them as float64s, as smoothstep
// does, not as exact constants.
func smoothRamp(e float64) float64 {
	t := (e - rampLo) / (rampHi - rampLo)
	if !(t < 1) {
		t = 1
	}
	return t * t * (3 - 2*t)
}

var rampLo, rampHi = 0.02, 0.12

// rampSure is a little above rampHi: beyond it (e-rampLo)/(rampHi-rampLo)
// rounds to at least 1 (it is ≥ 1.001 before rounding), so smoothstep is 1.
const rampSure = 0.1201

// heightPoints is the plain fallback.
func (w World) heightPoints(xs, zs []float64, out []float64) {
	for j, z := range zs {
		for i, x := range xs {
			out[j*len(xs)+i] = w.Height(x, z)
		}
	}
}

const (
	lakeOctaves   = 4 // Height's fbm octaves: lake field
	detailOctaves = 2 // and rolling detail
	maxOctaves    = lakeOctaves
	gridMax       = 32 // points per grid axis
	latticeMax    = 4  // lattice points per axis and octave the grid may span
)

// field holds fbm's shared work over the grid for one noise field.
type field struct {
	norm float64
	// per octave and grid row: the lattice row below it and the Z fade
	zcell [maxOctaves][gridMax]int
	zfade [maxOctaves][gridMax]float64
	// base[o][r][i]: valueNoise's blend along X at grid column i on
	// lattice row r (its a for points whose cell starts at row r, its b
	// for those starting at r-1), times the octave's amplitude; diff[o][r]
	// is base[o][r+1] - base[o][r] (b-a). The amplitudes are powers of
	// two, so scaling before the blend along Z rounds exactly as fbm's
	// amp·(a + (b-a)·tz) does.
	base, diff [maxOctaves][latticeMax][gridMax]float64
}

// at returns octave o's lattice row blends and Z fade for grid row j
// (cells are below latticeMax-1, as lattice checked).
func (f *field) at(o, j int) (base, diff *[gridMax]float64, tz float64) {
	c := min(f.zcell[o][j], latticeMax-2)
	return &f.base[o][c], &f.diff[o][c], f.zfade[o][j]
}

// prepare sets up fbm(seed, salt, x/scale, z/scale, octaves) over the grid;
// false if the grid spans more lattice cells than the buffers hold.
func (f *field) prepare(seed uint64, salt int64, octaves int, xs, zs []float64, scale float64) bool {
	var cx, cz [gridMax]float64
	for i, x := range xs {
		cx[i] = x / scale
	}
	for j, z := range zs {
		cz[j] = z / scale
	}
	amp, norm := 1.0, 0.0
	var xcell [gridMax]int
	var xfade [gridMax]float64
	for o := range octaves {
		s := salt + int64(o)*7919
		x0, nxl, okx := lattice(cx[:len(xs)], &xcell, &xfade)
		z0, nzl, okz := lattice(cz[:len(zs)], &f.zcell[o], &f.zfade[o])
		if !okx || !okz {
			return false
		}
		for r := range nzl {
			var v [latticeMax]float64
			for a := range nxl {
				v[a] = signed(hash64(seed, x0+int64(a), z0+int64(r), s))
			}
			b := &f.base[o][r]
			for i := range xs {
				v0, v1 := v[xcell[i]], v[xcell[i]+1]
				b[i] = amp * (v0 + float64((v1-v0)*xfade[i]))
			}
			if r > 0 {
				for i := range xs {
					f.diff[o][r-1][i] = b[i] - f.base[o][r-1][i]
				}
			}
		}
		norm += amp
		amp *= 0.5
		for i := range xs {
			cx[i] = float64(cx[i]*2.03) + 17.1
		}
		for j := range zs {
			cz[j] = float64(cz[j]*2.03) - 9.7
		}
	}
	f.norm = norm
	return true
}

// lattice fills cell and fade with valueNoise's floor (relative to the
// first) and fade of each coordinate; it returns the first lattice index
// and how many lattice points the axis needs, false if more than
// latticeMax.
func lattice(cs []float64, cell *[gridMax]int, fade *[gridMax]float64) (int64, int, bool) {
	first := int64(math.Floor(cs[0]))
	var top int64
	for i, c := range cs {
		fl := math.Floor(c)
		d := int64(fl) - first
		if d < 0 || d >= latticeMax-1 {
			return 0, 0, false
		}
		t := c - fl
		cell[i] = int(d)
		fade[i] = t * t * t * (float64(t*(t*6-15)) + 10)
		top = max(top, d)
	}
	return first, int(top) + 2, true
}
