package wire

import "github.com/vmihailenco/msgpack/v5"

// EditAck confirms that EditRequest Seq was applied and committed to the
// server's store. The edit itself reaches the client as an EditBroadcast,
// which precedes the ack on the same stream.
type EditAck struct {
	Seq uint32
}

func (*EditAck) Kind() Kind      { return KindEditAck }
func (*EditAck) fieldCount() int { return 1 }

func (m *EditAck) encodeFields(e *msgpack.Encoder) error { return e.EncodeUint(uint64(m.Seq)) }

func (m *EditAck) decodeFields(r *reader) (err error) {
	m.Seq, err = r.u32("seq")
	return err
}
