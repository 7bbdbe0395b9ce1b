package wire

import (
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// Owners (protocol 8) tells a client which server owns each region around
// it: the region of its subscription centre and the eight around it. A
// server of a cluster sends it on the chunk stream whenever the answer
// changes; a client uses it to open a connection to the next owner before
// its car crosses a border (netsync.Handover).
type Owners struct {
	RX, RZ int32 // the centre region (chunk coordinates divided by RegionChunks, rounded down)
	// Addrs are the owners' QUIC addresses (host:port, what a client
	// dials), the region at (RX+dx, RZ+dz) at index OwnerIndex(dx, dz);
	// empty where no owner is known.
	Addrs [OwnerCells]string
}

const (
	// RegionChunks is a region's side in chunks (512 m): the unit servers
	// own. netsync/cluster's regions are the same (tested there).
	RegionChunks = 16
	// OwnerCells is how many regions an Owners names: a 3 × 3 block.
	OwnerCells = 9
	// MaxAddrLen bounds one owner address (a DNS name is at most 253
	// bytes, plus the port).
	MaxAddrLen = 261
	// maxRegion bounds a region coordinate: the region of an i32 chunk.
	maxRegion = math.MaxInt32 / RegionChunks
)

// OwnerIndex is the index in Owners.Addrs of the region (dx, dz) from the
// centre, each in -1..1.
func OwnerIndex(dx, dz int) int { return (dz+1)*3 + dx + 1 }

func (*Owners) Kind() Kind      { return KindOwners }
func (*Owners) fieldCount() int { return 2 + OwnerCells }

func (m *Owners) encodeFields(e *msgpack.Encoder) error {
	if err := e.EncodeInt(int64(m.RX)); err != nil {
		return err
	}
	if err := e.EncodeInt(int64(m.RZ)); err != nil {
		return err
	}
	for _, a := range m.Addrs {
		if err := e.EncodeString(clip(a, MaxAddrLen)); err != nil {
			return err
		}
	}
	return nil
}

func (m *Owners) decodeFields(r *reader) error {
	x, err := r.int("region x", -maxRegion-1, maxRegion)
	if err != nil {
		return err
	}
	z, err := r.int("region z", -maxRegion-1, maxRegion)
	if err != nil {
		return err
	}
	m.RX, m.RZ = int32(x), int32(z)
	for i := range m.Addrs {
		if m.Addrs[i], err = r.text("owner address", MaxAddrLen); err != nil {
			return err
		}
	}
	return nil
}
