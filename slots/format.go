package slots

// The slot vertex format: 15 float32s (60 bytes) per vertex, no index
// buffer, every triangle three full vertices.
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
	FloatsPerVertex     = 15
	BytesPerVertex      = FloatsPerVertex * 4
	OffsetPosition      = 0
	OffsetNormal        = 3
	OffsetColour        = 6
	OffsetMaterial      = 9
	OffsetVariant       = 10
	OffsetOcclusion     = 11
	OffsetStreetFrame   = 12
	DefaultSlots        = 180
	DefaultVertsPerSlot = 7200
	DefaultDynamicVerts = 16200
	MinVertsPerSlot     = 36 // one box: anything smaller cannot hold an item
	MaxSlots            = 4096
	MaxVertsPerSlot     = 1 << 20
	LampFlagScale       = 1000 // street frame z = halfWidth + flags*LampFlagScale
	PaletteRoad         = 0    // palette indices carried in a negative red
	PaletteShoulder     = 1
	PaletteStripe       = 2
	PaletteWater        = 3
	PaletteSidewalk     = 4
	PaletteSize         = 8
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
)

// PaletteRed is the red channel value that selects palette entry i.
func PaletteRed(i int) float32 { return -float32(i + 1) }
