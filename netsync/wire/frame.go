package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	// HeaderSize is the size of a frame's big-endian length prefix.
	HeaderSize = 4
	// ControlCap is the largest payload accepted on a control stream.
	ControlCap = 64 << 10
	// ChunkCap is the largest payload accepted on the chunk stream.
	ChunkCap = 1 << 20
)

var (
	// ErrFrameTooLarge: a frame declared (or would have) a payload above
	// the stream's cap. Nothing of the payload was read.
	ErrFrameTooLarge = errors.New("wire: frame too large")
	// ErrTruncated: the stream ended inside a frame.
	ErrTruncated = errors.New("wire: truncated frame")
	// ErrEmptyFrame: a frame with a zero length.
	ErrEmptyFrame = errors.New("wire: empty frame")
)

func putHeader(b []byte, n int) { binary.BigEndian.PutUint32(b, uint32(n)) }

// FrameReader reads length-prefixed frames from a stream, refusing any
// declared length above its cap before reading the payload, and reusing one
// buffer. The buffer grows with the bytes that actually arrive, not with the
// declared length, so a peer that announces a large frame and stalls costs
// little memory.
type FrameReader struct {
	r   io.Reader
	max int
	hdr [HeaderSize]byte
	buf []byte
	// OnFrameStart, if set, is called when a frame's first byte has
	// arrived, before the rest is read (to start a per-frame deadline).
	OnFrameStart func()
}

// NewFrameReader reads frames of at most max payload bytes from r.
func NewFrameReader(r io.Reader, max int) *FrameReader {
	return &FrameReader{r: r, max: max}
}

// growStep is the first read step; later steps at most double what arrived.
const growStep = 4 << 10

// Next returns the next frame's payload, valid until the following call.
// At a clean end of stream (no partial header) it returns io.EOF.
func (f *FrameReader) Next() ([]byte, error) {
	if _, err := io.ReadFull(f.r, f.hdr[:1]); err != nil {
		return nil, err
	}
	if f.OnFrameStart != nil {
		f.OnFrameStart()
	}
	if _, err := io.ReadFull(f.r, f.hdr[1:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: %d-byte header cut short", ErrTruncated, HeaderSize)
		}
		return nil, err
	}
	n64 := uint64(binary.BigEndian.Uint32(f.hdr[:]))
	if n64 > uint64(f.max) {
		return nil, fmt.Errorf("%w: declared %d bytes, cap %d", ErrFrameTooLarge, n64, f.max)
	}
	n := int(n64)
	if n == 0 {
		return nil, ErrEmptyFrame
	}
	f.buf = f.buf[:0]
	for len(f.buf) < n {
		step := min(n-len(f.buf), max(len(f.buf), growStep))
		if cap(f.buf)-len(f.buf) < step {
			nb := make([]byte, len(f.buf), len(f.buf)+step)
			copy(nb, f.buf)
			f.buf = nb
		}
		got, err := io.ReadFull(f.r, f.buf[len(f.buf):len(f.buf)+step])
		f.buf = f.buf[:len(f.buf)+got]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w: %d of %d bytes", ErrTruncated, len(f.buf), n)
			}
			return nil, err
		}
	}
	return f.buf, nil
}

// AppendRawFrame appends a length prefix and payload to dst.
func AppendRawFrame(dst, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}
