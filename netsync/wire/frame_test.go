package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFrameRoundTrip(t *testing.T) {
	enc := NewEncoder()
	var stream []byte
	for _, m := range samples() {
		var err error
		stream, err = enc.AppendFrame(stream, m, ControlCap)
		require.NoError(t, err)
	}
	fr := NewFrameReader(bytes.NewReader(stream), ControlCap)
	dec := NewDecoder(testLimits)
	for _, want := range samples() {
		p, err := fr.Next()
		require.NoError(t, err)
		got, err := dec.Decode(p)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := fr.Next()
	assert.Equal(t, io.EOF, err)
}

func TestAppendFrameCap(t *testing.T) {
	_, err := NewEncoder().AppendFrame([]byte("keep"), &Refuse{Reason: "0123456789"}, 4)
	require.ErrorIs(t, err, ErrFrameTooLarge)
}

// countingReader fails the test if more than limit bytes are read.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestFrameTooLargeRefusedBeforeReading(t *testing.T) {
	for _, declared := range []uint32{ControlCap + 1, 1 << 31, 0xffffffff} {
		in := binary.BigEndian.AppendUint32(nil, declared)
		in = append(in, bytes.Repeat([]byte{0xaa}, 1000)...)
		// TotalAlloc is process-wide, so the runtime's own allocations can
		// land in one window; the least of a few is the reader's cost.
		least := uint64(math.MaxUint64)
		for range 5 {
			cr := &countingReader{r: bytes.NewReader(in)}
			fr := NewFrameReader(cr, ControlCap)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := fr.Next()
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, ErrFrameTooLarge)
			assert.Equal(t, HeaderSize, cr.n, "only the header was read")
			least = min(least, after.TotalAlloc-before.TotalAlloc)
		}
		assert.Less(t, least, uint64(4096))
	}
}

func TestFrameTruncatedAndEmpty(t *testing.T) {
	cases := map[string]struct {
		in   []byte
		want error
	}{
		"half header":   {[]byte{0, 0}, ErrTruncated},
		"short payload": {[]byte{0, 0, 0, 10, 1, 2, 3}, ErrTruncated},
		"empty frame":   {[]byte{0, 0, 0, 0}, ErrEmptyFrame},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewFrameReader(bytes.NewReader(c.in), ControlCap).Next()
			require.ErrorIs(t, err, c.want)
		})
	}
}

// A declared-but-unsent large frame costs memory in proportion to what
// arrived, not to the declared length.
func TestFrameBufferGrowsWithArrivals(t *testing.T) {
	in := binary.BigEndian.AppendUint32(nil, ChunkCap)
	in = append(in, make([]byte, 100)...)
	fr := NewFrameReader(bytes.NewReader(in), ChunkCap)
	_, err := fr.Next()
	require.ErrorIs(t, err, ErrTruncated)
	assert.LessOrEqual(t, cap(fr.buf), growStep)
}

func TestFrameReaderReusesBuffer(t *testing.T) {
	enc := NewEncoder()
	one, err := enc.AppendFrame(nil, &EditAck{Seq: 9}, ControlCap)
	require.NoError(t, err)
	stream := bytes.Repeat(one, 200)
	r := bytes.NewReader(stream)
	fr := NewFrameReader(r, ControlCap)
	_, err = fr.Next()
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := fr.Next(); err != nil {
			panic(err)
		}
	})
	assert.Zero(t, allocs)
}

func FuzzFrameReader(f *testing.F) {
	enc := NewEncoder()
	var stream []byte
	for _, m := range samples() {
		stream, _ = enc.AppendFrame(stream, m, ControlCap)
	}
	f.Add(stream)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 1, 0, 0, 1, 2})
	const limit = 1024
	f.Fuzz(func(t *testing.T, in []byte) {
		fr := NewFrameReader(bytes.NewReader(in), limit)
		dec := NewDecoder(testLimits)
		consumed := 0
		for {
			p, err := fr.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFrameTooLarge) && !errors.Is(err, ErrEmptyFrame) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(p) == 0 || len(p) > limit {
				t.Fatalf("frame of %d bytes", len(p))
			}
			consumed += HeaderSize + len(p)
			if !bytes.Equal(p, in[consumed-len(p):consumed]) {
				t.Fatal("payload does not match the input")
			}
			if cap(fr.buf) > 2*limit+growStep {
				t.Fatalf("buffer grew to %d", cap(fr.buf))
			}
			_, _ = dec.Decode(p)
		}
	})
}
