package sound

import (
	"encoding/binary"
	"math"
)

// BytesPerSample of a Stream: one float32, mono.
const BytesPerSample = 4

// streamChunk is how many samples Stream synthesises per Fill.
const streamChunk = 512

// Stream is an endless io.Reader of the synthesiser's samples as float32
// little endian, mono, at SampleRate: what an audio device pulls. Read is
// for one goroutine (the device's) and allocates nothing.
type Stream struct {
	s   *Synth
	buf [streamChunk]float32
}

// NewStream reads from s.
func NewStream(s *Synth) *Stream { return &Stream{s: s} }

// Read fills p with whole samples (a trailing partial sample is left for
// the next call) and never fails.
func (st *Stream) Read(p []byte) (int, error) {
	n := 0
	for len(p)-n >= BytesPerSample {
		m := min(streamChunk, (len(p)-n)/BytesPerSample)
		st.s.Fill(st.buf[:m])
		for _, v := range st.buf[:m] {
			binary.LittleEndian.PutUint32(p[n:], math.Float32bits(v))
			n += BytesPerSample
		}
	}
	return n, nil
}
