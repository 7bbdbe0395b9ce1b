package mesh

// The mesher as it was before issue 16 (one plane at a time, byte-wise kind
// checks), kept as the oracle the new mesher must match quad for quad.

import (
	"math/bits"

	"citydrive/voxel"
)

// strides of U and V in the block array, and of the layer, per axis.
type oraclePlaneAxes struct{ layer, u, v int }

var (
	oracleAxesY = oraclePlaneAxes{layer: voxel.ChunkArea, u: 1, v: size} // U=x V=z
	oracleAxesX = oraclePlaneAxes{layer: 1, u: size, v: voxel.ChunkArea} // U=z V=y
	oracleAxesZ = oraclePlaneAxes{layer: size, u: 1, v: voxel.ChunkArea} // U=x V=y
)

// oracleBuild appends c's greedy mesh to dst and returns it. It allocates only
// when dst must grow; pass the previous result's Quads[:0] to reuse.
func oracleBuild(dst []Quad, c *voxel.Chunk, nb *Neighbours) []Quad {
	if c.Empty() {
		return dst
	}
	m := oracleMesher{blocks: c.Blocks(), rx: c.RowsX(), rz: c.RowsZ(), dst: dst}
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

type oracleMesher struct {
	blocks  *[voxel.ChunkVolume]voxel.Block
	rx, rz  *[voxel.ChunkArea]uint32
	dst     []Quad
	uniform bool
	ub      voxel.Block
}

// plane fills rows with the exposed faces of direction f in layer; it
// reports whether any is set.
func (m *oracleMesher) plane(rows *[size]uint32, f voxel.Face, layer int, n *voxel.Chunk) bool {
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
func (m *oracleMesher) merge(rows *[size]uint32, f voxel.Face, layer int) {
	var ax oraclePlaneAxes
	switch f {
	case voxel.PosY, voxel.NegY:
		ax = oracleAxesY
	case voxel.PosX, voxel.NegX:
		ax = oracleAxesX
	default:
		ax = oracleAxesZ
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
				if !m.uniform && !oracleSameRun(blocks, at+(v2-v)*ax.v, ax.u, w, t) {
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

func oracleSameRun(blocks *[voxel.ChunkVolume]voxel.Block, at, stride, n int, t voxel.Block) bool {
	for k := range n {
		if blocks[at+k*stride] != t {
			return false
		}
	}
	return true
}

func (m *oracleMesher) pack(f voxel.Face, layer, u, v, w, h int, t voxel.Block) Quad {
	switch f {
	case voxel.PosY, voxel.NegY:
		return Pack(u, layer, v, w, h, f, t)
	case voxel.PosX, voxel.NegX:
		return Pack(layer, v, u, w, h, f, t)
	default:
		return Pack(u, v, layer, w, h, f, t)
	}
}
