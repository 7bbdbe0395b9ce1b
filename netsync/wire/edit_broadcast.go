package wire

import (
	"github.com/vmihailenco/msgpack/v5"

	"citydrive/voxel"
)

// EditBroadcast tells every client that holds chunk Pos that one of its
// blocks changed. It rides the chunk stream, so it never overtakes the
// chunk delivery it applies to.
type EditBroadcast struct {
	Pos   voxel.ChunkPos
	Index uint16
	Block voxel.Block
}

func (*EditBroadcast) Kind() Kind      { return KindEditBroadcast }
func (*EditBroadcast) fieldCount() int { return 5 }

func (m *EditBroadcast) encodeFields(e *msgpack.Encoder) error {
	if err := voxel.CheckIndex(m.Index); err != nil {
		return err
	}
	if err := encodePos(e, m.Pos); err != nil {
		return err
	}
	if err := e.EncodeUint(uint64(m.Index)); err != nil {
		return err
	}
	return e.EncodeUint(uint64(m.Block))
}

func (m *EditBroadcast) decodeFields(r *reader) (err error) {
	if m.Pos, err = r.pos(); err != nil {
		return err
	}
	if m.Index, err = r.index(); err != nil {
		return err
	}
	m.Block, err = r.block()
	return err
}
