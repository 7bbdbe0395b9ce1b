package wire

import (
	"errors"
	"fmt"
	"math"

	"github.com/vmihailenco/msgpack/v5"

	"citydrive/voxel"
)

// deltaSize is the packed size of one ChunkDefaults position: dx, dy, dz as
// signed bytes relative to Base.
const deltaSize = 3

// MaxChunkDefaults is the most positions one ChunkDefaults carries (196,608
// bytes of deltas, well under ChunkCap). A server with more ready defaults
// in a tick sends several messages.
const MaxChunkDefaults = 1 << 16

// ChunkDefaults says every chunk in Pos has never been edited: the client
// generates each from the seed. It replaces one ChunkDefault (protocol 1,
// kind 11, retired) per chunk.
//
// On the wire: Base (the sender's idea of the subscription centre, three
// ints), then one msgpack bin of 3 bytes per chunk, the chunk's offset from
// Base as signed bytes (dx, dy, dz). Offsets lie within the largest
// subscription cylinder the receiver accepts (|dx|, |dz| ≤ MaxRadius,
// |dy| ≤ MaxRadius/2); anything else, an empty list, or more than
// MaxChunkDefaults entries is malformed. Repeats are allowed (harmless: the
// receiver announces a chunk once).
type ChunkDefaults struct {
	Base voxel.ChunkPos
	Pos  []voxel.ChunkPos
}

func (*ChunkDefaults) Kind() Kind      { return KindChunkDefaults }
func (*ChunkDefaults) fieldCount() int { return 4 }

// fitsDelta reports whether p-base is encodable as three signed bytes.
func fitsDelta(base, p voxel.ChunkPos) bool {
	ok := func(a, b int32) bool {
		d := int64(a) - int64(b)
		return d >= math.MinInt8 && d <= math.MaxInt8
	}
	return ok(p.X, base.X) && ok(p.Y, base.Y) && ok(p.Z, base.Z)
}

func (m *ChunkDefaults) encodeFields(e *msgpack.Encoder) error {
	if len(m.Pos) == 0 {
		return errors.New("no positions")
	}
	if len(m.Pos) > MaxChunkDefaults {
		return fmt.Errorf("%d positions, at most %d per message", len(m.Pos), MaxChunkDefaults)
	}
	for _, p := range m.Pos {
		if !fitsDelta(m.Base, p) {
			return fmt.Errorf("%v is too far from base %v", p, m.Base)
		}
	}
	if err := encodePos(e, m.Base); err != nil {
		return err
	}
	if err := e.EncodeBytesLen(len(m.Pos) * deltaSize); err != nil {
		return err
	}
	w := e.Writer()
	var b [deltaSize]byte
	for _, p := range m.Pos {
		b[0], b[1], b[2] = byte(int8(p.X-m.Base.X)), byte(int8(p.Y-m.Base.Y)), byte(int8(p.Z-m.Base.Z))
		if _, err := w.Write(b[:]); err != nil {
			return err
		}
	}
	return nil
}

func (m *ChunkDefaults) decodeFields(r *reader) (err error) {
	if m.Base, err = r.pos(); err != nil {
		return err
	}
	// The bin length is checked against MaxChunkDefaults and against the
	// bytes left in the frame before anything is allocated.
	raw, err := r.raw("positions", false, MaxChunkDefaults*deltaSize)
	if err != nil {
		return err
	}
	if len(raw) == 0 || len(raw)%deltaSize != 0 {
		return malformed("positions: length %d is not a positive multiple of %d", len(raw), deltaSize)
	}
	rh := int64(min(r.lim.MaxRadius, math.MaxInt8))
	rv := rh / 2
	n := len(raw) / deltaSize
	m.Pos = make([]voxel.ChunkPos, n)
	for i := range n {
		b := raw[i*deltaSize:]
		dx, dy, dz := int64(int8(b[0])), int64(int8(b[1])), int64(int8(b[2]))
		if dx < -rh || dx > rh || dz < -rh || dz > rh || dy < -rv || dy > rv {
			return malformed("positions[%d]: offset (%d, %d, %d) outside radius %d", i, dx, dy, dz, rh)
		}
		x, y, z := int64(m.Base.X)+dx, int64(m.Base.Y)+dy, int64(m.Base.Z)+dz
		if x < math.MinInt32 || x > math.MaxInt32 || y < math.MinInt32 || y > math.MaxInt32 ||
			z < math.MinInt32 || z > math.MaxInt32 {
			return malformed("positions[%d]: base + offset overflows int32", i)
		}
		m.Pos[i] = voxel.ChunkPos{X: int32(x), Y: int32(y), Z: int32(z)}
	}
	return nil
}
