package wire

import (
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// Reset (protocol 6) is a player's deliberate reset (Backspace, a
// respawn): it asks the server to put its car at X, Y, Z (centimetres,
// as in CarSnapshot) facing Heading, the place the client found on the
// road. The server answers with a Pose of the same Seq: the car moves
// only where that Pose says.
type Reset struct {
	Seq     uint32 // chosen by the client, echoed in the Pose; never 0
	X, Y, Z int32
	Heading uint16
}

func (*Reset) Kind() Kind      { return KindReset }
func (*Reset) fieldCount() int { return 5 }

func (m *Reset) encodeFields(e *msgpack.Encoder) error {
	return encodePose(e, m.Seq, m.X, m.Y, m.Z, m.Heading)
}

func (m *Reset) decodeFields(r *reader) (err error) {
	if m.Seq, m.X, m.Y, m.Z, m.Heading, err = decodePose(r); err != nil {
		return err
	}
	if m.Seq == 0 {
		return malformed("reset seq: zero")
	}
	return nil
}

// Pose (protocol 6) is where the server has the player's car: Seq 0 is
// the server's own placement (the spawn after the join, or the place a
// car is held at after moves it refused), Seq n the answer to Reset n.
// Reason is empty when a Reset was granted; otherwise it says why the car
// is where the Pose says (at most MaxReasonLen bytes of UTF-8). Y is 0
// where the server does not know the ground (the spawn): the client puts
// the car on its surface.
type Pose struct {
	Seq     uint32
	X, Y, Z int32 // centimetres
	Heading uint16
	Reason  string
}

func (*Pose) Kind() Kind      { return KindPose }
func (*Pose) fieldCount() int { return 6 }

func (m *Pose) encodeFields(e *msgpack.Encoder) error {
	if err := encodePose(e, m.Seq, m.X, m.Y, m.Z, m.Heading); err != nil {
		return err
	}
	return encodeReason(e, m.Reason)
}

func (m *Pose) decodeFields(r *reader) (err error) {
	if m.Seq, m.X, m.Y, m.Z, m.Heading, err = decodePose(r); err != nil {
		return err
	}
	m.Reason, err = r.reason()
	return err
}

// Position returns the position in metres.
func (m Pose) Position() (x, y, z float64) {
	return float64(m.X) / 100, float64(m.Y) / 100, float64(m.Z) / 100
}

// Radians returns the heading in radians.
func (m Pose) Radians() float64 { return float64(m.Heading) / 65536 * 2 * math.Pi }

func encodePose(e *msgpack.Encoder, seq uint32, x, y, z int32, heading uint16) error {
	if err := e.EncodeUint(uint64(seq)); err != nil {
		return err
	}
	for _, v := range [...]int32{x, y, z} {
		if err := e.EncodeInt(int64(v)); err != nil {
			return err
		}
	}
	return e.EncodeUint(uint64(heading))
}

func decodePose(r *reader) (seq uint32, x, y, z int32, heading uint16, err error) {
	if seq, err = r.u32("seq"); err != nil {
		return
	}
	if x, err = r.i32("x"); err != nil {
		return
	}
	if y, err = r.i32("y"); err != nil {
		return
	}
	if z, err = r.i32("z"); err != nil {
		return
	}
	var h uint64
	if h, err = r.uint("heading", math.MaxUint16); err != nil {
		return
	}
	return seq, x, y, z, uint16(h), nil
}
