// Package mesh is the greedy mesher: a pure function of a chunk and its six
// face neighbours producing compact 8-byte quads.
//
// Algorithm: the chunk keeps two occupancy bitmask sets in step with its
// blocks (rowX: bit x of row (y,z); rowZ: bit z of row (y,x)). For every
// signed face direction and every layer along its axis, the 32 rows of
// exposed faces come from one AND-NOT per row of two such masks (this
// layer and the next one along the normal, or the neighbour chunk's
// boundary row; an absent neighbour is air). No bit transposes are needed
// because both mask sets are indexed by y, and rowX covers ±Y and ±Z while
// rowZ covers ±X. Each plane is then merged greedily: the lowest set bit
// starts a run widened along U while bits are set and the block kind is
// equal, then grown along V while the next row holds the same span of the
// same kind. Faces are merged by (block, signed face), so opposite coplanar
// faces never merge (they are in different planes by construction).
package mesh

import (
	"math/bits"

	"citydrive/voxel"
)

// Quad is one merged face, packed into 8 bytes (bit 0 = least significant):
//
//	bits  0– 4  x  local block coordinate of the quad's minimum block
//	bits  5– 9  y
//	bits 10–14  z
//	bits 15–19  w-1  extent along U, in blocks (1..32)
//	bits 20–24  h-1  extent along V, in blocks (1..32)
//	bits 25–27  face (voxel.Face: +X -X +Y -Y +Z -Z)
//	bits 28–35  block id
//	bits 36–63  zero (reserved, e.g. for ambient occlusion)
//
// Axes: ±Y faces have U = X, V = Z; ±X faces have U = Z, V = Y; ±Z faces
// have U = X, V = Y. Block i spans [i, i+1), so a negative face lies on the
// plane at its block coordinate and a positive face at coordinate + 1.
type Quad uint64

// Bytes per quad in the format above.
const QuadBytes = 8

const (
	coordBits  = voxel.ChunkBits
	coordMask  = 1<<coordBits - 1
	shiftX     = 0
	shiftY     = shiftX + coordBits
	shiftZ     = shiftY + coordBits
	shiftW     = shiftZ + coordBits
	shiftH     = shiftW + coordBits
	shiftFace  = shiftH + coordBits
	faceBits   = 3
	shiftBlock = shiftFace + faceBits
	size       = voxel.ChunkSize
	last       = size - 1
)

// Pack builds a quad; w and h are in 1..32.
func Pack(x, y, z, w, h int, f voxel.Face, b voxel.Block) Quad {
	return Quad(uint64(x)<<shiftX | uint64(y)<<shiftY | uint64(z)<<shiftZ |
		uint64(w-1)<<shiftW | uint64(h-1)<<shiftH | uint64(f)<<shiftFace | uint64(b)<<shiftBlock)
}

func (q Quad) X() int             { return int(q>>shiftX) & coordMask }
func (q Quad) Y() int             { return int(q>>shiftY) & coordMask }
func (q Quad) Z() int             { return int(q>>shiftZ) & coordMask }
func (q Quad) W() int             { return int(q>>shiftW)&coordMask + 1 }
func (q Quad) H() int             { return int(q>>shiftH)&coordMask + 1 }
func (q Quad) Face() voxel.Face   { return voxel.Face(q>>shiftFace) & (1<<faceBits - 1) }
func (q Quad) Block() voxel.Block { return voxel.Block(q >> shiftBlock) }

// Blocks calls fn for every unit face the quad covers, with the local
// coordinates of the block that owns it.
func (q Quad) Blocks(fn func(x, y, z int)) {
	ux, uy, uz, vx, vy, vz := axes(q.Face())
	for v := range q.H() {
		for u := range q.W() {
			fn(q.X()+u*ux+v*vx, q.Y()+u*uy+v*vy, q.Z()+u*uz+v*vz)
		}
	}
}

// Corners returns the quad's min and max corners in chunk-local metres
// (relative to the chunk origin); the box is flat along the face normal.
func (q Quad) Corners() (lo, hi [3]int) {
	ux, uy, uz, vx, vy, vz := axes(q.Face())
	lo = [3]int{q.X(), q.Y(), q.Z()}
	w, h := q.W(), q.H()
	hi = [3]int{lo[0] + w*ux + h*vx, lo[1] + w*uy + h*vy, lo[2] + w*uz + h*vz}
	dx, dy, dz := q.Face().Offset()
	if dx+dy+dz > 0 { // positive faces sit one block further along the normal
		lo[0], lo[1], lo[2] = lo[0]+int(dx), lo[1]+int(dy), lo[2]+int(dz)
		hi[0], hi[1], hi[2] = hi[0]+int(dx), hi[1]+int(dy), hi[2]+int(dz)
	}
	return lo, hi
}

// axes gives the unit U and V vectors of a face's plane.
func axes(f voxel.Face) (ux, uy, uz, vx, vy, vz int) {
	switch f {
	case voxel.PosX, voxel.NegX:
		return 0, 0, 1, 0, 1, 0
	case voxel.PosY, voxel.NegY:
		return 1, 0, 0, 0, 0, 1
	default:
		return 1, 0, 0, 0, 1, 0
	}
}

// Neighbours are the six face-adjacent chunks indexed by voxel.Face; nil
// means absent, which counts as air (a transient over-draw beats a hole).
type Neighbours [voxel.NumFaces]*voxel.Chunk

// Mesh is a chunk's quads. Token is the mesh pool's dispatch token.
type Mesh struct {
	Pos   voxel.ChunkPos
	Token uint64
	Quads []Quad
}

// Bytes is the mesh's payload size.
func (m *Mesh) Bytes() int { return len(m.Quads) * QuadBytes }

// strides of U and V in the block array, and of the layer, per axis.
type planeAxes struct{ layer, u, v int }

var (
	axesY = planeAxes{layer: voxel.ChunkArea, u: 1, v: size} // U=x V=z
	axesX = planeAxes{layer: 1, u: size, v: voxel.ChunkArea} // U=z V=y
	axesZ = planeAxes{layer: size, u: 1, v: voxel.ChunkArea} // U=x V=y
)

// Build appends c's greedy mesh to dst and returns it. It allocates only
// when dst must grow; pass the previous result's Quads[:0] to reuse.
func Build(dst []Quad, c *voxel.Chunk, nb *Neighbours) []Quad {
	if c.Empty() {
		return dst
	}
	m := mesher{blocks: c.Blocks(), rx: c.RowsX(), rz: c.RowsZ(), dst: dst}
	m.ub, m.uniform = c.Uniform()
	var none Neighbours
	if nb == nil {
		nb = &none
	}
	lo, hi := 0, last // layers that can hold faces
	full := c.Full()
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		pos := f&1 == 0
		if full { // interior faces of a full chunk are all hidden
			if pos {
				lo, hi = last, last
			} else {
				lo, hi = 0, 0
			}
		}
		for layer := lo; layer <= hi; layer++ {
			var rows [size]uint32
			if m.plane(&rows, f, layer, nb[f]) {
				m.merge(&rows, f, layer)
			}
		}
	}
	return m.dst
}

type mesher struct {
	blocks  *[voxel.ChunkVolume]voxel.Block
	rx, rz  *[voxel.ChunkArea]uint32
	dst     []Quad
	uniform bool
	ub      voxel.Block
}

// plane fills rows with the exposed faces of direction f in layer; it
// reports whether any is set.
func (m *mesher) plane(rows *[size]uint32, f voxel.Face, layer int, n *voxel.Chunk) bool {
	var any uint32
	switch f {
	case voxel.PosY, voxel.NegY: // rows z, bits x: rowX[layer][z] vs the next layer
		cur := m.rx[layer*size : layer*size+size]
		var next []uint32
		adj := layer + 1
		edge := 0
		if f == voxel.NegY {
			adj, edge = layer-1, last
		}
		if adj >= 0 && adj < size {
			next = m.rx[adj*size : adj*size+size]
		} else if n != nil {
			next = n.RowsX()[edge*size : edge*size+size]
		}
		for v := range size {
			r := cur[v]
			if next != nil {
				r &^= next[v]
			}
			rows[v] = r
			any |= r
		}
	case voxel.PosX, voxel.NegX: // rows y, bits z: rowZ[y][layer] vs rowZ[y][layer±1]
		adj, edge := layer+1, 0
		if f == voxel.NegX {
			adj, edge = layer-1, last
		}
		inside := adj >= 0 && adj < size
		var nz *[voxel.ChunkArea]uint32
		if n != nil {
			nz = n.RowsZ()
		}
		for v := range size {
			r := m.rz[v*size+layer]
			if inside {
				r &^= m.rz[v*size+adj]
			} else if nz != nil {
				r &^= nz[v*size+edge]
			}
			rows[v] = r
			any |= r
		}
	default: // ±Z: rows y, bits x: rowX[y][layer] vs rowX[y][layer±1]
		adj, edge := layer+1, 0
		if f == voxel.NegZ {
			adj, edge = layer-1, last
		}
		inside := adj >= 0 && adj < size
		var nx *[voxel.ChunkArea]uint32
		if n != nil {
			nx = n.RowsX()
		}
		for v := range size {
			r := m.rx[v*size+layer]
			if inside {
				r &^= m.rx[v*size+adj]
			} else if nx != nil {
				r &^= nx[v*size+edge]
			}
			rows[v] = r
			any |= r
		}
	}
	return any != 0
}

// merge greedily covers the set bits of rows with rectangles of one block
// kind and appends them as quads.
func (m *mesher) merge(rows *[size]uint32, f voxel.Face, layer int) {
	var ax planeAxes
	switch f {
	case voxel.PosY, voxel.NegY:
		ax = axesY
	case voxel.PosX, voxel.NegX:
		ax = axesX
	default:
		ax = axesZ
	}
	base := layer * ax.layer
	blocks := m.blocks
	for v := range size {
		for rows[v] != 0 {
			r := rows[v]
			u := bits.TrailingZeros32(r)
			w := bits.TrailingZeros32(^(r >> u)) // run of set bits from u
			at := base + u*ax.u + v*ax.v
			t := m.ub
			if !m.uniform {
				t = blocks[at]
				for k := 1; k < w; k++ {
					if blocks[at+k*ax.u] != t {
						w = k
						break
					}
				}
			}
			span := (uint32(1)<<w - 1) << u // w = 32 wraps to all ones
			h := 1
			for v2 := v + 1; v2 < size && rows[v2]&span == span; v2++ {
				if !m.uniform && !sameRun(blocks, at+(v2-v)*ax.v, ax.u, w, t) {
					break
				}
				rows[v2] &^= span
				h++
			}
			rows[v] = r &^ span
			m.dst = append(m.dst, m.pack(f, layer, u, v, w, h, t))
		}
	}
}

func sameRun(blocks *[voxel.ChunkVolume]voxel.Block, at, stride, n int, t voxel.Block) bool {
	for k := range n {
		if blocks[at+k*stride] != t {
			return false
		}
	}
	return true
}

func (m *mesher) pack(f voxel.Face, layer, u, v, w, h int, t voxel.Block) Quad {
	switch f {
	case voxel.PosY, voxel.NegY:
		return Pack(u, layer, v, w, h, f, t)
	case voxel.PosX, voxel.NegX:
		return Pack(layer, v, u, w, h, f, t)
	default:
		return Pack(u, v, layer, w, h, f, t)
	}
}
