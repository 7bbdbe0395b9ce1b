package world

import "math"

// hash64 mixes a seed with up to three integers (splitmix64 finaliser).
// Everything random in the world comes from here, so the world is a pure
// function of the seed.
func hash64(seed uint64, a, b, c int64) uint64 {
	h := seed ^ 0x9e3779b97f4a7c15
	h = mix(h ^ uint64(a)*0xbf58476d1ce4e5b9)
	h = mix(h ^ uint64(b)*0x94d049bb133111eb)
	h = mix(h ^ uint64(c)*0xd6e8feb86659fd93)
	return h
}

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// signed maps a hash to [-1, 1).
func signed(h uint64) float64 { return unit(h)*2 - 1 }

// The terrain noise rounds every product before it is added (the explicit
// float64 conversions): the compiler may otherwise fuse x*y+z into one FMA
// instruction (it does for GOAMD64=v3, and always on arm64), which would
// give builds for different CPUs different heights and so different blocks.
// With the conversions every build computes today's GOAMD64=v1 values.

// valueNoise is smooth 2D value noise in [-1, 1] with unit lattice spacing.
func valueNoise(seed uint64, salt int64, x, z float64) float64 {
	fx, fz := math.Floor(x), math.Floor(z)
	ix, iz := int64(fx), int64(fz)
	tx, tz := x-fx, z-fz
	// quintic fade: continuous slope so the terrain has no creases
	tx = tx * tx * tx * (float64(tx*(tx*6-15)) + 10)
	tz = tz * tz * tz * (float64(tz*(tz*6-15)) + 10)
	v00 := signed(hash64(seed, ix, iz, salt))
	v10 := signed(hash64(seed, ix+1, iz, salt))
	v01 := signed(hash64(seed, ix, iz+1, salt))
	v11 := signed(hash64(seed, ix+1, iz+1, salt))
	a := v00 + float64((v10-v00)*tx)
	b := v01 + float64((v11-v01)*tx)
	return a + float64((b-a)*tz)
}

// fbm sums octaves of value noise; the result stays within [-1, 1].
func fbm(seed uint64, salt int64, x, z float64, octaves int) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for o := 0; o < octaves; o++ {
		sum += float64(amp * valueNoise(seed, salt+int64(o)*7919, x, z))
		norm += amp
		amp *= 0.5
		x, z = float64(x*2.03)+17.1, float64(z*2.03)-9.7
	}
	return sum / norm
}

func smoothstep(e0, e1, x float64) float64 {
	t := min(1, max(0, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}
