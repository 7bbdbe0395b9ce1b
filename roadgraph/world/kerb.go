package world

import "math"

// KerbCornerSteps is how many straight pieces a junction's rounded kerb
// corner is made of.
const KerbCornerSteps = 6

// sharpCorner: arms closer than this (radians) meet in a pointed corner
// whose kerb runs to where the two kerb lines cross.
const sharpCorner = 0.75 * math.Pi

// KerbCorner is the sidewalk between two neighbouring arms of a junction:
// a strip between the kerb line In and its back edge Out, both from arm a
// to arm c; a sharp corner also fills the triangles from Fill to Out.
type KerbCorner struct {
	In, Out [KerbCornerSteps + 1]Vec2
	Fill    Vec2
	Sharp   bool
}

// JunctionKerbCorner is the kerb corner of the junction at centre with
// surface radius r between arm a (unit direction da away from the centre,
// half width ha) and the next arm counter-clockwise, c; gap is the angle
// from a to c. The city builder draws it; Surface stands on it.
func JunctionKerbCorner(centre Vec2, r float64, da Vec2, ha float64, dc Vec2, hc float64, gap float64) KerbCorner {
	pa := Vec2{X: -da.Z, Z: da.X} // towards c
	pc := Vec2{X: dc.Z, Z: -dc.X} // towards a
	A := centre.Add(da.Scale(r)).Add(pa.Scale(ha))
	C := centre.Add(dc.Scale(r)).Add(pc.Scale(hc))
	Ao, Co := A.Add(pa.Scale(WalkWidth)), C.Add(pc.Scale(WalkWidth))
	ci, co := A.Lerp(C, 0.5), Ao.Lerp(Co, 0.5)
	k := KerbCorner{Sharp: gap < sharpCorner}
	if k.Sharp {
		ci = centre.Add(pa.Scale(ha)).Add(pc.Scale(hc))
		co = centre.Add(pa.Scale(ha + WalkWidth)).Add(pc.Scale(hc + WalkWidth))
	}
	k.Fill = co
	for i := 0; i <= KerbCornerSteps; i++ {
		t := float64(i) / KerbCornerSteps
		k.In[i] = bezier(A, ci, C, t)
		k.Out[i] = bezier(Ao, co, Co, t)
	}
	return k
}

// Contains reports whether p is on the corner's sidewalk.
func (k *KerbCorner) Contains(p Vec2) bool {
	for i := 0; i < KerbCornerSteps; i++ {
		if k.stepContains(i, p) {
			return true
		}
	}
	return false
}

// stepContains reports whether p is on step i's triangles.
func (k *KerbCorner) stepContains(i int, p Vec2) bool {
	return inTriangle(p, k.In[i], k.In[i+1], k.Out[i+1]) || inTriangle(p, k.In[i], k.Out[i+1], k.Out[i]) ||
		k.Sharp && inTriangle(p, k.Fill, k.Out[i], k.Out[i+1])
}

// stepBounds is the box around step i's triangles, grown by cornerMargin.
func (k *KerbCorner) stepBounds(i int) box {
	b := box{lo: k.In[i], hi: k.In[i]}
	b.grow(k.In[i+1])
	b.grow(k.Out[i])
	b.grow(k.Out[i+1])
	if k.Sharp {
		b.grow(k.Fill)
	}
	return b.pad(cornerMargin)
}

// box is an axis-aligned box.
type box struct{ lo, hi Vec2 }

func (b *box) grow(p Vec2) {
	b.lo.X, b.lo.Z = min(b.lo.X, p.X), min(b.lo.Z, p.Z)
	b.hi.X, b.hi.Z = max(b.hi.X, p.X), max(b.hi.Z, p.Z)
}

func (b box) pad(m float64) box {
	return box{lo: Vec2{X: b.lo.X - m, Z: b.lo.Z - m}, hi: Vec2{X: b.hi.X + m, Z: b.hi.Z + m}}
}

func (b *box) holds(p Vec2) bool {
	return p.X >= b.lo.X && p.X <= b.hi.X && p.Z >= b.lo.Z && p.Z <= b.hi.Z
}

func bezier(a, c, b Vec2, t float64) Vec2 {
	s := 1 - t
	return a.Scale(s * s).Add(c.Scale(2 * s * t)).Add(b.Scale(t * t))
}
