package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// CarSnapshot is one car's quantised state. Snapshots are state, not events:
// they travel in unreliable QUIC datagrams and a newer Seq supersedes an
// older one.
type CarSnapshot struct {
	Player  uint32
	Seq     uint32 // per-player, increasing (wraps; compare with SeqNewer)
	X, Y, Z int32  // position in centimetres
	Heading uint16 // yaw, 65536 steps per turn
	Speed   int16  // signed speed in cm/s (±327 m/s)
}

const (
	// CarSnapshotSize is the encoded size of one CarSnapshot.
	CarSnapshotSize = 24
	// MaxDatagramSize is the largest datagram citydrive sends.
	MaxDatagramSize = 1200
	// carDatagramHeader is the datagram's tag byte and count byte.
	carDatagramHeader = 2
	// MaxCarsPerDatagram is how many snapshots fit one datagram.
	MaxCarsPerDatagram = (MaxDatagramSize - carDatagramHeader) / CarSnapshotSize
	// DatagramCars tags a datagram of car snapshots.
	DatagramCars byte = 0xC1
)

// ErrBadDatagram wraps every datagram decoding error.
var ErrBadDatagram = errors.New("wire: malformed datagram")

// QuantiseCar builds a snapshot from metres, radians and metres per second,
// clamping what does not fit.
func QuantiseCar(player, seq uint32, x, y, z, heading, speed float64) CarSnapshot {
	turn := heading / (2 * math.Pi)
	turn -= math.Floor(turn)
	return CarSnapshot{
		Player: player, Seq: seq,
		X: clampI32(x * 100), Y: clampI32(y * 100), Z: clampI32(z * 100),
		Heading: uint16(int64(math.Round(turn*65536)) & 0xffff),
		Speed:   int16(max(math.MinInt16, min(math.MaxInt16, math.Round(speed*100)))),
	}
}

func clampI32(v float64) int32 {
	v = math.Round(v)
	if v != v { // NaN
		return 0
	}
	return int32(max(math.MinInt32, min(math.MaxInt32, v)))
}

// Position returns the position in metres.
func (s CarSnapshot) Position() (x, y, z float64) {
	return float64(s.X) / 100, float64(s.Y) / 100, float64(s.Z) / 100
}

// HeadingRad returns the heading in radians, in [0, 2π).
func (s CarSnapshot) HeadingRad() float64 { return float64(s.Heading) * (2 * math.Pi / 65536) }

// SpeedMS returns the speed in metres per second.
func (s CarSnapshot) SpeedMS() float64 { return float64(s.Speed) / 100 }

// SeqNewer reports whether sequence a is newer than b, allowing wrap-around.
func SeqNewer(a, b uint32) bool { return int32(a-b) > 0 }

// AppendCarSnapshot appends the 24-byte encoding of s.
func AppendCarSnapshot(dst []byte, s CarSnapshot) []byte {
	dst = binary.BigEndian.AppendUint32(dst, s.Player)
	dst = binary.BigEndian.AppendUint32(dst, s.Seq)
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.X))
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.Y))
	dst = binary.BigEndian.AppendUint32(dst, uint32(s.Z))
	dst = binary.BigEndian.AppendUint16(dst, s.Heading)
	return binary.BigEndian.AppendUint16(dst, uint16(s.Speed))
}

func decodeCarSnapshot(b []byte) CarSnapshot {
	return CarSnapshot{
		Player:  binary.BigEndian.Uint32(b[0:]),
		Seq:     binary.BigEndian.Uint32(b[4:]),
		X:       int32(binary.BigEndian.Uint32(b[8:])),
		Y:       int32(binary.BigEndian.Uint32(b[12:])),
		Z:       int32(binary.BigEndian.Uint32(b[16:])),
		Heading: binary.BigEndian.Uint16(b[20:]),
		Speed:   int16(binary.BigEndian.Uint16(b[22:])),
	}
}

// AppendCarDatagram appends one datagram carrying 1..MaxCarsPerDatagram
// snapshots: a tag byte, a count byte, then the snapshots back to back.
func AppendCarDatagram(dst []byte, cars []CarSnapshot) ([]byte, error) {
	if len(cars) == 0 || len(cars) > MaxCarsPerDatagram {
		return dst, fmt.Errorf("wire: %d cars in one datagram, want 1..%d", len(cars), MaxCarsPerDatagram)
	}
	dst = append(dst, DatagramCars, byte(len(cars)))
	for _, c := range cars {
		dst = AppendCarSnapshot(dst, c)
	}
	return dst, nil
}

// DecodeCarDatagram appends the snapshots in datagram p to dst. The count
// byte must match the datagram's length exactly, so at most
// MaxCarsPerDatagram snapshots are ever appended.
func DecodeCarDatagram(p []byte, dst []CarSnapshot) ([]CarSnapshot, error) {
	if len(p) < carDatagramHeader || len(p) > MaxDatagramSize {
		return dst, fmt.Errorf("%w: %d bytes", ErrBadDatagram, len(p))
	}
	if p[0] != DatagramCars {
		return dst, fmt.Errorf("%w: unknown tag %#x", ErrBadDatagram, p[0])
	}
	n := int(p[1])
	if n == 0 || n > MaxCarsPerDatagram || len(p) != carDatagramHeader+n*CarSnapshotSize {
		return dst, fmt.Errorf("%w: count %d does not match %d bytes", ErrBadDatagram, n, len(p))
	}
	for i := range n {
		dst = append(dst, decodeCarSnapshot(p[carDatagramHeader+i*CarSnapshotSize:]))
	}
	return dst, nil
}
