package wire

import (
	"github.com/vmihailenco/msgpack/v5"

	"citydrive/voxel"
)

// Subscribe tells the server which chunks the client wants: the cylinder of
// Radius chunks around Centre. The client sends it whenever its centre chunk
// changes; each Subscribe replaces the previous one.
type Subscribe struct {
	Centre voxel.ChunkPos
	Radius uint32 // chunks, at most the server's Welcome.MaxRadius
}

func (*Subscribe) Kind() Kind      { return KindSubscribe }
func (*Subscribe) fieldCount() int { return 4 }

func (m *Subscribe) encodeFields(e *msgpack.Encoder) error {
	if err := encodePos(e, m.Centre); err != nil {
		return err
	}
	return e.EncodeUint(uint64(m.Radius))
}

func (m *Subscribe) decodeFields(r *reader) (err error) {
	if m.Centre, err = r.pos(); err != nil {
		return err
	}
	v, err := r.uint("radius", uint64(r.lim.MaxRadius))
	m.Radius = uint32(v)
	return err
}
