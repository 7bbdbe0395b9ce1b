package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"citydrive/voxel"
)

// editSize is the packed size of one Edit: big-endian index, then block.
const editSize = 3

// MaxChunkEdits is the most edits a chunk can carry (every block edited).
const MaxChunkEdits = voxel.ChunkVolume

// ChunkEdits delivers an edited chunk as its sparse overlay: the client
// generates the chunk from the seed and then applies Edits. Edits are sorted
// by strictly increasing Index (no duplicates) and never empty; an unedited
// chunk is a ChunkDefault.
//
// On the wire the edits are one msgpack bin of 3 bytes per edit.
type ChunkEdits struct {
	Pos   voxel.ChunkPos
	Edits []voxel.Edit
}

func (*ChunkEdits) Kind() Kind      { return KindChunkEdits }
func (*ChunkEdits) fieldCount() int { return 4 }

func (m *ChunkEdits) encodeFields(e *msgpack.Encoder) error {
	if len(m.Edits) == 0 {
		return errors.New("no edits (send ChunkDefault)")
	}
	for i, ed := range m.Edits {
		if err := voxel.CheckIndex(ed.Index); err != nil {
			return err
		}
		if i > 0 && ed.Index <= m.Edits[i-1].Index {
			return fmt.Errorf("edits not strictly increasing at %d", i)
		}
	}
	if err := encodePos(e, m.Pos); err != nil {
		return err
	}
	if err := e.EncodeBytesLen(len(m.Edits) * editSize); err != nil {
		return err
	}
	var b [editSize]byte
	for _, ed := range m.Edits {
		binary.BigEndian.PutUint16(b[:], ed.Index)
		b[2] = byte(ed.Block)
		if _, err := e.Writer().Write(b[:]); err != nil {
			return err
		}
	}
	return nil
}

func (m *ChunkEdits) decodeFields(r *reader) (err error) {
	if m.Pos, err = r.pos(); err != nil {
		return err
	}
	// The bin length is checked against MaxChunkEdits and against the bytes
	// left in the frame before anything is allocated.
	raw, err := r.raw("edits", false, MaxChunkEdits*editSize)
	if err != nil {
		return err
	}
	if len(raw) == 0 || len(raw)%editSize != 0 {
		return malformed("edits: length %d is not a positive multiple of %d", len(raw), editSize)
	}
	n := len(raw) / editSize
	m.Edits = make([]voxel.Edit, n)
	prev := -1
	for i := range n {
		b := raw[i*editSize:]
		idx := int(binary.BigEndian.Uint16(b))
		if idx >= voxel.ChunkVolume {
			return malformed("edits[%d]: index %d out of range", i, idx)
		}
		if idx <= prev {
			return malformed("edits[%d]: index %d not increasing", i, idx)
		}
		if voxel.Block(b[2]) > r.lim.MaxBlock {
			return malformed("edits[%d]: block %d above %d", i, b[2], r.lim.MaxBlock)
		}
		prev = idx
		m.Edits[i] = voxel.Edit{Index: uint16(idx), Block: voxel.Block(b[2])}
	}
	return nil
}
