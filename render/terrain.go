package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/terrain"
	"citydrive/voxel"
	"citydrive/voxel/mesh"
	"citydrive/voxel/meshpool"
)

// Terrain is the renderer's voxel chunk store. It implements
// meshpool.MeshSink, so the game hands it to the mesh pool:
//
//	pool := meshpool.New(r.Terrain(), workers, nil)
//
// Storage is allocated once in Open and never resized: one buffer of
// Options.TerrainChunks slots × Options.TerrainQuadsPerChunk quads in the
// voxel mesher's own 8-byte format (read by the vertex shader through an
// RG32UI texture buffer), and a per-slot chunk table (RGBA32I texture
// buffer: chunk X, Y, Z). A mesh larger than one slot takes consecutive
// slots (see render/terrain); one that finds no room is not drawn and is
// counted in Stats.TerrainRejected. Insert and Remove must be called from
// the main goroutine (they write GL buffers), like every Renderer method.
type Terrain struct {
	r                  *Renderer
	store              *terrain.Store
	quadBuf, quadTex   uint32
	chunkBuf, chunkTex uint32
	list, shadowList   terrain.List
	table              []int32
}

var _ meshpool.MeshSink = (*Terrain)(nil)

// Terrain returns the renderer's terrain store (the mesh pool's sink).
func (r *Renderer) Terrain() *Terrain { return r.terrain }

// MeshSink is Terrain as the mesh pool's interface, so a caller can hold a
// renderer and a headless stand-in behind one interface.
func (r *Renderer) MeshSink() meshpool.MeshSink { return r.terrain }

func (r *Renderer) setupTerrain() error {
	n, per := r.opt.TerrainChunks, r.opt.TerrainQuadsPerChunk
	var maxTexels int32
	gl.GetIntegerv(gl.MAX_TEXTURE_BUFFER_SIZE, &maxTexels)
	if int64(n)*int64(per) > int64(maxTexels) {
		return fmt.Errorf("render: terrain store of %d×%d quads exceeds GL_MAX_TEXTURE_BUFFER_SIZE (%d texels); lower TerrainChunks or TerrainQuadsPerChunk", n, per, maxTexels)
	}
	t := &Terrain{r: r, store: terrain.NewStore(n, per), table: make([]int32, 0, 64*terrain.ChunkTableInts)}
	r.terrain = t
	gl.GenBuffers(1, &t.quadBuf)
	gl.BindBuffer(gl.TEXTURE_BUFFER, t.quadBuf)
	gl.BufferData(gl.TEXTURE_BUFFER, n*per*mesh.QuadBytes, nil, gl.DYNAMIC_DRAW)
	if err := glError("allocating the terrain quad buffer"); err != nil {
		return fmt.Errorf("%w (%d MB)", err, n*per*mesh.QuadBytes>>20)
	}
	gl.GenBuffers(1, &t.chunkBuf)
	gl.BindBuffer(gl.TEXTURE_BUFFER, t.chunkBuf)
	gl.BufferData(gl.TEXTURE_BUFFER, n*terrain.ChunkTableInts*4, nil, gl.DYNAMIC_DRAW)
	gl.GenTextures(1, &t.quadTex)
	gl.BindTexture(gl.TEXTURE_BUFFER, t.quadTex)
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RG32UI, t.quadBuf)
	gl.GenTextures(1, &t.chunkTex)
	gl.BindTexture(gl.TEXTURE_BUFFER, t.chunkTex)
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32I, t.chunkBuf)
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
	return glError("terrain setup")
}

func (t *Terrain) delete() {
	if t == nil {
		return
	}
	bufs := []uint32{t.quadBuf, t.chunkBuf}
	gl.DeleteBuffers(2, &bufs[0])
	texs := []uint32{t.quadTex, t.chunkTex}
	gl.DeleteTextures(2, &texs[0])
}

// Insert stores m's quads as the mesh of m.Pos, replacing any mesh there:
// one glBufferSubData of the quads as they are (8 bytes each) at the
// chunk's first slot, and one of its chunk-table entries. An empty mesh
// removes the chunk.
func (t *Terrain) Insert(m *mesh.Mesh) {
	if m == nil || t.r.closed {
		return
	}
	t.r.makeCurrent()
	c, res := t.store.Place(m.Pos, m.Quads)
	t.r.shadow.dirty = true
	if res != terrain.Placed {
		return
	}
	per := t.store.QuadsPerSlot()
	gl.BindBuffer(gl.TEXTURE_BUFFER, t.quadBuf)
	gl.BufferSubData(gl.TEXTURE_BUFFER, c.First*per*mesh.QuadBytes, len(m.Quads)*mesh.QuadBytes, gl.Ptr(&m.Quads[0]))
	t.table = t.table[:0]
	for range c.Span {
		t.table = append(t.table, c.Pos.X, c.Pos.Y, c.Pos.Z, 0)
	}
	gl.BindBuffer(gl.TEXTURE_BUFFER, t.chunkBuf)
	gl.BufferSubData(gl.TEXTURE_BUFFER, c.First*terrain.ChunkTableInts*4, len(t.table)*4, gl.Ptr(t.table))
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
}

// Remove forgets the mesh of p. It writes nothing to the GPU: the slots
// are free for the next Insert and are no longer drawn.
func (t *Terrain) Remove(p voxel.ChunkPos) {
	if t.store.Remove(p) {
		t.r.shadow.dirty = true
	}
}

// Has reports whether p has a stored mesh, and its quad count.
func (t *Terrain) Has(p voxel.ChunkPos) (quads int, ok bool) {
	c, ok := t.store.Get(p)
	return c.Quads, ok
}

// Len is the number of chunks stored.
func (t *Terrain) Len() int { return t.store.Len() }

// Capacity is the store's layout: slots, quads per slot, and bytes of quads.
func (t *Terrain) Capacity() (slots, quadsPerSlot, bytes int) {
	return t.store.Slots(), t.store.QuadsPerSlot(), t.store.Slots() * t.store.QuadsPerSlot() * mesh.QuadBytes
}

// fillStats copies the storage counters into s.
func (t *Terrain) fillStats(s *Stats) {
	st := t.store
	s.TerrainResident = st.Len()
	s.TerrainSlotsUsed = st.UsedSlots()
	s.TerrainSlots = st.Slots()
	s.TerrainInserts = st.Inserts
	s.TerrainOversized = st.Oversized
	s.TerrainRejected = st.Rejected
}

// draw issues the one glMultiDrawArrays of a terrain list with program p
// (terrainDepth or terrainMain), positions relative to eye.
func (t *Terrain) draw(p *program, l *terrain.List, eye mgl64.Vec3, ps *PassStats) {
	if l.Len() == 0 {
		return
	}
	e := terrain.EyeAt(eye)
	p.setInt("uQuads", unitTerrainQuads)
	p.setInt("uChunkTable", unitTerrainChunks)
	p.setInt("uQuadsPerSlot", int32(t.store.QuadsPerSlot()))
	gl.Uniform3i(p.loc("uEyeChunk"), e.Chunk[0], e.Chunk[1], e.Chunk[2])
	p.setVec3("uEyeFrac", e.Frac)
	gl.ActiveTexture(gl.TEXTURE0 + unitTerrainQuads)
	gl.BindTexture(gl.TEXTURE_BUFFER, t.quadTex)
	gl.ActiveTexture(gl.TEXTURE0 + unitTerrainChunks)
	gl.BindTexture(gl.TEXTURE_BUFFER, t.chunkTex)
	gl.BindVertexArray(t.r.emptyVAO)
	t.r.multiDrawRanges(gl.TRIANGLES, l.First, l.Count)
	ps.TerrainMultiDraws++
	ps.TerrainChunks += l.Len()
	ps.TerrainQuads += l.Quads
}
