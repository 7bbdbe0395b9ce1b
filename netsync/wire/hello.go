package wire

import (
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// Hello is the client's first message on the control stream.
type Hello struct {
	Protocol  uint32 // ProtocolVersion the client speaks
	Seed      uint64 // world seed the client will generate with
	Generator uint32 // terrain generator version
}

func (*Hello) Kind() Kind      { return KindHello }
func (*Hello) fieldCount() int { return 3 }

func (m *Hello) encodeFields(e *msgpack.Encoder) error {
	if err := e.EncodeUint(uint64(m.Protocol)); err != nil {
		return err
	}
	if err := e.EncodeUint(m.Seed); err != nil {
		return err
	}
	return e.EncodeUint(uint64(m.Generator))
}

func (m *Hello) decodeFields(r *reader) (err error) {
	if m.Protocol, err = r.u32("protocol"); err != nil {
		return err
	}
	if m.Seed, err = r.uint("seed", math.MaxUint64); err != nil {
		return err
	}
	m.Generator, err = r.u32("generator")
	return err
}
