package wire

import (
	"math"

	"github.com/vmihailenco/msgpack/v5"

	"citydrive/voxel"
)

// EditRequest asks the server to set one block. Seq is chosen by the client
// and echoed in the EditAck or EditReject. Player (protocol 4) is the
// client's own key, stable across reconnects and servers: with Seq it names
// the request, so one retried on another server of a cluster is applied
// once.
type EditRequest struct {
	Player uint64
	Seq    uint32
	Pos    voxel.ChunkPos
	Index  uint16      // < ChunkVolume
	Block  voxel.Block // <= Limits.MaxBlock
}

func (*EditRequest) Kind() Kind      { return KindEditRequest }
func (*EditRequest) fieldCount() int { return 7 }

func (m *EditRequest) encodeFields(e *msgpack.Encoder) error {
	if err := voxel.CheckIndex(m.Index); err != nil {
		return err
	}
	if err := e.EncodeUint(m.Player); err != nil {
		return err
	}
	if err := e.EncodeUint(uint64(m.Seq)); err != nil {
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

func (m *EditRequest) decodeFields(r *reader) (err error) {
	if m.Player, err = r.uint("player", math.MaxUint64); err != nil {
		return err
	}
	if m.Seq, err = r.u32("seq"); err != nil {
		return err
	}
	if m.Pos, err = r.pos(); err != nil {
		return err
	}
	if m.Index, err = r.index(); err != nil {
		return err
	}
	m.Block, err = r.block()
	return err
}
