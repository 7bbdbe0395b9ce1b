package wire

import "github.com/vmihailenco/msgpack/v5"

// EditReject says EditRequest Seq was not applied, and why.
type EditReject struct {
	Seq    uint32
	Reason string // at most MaxReasonLen bytes of UTF-8
}

func (*EditReject) Kind() Kind      { return KindEditReject }
func (*EditReject) fieldCount() int { return 2 }

func (m *EditReject) encodeFields(e *msgpack.Encoder) error {
	if err := e.EncodeUint(uint64(m.Seq)); err != nil {
		return err
	}
	return encodeReason(e, m.Reason)
}

func (m *EditReject) decodeFields(r *reader) (err error) {
	if m.Seq, err = r.u32("seq"); err != nil {
		return err
	}
	m.Reason, err = r.reason()
	return err
}
