//go:build js && wasm

package webgl

import (
	"syscall/js"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"citydrive/render/glsl"
	"citydrive/render/scene"
	"citydrive/render/terrain"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
	"citydrive/voxel/meshpool"
)

// The voxel ground: the desktop's store (render/terrain: slots of quads,
// first fit, chunk table) and shaders (glsl.TerrainGLSL, quads expanded
// from gl_VertexID), with the quads and the chunk table in 2-D integer
// textures glsl.TerrainTexWidth wide instead of texture buffers, which
// WebGL2 lacks: quad i is texel (i mod width, i / width) of an RG32UI
// texture, slot s's chunk texel s of an RGBA32I one.

// terrainSlots is the browser's store: 1,024 slots of 256 quads (2 MiB of
// quads, a 1,024 × 256 texture). The page's residency (ground.DefaultRadius,
// 9 × 9 columns) holds a few hundred chunks with quads; the desktop's 4,096
// are for its larger radius.
const (
	terrainSlots        = 1024
	terrainQuadsPerSlot = terrain.DefaultQuadsPerSlot
)

type terrainGL struct {
	d             *Display
	prog          *program
	store         *terrain.Store
	list          terrain.List
	quads, chunks js.Value // textures
	vao           js.Value // empty: the vertices come from gl_VertexID
	table         []int32
	blockColours  js.Value // Float32Array of terrain.BlockColours
	changed       bool     // a chunk came or went since the shadow map was drawn
}

var _ meshpool.MeshSink = (*terrainGL)(nil)

func (d *Display) setupTerrain() error {
	t := &d.terrain
	t.d = d
	var err error
	if t.prog, err = d.link("terrain", glsl.Source(glsl.ES, nil, glsl.TerrainMainVert), glsl.Source(glsl.ES, nil, glsl.TerrainFrag)); err != nil {
		return err
	}
	t.store = terrain.NewStore(terrainSlots, terrainQuadsPerSlot)
	const w = glsl.TerrainTexWidth
	rows := (terrainSlots*terrainQuadsPerSlot + w - 1) / w
	t.quads = d.intTexture(unitTerrainQuads, glRG32UI, w, rows)
	t.chunks = d.intTexture(unitTerrainChunks, glRGBA32I, w, (terrainSlots+w-1)/w)
	t.vao = d.gl.Call("createVertexArray")
	t.table = make([]int32, 0, 4*terrain.ChunkTableInts)
	t.blockColours = js.Global().Get("Float32Array").New(3 * len(terrain.BlockColours))
	for i, c := range terrain.BlockColours {
		for k := range 3 {
			t.blockColours.SetIndex(3*i+k, c[k])
		}
	}
	return nil
}

// intTexture allocates an integer texture on unit (left bound there):
// nearest filtering, as integer textures need to be complete.
func (d *Display) intTexture(unit, format, w, h int) js.Value {
	gl := d.gl
	tex := gl.Call("createTexture")
	gl.Call("activeTexture", glTexture0+unit)
	gl.Call("bindTexture", glTexture2D, tex)
	gl.Call("texStorage2D", glTexture2D, 1, format, w, h)
	gl.Call("texParameteri", glTexture2D, glTexMinFilter, glNearest)
	gl.Call("texParameteri", glTexture2D, glTexMagFilter, glNearest)
	return tex
}

// Insert stores m as the mesh of its chunk (meshpool.MeshSink): its quads
// as they are, 8 bytes a texel, one texSubImage2D a texture row.
func (t *terrainGL) Insert(m *mesh.Mesh) {
	if m == nil {
		return
	}
	c, res := t.store.Place(m.Pos, m.Quads)
	t.changed = true
	if res != terrain.Placed {
		return
	}
	d, gl := t.d, t.d.gl
	const w = glsl.TerrainTexWidth
	b := unsafe.Slice((*byte)(unsafe.Pointer(&m.Quads[0])), len(m.Quads)*mesh.QuadBytes)
	words := d.stageBytes(b).u32
	gl.Call("activeTexture", glTexture0+unitTerrainQuads)
	gl.Call("bindTexture", glTexture2D, t.quads)
	rowRuns(c.First*t.store.QuadsPerSlot(), len(m.Quads), w, func(x, y, from, n int) {
		gl.Call("texSubImage2D", glTexture2D, 0, x, y, n, 1, glRGInteger, glUnsignedInt, words, from*2)
	})
	t.table = t.table[:0]
	for range c.Span {
		t.table = append(t.table, c.Pos.X, c.Pos.Y, c.Pos.Z, 0)
	}
	ints := d.stageBytes(unsafe.Slice((*byte)(unsafe.Pointer(&t.table[0])), len(t.table)*4)).i32
	gl.Call("activeTexture", glTexture0+unitTerrainChunks)
	gl.Call("bindTexture", glTexture2D, t.chunks)
	rowRuns(c.First, c.Span, w, func(x, y, from, n int) {
		gl.Call("texSubImage2D", glTexture2D, 0, x, y, n, 1, glRGBAInteger, glInt, ints, from*terrain.ChunkTableInts)
	})
}

// Remove forgets p's mesh: nothing is written, its slots are not drawn.
func (t *terrainGL) Remove(p voxel.ChunkPos) {
	if t.store.Remove(p) {
		t.changed = true
	}
}

// TerrainChunk is the stored record of chunk p's mesh (the page's probe
// of what an edit re-meshed).
func (d *Display) TerrainChunk(p voxel.ChunkPos) (terrain.Chunk, bool) {
	return d.terrain.store.Get(p)
}

// MeshSink is the voxel ground's store (the mesh pool's sink).
func (d *Display) MeshSink() meshpool.MeshSink { return &d.terrain }

// drawTerrain multi-draws list with p (in use, uViewProj set), positions
// relative to eye; back faces culled (chunk faces wind counter-clockwise
// from outside).
func (d *Display) drawTerrain(p *program, l *terrain.List, fs *frameState, eyeShadow bool, ps *scene.PassStats) {
	if l.Len() == 0 {
		return
	}
	gl := d.gl
	eye := fs.f.Camera.Position
	if eyeShadow {
		eye = d.shadow.state.Centre
	}
	e := terrain.EyeAt(eye)
	p.setInt("uQuads", unitTerrainQuads)
	p.setInt("uChunkTable", unitTerrainChunks)
	p.setInt("uQuadsPerSlot", d.terrain.store.QuadsPerSlot())
	gl.Call("uniform3i", p.loc("uEyeChunk"), e.Chunk[0], e.Chunk[1], e.Chunk[2])
	p.setVec3("uEyeFrac", e.Frac)
	gl.Call("bindVertexArray", d.terrain.vao)
	gl.Call("enable", glCullFace)
	d.multiDrawLists(l.First, l.Count)
	gl.Call("disable", glCullFace)
	ps.TerrainMultiDraws++
	ps.TerrainChunks += l.Len()
	ps.TerrainQuads += l.Quads
}

// terrainMain draws the visible chunks lit, in the main pass.
func (d *Display) terrainMain(fs *frameState, ps *scene.PassStats) {
	p := d.terrain.prog
	d.gl.Call("useProgram", p.p)
	d.setLighting(p, fs)
	p.setMat4("uViewProj", fs.vp32)
	d.setPalette(p)
	d.gl.Call("uniform3fv", p.loc("uBlockColour[0]"), d.terrain.blockColours)
	p.setVec4("uFlat", mgl32.Vec4{})
	d.drawTerrain(p, &d.terrain.list, fs, false, ps)
}

// terrainStats copies the store's counters into st.
func (t *terrainGL) stats(st *scene.Stats) {
	s := t.store
	st.TerrainResident = s.Len()
	st.TerrainSlotsUsed = s.UsedSlots()
	st.TerrainSlots = s.Slots()
	st.TerrainInserts = s.Inserts
	st.TerrainOversized = s.Oversized
	st.TerrainRejected = s.Rejected
}
