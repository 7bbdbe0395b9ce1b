package netsync

import (
	"citydrive/netsync/wire"

	"citydrive/voxel"
)

// ClientSink is what the client's world (voxel residency, meshing) receives
// from the server, in stream order. Methods are called on the caller's
// goroutine from Client.Drain and must not block.
type ClientSink interface {
	// ChunkDefault: pos was never edited; generate it from the seed.
	// Called once per position of a ChunkDefaults message.
	ChunkDefault(pos voxel.ChunkPos)
	// ChunkEdits: generate pos, then apply edits (sorted by index). The
	// slice belongs to the sink.
	ChunkEdits(pos voxel.ChunkPos, edits voxel.Overlay)
	// ChunkDrop: the server stopped tracking pos for this client although
	// pos is still inside the cylinder of the client's latest Subscribe.
	// Chunks that leave that cylinder get no ChunkDrop: the client evicts
	// them itself.
	ChunkDrop(pos voxel.ChunkPos)
	// EditBroadcast: a block of a chunk the client holds changed.
	EditBroadcast(pos voxel.ChunkPos, index uint16, block voxel.Block)
	// EditResult answers RequestEdit seq; reason is empty when applied.
	EditResult(seq uint32, applied bool, reason string)
}

// PoseSink is told about the server's Poses: a granted or refused Reset
// (Seq of it), or where the server holds the car after moves it refused
// (Seq 0). A ClientSink that is also a PoseSink gets them from Dispatch.
type PoseSink interface {
	Pose(p wire.Pose)
}

// TickRateSink is told the server's tick rate each time it changes
// (TickRate): the server's world clock, and so its traffic, runs at hz /
// Welcome.FullHz of real time. A ClientSink that is also a TickRateSink
// gets them from Dispatch.
type TickRateSink interface {
	TickRate(hz uint32)
}

// Drain hands at most max queued server messages to sink without blocking
// and returns how many it handled.
func (c *Client) Drain(sink ClientSink, max int) int {
	for n := range max {
		select {
		case m := <-c.in:
			Dispatch(sink, m)
		default:
			return n
		}
	}
	return max
}

// Dispatch hands one server message (as received from Messages) to sink.
func Dispatch(sink ClientSink, m wire.Message) {
	switch m := m.(type) {
	case *wire.ChunkDefaults:
		for _, p := range m.Pos {
			sink.ChunkDefault(p)
		}
	case *wire.ChunkEdits:
		sink.ChunkEdits(m.Pos, m.Edits)
	case *wire.ChunkDrop:
		sink.ChunkDrop(m.Pos)
	case *wire.EditBroadcast:
		sink.EditBroadcast(m.Pos, m.Index, m.Block)
	case *wire.EditAck:
		sink.EditResult(m.Seq, true, "")
	case *wire.EditReject:
		sink.EditResult(m.Seq, false, m.Reason)
	case *wire.Pose:
		if ps, ok := sink.(PoseSink); ok {
			ps.Pose(*m)
		}
	case *wire.TickRate:
		if ts, ok := sink.(TickRateSink); ok {
			ts.TickRate(m.Hz)
		}
	case *wire.Notice:
		if ns, ok := sink.(NoticeSink); ok {
			ns.Notice(*m)
		}
	}
}
