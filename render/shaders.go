package render

import "citydrive/render/glsl"

// The shader sources live in render/glsl, shared with the browser's WebGL2
// renderer; these are the desktop dialect's names for them.
const (
	nearMaskGLSL     = glsl.NearMaskGLSL
	depthFarVert     = glsl.DepthFarVert
	depthFarFrag     = glsl.DepthFarFrag
	slotVertexGLSL   = glsl.SlotVertexGLSL
	worldVert        = glsl.WorldVert
	depthVert        = glsl.DepthVert
	depthFrag        = glsl.DepthFrag
	skyColourGLSL    = glsl.SkyColourGLSL
	lightingGLSL     = glsl.LightingGLSL
	worldFrag        = glsl.WorldFrag
	treeVert         = glsl.TreeVert
	treeFrag         = glsl.TreeFrag
	skyVert          = glsl.SkyVert
	skyFrag          = glsl.SkyFrag
	lineVert         = glsl.LineVert
	lineFrag         = glsl.LineFrag
	hudVert          = glsl.HudVert
	hudFrag          = glsl.HudFrag
	terrainGLSL      = glsl.TerrainGLSL
	terrainDepthVert = glsl.TerrainDepthVert
	terrainMainVert  = glsl.TerrainMainVert
	terrainFrag      = glsl.TerrainFrag
	floorVert        = glsl.FloorVert
	floorFrag        = glsl.FloorFrag
	vehicleVert      = glsl.VehicleVert
	vehicleFrag      = glsl.VehicleFrag
)

func src(parts ...string) string { return glsl.Source(glsl.Desktop, nil, parts...) }

// farSrc is src with FAR_MASK defined (the far tier's main-pass program).
func farSrc(parts ...string) string { return defSrc([]string{"FAR_MASK"}, parts...) }

// defSrc is src with each of defs defined (to 1) after the header.
func defSrc(defs []string, parts ...string) string { return glsl.Source(glsl.Desktop, defs, parts...) }
