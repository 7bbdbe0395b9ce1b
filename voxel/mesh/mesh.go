// Package mesh is the greedy mesher: a pure function of a chunk and its six
// face neighbours producing compact 8-byte quads.
//
// Algorithm. The chunk keeps two occupancy bitmask sets in step with its
// blocks (rowX: bit x of row (y,z); rowZ: bit z of row (y,x)). One pass over
// the chunk's non-empty Y layers computes all six face masks: per row, one
// AND-NOT against the next row along the normal (the layer above/below for
// ±Y, the next z row for ±Z, the next x row of rowZ for ±X, or the
// neighbour chunk's boundary row; an absent neighbour is air). No bit
// transposes are needed: rowX covers ±Y and ±Z, rowZ covers ±X. Inside a
// full layer only the edge rows against the neighbours are computed (and
// no ±Y rows between full layers); two consecutive other layers are done
// together, their rows paired in 64-bit words. The pass also records, per
// plane, which rows hold faces, so the merges visit only planes with faces
// and, within them, only those rows (rows without faces are mostly not
// even written).
//
// Each plane is then merged greedily, in a fixed order (face, plane, row V,
// U): the lowest set bit starts a run widened along U while bits are set
// and the block kind is equal, then grown along V while the next row holds
// the same span of the same kind. Kinds are compared only over a run's
// faces (the next block first, then eight blocks per 64-bit word where the
// row is contiguous in memory); single-kind chunks skip kinds altogether.
// Rows of many short runs (noise) are scanned by masks instead, which find
// the faces that merge with nothing and emit them without per-face
// branches (mergeMixed). Quads are packed inline into a fixed scratch
// array and appended to the output about once per 1024. Faces are merged
// by (block, signed face), so opposite coplanar faces never merge.
package mesh

import (
	"math/bits"
	"sync"
	"unsafe"

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

// shiftCount masks variable shift counts: a masked count compiles to a bare
// shift, without the fix-up Go adds for counts ≥ the width.
const shiftCount = 63

// dir is one signed face direction: where its plane, U and V coordinates
// go in the quad, and their strides in the block array.
type dir struct {
	sl, su, sv uint // quad field shifts of plane, U, V
	bl, bu, bv int  // block index strides of plane, U, V
}

var dirs = [voxel.NumFaces]dir{
	voxel.PosX: {sl: shiftX, su: shiftZ, sv: shiftY, bl: 1, bu: size, bv: voxel.ChunkArea},
	voxel.NegX: {sl: shiftX, su: shiftZ, sv: shiftY, bl: 1, bu: size, bv: voxel.ChunkArea},
	voxel.PosY: {sl: shiftY, su: shiftX, sv: shiftZ, bl: voxel.ChunkArea, bu: 1, bv: size},
	voxel.NegY: {sl: shiftY, su: shiftX, sv: shiftZ, bl: voxel.ChunkArea, bu: 1, bv: size},
	voxel.PosZ: {sl: shiftZ, su: shiftX, sv: shiftY, bl: size, bu: 1, bv: voxel.ChunkArea},
	voxel.NegZ: {sl: shiftZ, su: shiftX, sv: shiftY, bl: size, bu: 1, bv: voxel.ChunkArea},
}

// scratch is one Build's working set, pooled (24 KiB of face masks, 16 KiB
// of gathered quads).
type scratch struct {
	// rows[f][p][v]: exposed faces of direction f in plane p, row v (bit u).
	// Only rows that may hold faces are written (those of non-empty
	// layers; of a full layer only its edge rows; paired layers and +Y
	// skip rows without faces); readers consult live, so the 24 KiB are
	// not cleared between builds.
	rows   [voxel.NumFaces][size][size]uint32
	live   [voxel.NumFaces][size]uint32 // bit v: row v of the plane holds a face
	planes [voxel.NumFaces]uint32       // bit p: plane p holds a face
	quads  [quadBuf]Quad                // quads not yet appended to the output
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// noRows stands in for an absent neighbour: all air.
var noRows [voxel.ChunkArea]uint32

func rowsX(c *voxel.Chunk) *[voxel.ChunkArea]uint32 {
	if c == nil {
		return &noRows
	}
	return c.RowsX()
}

func rowsZ(c *voxel.Chunk) *[voxel.ChunkArea]uint32 {
	if c == nil {
		return &noRows
	}
	return c.RowsZ()
}

// nonZero is 1 if r has any bit set, else 0, without a branch (the 64-bit
// negation of a 32-bit value sets the top bit unless the value is 0).
func nonZero(r uint32) uint32 { return uint32(-uint64(r) >> 63) }

// Build appends c's greedy mesh to dst and returns it. It allocates only
// when dst must grow (pass the previous result's Quads[:0] to reuse) and
// when its pooled 40 KiB scratch must be made (first use, or after a GC
// emptied the pool).
func Build(dst []Quad, c *voxel.Chunk, nb *Neighbours) []Quad {
	if c.Empty() {
		return dst
	}
	var none Neighbours
	if nb == nil {
		nb = &none
	}
	if c.Full() && buried(nb) { // deep underground: nothing shows
		return dst
	}
	s := scratchPool.Get().(*scratch)
	if c.Full() {
		s.fullFaces(nb)
	} else {
		s.faces(c, nb)
	}
	ub, uniform := c.Uniform()
	k := 0 // quads gathered in s.quads
	for f := voxel.Face(0); f < voxel.NumFaces; f++ {
		if s.planes[f] == 0 {
			continue
		}
		if uniform {
			dst, k = s.mergeUniform(dst, k, f, ub)
		} else {
			dst, k = s.mergeMixed(dst, k, c.Blocks(), f)
		}
	}
	dst = append(dst, s.quads[:k]...)
	scratchPool.Put(s)
	return dst
}

const fullRow = ^uint32(0)

// buried reports whether all six neighbours are present and full.
func buried(nb *Neighbours) bool {
	for _, n := range nb {
		if n == nil || !n.Full() {
			return false
		}
	}
	return true
}

// faces computes every face row of the chunk's non-empty layers in one
// pass and which planes hold faces. Inside a full layer there are no ±X or
// ±Z faces, only its edge rows against the neighbours can show, and a full
// layer between two full layers has no ±Y faces either: in solid ground
// most layers are full, and these skip most of their rows.
func (s *scratch) faces(c *voxel.Chunk, nb *Neighbours) {
	layers, full := c.LayerMasks()
	rx, rz := c.RowsX(), c.RowsZ()
	upN, dnN := rowsX(nb[voxel.PosY]), rowsX(nb[voxel.NegY])
	pzN, nzN := rowsX(nb[voxel.PosZ]), rowsX(nb[voxel.NegZ])
	pxN, nxN := rowsZ(nb[voxel.PosX]), rowsZ(nb[voxel.NegX])
	live := &s.live
	*live = [voxel.NumFaces][size]uint32{}
	for ls := layers; ls != 0; ls &= ls - 1 {
		y := bits.TrailingZeros32(ls)
		cur := (*[size]uint32)(rx[y*size:])
		up := (*[size]uint32)(upN[:]) // layer 0 of the chunk above
		if y < last {
			up = (*[size]uint32)(rx[(y+1)*size:])
		}
		dn := (*[size]uint32)(dnN[last*size:])
		if y > 0 {
			dn = (*[size]uint32)(rx[(y-1)*size:])
		}
		if full>>y&1 != 0 {
			if y == 0 || y == last || full>>(y-1)&7 != 7 { // a face may show above or below
				s.facesY(y, cur, up, dn)
			}
			// the edge rows against the neighbours (the other rows stay dead)
			a, b := ^pzN[y*size], ^nzN[y*size+last]
			s.rows[voxel.PosZ][last][y], s.rows[voxel.NegZ][0][y] = a, b
			live[voxel.PosZ][last] |= nonZero(a) << y
			live[voxel.NegZ][0] |= nonZero(b) << y
			a, b = ^pxN[y*size], ^nxN[y*size+last]
			s.rows[voxel.PosX][last][y], s.rows[voxel.NegX][0][y] = a, b
			live[voxel.PosX][last] |= nonZero(a) << y
			live[voxel.NegX][0] |= nonZero(b) << y
			continue
		}
		s.facesY(y, cur, up, dn)
		if y < last && (layers&^full)>>(y+1)&1 != 0 { // the next layer too
			y1 := y + 1
			up1 := (*[size]uint32)(upN[:])
			if y1 < last {
				up1 = (*[size]uint32)(rx[(y1+1)*size:])
			}
			s.facesY(y1, (*[size]uint32)(rx[y1*size:]), up1, cur)
			s.facesAcross2(y, (*[2 * size]uint32)(rx[y*size:]), (*[2 * size]uint32)(rz[y*size:]),
				pair(pzN[y*size], pzN[y1*size]), pair(nzN[y*size+last], nzN[y1*size+last]),
				pair(pxN[y*size], pxN[y1*size]), pair(nxN[y*size+last], nxN[y1*size+last]))
			ls &^= 1 << y1
			continue
		}

		// ±Z: row z against rows z±1 of the same layer; ±X: rowZ's row x
		// against rows x±1.
		s.facesAcross(y, cur, (*[size]uint32)(rz[y*size:]), pzN[y*size], nzN[y*size+last], pxN[y*size], nxN[y*size+last])
	}
	s.findPlanes()
}

// facesY computes the ±Y face rows of layer y (rows cur, the layers above
// and below up and dn). Ground stands on ground: −Y faces (overhangs) are
// rare in terrain, so the first pass only tests for them, and a second
// writes them where there are any.
func (s *scratch) facesY(y int, cur, up, dn *[size]uint32) {
	// Two rows per 64-bit word (rows z and z+1 lie side by side in all).
	y &= last
	py := (*[size / 2]uint64)(unsafe.Pointer(&s.rows[voxel.PosY][y]))
	c := (*[size / 2]uint64)(unsafe.Pointer(cur))
	u := (*[size / 2]uint64)(unsafe.Pointer(up))
	d := (*[size / 2]uint64)(unsafe.Pointer(dn))
	var liveP uint32
	var anyN uint64
	for j := range size / 2 {
		r := c[j]
		a := r &^ u[j]
		anyN |= r &^ d[j]
		if a == 0 { // no face: the row stays dead, unwritten (see facesAcross2)
			continue
		}
		py[j] = a
		liveP |= nonZero2(a) << (2 * j)
	}
	var liveN uint32
	if anyN != 0 {
		ny := (*[size / 2]uint64)(unsafe.Pointer(&s.rows[voxel.NegY][y]))
		for j := range size / 2 {
			b := c[j] &^ d[j]
			ny[j] = b
			liveN |= nonZero2(b) << (2 * j)
		}
	}
	s.live[voxel.PosY][y], s.live[voxel.NegY][y] = liveP, liveN
}

// facesAcross computes, for layer y, the face rows of the directions
// along which its rows follow each other: ±Z from rowX (cur), ±X from
// rowZ (curZ), row i against rows i±1 and the neighbours' touching rows
// (hiZ, hiX after row 31, loZ, loX before row 0). Both in one loop: the
// loop's own instructions are a good part of so short a body.
func (s *scratch) facesAcross(y int, cur, curZ *[size]uint32, hiZ, loZ, hiX, loX uint32) {
	y &= last
	pz, nz := &s.rows[voxel.PosZ], &s.rows[voxel.NegZ]
	px, nx := &s.rows[voxel.PosX], &s.rows[voxel.NegX]
	lpz, lnz := &s.live[voxel.PosZ], &s.live[voxel.NegZ]
	lpx, lnx := &s.live[voxel.PosX], &s.live[voxel.NegX]
	prevZ, prevX := loZ, loX
	for i := range last {
		r, q := cur[i], curZ[i]
		a, b := r&^cur[i+1], r&^prevZ
		c, d := q&^curZ[i+1], q&^prevX
		prevZ, prevX = r, q
		pz[i][y], nz[i][y], px[i][y], nx[i][y] = a, b, c, d
		lpz[i] |= nonZero(a) << y
		lnz[i] |= nonZero(b) << y
		lpx[i] |= nonZero(c) << y
		lnx[i] |= nonZero(d) << y
	}
	r, q := cur[last], curZ[last]
	a, b := r&^hiZ, r&^prevZ
	c, d := q&^hiX, q&^prevX
	pz[last][y], nz[last][y], px[last][y], nx[last][y] = a, b, c, d
	lpz[last] |= nonZero(a) << y
	lnz[last] |= nonZero(b) << y
	lpx[last] |= nonZero(c) << y
	lnx[last] |= nonZero(d) << y
}

// findPlanes sets each direction's plane mask from its live rows.
func (s *scratch) findPlanes() {
	for f := range s.live {
		var m uint32
		for p, l := range &s.live[f] {
			m |= nonZero(l) << p
		}
		s.planes[f] = m
	}
}

// edgePlane is the boundary plane of direction f: negative faces lie in
// plane 0, positive ones in plane 31.
func edgePlane(f int) int { return last * (1 - f&1) }

// maxPlaneQuads bounds one plane's quads: at most one per face.
const maxPlaneQuads = size * size

// quadBuf is the size of the scratch's quad array: room for a whole plane
// after up to one plane's worth already gathered.
const quadBuf = 2 * maxPlaneQuads

// flush appends the k quads gathered in s.quads to dst when another plane
// might not fit after them, and returns the new dst and k. The merge loops
// write to a fixed array without bounds checks or growth tests, and the
// output grows (and is copied into) about once per 1024 quads, not once
// per plane: smooth terrain has many planes of a few quads each.
func (s *scratch) flush(dst []Quad, k int) ([]Quad, int) {
	if k > quadBuf-maxPlaneQuads {
		return append(dst, s.quads[:k]...), 0
	}
	return dst, k
}

// vEnd is one past the last row of the run of live rows above v: a quad
// grows no further (dead rows hold no faces, or stale bits of an earlier
// build).
func vEnd(live uint32, v int) int {
	return v + 1 + bits.TrailingZeros64(^(uint64(live) >> ((v + 1) & shiftCount)))
}

// mergeUniform merges the planes of direction f of a single-kind chunk:
// runs are runs of set bits.
func (s *scratch) mergeUniform(dst []Quad, k int, f voxel.Face, t voxel.Block) ([]Quad, int) {
	d := &dirs[f]
	su, sv := d.su&shiftCount, d.sv&shiftCount
	out := &s.quads
	for planes := s.planes[f]; planes != 0; planes &= planes - 1 {
		p := bits.TrailingZeros32(planes)
		rows := &s.rows[f][p]
		plane := uint64(f)<<shiftFace | uint64(p)<<(d.sl&shiftCount) | uint64(t)<<shiftBlock
		live := s.live[f][p]
		dst, k = s.flush(dst, k)
		for vs := live; vs != 0; vs &= vs - 1 {
			v := bits.TrailingZeros32(vs)
			r := rows[v]
			if r == 0 { // taken by quads of earlier rows
				continue
			}
			end := vEnd(live, v)
			row := plane | uint64(v)<<sv
			// A row whose faces have none beside them along U nor above
			// them in the next live row is all 1×1 quads, emitted without
			// the run and V tests (the checkerboard; in noise some face
			// merges in nearly every row, and the plain scan is cheaper).
			next := rows[(v+1)&last] & -uint32(uint64(live)>>((v+1)&shiftCount)&1)
			if r&(r>>1|r<<1|next) == 0 {
				for ; r != 0; r &= r - 1 {
					out[k&(quadBuf-1)] = Quad(row | uint64(bits.TrailingZeros32(r))<<su)
					k++
				}
				continue
			}
			for r != 0 {
				u := bits.TrailingZeros32(r)
				w := bits.TrailingZeros32(^(r >> (u & last)))
				span := uint32((uint64(1)<<(w&shiftCount) - 1) << (u & last))
				v2 := v + 1
				for ; v2 < end && rows[v2&last]&span == span; v2++ {
					rows[v2&last] &^= span
				}
				r &^= span
				out[k&(quadBuf-1)] = Quad(row | uint64(u)<<su | uint64(w-1)<<shiftW | uint64(v2-v-1)<<shiftH)
				k++
			}
		}
	}
	return dst, k
}

// mergeMixed merges the planes of direction f of a chunk of several kinds:
// a run also ends where the kind changes and a span grows along V only
// over rows of its kind.
//
// A row of one or two runs of faces (smooth terrain) takes the plain
// greedy scan: the lowest face starts a run that ends at the first other
// kind (the next block first, then eight blocks per word where the row is
// contiguous), then grows along V. A row of more runs (noise) is scanned
// by masks first: mu (bit u: faces u and u+1 are of one kind) and mv (bit
// u: face u of this row and of the next live row are of one kind). A face
// in neither, nor right of an mu bit, is a 1×1 quad: those are emitted in
// a loop without data-dependent branches, up to the next face that merges
// (the quads keep the plain scan's order). That face starts a run which is
// exactly its chain of mu bits, and whose first step along V is mv over
// its span; only further steps compare kinds again. In multi-kind noise
// most faces merge with nothing, and several unpredictable branches per
// face become a few mask operations per row; a row with few runs would pay
// for the masks without that gain. Both scans emit the same quads in the
// same order.
func (s *scratch) mergeMixed(dst []Quad, k int, blocks *[voxel.ChunkVolume]voxel.Block, f voxel.Face) ([]Quad, int) {
	d := &dirs[f]
	su, sv := d.su&shiftCount, d.sv&shiftCount
	bu, bv := d.bu, d.bv
	contiguous := bu == 1
	out := &s.quads
	m := maskScan{blocks: blocks, out: out, bu: bu, bv: bv, su: su}
	for planes := s.planes[f]; planes != 0; planes &= planes - 1 {
		p := bits.TrailingZeros32(planes)
		rows := &s.rows[f][p]
		m.rows = rows
		plane := uint64(f)<<shiftFace | uint64(p)<<(d.sl&shiftCount)
		pb := p * d.bl
		live := s.live[f][p]
		dst, k = s.flush(dst, k)
		for vs := live; vs != 0; vs &= vs - 1 {
			v := bits.TrailingZeros32(vs)
			r := rows[v]
			if r == 0 { // taken by quads of earlier rows
				continue
			}
			end := vEnd(live, v)
			row := plane | uint64(v)<<sv
			rb := pb + v*bv // block index of the row's u = 0
			// the next row's faces, if it is live (a dead row holds stale bits)
			next := rows[(v+1)&last] & -uint32(uint64(live)>>((v+1)&shiftCount)&1)
			if starts := r &^ (r << 1); starts&(starts-1)&(starts&(starts-1)-1) != 0 { // three runs or more
				k = m.row(k, r, next, v, end, row, rb)
				continue
			}
			if r&(r>>1|r<<1|next) == 0 { // faces with none beside nor above them: 1×1 quads
				for ; r != 0; r &= r - 1 {
					u := bits.TrailingZeros32(r)
					out[k&(quadBuf-1)] = Quad(row | uint64(u)<<su | uint64(blocks[(rb+u*bu)&(voxel.ChunkVolume-1)])<<shiftBlock)
					k++
				}
				continue
			}
			for r != 0 {
				u := bits.TrailingZeros32(r)
				w := bits.TrailingZeros32(^(r >> (u & last)))
				t := blocks[(rb+u*bu)&(voxel.ChunkVolume-1)]
				if w > 1 { // the run ends at the first other kind
					at := rb + u*bu
					switch {
					case blocks[(at+bu)&(voxel.ChunkVolume-1)] != t:
						w = 1
					case w == 2:
					case contiguous && w <= 8: // one word of the row, without a call
						if x := (wordAt(blocks, rb, u) ^ uint64(t)*broadcast) & wordBytes(w); x != 0 {
							w = bits.TrailingZeros64(x) >> 3
						}
					case contiguous:
						w = min(w, bits.TrailingZeros32(otherContiguous(blocks, rb, runSpan(u, w), u, t)>>(u&last)))
					default:
						w = min(w, bits.TrailingZeros32(otherStrided(blocks, rb, bu, runSpan(u, w), t)>>(u&last)))
					}
				}
				span := runSpan(u, w)
				v2 := v + 1
				if next&span == span { // the next live row holds the span: it may grow
					v2 = growRun(blocks, rows, v2, end, rb+bv, bu, bv, span, t)
				}
				r &^= span
				out[k&(quadBuf-1)] = Quad(row | uint64(u)<<su | uint64(w-1)<<shiftW | uint64(v2-v-1)<<shiftH | uint64(t)<<shiftBlock)
				k++
			}
		}
	}
	return dst, k
}

// wordBytes masks the low w bytes of a word (w in 1..8).
func wordBytes(w int) uint64 { return ^uint64(0) >> ((8 - w) * 8 & shiftCount) }

// wordAt is the eight blocks from u on of the contiguous row at rb
// (little-endian, blocks past the row's end wrapped from its start): two
// aligned words of the row shifted together, without a branch.
func wordAt(blocks *[voxel.ChunkVolume]voxel.Block, rb, u int) uint64 {
	row := (*[size / 8]uint64)(unsafe.Pointer(&blocks[rb&(voxel.ChunkVolume-size)]))
	k := u >> 3
	sh := uint(u&7) * 8
	return row[k&3]>>sh | row[(k+1)&3]<<1<<(63-sh)
}

// growRun extends the run of faces span (w of them from u) of kind t in
// row v down the live rows from v2 (below end; rb2: the block index of
// row v2's u = 0, bv the V stride) while each holds the whole run in that
// kind alone, clearing them; it returns the first row not taken. Nine
// arguments: all in registers.
func growRun(blocks *[voxel.ChunkVolume]voxel.Block, rows *[size]uint32, v2, end, rb2, bu, bv int, span uint32, t voxel.Block) int {
	u := bits.TrailingZeros32(span)
	w := bits.OnesCount32(span)
	for ; v2 < end && rows[v2&last]&span == span; v2, rb2 = v2+1, rb2+bv {
		if blocks[(rb2+u*bu)&(voxel.ChunkVolume-1)] != t {
			break
		}
		if w > 1 {
			var other uint32
			switch {
			case bu == 1 && w <= 8: // one word of the row, without a call
				if (wordAt(blocks, rb2, u)^uint64(t)*broadcast)&wordBytes(w) != 0 {
					other = span
				}
			case bu == 1:
				other = otherContiguous(blocks, rb2, span, u, t)
			default:
				other = otherStrided(blocks, rb2, bu, span, t)
			}
			if other&span != 0 {
				break
			}
		}
		rows[v2&last] &^= span
	}
	return v2
}

// maskScan is the scan by masks of one plane's rows (see mergeMixed). It
// is a function of its own, called once per row of many runs, so that
// the plain scan's loop keeps its variables in registers.
type maskScan struct {
	blocks *[voxel.ChunkVolume]voxel.Block
	rows   *[size]uint32
	out    *[quadBuf]Quad
	bu, bv int  // block index strides of U and V
	su     uint // quad field shift of U
}

// row scans row v (faces r, the next live row's faces next, live rows up
// to end, quad bits row, block index rb of u = 0) into quads from k on and
// returns the next k.
func (m *maskScan) row(k int, r, next uint32, v, end int, row uint64, rb int) int {
	blocks, rows, out, bu, bv, su := m.blocks, m.rows, m.out, m.bu, m.bv, m.su
	contiguous := bu == 1
	var mu, mv uint32
	if contiguous {
		mu = r & (r >> 1) & sameAlongRow(blocks, rb)
		mv = r & next & sameRows(blocks, rb, rb+bv)
	} else {
		mu = samePairs(blocks, rb, bu, bu, r&(r>>1))
		mv = samePairs(blocks, rb, bu, bv, r&next)
	}
	single := r &^ (mu | mu<<1 | mv)
	for {
		merging := r &^ single
		ones := r & (merging&-merging - 1) // the 1×1 quads before the next merging face
		for s := ones; s != 0; s &= s - 1 {
			u := bits.TrailingZeros32(s)
			t := blocks[(rb+u*bu)&(voxel.ChunkVolume-1)]
			out[k&(quadBuf-1)] = Quad(row | uint64(u)<<su | uint64(t)<<shiftBlock)
			k++
		}
		if merging == 0 {
			return k
		}
		r &^= ones
		u := bits.TrailingZeros32(r)
		w := 1 + bits.TrailingZeros32(^(mu >> (u & last)))
		t := blocks[(rb+u*bu)&(voxel.ChunkVolume-1)]
		span := runSpan(u, w)
		v2 := v + 1
		if mv&span == span { // the next row continues the whole run
			rows[v2&last] &^= span
			v2 = growRun(blocks, rows, v2+1, end, rb+2*bv, bu, bv, span, t)
		}
		r &^= span
		out[k&(quadBuf-1)] = Quad(row | uint64(u)<<su | uint64(w-1)<<shiftW | uint64(v2-v-1)<<shiftH | uint64(t)<<shiftBlock)
		k++
	}
}

// sameAlongRow has bit u set where blocks at+u and at+u+1 of a contiguous
// row are of one kind (bit 31 compares with a zero byte: callers mask it).
func sameAlongRow(blocks *[voxel.ChunkVolume]voxel.Block, at int) uint32 {
	row := (*[size]voxel.Block)(blocks[at&(voxel.ChunkVolume-size):])
	w0, w1, w2, w3 := le64(row[0:8]), le64(row[8:16]), le64(row[16:24]), le64(row[24:32])
	diff := nonZeroBytes(w0^(w0>>8|w1<<56)) | nonZeroBytes(w1^(w1>>8|w2<<56))<<8 |
		nonZeroBytes(w2^(w2>>8|w3<<56))<<16 | nonZeroBytes(w3^w3>>8)<<24
	return ^uint32(diff)
}

// sameRows has bit u set where blocks at+u and at2+u of two contiguous
// rows are of one kind.
func sameRows(blocks *[voxel.ChunkVolume]voxel.Block, at, at2 int) uint32 {
	a := (*[size]voxel.Block)(blocks[at&(voxel.ChunkVolume-size):])
	b := (*[size]voxel.Block)(blocks[at2&(voxel.ChunkVolume-size):])
	var diff uint64
	for k := range size / 8 {
		o := k * 8
		diff |= nonZeroBytes(le64(a[o:o+8])^le64(b[o:o+8])) << o
	}
	return ^uint32(diff)
}

// samePairs keeps the bits u of pairs where blocks at+u·stride and
// at+u·stride+step are of one kind (a strided row: one compare per pair).
func samePairs(blocks *[voxel.ChunkVolume]voxel.Block, at, stride, step int, pairs uint32) uint32 {
	var m uint32
	for p := pairs; p != 0; p &= p - 1 {
		u := bits.TrailingZeros32(p)
		i := at + u*stride
		m |= nonZero(uint32(blocks[i&(voxel.ChunkVolume-1)]^blocks[(i+step)&(voxel.ChunkVolume-1)])) << u
	}
	return pairs &^ m
}

// runSpan is the mask of w bits from bit u (w = 32 included).
func runSpan(u, w int) uint32 { return uint32((uint64(1)<<(w&shiftCount) - 1) << (u & last)) }

// broadcast repeats a byte in every byte of a word.
const broadcast = 0x0101010101010101

// otherContiguous has bit i set where block at+i is not t, for i in the
// 64-bit words of the row from the one holding bit u to the one holding
// the top bit of span (bits of other words are 0).
func otherContiguous(blocks *[voxel.ChunkVolume]voxel.Block, at int, span uint32, u int, t voxel.Block) uint32 {
	row := (*[size]voxel.Block)(blocks[at&(voxel.ChunkVolume-size):])
	pat := uint64(t) * broadcast
	var m uint32
	for k := u >> 3; k <= (last-bits.LeadingZeros32(span))>>3; k++ {
		o := (k & 3) * 8
		m |= uint32(nonZeroBytes(le64(row[o:o+8])^pat)) << o
	}
	return m
}

// otherStrided has bit u set where block at+u·stride is not t, for the
// bits of span (others 0).
func otherStrided(blocks *[voxel.ChunkVolume]voxel.Block, at, stride int, span uint32, t voxel.Block) uint32 {
	var m uint32
	for s := span; s != 0; s &= s - 1 {
		u := bits.TrailingZeros32(s)
		m |= nonZero(uint32(blocks[(at+u*stride)&(voxel.ChunkVolume-1)]^t)) << u
	}
	return m
}

func le64(b []voxel.Block) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// nonZeroBytes has bit i set where byte i of x is non-zero.
func nonZeroBytes(x uint64) uint64 {
	const lo7, gather = 0x7f7f7f7f7f7f7f7f, 0x0102040810204080
	hi := ((x & lo7) + lo7 | x) >> 7 & 0x0101010101010101 // bit 0 of each byte: byte ≠ 0
	return hi * gather >> 56                              // byte i's bit lands at 56+i, no carries
}

// pair packs row a of one layer and row b of the next into one word.
func pair(a, b uint32) uint64 { return uint64(a) | uint64(b)<<32 }

// nonZero2 has bit 0 set if the low half of x has a bit set, bit 1 if the
// high half has.
func nonZero2(x uint64) uint32 { return nonZero(uint32(x)) + nonZero(uint32(x>>32))*2 }

// facesAcross2 is facesAcross for layers y and y+1 at once: their rows
// (cur: rowX of both layers, curZ: rowZ) paired in 64-bit words, whose
// face rows lie side by side in s.rows and are stored as one word. It
// halves the stores and the live-mask updates, which bound the loop.
func (s *scratch) facesAcross2(y int, cur, curZ *[2 * size]uint32, hiZ, loZ, hiX, loX uint64) {
	y &= last              // < last: the caller pairs layers y and y+1
	const plane = size * 4 // bytes from a direction's plane to the next
	const face = size * plane
	base := unsafe.Pointer(&s.rows[0][0][y]) // plane 0 of direction 0, rows y and y+1
	lpz, lnz := &s.live[voxel.PosZ], &s.live[voxel.NegZ]
	lpx, lnx := &s.live[voxel.PosX], &s.live[voxel.NegX]
	prevZ, prevX := loZ, loX
	r, q := pair(cur[0], cur[size]), pair(curZ[0], curZ[size])
	for i := range last {
		nr, nq := pair(cur[i+1], cur[size+i+1]), pair(curZ[i+1], curZ[size+i+1])
		a, b, c, d := r&^nr, r&^prevZ, q&^nq, q&^prevX
		prevZ, prevX, r, q = r, q, nr, nq
		// Rows without faces need not be written (their live bits stay
		// clear), and in the ground below the surface or the air above
		// it they come in long stretches of i.
		if a|b|c|d == 0 {
			continue
		}
		p := unsafe.Add(base, i*plane)
		*(*uint64)(unsafe.Add(p, int(voxel.PosZ)*face)) = a
		*(*uint64)(unsafe.Add(p, int(voxel.NegZ)*face)) = b
		*(*uint64)(unsafe.Add(p, int(voxel.PosX)*face)) = c
		*(*uint64)(unsafe.Add(p, int(voxel.NegX)*face)) = d
		lpz[i] |= nonZero2(a) << y
		lnz[i] |= nonZero2(b) << y
		lpx[i] |= nonZero2(c) << y
		lnx[i] |= nonZero2(d) << y
	}
	a, b := r&^hiZ, r&^prevZ
	c, d := q&^hiX, q&^prevX
	p := unsafe.Add(base, last*plane)
	*(*uint64)(unsafe.Add(p, int(voxel.PosZ)*face)) = a
	*(*uint64)(unsafe.Add(p, int(voxel.NegZ)*face)) = b
	*(*uint64)(unsafe.Add(p, int(voxel.PosX)*face)) = c
	*(*uint64)(unsafe.Add(p, int(voxel.NegX)*face)) = d
	lpz[last] |= nonZero2(a) << y
	lnz[last] |= nonZero2(b) << y
	lpx[last] |= nonZero2(c) << y
	lnx[last] |= nonZero2(d) << y
}

// fullFaces is faces for a full chunk: only its six boundary planes can
// show, where the neighbour's touching row is not solid.
func (s *scratch) fullFaces(nb *Neighbours) {
	upN, dnN := rowsX(nb[voxel.PosY]), rowsX(nb[voxel.NegY])
	pzN, nzN := rowsX(nb[voxel.PosZ]), rowsX(nb[voxel.NegZ])
	pxN, nxN := rowsZ(nb[voxel.PosX]), rowsZ(nb[voxel.NegX])
	var l [voxel.NumFaces]uint32
	for i := range size {
		r := [voxel.NumFaces]uint32{
			voxel.PosX: ^pxN[i*size], voxel.NegX: ^nxN[i*size+last],
			voxel.PosY: ^upN[i], voxel.NegY: ^dnN[last*size+i],
			voxel.PosZ: ^pzN[i*size], voxel.NegZ: ^nzN[i*size+last],
		}
		for f := range r {
			s.rows[f][edgePlane(f)][i] = r[f]
			l[f] |= nonZero(r[f]) << i
		}
	}
	for f := range l { // only the edge plane's live mask is ever read
		s.live[f][edgePlane(f)] = l[f]
		s.planes[f] = nonZero(l[f]) << edgePlane(f)
	}
}
