package slots

import "math"

// The slot vertex format: 6 uint32 words (24 bytes) per vertex, no index
// buffer, every triangle three full vertices. Positions are quantised
// relative to the slot's own origin (the slot table origin the item was
// built against: slots are drawn grouped by it, see render.Group).
//
//	word  bits    meaning
//	0     0-21    x: (x/PosStep + PosBiasXZ), metres relative to the origin
//	0     22-31   z, low 10 bits
//	1     0-11    z, high 12 bits
//	1     12-31   y: (y/PosStep + PosBiasY)
//	2     0-23    colour R, G, B (8 bits each, [0,1])
//	2     24-31   palette: 0 = the RGB above; i+1 = weather palette entry i
//	              (the shader recolours it, G and B keep the dry tint)
//	3     0-15    normal, octahedral, 8+8 bits
//	3     16-23   material (Material*)
//	3     24-31   variant, [0,1) in 1/256
//	4     0-15    street frame: distance along the road, unsigned, in
//	              AlongStep from -AlongBias
//	4     16-31   street frame: distance across, signed, in AcrossStep
//	5     0-7     street frame: half-width in HalfWidthStep
//	5     8-15    lamp flags (Lamp*)
//	5     16-23   occlusion in [0,1] (1 = unoccluded)
//	5     24      detail: the vertex belongs to a small triangle (see
//	              DetailBit); an item's detail triangles come last
//	5     25-31   unused (0)
//
// Precision: a position is rounded to the nearest PosStep (1/256 m), so the
// worst error is half a step, 1.95 mm on each axis (3.4 mm as a distance),
// anywhere in ±PosRangeXZ (8,192 m) across and ±PosRangeY (2,048 m) up from
// the origin. The origin re-bases when the car strays 2 km, so the near and
// far tiers stay well inside. Normals are within 1.2° of the input; colour
// channels within 1/510; along within 1.6 cm, across within 2 mm.
//
// The wide float layout below (FloatsPerVertex floats) is what Decode
// returns and what the per-frame dynamic region is handed to the renderer
// in; the renderer encodes it.
//
//	offset  floats  meaning
//	0       3       position, metres, relative to the slot table's origin
//	3       3       normal
//	6       3       colour RGB in [0,1]; a negative red is -(palette index+1)
//	9       1       material (see Material* constants)
//	10      1       variant (per-building / per-lot random in [0,1))
//	11      1       occlusion in [0,1] (1 = unoccluded)
//	12      3       street frame: distance along the road (m), distance
//	                across it (m, signed), half-width + lamp flags*1000
const (
	WordsPerVertex = 6
	BytesPerVertex = WordsPerVertex * 4

	PosStep    = 1.0 / 256 // metres per position unit
	PosBitsXZ  = 22
	PosBitsY   = 20
	PosBiasXZ  = 1 << (PosBitsXZ - 1)
	PosBiasY   = 1 << (PosBitsY - 1)
	PosRangeXZ = PosBiasXZ * PosStep // ±8192 m
	PosRangeY  = PosBiasY * PosStep  // ±2048 m
	// PosMaxErrorMM is the worst position error per axis, millimetres.
	PosMaxErrorMM = PosStep / 2 * 1000

	AlongStep     = 1.0 / 32 // metres
	AlongBias     = 512      // along is stored from -512 m (to 1,536 m)
	AcrossStep    = 1.0 / 256
	HalfWidthStep = 1.0 / 16

	FloatsPerVertex   = 15
	OffsetPosition    = 0
	OffsetNormal      = 3
	OffsetColour      = 6
	OffsetMaterial    = 9
	OffsetVariant     = 10
	OffsetOcclusion   = 11
	OffsetStreetFrame = 12

	DefaultSlots        = 180
	DefaultVertsPerSlot = 7200
	DefaultDynamicVerts = 16200
	// The far tier (coarse items beyond the near walk, one per lattice
	// edge): its own slots in the same buffer, after the near ones.
	DefaultFarSlots        = 1024
	DefaultFarVertsPerSlot = 960
	MinVertsPerSlot        = 36 // one box: anything smaller cannot hold an item
	MaxSlots               = 4096
	MaxVertsPerSlot        = 1 << 20
	LampFlagScale          = 1000 // street frame z = halfWidth + flags*LampFlagScale
	PaletteRoad            = 0    // palette indices carried in a negative red
	PaletteShoulder        = 1
	PaletteStripe          = 2
	PaletteWater           = 3
	PaletteSidewalk        = 4
	PaletteSize            = 8
)

// Lamp flags in the street frame (its z is halfWidth + flags*LampFlagScale).
// "Across" is positive to the left of the road's direction, so the left
// kerb is at +halfWidth. Lamps stand at every multiple of LampSpacing metres
// of distance along the road.
const (
	LampLeft     = 1
	LampRight    = 2
	LampJunction = 4 // a junction with traffic lights
	LampBridge   = 8 // the road is on a bridge deck
	LampSpacing  = 25.2
)

// Materials tell the shader how to light a surface.
const (
	MaterialDefault  = 0
	MaterialRoad     = 1
	MaterialBuilding = 2
	MaterialWindow   = 3 // lit at dusk
	MaterialWater    = 4
	MaterialFoliage  = 5
	MaterialLamp     = 6 // emissive at dusk
	MaterialCar      = 7
	// MaterialFarFacade is a far-tier building wall: the street frame holds
	// facade coordinates (along the face, height above its base) and the
	// shader draws a window grid on it, lit at dusk by the variant.
	MaterialFarFacade = 8
	FarFloorHeight    = 3.2 // metres per storey of the far facade's window grid
	// MaterialSignal is a traffic signal's lamp: the variant says which
	// (0 red, SignalLampStep amber, 2*SignalLampStep green), the street
	// frame's along its approach's signal offset in seconds
	// (roadgraph/traffic.SignalOffset); the shader lights the lamp the
	// traffic obeys at the world clock.
	MaterialSignal = 9
	SignalLampStep = 0.25
	FarBayWidth    = 3.0 // metres per window bay
)

// PaletteRed is the red channel value that selects palette entry i.
func PaletteRed(i int) float32 { return -float32(i + 1) }

// quant rounds v/step to an integer, clamped to [0, max].
func quant(v, step float64, bias, max int) uint32 {
	// Truncation is floor wherever the result is not clamped to 0, and
	// 1/step folds to a constant once quant is inlined: no call, no divide
	// (this runs for every vertex a worker writes).
	q := int(v*(1/step) + 0.5 + float64(bias))
	if q < 0 {
		q = 0
	} else if q > max {
		q = max
	}
	return uint32(q)
}

func unit8(v float32) uint32 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	return uint32(v*255 + 0.5)
}

// PackPos encodes a position (metres, relative to the origin) into words 0
// and 1.
func PackPos(x, y, z float64) (w0, w1 uint32) {
	qx := quant(x, PosStep, PosBiasXZ, 1<<PosBitsXZ-1)
	qy := quant(y, PosStep, PosBiasY, 1<<PosBitsY-1)
	qz := quant(z, PosStep, PosBiasXZ, 1<<PosBitsXZ-1)
	return qx | qz<<22, qz>>10 | qy<<12
}

// UnpackPos is PackPos's inverse (the shader's slotPos).
func UnpackPos(w0, w1 uint32) (x, y, z float32) {
	qx := int(w0 & (1<<22 - 1))
	qz := int(w0>>22 | (w1&0xfff)<<10)
	qy := int(w1 >> 12)
	return float32(qx-PosBiasXZ) * PosStep, float32(qy-PosBiasY) * PosStep, float32(qz-PosBiasXZ) * PosStep
}

// PackNormal encodes a direction octahedrally in 16 bits, each component as
// round(127·c)+127 so the axes are exact (any length; zero becomes up).
func PackNormal(x, y, z float32) uint32 {
	l := float32(math.Abs(float64(x)) + math.Abs(float64(y)) + math.Abs(float64(z)))
	if l == 0 {
		x, y, z, l = 0, 1, 0, 1
	}
	u, v := x/l, z/l
	if y < 0 { // fold the lower half
		u, v = (1-abs32(v))*sign32(u), (1-abs32(u))*sign32(v)
	}
	return snorm8(u) | snorm8(v)<<8
}

// UnpackNormal is PackNormal's inverse: a unit vector.
func UnpackNormal(w uint32) (x, y, z float32) {
	u := float32(int(w&0xff)-127) / 127
	v := float32(int(w>>8&0xff)-127) / 127
	y = 1 - abs32(u) - abs32(v)
	x, z = u, v
	if y < 0 {
		x, z = (1-abs32(v))*sign32(u), (1-abs32(u))*sign32(v)
	}
	l := float32(math.Sqrt(float64(x*x + y*y + z*z)))
	return x / l, y / l, z / l
}

func snorm8(v float32) uint32 {
	q := int(math.Floor(float64(v*127)+0.5)) + 127
	return uint32(min(max(q, 0), 254))
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func sign32(v float32) float32 {
	if v < 0 {
		return -1
	}
	return 1
}

// PackColour encodes an RGB colour; a negative red selects palette entry
// -(red+1) (see PaletteRed) and G, B are kept as its dry tint.
func PackColour(r, g, b float32) uint32 {
	var pal uint32
	if r < 0 {
		i := int(-r - 1 + 0.5)
		pal = uint32(min(max(i, 0), 254)) + 1
		r = 0
	}
	return unit8(r) | unit8(g)<<8 | unit8(b)<<16 | pal<<24
}

// PackMaterial encodes the normal (PackNormal's 16 bits), material and
// variant into word 3.
func PackMaterial(normal uint32, material int, variant float32) uint32 {
	v := uint32(0)
	if variant > 0 {
		v = uint32(min(int(variant*256), 255))
	}
	return normal | uint32(material&0xff)<<16 | v<<24
}

// PackStreet encodes the street frame into words 4 and 5 (with occlusion).
// frameZ is halfWidth + flags*LampFlagScale, as in the wide layout.
func PackStreet(along, across float64, frameZ, occlusion float32) (w4, w5 uint32) {
	return PackAlongAcross(along, across), PackFrame(frameZ, occlusion)
}

// PackAlongAcross is PackStreet's first word: the street frame's along and
// across.
func PackAlongAcross(along, across float64) uint32 {
	return quant(along, AlongStep, AlongBias*32, 0xffff) | (quant(across, AcrossStep, 1<<15, 0xffff)-1<<15)<<16
}

// PackFrame is PackStreet's second word: half width, lamp flags and
// occlusion (constant over most of an item, so a writer packs it once).
func PackFrame(frameZ, occlusion float32) uint32 {
	flags := 0
	hw := float64(frameZ)
	if frameZ > 0 {
		flags = int(frameZ / LampFlagScale)
		hw = float64(frameZ) - float64(flags*LampFlagScale)
	}
	return quant(hw, HalfWidthStep, 0, 0xff) | uint32(flags&0xff)<<8 | unit8(occlusion)<<16
}

// Vertex is one decoded vertex in the wide layout's terms.
type Vertex struct {
	Pos, Normal, Colour        [3]float32 // Colour[0] < 0: palette entry -(red+1)
	Material                   int
	Variant, Occlusion         float32
	Along, Across, HalfWidth   float32
	Lamps                      int
	Palette                    int // -1: RGB
	PackedColour, PackedNormal uint32
}

// Decode reads the vertex at words w[0:WordsPerVertex].
func Decode(w []uint32) Vertex {
	w = w[:WordsPerVertex:WordsPerVertex]
	var v Vertex
	v.Pos[0], v.Pos[1], v.Pos[2] = UnpackPos(w[0], w[1])
	v.PackedColour, v.PackedNormal = w[2], w[3]&0xffff
	v.Palette = int(w[2]>>24) - 1
	v.Colour = [3]float32{float32(w[2]&0xff) / 255, float32(w[2]>>8&0xff) / 255, float32(w[2]>>16&0xff) / 255}
	if v.Palette >= 0 {
		v.Colour[0] = PaletteRed(v.Palette)
	}
	v.Normal[0], v.Normal[1], v.Normal[2] = UnpackNormal(w[3])
	v.Material = int(w[3] >> 16 & 0xff)
	v.Variant = float32(w[3]>>24) / 256
	v.Along = float32(int(w[4]&0xffff))*AlongStep - AlongBias
	v.Across = float32(int32(w[4])>>16) * AcrossStep
	v.HalfWidth = float32(w[5]&0xff) * HalfWidthStep
	v.Lamps = int(w[5] >> 8 & 0xff)
	v.Occlusion = float32(w[5]>>16&0xff) / 255
	return v
}

// EncodeWide encodes vertices given in the wide float layout (FloatsPerVertex
// floats each) into dst, which must hold len(wide)/FloatsPerVertex vertices;
// it returns the vertex count.
func EncodeWide(dst []uint32, wide []float32) int {
	n := len(wide) / FloatsPerVertex
	if m := len(dst) / WordsPerVertex; m < n {
		n = m
	}
	for i := 0; i < n; i++ {
		f := wide[i*FloatsPerVertex : (i+1)*FloatsPerVertex : (i+1)*FloatsPerVertex]
		d := dst[i*WordsPerVertex : (i+1)*WordsPerVertex : (i+1)*WordsPerVertex]
		d[0], d[1] = PackPos(float64(f[0]), float64(f[1]), float64(f[2]))
		d[2] = PackColour(f[6], f[7], f[8])
		d[3] = PackMaterial(PackNormal(f[3], f[4], f[5]), int(f[9]+0.5), f[10])
		d[4], d[5] = PackStreet(float64(f[12]), float64(f[13]), f[14], f[11])
	}
	return n
}
