package wire

import (
	"github.com/vmihailenco/msgpack/v5"

	"citydrive/voxel"
)

// ChunkDrop says chunk Pos left the client's area; the server will send no
// more edits for it until it is delivered again.
type ChunkDrop struct {
	Pos voxel.ChunkPos
}

func (*ChunkDrop) Kind() Kind      { return KindChunkDrop }
func (*ChunkDrop) fieldCount() int { return 3 }

func (m *ChunkDrop) encodeFields(e *msgpack.Encoder) error { return encodePos(e, m.Pos) }

func (m *ChunkDrop) decodeFields(r *reader) (err error) {
	m.Pos, err = r.pos()
	return err
}
