// Package voxel holds the shared vocabulary of the voxel terrain: blocks,
// chunk positions, the 32³ chunk with its occupancy bitmasks, faces, and the
// sparse edit overlay. The generator, planner, residency, mesher, mesh
// pool, store, the server's authority and the client's ground live in
// nested packages, each with one job, and all speak these types.
package voxel

import (
	"fmt"
	"math"
)

// Chunk geometry. A chunk is 32³ blocks of 1 m; 32 is chosen so that one
// row of blocks is exactly one uint32 bitmask, which the mesher relies on.
const (
	ChunkBits   = 5
	ChunkSize   = 1 << ChunkBits        // blocks per chunk edge
	ChunkArea   = ChunkSize * ChunkSize // blocks per chunk layer
	ChunkVolume = ChunkArea * ChunkSize // blocks per chunk
	chunkMask   = ChunkSize - 1         // local coordinate mask
	fullRow     = ^uint32(0)            // a row of 32 solid blocks
	numBlockIDs = 256                   // Block is a uint8
)

// Block is a compact block id (one byte per block, 32 KiB per chunk).
type Block uint8

// Block kinds. Air is the zero value so a fresh chunk is empty. Every
// non-air block is opaque to the mesher (water included: its surface is
// drawn, the lake bed under it is not).
const (
	Air Block = iota
	Grass
	Dirt
	Stone
	Sand
	Gravel // under roads
	Water
	NumBlocks // first unused id
)

var blockNames = [...]string{"air", "grass", "dirt", "stone", "sand", "gravel", "water"}

func (b Block) String() string {
	if int(b) < len(blockNames) {
		return blockNames[b]
	}
	return fmt.Sprintf("block(%d)", uint8(b))
}

// Valid reports whether b is a known block kind.
func (b Block) Valid() bool { return b < NumBlocks }

// ChunkPos is a chunk coordinate; the chunk covers world blocks
// [32·X, 32·X+32) × [32·Y, 32·Y+32) × [32·Z, 32·Z+32), Y up.
type ChunkPos struct{ X, Y, Z int32 }

func (p ChunkPos) String() string { return fmt.Sprintf("(%d,%d,%d)", p.X, p.Y, p.Z) }

// Add returns p offset by (dx, dy, dz) chunks.
func (p ChunkPos) Add(dx, dy, dz int32) ChunkPos { return ChunkPos{p.X + dx, p.Y + dy, p.Z + dz} }

// Neighbour is the chunk across face f.
func (p ChunkPos) Neighbour(f Face) ChunkPos {
	o := faceOffsets[f]
	return p.Add(o[0], o[1], o[2])
}

// Origin is the world block coordinate of the chunk's (0,0,0) block. It is
// int64 so positions near the int32 chunk limit do not overflow.
func (p ChunkPos) Origin() (x, y, z int64) {
	return int64(p.X) * ChunkSize, int64(p.Y) * ChunkSize, int64(p.Z) * ChunkSize
}

// ChunkOf is the chunk holding world block (x, y, z) (floor division, so
// block i spans [i, i+1) and -1 lies in chunk -1).
func ChunkOf(x, y, z int64) (ChunkPos, int) {
	p := ChunkPos{int32(x >> ChunkBits), int32(y >> ChunkBits), int32(z >> ChunkBits)}
	return p, Index(int(x&chunkMask), int(y&chunkMask), int(z&chunkMask))
}

// ChunkAt is the chunk holding world position (x, y, z) in metres.
func ChunkAt(x, y, z float64) ChunkPos {
	p, _ := ChunkOf(int64(math.Floor(x)), int64(math.Floor(y)), int64(math.Floor(z)))
	return p
}

// Face is one of the six signed axis directions: a block face, or the
// neighbour across it.
type Face uint8

const (
	PosX Face = iota
	NegX
	PosY
	NegY
	PosZ
	NegZ
	NumFaces
)

var faceOffsets = [NumFaces][3]int32{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}

var faceNames = [NumFaces]string{"+X", "-X", "+Y", "-Y", "+Z", "-Z"}

func (f Face) String() string {
	if f < NumFaces {
		return faceNames[f]
	}
	return fmt.Sprintf("face(%d)", uint8(f))
}

// Offset is the unit step across f.
func (f Face) Offset() (dx, dy, dz int32) {
	o := faceOffsets[f]
	return o[0], o[1], o[2]
}

// Opposite is the face pointing the other way.
func (f Face) Opposite() Face { return f ^ 1 }

// Index is the local block index of (x, y, z), each in [0, 32):
// x | z<<5 | y<<10. X is fastest so one row along X is 32 contiguous bytes
// and one Y layer is a contiguous 1 KiB plane.
func Index(x, y, z int) int { return x | z<<ChunkBits | y<<(2*ChunkBits) }

// Coords inverts Index.
func Coords(i int) (x, y, z int) {
	return i & chunkMask, i >> (2 * ChunkBits), (i >> ChunkBits) & chunkMask
}

// Chunk is 32³ blocks plus occupancy bitmasks kept in step by every
// mutator, so the mesher never rescans the 32 KiB of blocks to find solids.
// A chunk handed to other goroutines (residency result, mesh job) is
// treated as immutable; edits clone first.
type Chunk struct {
	blocks [ChunkVolume]Block
	// rowX[y<<5|z] has bit x set where block (x,y,z) is not air;
	// rowZ[y<<5|x] has bit z set. Together they give every face plane
	// without a bit transpose (see voxel/mesh).
	rowX   [ChunkArea]uint32
	rowZ   [ChunkArea]uint32
	counts [numBlockIDs]uint16 // blocks of each non-air kind
	layer  [ChunkSize]uint16   // non-air blocks of each Y layer
	solid  int32               // non-air blocks
	kinds  int32               // distinct non-air kinds present
}

// At returns the block at local (x, y, z).
func (c *Chunk) At(x, y, z int) Block { return c.blocks[Index(x, y, z)] }

// AtIndex returns the block at local index i.
func (c *Chunk) AtIndex(i int) Block { return c.blocks[i] }

// Set stores b at local (x, y, z).
func (c *Chunk) Set(x, y, z int, b Block) { c.SetIndex(Index(x, y, z), b) }

// SetIndex stores b at local index i, keeping masks and counts in step.
func (c *Chunk) SetIndex(i int, b Block) {
	old := c.blocks[i]
	if old == b {
		return
	}
	c.blocks[i] = b
	x, y, z := Coords(i)
	if old != Air {
		c.uncount(old)
		c.layer[y]--
	}
	if b != Air {
		c.count(b)
		c.layer[y]++
		c.rowX[y<<ChunkBits|z] |= 1 << x
		c.rowZ[y<<ChunkBits|x] |= 1 << z
	} else {
		c.rowX[y<<ChunkBits|z] &^= 1 << x
		c.rowZ[y<<ChunkBits|x] &^= 1 << z
	}
}

func (c *Chunk) count(b Block) {
	if c.counts[b] == 0 {
		c.kinds++
	}
	c.counts[b]++
	c.solid++
}

func (c *Chunk) uncount(b Block) {
	c.counts[b]--
	if c.counts[b] == 0 {
		c.kinds--
	}
	c.solid--
}

// FillColumn sets blocks (x, y, z) for y in [y0, y1) to b; the generator's
// fast path (one call per run of equal blocks in a column).
func (c *Chunk) FillColumn(x, z, y0, y1 int, b Block) {
	y0, y1 = max(y0, 0), min(y1, ChunkSize)
	if y0 >= y1 {
		return
	}
	bx, bz := uint32(1)<<x, uint32(1)<<z
	for y := y0; y < y1; y++ {
		i := Index(x, y, z)
		if old := c.blocks[i]; old != Air {
			c.uncount(old)
			c.layer[y]--
		}
		c.blocks[i] = b
		if b != Air {
			c.layer[y]++
			c.rowX[y<<ChunkBits|z] |= bx
			c.rowZ[y<<ChunkBits|x] |= bz
		} else {
			c.rowX[y<<ChunkBits|z] &^= bx
			c.rowZ[y<<ChunkBits|x] &^= bz
		}
	}
	if b != Air {
		n := y1 - y0
		if c.counts[b] == 0 {
			c.kinds++
		}
		c.counts[b] += uint16(n)
		c.solid += int32(n)
	}
}

// bitAt[i] is 1<<i (a load is cheaper than a variable shift on amd64 v1).
var bitAt = func() (t [64]uint64) {
	for i := range t {
		t[i] = 1 << i
	}
	return t
}()

// SWAR constants: one in each byte, each byte's high bit, and the
// multiplier that gathers bit 0 of byte i into bit 56+i (no carries).
const (
	byteOnes   = 0x0101010101010101
	byteHigh   = 0x8080808080808080
	byteGather = 0x0102040810204080
)

// le64 and putLE64 move eight bytes as one little-endian word (the compiler
// merges the byte accesses into one load or store).
func le64[T ~uint8](b []T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func putLE64(b []Block, v uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = Block(v), Block(v>>8), Block(v>>16), Block(v>>24)
	b[4], b[5], b[6], b[7] = Block(v>>32), Block(v>>40), Block(v>>48), Block(v>>56)
}

// Fill sets every block to b.
func (c *Chunk) Fill(b Block) {
	// One layer by bytes, the rest copied (memmove) from it.
	layer := (*[ChunkArea]Block)(c.blocks[:ChunkArea])
	for i := range layer {
		layer[i] = b
	}
	for y := 1; y < ChunkSize; y++ {
		copy(c.blocks[y*ChunkArea:(y+1)*ChunkArea], layer[:])
	}
	c.counts = [numBlockIDs]uint16{}
	row := uint32(0)
	c.solid, c.kinds = 0, 0
	c.layer = [ChunkSize]uint16{}
	if b != Air {
		row = fullRow
		c.counts[b] = ChunkVolume // a constant: fails to compile if it outgrows uint16
		c.solid, c.kinds = ChunkVolume, 1
		for y := range c.layer {
			c.layer[y] = ChunkArea
		}
	}
	for i := range c.rowX {
		c.rowX[i], c.rowZ[i] = row, row
	}
}

// Solid is the number of non-air blocks.
func (c *Chunk) Solid() int { return int(c.solid) }

// Empty reports whether every block is air.
func (c *Chunk) Empty() bool { return c.solid == 0 }

// Full reports whether no block is air.
func (c *Chunk) Full() bool { return c.solid == ChunkVolume }

// Uniform returns the only non-air kind when exactly one is present.
func (c *Chunk) Uniform() (Block, bool) {
	if c.kinds != 1 {
		return Air, false
	}
	for b := Block(1); ; b++ {
		if c.counts[b] != 0 {
			return b, true
		}
	}
}

// LayerMasks has bit y set in solid where layer y holds a non-air block
// and in full where all its blocks are (the mesher's first question,
// answered from per-layer counts kept in step with the blocks).
func (c *Chunk) LayerMasks() (solid, full uint32) {
	for y, n := range &c.layer {
		solid |= uint32(-uint64(n)>>63) << y
		full |= uint32(n>>(2*ChunkBits)) << y // n ≤ ChunkArea = 1<<10
	}
	return solid, full
}

// RowX is the occupancy of row (y, z) along X: bit x set where solid.
func (c *Chunk) RowX(y, z int) uint32 { return c.rowX[y<<ChunkBits|z] }

// RowZ is the occupancy of row (y, x) along Z: bit z set where solid.
func (c *Chunk) RowZ(y, x int) uint32 { return c.rowZ[y<<ChunkBits|x] }

// RowsX exposes all rowX masks read-only by convention: index y<<5|z, bit x.
func (c *Chunk) RowsX() *[ChunkArea]uint32 { return &c.rowX }

// RowsZ exposes all rowZ masks read-only by convention: index y<<5|x, bit z.
func (c *Chunk) RowsZ() *[ChunkArea]uint32 { return &c.rowZ }

// Blocks exposes the block array read-only by convention (the mesher reads
// block kinds through it without a call per block).
func (c *Chunk) Blocks() *[ChunkVolume]Block { return &c.blocks }

// Clone returns an independent copy (copy-on-write for edits of shared
// snapshots).
func (c *Chunk) Clone() *Chunk {
	d := *c
	return &d
}
