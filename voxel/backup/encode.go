package backup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"citydrive/voxel"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Source yields a world's chunks in Compare order. Encode calls it twice,
// once to count and checksum them and once to write them, so the header
// can come first and the file can go down a socket: it must yield the same
// chunks both times (a read transaction, or a slice).
type Source func(yield func(Chunk) error) error

// Encode writes a backup of the chunks src yields to w and returns its
// header. A chunk out of order or that the format cannot hold fails it
// with ErrBadChunk before anything is written.
func Encode(w io.Writer, seed uint64, gen uint32, src Source) (Header, error) {
	h := Header{Format: Format, Seed: seed, Generator: gen}
	var rec []byte
	var last voxel.ChunkPos
	sum := sha256.New()
	err := src(func(c Chunk) error {
		if h.Chunks > 0 && Compare(last, c.Pos) >= 0 {
			return fmt.Errorf("%w: chunk %v after %v (want increasing positions, each once)", ErrBadChunk, c.Pos, last)
		}
		var err error
		if rec, err = appendRecord(rec[:0], c); err != nil {
			return err
		}
		last = c.Pos
		h.Chunks++
		h.Edits += uint64(len(c.Overlay))
		h.BodySize += uint64(len(rec))
		sum.Write(rec)
		if h.Chunks > MaxChunks {
			return fmt.Errorf("%w: more than %d chunks", ErrBadChunk, MaxChunks)
		}
		return nil
	})
	if err != nil {
		return Header{}, err
	}
	sum.Sum(h.Sum[:0])

	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.Write(h.append(nil)); err != nil {
		return Header{}, err
	}
	again := sha256.New()
	var n uint64
	err = src(func(c Chunk) error {
		var err error
		if rec, err = appendRecord(rec[:0], c); err != nil {
			return err
		}
		n++
		again.Write(rec)
		_, err = bw.Write(rec)
		return err
	})
	if err != nil {
		return Header{}, err
	}
	if n != h.Chunks || !bytes.Equal(again.Sum(nil), h.Sum[:]) {
		// A Source that is not one snapshot: the file would lie.
		return Header{}, fmt.Errorf("backup: the chunks changed between the two passes of Encode (%d, then %d): a Source must be one snapshot", h.Chunks, n)
	}
	return h, bw.Flush()
}

// appendRecord appends c's record to dst, checking it as the decoder will.
func appendRecord(dst []byte, c Chunk) ([]byte, error) {
	if len(c.Overlay) == 0 || len(c.Overlay) > voxel.MaxEdits {
		return nil, fmt.Errorf("%w: chunk %v has %d edits (want 1..%d)", ErrBadChunk, c.Pos, len(c.Overlay), voxel.MaxEdits)
	}
	for i, e := range c.Overlay {
		if err := (voxel.BlockEdit{Pos: c.Pos, Index: e.Index, Block: e.Block}).Check(); err != nil {
			return nil, fmt.Errorf("%w: chunk %v: %w", ErrBadChunk, c.Pos, err)
		}
		if i > 0 && e.Index <= c.Overlay[i-1].Index {
			return nil, fmt.Errorf("%w: chunk %v: edit indices not increasing at %d", ErrBadChunk, c.Pos, e.Index)
		}
	}
	if err := checkStamps(c.Stamps); err != nil {
		return nil, fmt.Errorf("%w: chunk %v: %v", ErrBadChunk, c.Pos, err)
	}
	for _, v := range [...]int32{c.Pos.X, c.Pos.Y, c.Pos.Z} {
		dst = binary.BigEndian.AppendUint32(dst, uint32(v))
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(c.Overlay)))
	dst = c.Overlay.AppendEncode(dst)
	dst = append(dst, byte(len(c.Stamps)))
	for _, s := range c.Stamps {
		dst = binary.BigEndian.AppendUint64(dst, s.Player)
		dst = binary.BigEndian.AppendUint32(dst, s.Seq)
	}
	return dst, nil
}

// checkStamps: at most MaxStamps, players non-zero and distinct (what the
// stores keep).
func checkStamps(st []Stamp) error {
	if len(st) > MaxStamps {
		return fmt.Errorf("%d stamps (at most %d)", len(st), MaxStamps)
	}
	for i, s := range st {
		if s.Player == 0 {
			return fmt.Errorf("stamp %d names player 0 (anonymous requests are never stamped)", i)
		}
		for _, o := range st[:i] {
			if o.Player == s.Player {
				return fmt.Errorf("player %d stamped twice", s.Player)
			}
		}
	}
	return nil
}

// append appends the header's HeaderSize bytes to dst.
func (h Header) append(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, Magic...)
	dst = binary.BigEndian.AppendUint16(dst, h.Format)
	dst = binary.BigEndian.AppendUint16(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, h.Generator)
	dst = binary.BigEndian.AppendUint64(dst, h.Seed)
	dst = binary.BigEndian.AppendUint64(dst, h.Chunks)
	dst = binary.BigEndian.AppendUint64(dst, h.Edits)
	dst = binary.BigEndian.AppendUint64(dst, h.BodySize)
	dst = append(dst, h.Sum[:]...)
	return binary.BigEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}
