// Package world is the pure description of the endless city: terrain
// height, the lake, districts and the road lattice. Every function is a pure
// function of the seed and a position (or lattice cell), safe to call from
// any goroutine without a lock. The road graph, the geometry builder and the
// voxel generator all read the same description, so roads sit on the ground
// and two players with the same seed see the same city.
package world

import "math"

// Vec2 is a horizontal world position in metres (X east, Z south), float64 so
// the world stays exact thousands of kilometres out.
type Vec2 struct{ X, Z float64 }

func (a Vec2) Add(b Vec2) Vec2             { return Vec2{a.X + b.X, a.Z + b.Z} }
func (a Vec2) Sub(b Vec2) Vec2             { return Vec2{a.X - b.X, a.Z - b.Z} }
func (a Vec2) Scale(s float64) Vec2        { return Vec2{a.X * s, a.Z * s} }
func (a Vec2) Dot(b Vec2) float64          { return a.X*b.X + a.Z*b.Z }
func (a Vec2) Len() float64                { return math.Hypot(a.X, a.Z) }
func (a Vec2) Dist2(b Vec2) float64        { d := a.Sub(b); return d.X*d.X + d.Z*d.Z }
func (a Vec2) Perp() Vec2                  { return Vec2{-a.Z, a.X} }
func (a Vec2) Lerp(b Vec2, t float64) Vec2 { return Vec2{a.X + (b.X-a.X)*t, a.Z + (b.Z-a.Z)*t} }

// Norm returns a unit vector in a's direction (or +X for the zero vector).
func (a Vec2) Norm() Vec2 {
	l := a.Len()
	if l == 0 {
		return Vec2{1, 0}
	}
	return Vec2{a.X / l, a.Z / l}
}

// WaterLevel is the lake's surface height in metres.
const WaterLevel = 0.0

// Noise salts: each independent field of the world gets its own.
const (
	saltLake = iota + 1
	saltDetail
	saltDistrict
	saltJunction
	saltEdge
	saltCurve
)

// World is the world description for one seed. It is a small value; copy it
// freely.
type World struct{ Seed uint64 }

// New returns the description of the world grown from seed.
func New(seed uint64) World { return World{Seed: seed} }

// Terrain shape: a low-frequency field decides lake versus land, a finer one
// adds rolling detail inland. Slopes stay under ~6% so roads can drape on it.
const (
	lakeScale    = 1000.0 // metres per lattice unit of the lake field
	lakeBias     = 0.16   // shifts the lake field: larger = less water
	landRelief   = 45.0   // metres of height per unit of the lake field
	detailScale  = 140.0
	detailRelief = 1.5
	lakeFloor    = -14.0
)

// Height is the terrain height at (x, z) in metres; below WaterLevel is lake.
// Trunks cross the lake on causeways (network.go).
func (w World) Height(x, z float64) float64 {
	return withCauseway(w.lakeHeight(x, z), x, z)
}

// lakeHeight is the terrain before the causeways.
func (w World) lakeHeight(x, z float64) float64 {
	e := fbm(w.Seed, saltLake, x/lakeScale, z/lakeScale, 4) + lakeBias
	h := float64(e * landRelief) // rounded: see noise.go
	if e > 0.02 {
		h += float64(detailRelief * fbm(w.Seed, saltDetail, x/detailScale, z/detailScale, 2) * smoothstep(0.02, 0.12, e)) // rounded: see noise.go
	}
	return max(lakeFloor, h)
}

// IsWater reports whether (x, z) lies in the lake.
func (w World) IsWater(x, z float64) bool { return w.Height(x, z) < WaterLevel }

// District is what kind of city a place is.
type District uint8

const (
	Fields District = iota
	Houses
	Midrise
	Downtown
)

func (d District) String() string {
	return [...]string{"fields", "houses", "midrise", "downtown"}[d]
}

// Density is the city's density at (x, z) in [0, 1].
func (w World) Density(x, z float64) float64 {
	return 0.5 + 0.5*fbm(w.Seed, saltDistrict, x/1100, z/1100, 3)
}

// District classifies (x, z) by density.
func (w World) District(x, z float64) District {
	d := w.Density(x, z)
	switch {
	case d > 0.6:
		return Downtown
	case d > 0.5:
		return Midrise
	case d > 0.4:
		return Houses
	default:
		return Fields
	}
}

// Hash01 is a deterministic value in [0, 1) for callers that need their own
// seeded randomness (lots, buildings, trees), keyed by up to three integers
// and a salt of their own.
func (w World) Hash01(salt, a, b, c int64) float64 {
	return unit(hash64(w.Seed^uint64(salt)*0x2545f4914f6cdd1d, a, b, c))
}
