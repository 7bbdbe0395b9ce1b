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
// octave), and valueNoise's blend along X once per lattice row rather than
// per point. The voxel generator calls it once per chunk instead of Height
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
	var e, d [gridMax]float64
	for j := range nz {
		row := out[j*nx : j*nx+nx]
		lake.row(j, &e)
		land := false // some point of the row needs the detail field
		for i := range nx {
			e[i] = e[i]/lake.norm + lakeBias
			if e[i] > 0.02 {
				land = true
			}
		}
		if land {
			if !detailReady {
				if !detail.prepare(w.Seed, saltDetail, detailOctaves, xs, zs, detailScale) {
					w.heightPoints(xs, zs, out)
					return
				}
				detailReady = true
			}
			detail.row(j, &d)
		}
		for i := range nx {
			h := float64(e[i] * landRelief)
			switch {
			case e[i] > rampSure:
				// smoothstep is exactly 1 here and x*1 is x: skip its division
				h += float64(detailRelief * (d[i] / detail.norm))
			case e[i] > 0.02:
				h += float64(detailRelief * (d[i] / detail.norm) * smoothRamp(e[i]))
			}
			if h < lakeFloor { // math.Max(lakeFloor, h): h is never NaN
				h = lakeFloor
			}
			row[i] = h
		}
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
	octaves int
	amp     [maxOctaves]float64
	norm    float64
	// per octave and grid row: the lattice row below it and the Z fade
	zcell [maxOctaves][gridMax]int
	zfade [maxOctaves][gridMax]float64
	// blend[o][r][i]: valueNoise's blend along X at grid column i on
	// lattice row r (its a for points whose cell starts at row r, its b
	// for those starting at r-1)
	blend [maxOctaves][latticeMax][gridMax]float64
}

// prepare sets up fbm(seed, salt, x/scale, z/scale, octaves) over the grid;
// false if the grid spans more lattice cells than the buffers hold.
func (f *field) prepare(seed uint64, salt int64, octaves int, xs, zs []float64, scale float64) bool {
	f.octaves = octaves
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
			b := &f.blend[o][r]
			for i := range xs {
				v0, v1 := v[xcell[i]], v[xcell[i]+1]
				b[i] = v0 + float64((v1-v0)*xfade[i])
			}
		}
		f.amp[o] = amp
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

// row sets sum[i] to fbm's sum (before normalising) at grid point (i, j)
// (cells are below latticeMax-1, as lattice checked):
// per octave, valueNoise's blend along Z of the two lattice rows' blends
// along X, accumulated in octave order exactly as fbm does.
func (f *field) row(j int, sum *[gridMax]float64) {
	*sum = [gridMax]float64{}
	for o := range f.octaves {
		c, tz, amp := min(f.zcell[o][j], latticeMax-2), f.zfade[o][j], f.amp[o]
		lo, hi := &f.blend[o][c], &f.blend[o][c+1]
		for i := range sum { // all of them: columns past the grid are ignored
			a, b := lo[i], hi[i]
			sum[i] += float64(amp * (a + float64((b-a)*tz)))
		}
	}
}
