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
	TickHz    uint32 // server tick rate now (TickRate messages follow it)
	// World is the server's world clock (µs) as it sent the Welcome
	// (protocol 5): with the Hello's send time it is the client's first
	// Clock sample.
	World uint64
	// FullHz is the server's configured tick rate (protocol 7): the world
	// clock runs at TickHz / FullHz of real time, so a client's traffic
	// slows with the server. At least TickHz.
	FullHz uint32
}

// welcomeFieldsV3 is the Welcome's field count before protocol 5 added
// World, and welcomeFieldsV6 before protocol 7 added FullHz: such a
// Welcome still decodes, so a client can explain the version mismatch
// instead of calling the message malformed.
const (
	welcomeFieldsV3 = 6
	welcomeFieldsV6 = 7
)

func (*Welcome) Kind() Kind      { return KindWelcome }
func (*Welcome) fieldCount() int { return 8 }

func (m *Welcome) encodeFields(e *msgpack.Encoder) error {
	for _, v := range [...]uint64{uint64(m.Protocol), m.Seed, uint64(m.Generator),
		uint64(m.Player), uint64(m.MaxRadius), uint64(m.TickHz), m.World, uint64(m.FullHz)} {
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
	m.FullHz = m.TickHz // as before protocol 7: the rate announced is the only one known
	if r.fields == welcomeFieldsV3 {
		return nil
	}
	if m.World, err = r.uint("world", MaxClockMicros); err != nil || r.fields == welcomeFieldsV6 {
		return err
	}
	if v, err = r.uint("full hz", MaxTickHz); err != nil {
		return err
	}
	if uint32(v) < m.TickHz {
		return malformed("full hz %d below the tick rate %d", v, m.TickHz)
	}
	m.FullHz = uint32(v)
	return nil
}
