package wire

import (
	"github.com/vmihailenco/msgpack/v5"
)

// Notice (protocol 7) is a message from the server's operator to every
// player, shown in the game's notice area: a broadcast, or the countdown
// of a graceful shutdown. Sent on the chunk stream, in order with the
// rest.
type Notice struct {
	Text string // at most MaxReasonLen bytes of UTF-8
	// Shutdown, when not zero, is how many seconds are left until the
	// server shuts down.
	Shutdown uint32
}

// MaxShutdownSeconds bounds a shutdown countdown (a day).
const MaxShutdownSeconds = 86400

func (*Notice) Kind() Kind      { return KindNotice }
func (*Notice) fieldCount() int { return 2 }

func (m *Notice) encodeFields(e *msgpack.Encoder) error {
	if err := encodeReason(e, m.Text); err != nil {
		return err
	}
	return e.EncodeUint(uint64(m.Shutdown))
}

func (m *Notice) decodeFields(r *reader) (err error) {
	if m.Text, err = r.text("text", MaxReasonLen); err != nil {
		return err
	}
	v, err := r.uint("shutdown", MaxShutdownSeconds)
	m.Shutdown = uint32(v)
	return err
}
