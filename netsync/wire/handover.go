package wire

import (
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// Handover (protocol 8) is a client's word, on the chunk stream, about
// which of its connections its car drives on. A client handing over
// between servers holds two for a while: the one it drives on and a
// spare to the next region's owner, which has its area (chunks, cars)
// but must not show the car as well.
//
//   - Drive false: standby. This server stops relaying and publishing the
//     player's car and ignores its snapshots; the connection stays (its
//     Subscribe keeps it alive) until the client drives here or leaves.
//   - Drive true: the car drives here from now on; a cluster server that
//     has heard of the car From places it where it was, so its next
//     snapshot is accepted there.
//
// From is the id the world knows the car by: the player's id on the first
// server it joined (0: none). Once that server vouches for it (the player
// key matches), this one shows the car under that id too, so observers
// see one car across the handover.
type Handover struct {
	Drive bool
	From  uint32
}

func (*Handover) Kind() Kind      { return KindHandover }
func (*Handover) fieldCount() int { return 2 }

func (m *Handover) encodeFields(e *msgpack.Encoder) error {
	var d uint64
	if m.Drive {
		d = 1
	}
	if err := e.EncodeUint(d); err != nil {
		return err
	}
	return e.EncodeUint(uint64(m.From))
}

func (m *Handover) decodeFields(r *reader) error {
	d, err := r.uint("drive", 1)
	if err != nil {
		return err
	}
	m.Drive = d == 1
	f, err := r.uint("from", math.MaxUint32)
	m.From = uint32(f)
	return err
}
