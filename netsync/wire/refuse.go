package wire

import "github.com/vmihailenco/msgpack/v5"

// Refuse ends a handshake: the server will not serve this client. Reason is
// meant for the player and says what to do about it.
type Refuse struct {
	Reason string // at most MaxReasonLen bytes of UTF-8
}

func (*Refuse) Kind() Kind      { return KindRefuse }
func (*Refuse) fieldCount() int { return 1 }

func (m *Refuse) encodeFields(e *msgpack.Encoder) error { return encodeReason(e, m.Reason) }

func (m *Refuse) decodeFields(r *reader) (err error) {
	m.Reason, err = r.reason()
	return err
}
