package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/slots"
)

// Palette is the colour of each palette index (slots.Palette*).
type Palette [slots.PaletteSize]mgl32.Vec3

// DryPalette and WetPalette are the two weather palettes: a wet road is
// darker and the water greyer.
var (
	DryPalette = Palette{
		slots.PaletteRoad:     {0.30, 0.30, 0.32},
		slots.PaletteShoulder: {0.46, 0.44, 0.40},
		slots.PaletteStripe:   {0.92, 0.90, 0.80},
		slots.PaletteWater:    {0.16, 0.36, 0.50},
		slots.PaletteSidewalk: {0.62, 0.60, 0.57},
		5:                     {0.5, 0.5, 0.5},
		6:                     {0.5, 0.5, 0.5},
		7:                     {0.5, 0.5, 0.5},
	}
	WetPalette = Palette{
		slots.PaletteRoad:     {0.14, 0.14, 0.16},
		slots.PaletteShoulder: {0.26, 0.25, 0.24},
		slots.PaletteStripe:   {0.70, 0.69, 0.62},
		slots.PaletteWater:    {0.20, 0.28, 0.33},
		slots.PaletteSidewalk: {0.38, 0.37, 0.36},
		5:                     {0.35, 0.35, 0.35},
		6:                     {0.35, 0.35, 0.35},
		7:                     {0.35, 0.35, 0.35},
	}
)

// PaletteFor returns the palette of a weather.
func PaletteFor(w Weather) *Palette {
	if w == Wet {
		return &WetPalette
	}
	return &DryPalette
}

// SunDirection is the unit vector towards the sun at the given hour: it
// rises in the east (+X) at 6, stands highest (about 60°) at noon, sets in
// the west at 18 and is below the horizon at night.
func SunDirection(hours float64) mgl64.Vec3 {
	a := (math.Mod(hours, 24) - 6) / 12 * math.Pi // 0 at sunrise, π at sunset
	const tilt = 30 * math.Pi / 180               // the sun's path leans south
	x := math.Cos(a)
	up := math.Sin(a)
	d := mgl64.Vec3{x, up * math.Cos(tilt), up * math.Sin(tilt)}
	return d.Normalize()
}

// Light is the lighting of one moment: the direction light comes from (the
// sun by day, the moon at night), its colour, the ambient and sky colours,
// and how much artificial light (lamps, windows) is on.
type Light struct {
	Dir       mgl64.Vec3 // towards the light, unit, never below the horizon
	Colour    mgl32.Vec3
	Ambient   mgl32.Vec3
	Zenith    mgl32.Vec3
	Horizon   mgl32.Vec3
	Night     float32 // 0 by day, 1 at night: lamps and windows on
	SunHeight float32 // sin of the sun's elevation
}

func mix3(a, b mgl32.Vec3, t float32) mgl32.Vec3 { return a.Mul(1 - t).Add(b.Mul(t)) }

func smoothstep(e0, e1, x float64) float64 {
	t := math.Min(1, math.Max(0, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}

// LightAt is the lighting for an hour and a weather.
func LightAt(hours float64, w Weather) Light {
	sun := SunDirection(hours)
	h := sun[1]
	day := float32(smoothstep(-0.1, 0.25, h))  // 0 night .. 1 day
	dusk := float32(smoothstep(0.3, -0.05, h)) // artificial light
	golden := float32(smoothstep(0.35, 0.05, h) * smoothstep(-0.12, 0.02, h))
	l := Light{Night: dusk, SunHeight: float32(h)}
	if h > -0.05 {
		l.Dir = sun
		if l.Dir[1] < 0.05 {
			l.Dir[1] = 0.05
			l.Dir = l.Dir.Normalize()
		}
	} else {
		l.Dir = mgl64.Vec3{-sun[0], -sun[1], -sun[2]} // the moon, opposite
	}
	sunCol := mix3(mgl32.Vec3{1.0, 0.96, 0.88}, mgl32.Vec3{1.0, 0.55, 0.28}, golden)
	moonCol := mgl32.Vec3{0.10, 0.12, 0.20}
	l.Colour = mix3(moonCol, sunCol, day)
	l.Zenith = mix3(mgl32.Vec3{0.02, 0.03, 0.08}, mgl32.Vec3{0.24, 0.45, 0.80}, day)
	l.Horizon = mix3(mgl32.Vec3{0.05, 0.06, 0.12}, mgl32.Vec3{0.70, 0.80, 0.90}, day)
	l.Horizon = mix3(l.Horizon, mgl32.Vec3{0.95, 0.55, 0.35}, golden*0.7)
	l.Ambient = mix3(mgl32.Vec3{0.05, 0.06, 0.10}, mgl32.Vec3{0.34, 0.38, 0.45}, day)
	if w == Wet {
		grey := func(c mgl32.Vec3, k float32) mgl32.Vec3 {
			g := (c[0] + c[1] + c[2]) / 3
			return mix3(c, mgl32.Vec3{g, g, g}, k).Mul(0.8)
		}
		l.Zenith, l.Horizon = grey(l.Zenith, 0.7), grey(l.Horizon, 0.6)
		l.Colour = l.Colour.Mul(0.55)
		l.Ambient = l.Ambient.Mul(1.1)
	}
	return l
}

// TreeMeshFloats is the size of one tree mesh vertex: position, normal, part
// (0 trunk, 1 crown).
const TreeMeshFloats = 7

// TreeMesh is the tree drawn for every instance: a hexagonal trunk and an
// eight-sided double-cone crown, about 9.5 m tall at scale 1, flat-shaded.
func TreeMesh() []float32 {
	var v []float32
	tri := func(a, b, c mgl32.Vec3, part float32) {
		n := b.Sub(a).Cross(c.Sub(a)).Normalize()
		for _, p := range []mgl32.Vec3{a, b, c} {
			v = append(v, p[0], p[1], p[2], n[0], n[1], n[2], part)
		}
	}
	ring := func(i, n int, r, y float32) mgl32.Vec3 {
		a := float64(i) / float64(n) * 2 * math.Pi
		return mgl32.Vec3{r * float32(math.Cos(a)), y, -r * float32(math.Sin(a))}
	}
	const sides = 6
	for i := 0; i < sides; i++ {
		a0, a1 := ring(i, sides, 0.28, 0), ring(i+1, sides, 0.28, 0)
		b0, b1 := ring(i, sides, 0.22, 3.2), ring(i+1, sides, 0.22, 3.2)
		tri(a0, a1, b1, 0)
		tri(a0, b1, b0, 0)
	}
	const crown = 8
	top, bottom := mgl32.Vec3{0, 9.5, 0}, mgl32.Vec3{0, 2.4, 0}
	for i := 0; i < crown; i++ {
		r0, r1 := ring(i, crown, 2.7, 4.6), ring(i+1, crown, 2.7, 4.6)
		tri(r0, r1, top, 1)
		tri(r1, r0, bottom, 1)
	}
	return v
}

// FarFogCutFog is the fog thickness beyond which Options.FarFogCut leaves
// far slots out: under it an object's colour is within 3 % of the sky's.
const FarFogCutFog = 0.97

// FogCutDistance is the distance where the shaders' fog (a smoothstep
// from start to end, lightingGLSL's fogged) reaches FarFogCutFog.
func FogCutDistance(start, end float32) float32 {
	// Invert f = x²(3 - 2x) by bisection: monotonic on [0, 1].
	lo, hi := float32(0), float32(1)
	for range 30 {
		m := (lo + hi) / 2
		if m*m*(3-2*m) < FarFogCutFog {
			lo = m
		} else {
			hi = m
		}
	}
	return start + hi*(end-start)
}
