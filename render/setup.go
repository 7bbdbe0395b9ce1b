package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"

	"citydrive/render/hud"
	"citydrive/render/scene"
	"citydrive/slots"
)

// hudVerts is the HUD buffer's capacity: the text lines, the minimap's
// roads (six vertices a segment, a few hundred segments) and the pause
// menu, with room to spare (1.5 MiB).
const hudVerts = 48000

// setup creates every GL object once. The world vertex buffer is sized
// here and never resized: slots*vertsPerSlot + dynamicVerts vertices of
// slots.BytesPerVertex bytes.
func (r *Renderer) setup() error {
	var err error
	progs := []struct {
		dst        **program
		name, v, f string
	}{
		{&r.world, "world", src(worldVert), src(worldFrag)},
		{&r.depth, "depth", src(depthVert), src(depthFrag)},
		{&r.trees, "trees", src(treeVert), src(treeFrag)},
		{&r.sky, "sky", src(skyVert), src(skyFrag)},
		{&r.lines, "lines", src(lineVert), src(lineFrag)},
		{&r.hudProg, "hud", src(hudVert), src(hudFrag)},
		{&r.terrainMain, "terrain", src(terrainMainVert), src(terrainFrag)},
		{&r.terrainDepth, "terrain depth", src(terrainDepthVert), src(depthFrag)},
		{&r.depthFar, "far depth", src(depthFarVert), src(depthFarFrag)},
		{&r.worldFar, "far world", src(worldVert), farSrc(worldFrag)},
		{&r.floorProg, "floor", src(floorVert), src(floorFrag)},
	}
	for _, p := range progs {
		if *p.dst, err = newProgram(p.name, p.v, p.f); err != nil {
			return fmt.Errorf("render: %w", err)
		}
	}

	// The one world vertex buffer.
	total := r.opt.Layout.TotalVerts()
	r.farFirst = int32(r.opt.Layout.FarFirst())
	r.dynamicFirst = int32(r.opt.Layout.DynamicFirst())
	r.slotCounts = make([]int, r.opt.Layout.Near.Slots)
	r.slotLOD = scene.LOD{Coarse: make([]int, r.opt.Layout.Near.Slots), Beyond: r.opt.DetailBeyond, CullBeyond: r.opt.CullBackFacesBeyond}
	gl.GenVertexArrays(1, &r.vao)
	gl.BindVertexArray(r.vao)
	gl.GenBuffers(1, &r.vbo)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, total*slots.BytesPerVertex, nil, gl.DYNAMIC_DRAW)
	if err := glError("allocating the vertex buffer"); err != nil {
		return fmt.Errorf("%w (%d MB)", err, total*slots.BytesPerVertex>>20)
	}
	// The 24-byte vertex as integers (slots/format.go; decoded by
	// slotVertexGLSL): words 0-3 at location 0, words 4-5 at location 1.
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribIPointerWithOffset(0, 4, gl.UNSIGNED_INT, slots.BytesPerVertex, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribIPointerWithOffset(1, 2, gl.UNSIGNED_INT, slots.BytesPerVertex, 16)
	r.dynWords = make([]uint32, r.opt.Layout.Near.DynamicVerts*slots.WordsPerVertex)

	// Trees: the mesh and a fixed-capacity instance buffer.
	mesh := scene.TreeMesh()
	r.treeVerts = int32(len(mesh) / scene.TreeMeshFloats)
	r.treeVAO, r.treeMesh = meshVAO(mesh, scene.TreeMeshFloats)
	gl.GenBuffers(1, &r.treeInst)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.treeInst)
	gl.BufferData(gl.ARRAY_BUFFER, r.opt.MaxTrees*scene.TreeFloats*4, nil, gl.STREAM_DRAW)
	const is = scene.TreeFloats * 4
	gl.EnableVertexAttribArray(5)
	gl.VertexAttribPointerWithOffset(5, 3, gl.FLOAT, false, is, 0)
	gl.VertexAttribDivisor(5, 1)
	gl.EnableVertexAttribArray(6)
	gl.VertexAttribPointerWithOffset(6, 2, gl.FLOAT, false, is, 12)
	gl.VertexAttribDivisor(6, 1)

	if err := r.setupVehicles(); err != nil {
		return fmt.Errorf("render: %w", err)
	}

	// Debug lines: room for every slot box of two groups.
	r.lineCap = r.opt.Layout.Near.Slots * scene.MaxGroups * 24
	gl.GenVertexArrays(1, &r.lineVAO)
	gl.BindVertexArray(r.lineVAO)
	gl.GenBuffers(1, &r.lineVBO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.lineVBO)
	gl.BufferData(gl.ARRAY_BUFFER, r.lineCap*scene.LineFloats*4, nil, gl.STREAM_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, scene.LineFloats*4, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, scene.LineFloats*4, 12)

	// HUD quads.
	r.hudCap = hudVerts
	gl.GenVertexArrays(1, &r.hudVAO)
	gl.BindVertexArray(r.hudVAO)
	gl.GenBuffers(1, &r.hudVBO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.hudVBO)
	gl.BufferData(gl.ARRAY_BUFFER, r.hudCap*hud.VertexFloats*4, nil, gl.STREAM_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, hud.VertexFloats*4, 0)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 2, gl.FLOAT, false, hud.VertexFloats*4, 8)
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 4, gl.FLOAT, false, hud.VertexFloats*4, 16)

	gl.GenVertexArrays(1, &r.emptyVAO)
	gl.BindVertexArray(0)

	// Font atlas.
	atlas := hud.Atlas()
	gl.GenTextures(1, &r.fontTex)
	gl.BindTexture(gl.TEXTURE_2D, r.fontTex)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, hud.AtlasW, hud.AtlasH, 0, gl.RED, gl.UNSIGNED_BYTE, gl.Ptr(atlas))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)

	// Per-slot build-age tint (debug view), one RGBA texel per slot.
	r.ageData = make([]float32, r.opt.Layout.Near.Slots*4)
	gl.GenTextures(1, &r.ageTex)
	gl.BindTexture(gl.TEXTURE_1D, r.ageTex)
	gl.TexImage1D(gl.TEXTURE_1D, 0, gl.RGBA32F, int32(r.opt.Layout.Near.Slots), 0, gl.RGBA, gl.FLOAT, gl.Ptr(r.ageData))
	gl.TexParameteri(gl.TEXTURE_1D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_1D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)

	r.timer.init()
	r.defaultDepth = hasDefaultDepth()
	r.setupFar()
	if err := r.setupTerrain(); err != nil {
		return err
	}
	if err := r.shadow.init(r.opt.Profile.ShadowSize); err != nil {
		return err
	}
	return glError("setup")
}
