package wire

import (
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// Welcome is the server's positive answer to Hello: the session parameters.
type Welcome struct {
	Protocol  uint32
	Seed      uint64
	Generator uint32
	Player    uint32 // this client's player id
	MaxRadius uint32 // largest Subscribe radius the server accepts (chunks)
	TickHz    uint32 // server tick rate
	// World is the server's world clock (µs) as it sent the Welcome
	// (protocol 5): with the Hello's send time it is the client's first
	// Clock sample.
	World uint64
}

// welcomeFieldsV3 is the Welcome's field count before protocol 5 added
// World: such a Welcome still decodes, so a client can explain the
// version mismatch instead of calling the message malformed.
const welcomeFieldsV3 = 6

func (*Welcome) Kind() Kind      { return KindWelcome }
func (*Welcome) fieldCount() int { return 7 }

func (m *Welcome) encodeFields(e *msgpack.Encoder) error {
	for _, v := range [...]uint64{uint64(m.Protocol), m.Seed, uint64(m.Generator),
		uint64(m.Player), uint64(m.MaxRadius), uint64(m.TickHz), m.World} {
		if err := e.EncodeUint(v); err != nil {
			return err
		}
	}
	return nil
}

func (m *Welcome) decodeFields(r *reader) (err error) {
	if m.Protocol, err = r.u32("protocol"); err != nil {
		return err
	}
	if m.Seed, err = r.uint("seed", math.MaxUint64); err != nil {
		return err
	}
	if m.Generator, err = r.u32("generator"); err != nil {
		return err
	}
	if m.Player, err = r.u32("player"); err != nil {
		return err
	}
	v, err := r.uint("max radius", AbsMaxRadius)
	if err != nil {
		return err
	}
	m.MaxRadius = uint32(v)
	if v, err = r.uint("tick hz", MaxTickHz); err != nil {
		return err
	}
	if v == 0 {
		return malformed("tick hz: zero")
	}
	m.TickHz = uint32(v)
	if r.fields == welcomeFieldsV3 {
		return nil
	}
	m.World, err = r.uint("world", MaxClockMicros)
	return err
}
