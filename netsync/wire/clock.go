package wire

import "github.com/vmihailenco/msgpack/v5"

// Clock (protocol 5) keeps a client's estimate of the server's world clock,
// the clock the city's traffic runs on. The client sends Clock{Echo: its
// local time} on the control stream every few seconds with World zero; the
// server answers at once with the same Echo and its world time. The client
// learns the round trip from Echo and takes the world time as of its middle
// (package worldclock); it keeps no record of what it asked. Both times
// are microseconds; the server's answers are budgeted, unanswered pings
// cost the client only a worse estimate.
type Clock struct {
	Echo  uint64 // the client's local time when it asked, µs
	World uint64 // the server's world time when it answered, µs (0 in a ping)
}

// MaxClockMicros bounds both times: about 285,000 years, so that a
// conversion to float64 seconds stays exact to the microsecond.
const MaxClockMicros = 1 << 53

func (*Clock) Kind() Kind      { return KindClock }
func (*Clock) fieldCount() int { return 2 }

func (m *Clock) encodeFields(e *msgpack.Encoder) error {
	if err := e.EncodeUint(m.Echo); err != nil {
		return err
	}
	return e.EncodeUint(m.World)
}

func (m *Clock) decodeFields(r *reader) (err error) {
	if m.Echo, err = r.uint("echo", MaxClockMicros); err != nil {
		return err
	}
	m.World, err = r.uint("world", MaxClockMicros)
	return err
}
