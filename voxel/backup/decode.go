package backup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"citydrive/voxel"
)

// Reader decodes a backup one chunk at a time. The checksum covers the
// whole body, so it is known good only once Next has returned io.EOF: a
// restore commits nothing before that.
type Reader struct {
	br    *bufio.Reader
	h     Header
	sum   hash.Hash
	read  uint64 // body bytes consumed
	n     uint64 // records decoded
	edits uint64
	last  voxel.ChunkPos
	buf   []byte
	err   error // sticky: the first error, or io.EOF
}

// NewReader reads and checks r's header.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var b [HeaderSize]byte
	n, err := io.ReadFull(br, b[:])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	m := min(n, len(Magic))
	switch {
	case n == 0:
		return nil, fmt.Errorf("%w: the file is empty", ErrNotBackup)
	case string(b[:m]) != Magic[:m]:
		return nil, ErrNotBackup
	case n < HeaderSize:
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header (%d)", ErrTruncated, n, HeaderSize)
	}
	h, err := parseHeader(b)
	if err != nil {
		return nil, err
	}
	return &Reader{br: br, h: h, sum: sha256.New()}, nil
}

// parseHeader checks the header's own checksum and that its counts and
// size can belong together, so a file that cannot be whole is refused
// before its body is read.
func parseHeader(b [HeaderSize]byte) (Header, error) {
	be := binary.BigEndian
	h := Header{Format: be.Uint16(b[8:])}
	if h.Format != Format {
		return Header{}, fmt.Errorf("%w: version %d (a newer citydrive made it, or it is damaged); this citydrive reads version %d", ErrVersion, h.Format, Format)
	}
	if want, got := crc32.Checksum(b[:80], castagnoli), be.Uint32(b[80:]); want != got {
		return Header{}, fmt.Errorf("%w: the header's checksum does not match", ErrDamaged)
	}
	if r := be.Uint16(b[10:]); r != 0 {
		return Header{}, fmt.Errorf("%w: reserved header field is %d, want 0", ErrDamaged, r)
	}
	h.Generator, h.Seed = be.Uint32(b[12:]), be.Uint64(b[16:])
	h.Chunks, h.Edits, h.BodySize = be.Uint64(b[24:]), be.Uint64(b[32:]), be.Uint64(b[40:])
	copy(h.Sum[:], b[48:80])
	if h.Chunks > MaxChunks || h.Edits < h.Chunks || h.Edits > h.Chunks*voxel.MaxEdits {
		return Header{}, fmt.Errorf("%w: header claims %d chunks with %d edits", ErrDamaged, h.Chunks, h.Edits)
	}
	// Records without their stamps take exactly this; stamps add 12 bytes
	// each, at most MaxStamps a chunk. (No overflow: both terms < 2^48.)
	fixed := h.Chunks*recordFixed + h.Edits*editSize
	if h.BodySize < fixed || (h.BodySize-fixed)%stampSize != 0 || (h.BodySize-fixed)/stampSize > h.Chunks*MaxStamps {
		return Header{}, fmt.Errorf("%w: a body of %d bytes cannot hold %d chunks with %d edits", ErrDamaged, h.BodySize, h.Chunks, h.Edits)
	}
	return h, nil
}

// Header is the backup's header (checked by NewReader; its counts and
// checksum are confirmed by the body once Next returns io.EOF).
func (r *Reader) Header() Header { return r.h }

// Next returns the next chunk, or io.EOF after the last one once the
// counts, the size and the checksum all agree and nothing follows. Any
// other error is final and wraps ErrDamaged (ErrTruncated if the file ends
// early) or the reader's own error.
func (r *Reader) Next() (Chunk, error) {
	if r.err != nil {
		return Chunk{}, r.err
	}
	c, err := r.next()
	if err != nil {
		r.err = err
	}
	return c, err
}

func (r *Reader) next() (Chunk, error) {
	if r.n == r.h.Chunks {
		return Chunk{}, r.end()
	}
	rec := r.n + 1 // for errors, counted from 1
	b, err := r.readBody(posSize+2, rec)
	if err != nil {
		return Chunk{}, err
	}
	be := binary.BigEndian
	c := Chunk{Pos: voxel.ChunkPos{X: int32(be.Uint32(b)), Y: int32(be.Uint32(b[4:])), Z: int32(be.Uint32(b[8:]))}}
	if r.n > 0 && Compare(r.last, c.Pos) >= 0 {
		return Chunk{}, fmt.Errorf("%w: record %d: chunk %v follows %v (records must be in increasing order, each chunk once)", ErrDamaged, rec, c.Pos, r.last)
	}
	ne := uint64(be.Uint16(b[12:]))
	if ne == 0 || ne > voxel.MaxEdits || r.edits+ne > r.h.Edits {
		return Chunk{}, fmt.Errorf("%w: record %d (chunk %v): %d edits (1..%d, %d in all)", ErrDamaged, rec, c.Pos, ne, voxel.MaxEdits, r.h.Edits)
	}
	if b, err = r.readBody(int(ne)*editSize, rec); err != nil {
		return Chunk{}, err
	}
	if c.Overlay, err = voxel.DecodeOverlay(b); err != nil {
		return Chunk{}, fmt.Errorf("%w: record %d (chunk %v): %w", ErrDamaged, rec, c.Pos, err)
	}
	if b, err = r.readBody(1, rec); err != nil {
		return Chunk{}, err
	}
	ns := int(b[0])
	if ns > MaxStamps {
		return Chunk{}, fmt.Errorf("%w: record %d (chunk %v): %d stamps (at most %d)", ErrDamaged, rec, c.Pos, ns, MaxStamps)
	}
	if ns > 0 {
		if b, err = r.readBody(ns*stampSize, rec); err != nil {
			return Chunk{}, err
		}
		c.Stamps = make([]Stamp, ns)
		for i := range c.Stamps {
			c.Stamps[i] = Stamp{Player: be.Uint64(b[i*stampSize:]), Seq: be.Uint32(b[i*stampSize+8:])}
		}
		if err := checkStamps(c.Stamps); err != nil {
			return Chunk{}, fmt.Errorf("%w: record %d (chunk %v): %v", ErrDamaged, rec, c.Pos, err)
		}
	}
	r.n++
	r.edits += ne
	r.last = c.Pos
	return c, nil
}

// readBody reads the next n bytes of the body (into a buffer reused by
// the next call), refusing to read past the size the header gave.
func (r *Reader) readBody(n int, rec uint64) ([]byte, error) {
	if uint64(n) > r.h.BodySize-r.read {
		return nil, fmt.Errorf("%w: record %d runs past the end of the body (%d bytes)", ErrDamaged, rec, r.h.BodySize)
	}
	if cap(r.buf) < n {
		r.buf = make([]byte, n) // n ≤ 3·MaxEdits: at most 96 KiB
	}
	b := r.buf[:n]
	if _, err := io.ReadFull(r.br, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: in record %d, at byte %d of a body of %d", ErrTruncated, rec, r.read, r.h.BodySize)
		}
		return nil, err
	}
	r.read += uint64(n)
	r.sum.Write(b)
	return b, nil
}

// end checks, after the last record, what the header promised.
func (r *Reader) end() error {
	switch {
	case r.read != r.h.BodySize:
		return fmt.Errorf("%w: the records take %d bytes, the header says %d", ErrDamaged, r.read, r.h.BodySize)
	case r.edits != r.h.Edits:
		return fmt.Errorf("%w: the records hold %d edits, the header says %d", ErrDamaged, r.edits, r.h.Edits)
	case !bytes.Equal(r.sum.Sum(nil), r.h.Sum[:]):
		return fmt.Errorf("%w: the body's checksum does not match the header's", ErrDamaged)
	}
	switch _, err := r.br.ReadByte(); {
	case err == nil:
		return fmt.Errorf("%w: bytes follow the last record", ErrDamaged)
	case !errors.Is(err, io.EOF):
		return err
	}
	return io.EOF
}

// Verify reads a whole backup and reports whether it is intact (nil), with
// its header.
func Verify(r io.Reader) (Header, error) {
	br, err := NewReader(r)
	if err != nil {
		return Header{}, err
	}
	for {
		if _, err := br.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return br.Header(), nil
			}
			return br.Header(), err
		}
	}
}

// ReadAll decodes a whole backup (for worlds small enough to hold; the
// restores stream with Reader instead).
func ReadAll(r io.Reader) (Header, []Chunk, error) {
	br, err := NewReader(r)
	if err != nil {
		return Header{}, nil, err
	}
	var out []Chunk
	for {
		c, err := br.Next()
		if errors.Is(err, io.EOF) {
			return br.Header(), out, nil
		}
		if err != nil {
			return br.Header(), nil, err
		}
		out = append(out, c)
	}
}
