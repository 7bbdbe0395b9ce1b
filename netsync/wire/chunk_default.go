package wire

import "github.com/vmihailenco/msgpack/v5"

// ChunkDefault says chunk Pos has never been edited: the client generates it
// itself from the seed.
type ChunkDefault struct {
	Pos ChunkPos
}

func (*ChunkDefault) Kind() Kind      { return KindChunkDefault }
func (*ChunkDefault) fieldCount() int { return 3 }

func (m *ChunkDefault) encodeFields(e *msgpack.Encoder) error { return encodePos(e, m.Pos) }

func (m *ChunkDefault) decodeFields(r *reader) (err error) {
	m.Pos, err = r.pos()
	return err
}
