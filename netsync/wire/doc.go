// Package wire defines citydrive's network messages and their framing.
//
// A frame is a 4-byte big-endian payload length followed by exactly one
// msgpack message. Every message is a msgpack array whose first element is
// its Kind and whose remaining elements are the message's fields, in a fixed
// order. Car snapshots are not framed: they travel in QUIC datagrams in a
// fixed-size binary layout (see car_snapshot.go).
//
// Everything decoded here comes from a peer and is treated as hostile: the
// decoders never let msgpack allocate by a declared length, bound every
// length against the bytes that are actually left, insist on the exact
// field count, and range-check every value. A decoder error means the peer
// is broken or malicious; the connection should be closed.
package wire

import "citydrive/voxel"

// ProtocolVersion is the version of this wire format. It is carried in the
// ALPN name ("citydrive/<version>") and in Hello/Welcome. Version 2 replaced
// the per-chunk ChunkDefault (kind 11) with the batched ChunkDefaults (kind
// 14) and stopped sending ChunkDrop for chunks the client evicts itself.
// Version 3 added TickRate (kind 30): the server's current tick rate when
// it slows time under load. Version 4 added the client's player key to
// EditRequest, so a cluster applies a retried edit once. Version 5 added
// the world clock: Clock (kind 31) on the control stream and the
// Welcome's World field. Version 6 added Reset (kind 32) and Pose (kind
// 33): the server places cars (spawn, resets, held after refused moves).
// Version 7 added the Welcome's FullHz (the world clock slows with the
// tick rate: a slowed server's traffic runs slower on every client), Join
// (kind 4, right after the Hello: the player key, name and join password,
// checked against the operator's bans, allow-list and password) and Notice
// (kind 34: the operator's broadcasts and shutdown countdowns). Version 8
// added Owners (kind 35: which server owns each region around the client)
// and Handover (kind 36: which of a client's connections its car drives
// on), so a client hands itself over between a cluster's servers as it
// drives.
const ProtocolVersion uint32 = 8

// Chunk positions, block indices (voxel.Index, < voxel.ChunkVolume),
// blocks and edits are package voxel's types: the wire carries the voxel
// vocabulary and never redefines it.

const (
	// MaxReasonLen bounds the human-readable reason in Refuse/EditReject.
	MaxReasonLen = 512
	// AbsMaxRadius is the largest subscription radius (in chunks) any server
	// may announce.
	AbsMaxRadius = 64
	// MaxTickHz bounds the tick rate a server may announce.
	MaxTickHz = 1000
)

// Limits are the peer-independent value ranges a decoder enforces on top of
// the structural checks.
type Limits struct {
	// MaxRadius is the largest Subscribe radius accepted (chunks).
	MaxRadius uint32
	// MaxBlock is the largest valid block id; block ids are in [0, MaxBlock].
	MaxBlock voxel.Block
}

// DefaultLimits accepts any radius a server may announce and any block id.
var DefaultLimits = Limits{MaxRadius: AbsMaxRadius, MaxBlock: 255}
