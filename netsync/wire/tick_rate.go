package wire

import "github.com/vmihailenco/msgpack/v5"

// TickRate (protocol 3) tells a client the server's current tick rate:
// under load the server slows time (ticks less often) rather than falling
// behind, down to a floor, and speeds up again when the load falls. Sent
// on the chunk stream whenever the rate changes; the Welcome carries the
// rate at the join.
type TickRate struct {
	Hz uint32 // 1..MaxTickHz
}

func (*TickRate) Kind() Kind      { return KindTickRate }
func (*TickRate) fieldCount() int { return 1 }

func (m *TickRate) encodeFields(e *msgpack.Encoder) error { return e.EncodeUint(uint64(m.Hz)) }

func (m *TickRate) decodeFields(r *reader) error {
	v, err := r.uint("tick hz", MaxTickHz)
	if err != nil {
		return err
	}
	if v == 0 {
		return malformed("tick hz: zero")
	}
	m.Hz = uint32(v)
	return nil
}
