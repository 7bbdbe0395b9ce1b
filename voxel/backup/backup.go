// Package backup is the file format of a world's edits exported by
// `citydrive export` and restored by `citydrive import` (a .cde file): the
// same for a single server's bbolt store and a cluster's JetStream bucket,
// so a world moves between them too. It is pure: the stores produce and
// consume Chunks, this package turns them into bytes and back.
//
// # Format, version 1
//
// All integers big-endian. A fixed header of HeaderSize bytes:
//
//	 0  magic      8 bytes "\x89CDE\r\n\x1a\n" (PNG's trick: a text-mode
//	               copy or a 7-bit channel breaks it visibly)
//	 8  format     u16, 1
//	10  reserved   u16, 0
//	12  generator  u32  terrain generator version the edits belong to
//	16  seed       u64  world seed
//	24  chunks     u64  chunk records in the body
//	32  edits      u64  block edits in all records
//	40  body size  u64  bytes after the header
//	48  sha256     32 bytes, of the body
//	80  crc32c     u32, of bytes 0..80 (so a damaged header is reported as
//	               damage, not as a wrong seed)
//
// then the body: one record per edited chunk, in increasing position
// order (X, then Y, then Z, signed), each chunk once:
//
//	x, y, z    3 × i32   chunk position
//	n          u16       edits, 1..voxel.MaxEdits
//	edits      n × 3     voxel.Overlay's encoding (index u16, block u8),
//	                     indices strictly increasing
//	s          u8        stamps, 0..MaxStamps
//	stamps     s × 12    player key u64 (non-zero, distinct), sequence u32:
//	                     the newest request of that player applied to the
//	                     chunk, so a retry after the restore is still
//	                     applied once
//
// The form is canonical: a file that decodes re-encodes to the same bytes.
// Every length is checked against its bound before anything is allocated
// for it; the decoder holds one record at a time (at most about 96 KiB).
package backup

import (
	"cmp"
	"errors"
	"fmt"

	"citydrive/voxel"
)

// Magic opens every backup file.
const Magic = "\x89CDE\r\n\x1a\n"

// Format is the version this package writes and reads. A later version
// would be refused with ErrVersion by this one.
const Format = 1

// HeaderSize is the fixed header's size in bytes.
const HeaderSize = 84

// MaxStamps bounds the stamps of one chunk (the stores keep at most 32).
const MaxStamps = 32

// MaxChunks bounds the chunk count a header may claim: far more than a
// world holds (a million edited chunks is a busy server's years).
const MaxChunks = 1 << 30

// Record sizes: a record's fixed part (position, edit count, stamp count)
// and the smallest and largest record.
const (
	posSize       = 12
	editSize      = 3
	stampSize     = 12
	recordFixed   = posSize + 2 + 1
	minRecordSize = recordFixed + editSize
	maxRecordSize = recordFixed + voxel.MaxEdits*editSize + MaxStamps*stampSize
)

// Stamp is a player's newest request applied to a chunk.
type Stamp struct {
	Player uint64 // never 0 (anonymous requests are not stamped)
	Seq    uint32
}

// Chunk is one edited chunk: its edits and its stamps, oldest first.
type Chunk struct {
	Pos     voxel.ChunkPos
	Overlay voxel.Overlay
	Stamps  []Stamp
}

// Header is what a backup says about itself.
type Header struct {
	Format    uint16
	Seed      uint64
	Generator uint32
	Chunks    uint64
	Edits     uint64
	BodySize  uint64
	Sum       [32]byte // SHA-256 of the body
}

// Errors, for errors.Is; each comes wrapped with the detail.
var (
	// ErrNotBackup: the file does not start with Magic.
	ErrNotBackup = errors.New("not a citydrive edits backup (.cde)")
	// ErrVersion: a format this version cannot read.
	ErrVersion = errors.New("unsupported backup format")
	// ErrDamaged: a checksum, a count or a record is wrong.
	ErrDamaged = errors.New("backup damaged")
	// ErrTruncated: the file ends before its header says it does (is
	// ErrDamaged too).
	ErrTruncated = fmt.Errorf("%w: file ends early (truncated)", ErrDamaged)
	// ErrBadChunk: Encode was given a chunk the format cannot hold.
	ErrBadChunk = errors.New("backup: invalid chunk")
)

// Compare orders chunk positions as a backup's body does: X, then Y,
// then Z (a source that is not already in this order sorts by it).
func Compare(a, b voxel.ChunkPos) int {
	switch {
	case a.X != b.X:
		return cmp.Compare(a.X, b.X)
	case a.Y != b.Y:
		return cmp.Compare(a.Y, b.Y)
	}
	return cmp.Compare(a.Z, b.Z)
}
