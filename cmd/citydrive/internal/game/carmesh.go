package game

import (
	"math"

	"citydrive/slots"
)

// carBox is one box of the car model in car space: x forward, y up, z
// right; colour RGB.
type carBox struct {
	min, max [3]float32
	rgb      [3]float32
}

// The player's car: body, cabin, glass band, wheels, lights.
var carModel = []carBox{
	{[3]float32{-2.1, 0.35, -0.9}, [3]float32{2.1, 1.0, 0.9}, [3]float32{0.78, 0.1, 0.12}},
	{[3]float32{-1.2, 1.0, -0.8}, [3]float32{0.9, 1.45, 0.8}, [3]float32{0.15, 0.2, 0.26}},
	{[3]float32{-1.1, 1.45, -0.78}, [3]float32{0.8, 1.5, 0.78}, [3]float32{0.7, 0.08, 0.1}},
	{[3]float32{1.3, 0.0, -0.95}, [3]float32{1.9, 0.62, -0.7}, [3]float32{0.05, 0.05, 0.05}},
	{[3]float32{1.3, 0.0, 0.7}, [3]float32{1.9, 0.62, 0.95}, [3]float32{0.05, 0.05, 0.05}},
	{[3]float32{-1.9, 0.0, -0.95}, [3]float32{-1.3, 0.62, -0.7}, [3]float32{0.05, 0.05, 0.05}},
	{[3]float32{-1.9, 0.0, 0.7}, [3]float32{-1.3, 0.62, 0.95}, [3]float32{0.05, 0.05, 0.05}},
	{[3]float32{2.08, 0.6, -0.8}, [3]float32{2.14, 0.8, -0.45}, [3]float32{1, 0.95, 0.7}},
	{[3]float32{2.08, 0.6, 0.45}, [3]float32{2.14, 0.8, 0.8}, [3]float32{1, 0.95, 0.7}},
	{[3]float32{-2.14, 0.6, -0.8}, [3]float32{-2.08, 0.8, -0.45}, [3]float32{0.9, 0.05, 0.05}},
	{[3]float32{-2.14, 0.6, 0.45}, [3]float32{-2.08, 0.8, 0.8}, [3]float32{0.9, 0.05, 0.05}},
}

// CarVerts is the vertex count of one car.
var CarVerts = len(carModel) * 30

// appendCar appends a car at (x, y, z) relative to the dynamic origin,
// facing heading (radians, 0 = +X, left-positive), in the slot format.
func appendCar(dst []float32, x, y, z float32, heading float64) []float32 {
	c, s := float32(math.Cos(heading)), float32(math.Sin(heading))
	// car space (fx, fy, fz) → world: forward = (c, -s), right = (s, c)
	tr := func(p [3]float32) [3]float32 {
		return [3]float32{x + p[0]*c + p[2]*s, y + p[1], z - p[0]*s + p[2]*c}
	}
	rot := func(n [3]float32) [3]float32 { return [3]float32{n[0]*c + n[2]*s, n[1], -n[0]*s + n[2]*c} }
	for _, b := range carModel {
		lo, hi := b.min, b.max
		corner := func(i int) [3]float32 {
			p := lo
			if i&1 != 0 {
				p[0] = hi[0]
			}
			if i&2 != 0 {
				p[1] = hi[1]
			}
			if i&4 != 0 {
				p[2] = hi[2]
			}
			return tr(p)
		}
		// five faces (no bottom), two triangles each
		faces := [5]struct {
			idx [4]int
			n   [3]float32
		}{
			{[4]int{1, 3, 7, 5}, [3]float32{1, 0, 0}},
			{[4]int{4, 6, 2, 0}, [3]float32{-1, 0, 0}},
			{[4]int{2, 6, 7, 3}, [3]float32{0, 1, 0}},
			{[4]int{0, 2, 3, 1}, [3]float32{0, 0, -1}},
			{[4]int{4, 5, 7, 6}, [3]float32{0, 0, 1}},
		}
		for _, f := range faces {
			n := rot(f.n)
			for _, k := range [6]int{0, 1, 2, 0, 2, 3} {
				p := corner(f.idx[k])
				var v [slots.FloatsPerVertex]float32
				copy(v[slots.OffsetPosition:], p[:])
				copy(v[slots.OffsetNormal:], n[:])
				copy(v[slots.OffsetColour:], b.rgb[:])
				v[slots.OffsetMaterial] = slots.MaterialCar
				v[slots.OffsetOcclusion] = 1
				dst = append(dst, v[:]...)
			}
		}
	}
	return dst
}

// The lake: a square of water around the car at the water level, drawn
// from the dynamic region. Roads and lots are drawn over it; where the voxel
// ground is streamed, the ground covers it.
const (
	lakeTiles    = 12
	lakeTileSize = 800.0 // metres: ±4.8 km, past the far tier and the top view
	// LakeVerts is the vertex count of the lake.
	LakeVerts = lakeTiles * lakeTiles * 6
)

// appendLake appends the lake around (cx, cz) (world metres), relative to
// the dynamic origin (ox, oy, oz). Tiles snap to a world grid so the water
// does not swim with the car.
func appendLake(dst []float32, cx, cz, ox, oy, oz, level float64) []float32 {
	x0 := math.Floor(cx/lakeTileSize)*lakeTileSize - lakeTiles/2*lakeTileSize
	z0 := math.Floor(cz/lakeTileSize)*lakeTileSize - lakeTiles/2*lakeTileSize
	y := float32(level - 0.05 - oy)
	for i := 0; i < lakeTiles; i++ {
		for j := 0; j < lakeTiles; j++ {
			ax, az := float32(x0+float64(i)*lakeTileSize-ox), float32(z0+float64(j)*lakeTileSize-oz)
			bx, bz := ax+lakeTileSize, az+lakeTileSize
			for _, p := range [6][2]float32{{ax, az}, {ax, bz}, {bx, bz}, {ax, az}, {bx, bz}, {bx, az}} {
				var v [slots.FloatsPerVertex]float32
				v[0], v[1], v[2] = p[0], y, p[1]
				v[slots.OffsetNormal+1] = 1
				v[slots.OffsetColour] = slots.PaletteRed(slots.PaletteWater)
				v[slots.OffsetMaterial] = slots.MaterialWater
				v[slots.OffsetOcclusion] = 1
				dst = append(dst, v[:]...)
			}
		}
	}
	return dst
}
