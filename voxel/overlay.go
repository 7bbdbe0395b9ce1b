package voxel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Edit is one changed block of a chunk: local index (see Index) and the
// block it now holds.
type Edit struct {
	Index uint16
	Block Block
}

// Overlay is a chunk's sparse edits, sorted by Index with no duplicates.
// It is applied right after generation; generated terrain is never saved.
// An Overlay value is never mutated in place once published (With copies).
type Overlay []Edit

// editSize is the encoded size of one Edit: uint16 index + block byte.
const editSize = 3

// MaxEdits bounds an overlay: one edit per block.
const MaxEdits = ChunkVolume

// Apply writes the edits over c.
func (o Overlay) Apply(c *Chunk) {
	for _, e := range o {
		c.SetIndex(int(e.Index), e.Block)
	}
}

// With returns a new overlay with block idx set to b (replacing any earlier
// edit of idx); o is left untouched.
func (o Overlay) With(idx uint16, b Block) Overlay {
	i, found := slices.BinarySearchFunc(o, idx, func(e Edit, t uint16) int { return int(e.Index) - int(t) })
	n := make(Overlay, 0, len(o)+1)
	n = append(n, o[:i]...)
	n = append(n, Edit{idx, b})
	if found {
		i++
	}
	return append(n, o[i:]...)
}

// Get returns the edited block at idx, if any.
func (o Overlay) Get(idx uint16) (Block, bool) {
	i, found := slices.BinarySearchFunc(o, idx, func(e Edit, t uint16) int { return int(e.Index) - int(t) })
	if !found {
		return Air, false
	}
	return o[i].Block, true
}

// ErrBadOverlay reports an encoded overlay that fails validation.
var ErrBadOverlay = errors.New("voxel: malformed edit overlay")

// AppendEncode appends the overlay's wire/disk form to dst: per edit a
// big-endian uint16 index then the block byte (3 bytes per edit).
func (o Overlay) AppendEncode(dst []byte) []byte {
	for _, e := range o {
		dst = binary.BigEndian.AppendUint16(dst, e.Index)
		dst = append(dst, byte(e.Block))
	}
	return dst
}

// DecodeOverlay parses an encoded overlay, checking length, index range,
// strict ordering and block kinds before trusting any of it (input may come
// from disk or the network).
func DecodeOverlay(b []byte) (Overlay, error) {
	if len(b)%editSize != 0 || len(b)/editSize > MaxEdits {
		return nil, fmt.Errorf("%w: length %d", ErrBadOverlay, len(b))
	}
	o := make(Overlay, len(b)/editSize)
	for i := range o {
		idx := binary.BigEndian.Uint16(b[i*editSize:])
		blk := Block(b[i*editSize+2])
		switch {
		case int(idx) >= ChunkVolume:
			return nil, fmt.Errorf("%w: index %d out of range", ErrBadOverlay, idx)
		case !blk.Valid():
			return nil, fmt.Errorf("%w: unknown block %d", ErrBadOverlay, blk)
		case i > 0 && idx <= o[i-1].Index:
			return nil, fmt.Errorf("%w: index %d out of order", ErrBadOverlay, idx)
		}
		o[i] = Edit{idx, blk}
	}
	return o, nil
}

// Touched appends to dst the chunks whose meshes an edit of block idx in
// chunk p can change: p itself, plus each face neighbour when the block
// lies on that face's boundary layer.
func Touched(p ChunkPos, idx int, dst []ChunkPos) []ChunkPos {
	dst = append(dst, p)
	x, y, z := Coords(idx)
	for f, c := range [NumFaces]int{x, x, y, y, z, z} {
		edge := 0
		if Face(f)&1 == 0 { // positive faces sit on the far layer
			edge = chunkMask
		}
		if c == edge {
			dst = append(dst, p.Neighbour(Face(f)))
		}
	}
	return dst
}

// ErrAlreadyApplied is how a world that applies each request once hands
// back a retry of one it applied before (a replay, or a resend after a
// reconnect or restart): the request is answered as done, and nothing is
// applied or announced again.
var ErrAlreadyApplied = errors.New("edit already applied")

// BlockEdit is one block edit placed in the world: the chunk, the local
// index in it (see Index) and the block it now holds. It is what travels
// from a player's request through the server to the store.
type BlockEdit struct {
	Pos   ChunkPos
	Index uint16
	Block Block
}
