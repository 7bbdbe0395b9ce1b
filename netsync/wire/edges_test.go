package wire

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// These tests pin the decoders' and encoders' bounds at the exact values
// where they switch: the last value accepted and the first refused.

// roundTrip encodes m and decodes it under lim: a refusal is returned, an
// accepted message must equal m.
func roundTrip(t *testing.T, m Message, lim Limits) error {
	t.Helper()
	b, err := Encode(m)
	require.NoError(t, err)
	got, err := Decode(b, lim)
	if err == nil {
		assert.Equal(t, m, got)
	}
	return err
}

func TestChunkDefaultsOffsetEdges(t *testing.T) {
	base := voxel.ChunkPos{X: 5, Y: -3, Z: 9}
	at := func(dx, dy, dz int32) *ChunkDefaults {
		return &ChunkDefaults{Base: base, Pos: []voxel.ChunkPos{{X: base.X + dx, Y: base.Y + dy, Z: base.Z + dz}}}
	}
	cases := []struct {
		name       string
		maxRadius  uint32
		rh, rv     int32 // the largest horizontal and vertical offsets accepted
		encodeOnly bool
	}{
		{name: "radius 10", maxRadius: 10, rh: 10, rv: 5},
		{name: "radius 11: vertical half rounds down", maxRadius: 11, rh: 11, rv: 5},
		{name: "radius past a byte: clamped to 127", maxRadius: 1000, rh: math.MaxInt8, rv: math.MaxInt8 / 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lim := Limits{MaxRadius: tc.maxRadius, MaxBlock: 200}
			for _, dx := range []int32{-tc.rh, tc.rh} {
				for _, dz := range []int32{-tc.rh, tc.rh} {
					for _, dy := range []int32{-tc.rv, tc.rv} {
						assert.NoError(t, roundTrip(t, at(dx, dy, dz), lim), "offset (%d, %d, %d)", dx, dy, dz)
					}
				}
			}
			for _, m := range []*ChunkDefaults{
				at(tc.rh+1, 0, 0), at(-tc.rh-1, 0, 0), at(0, 0, tc.rh+1), at(0, 0, -tc.rh-1),
				at(0, tc.rv+1, 0), at(0, -tc.rv-1, 0),
			} {
				if d := m.Pos[0]; fitsDelta(base, d) {
					assert.ErrorIs(t, roundTrip(t, m, lim), ErrMalformed, "offset %v", d)
				}
			}
		})
	}
}

// A base at int32's ends: offsets that land exactly on the end decode,
// one further overflows.
func TestChunkDefaultsInt32Edges(t *testing.T) {
	lim := Limits{MaxRadius: 4, MaxBlock: 200}
	const hi, lo = math.MaxInt32, math.MinInt32
	for _, axis := range []string{"x", "y", "z"} {
		t.Run(axis, func(t *testing.T) {
			set := func(p *voxel.ChunkPos, v int32) {
				switch axis {
				case "x":
					p.X = v
				case "y":
					p.Y = v
				default:
					p.Z = v
				}
			}
			for _, end := range []struct {
				base, pos int32
				step      int8 // the offset that leaves int32
			}{{hi - 1, hi, 1}, {lo + 1, lo, -1}} {
				m := &ChunkDefaults{Pos: make([]voxel.ChunkPos, 1)}
				set(&m.Base, end.base)
				set(&m.Pos[0], end.pos)
				require.NoError(t, roundTrip(t, m, lim), "position %d", end.pos)

				// The same message from a base on the end itself, with the
				// offset patched in: the position would leave int32.
				set(&m.Base, end.pos)
				b, err := Encode(m)
				require.NoError(t, err)
				b[len(b)-deltaSize+map[string]int{"x": 0, "y": 1, "z": 2}[axis]] = byte(end.step)
				_, err = Decode(b, lim)
				assert.ErrorIs(t, err, ErrMalformed)
				assert.Contains(t, err.Error(), "overflows int32")
			}
		})
	}
}

// Encoding refuses what no decoder could accept: an offset that does not
// fit a signed byte, more than MaxChunkDefaults positions.
func TestChunkDefaultsEncodeEdges(t *testing.T) {
	base := voxel.ChunkPos{X: 1000, Y: -1000, Z: 7}
	for _, d := range []int32{math.MinInt8, math.MaxInt8} {
		for _, axis := range []voxel.ChunkPos{{X: d}, {Y: d}, {Z: d}} {
			p := voxel.ChunkPos{X: base.X + axis.X, Y: base.Y + axis.Y, Z: base.Z + axis.Z}
			_, err := Encode(&ChunkDefaults{Base: base, Pos: []voxel.ChunkPos{p}})
			assert.NoError(t, err, "offset %v fits a byte", axis)
		}
	}
	for _, d := range []int32{math.MinInt8 - 1, math.MaxInt8 + 1} {
		for _, axis := range []voxel.ChunkPos{{X: d}, {Y: d}, {Z: d}} {
			p := voxel.ChunkPos{X: base.X + axis.X, Y: base.Y + axis.Y, Z: base.Z + axis.Z}
			_, err := Encode(&ChunkDefaults{Base: base, Pos: []voxel.ChunkPos{p}})
			assert.Error(t, err, "offset %v does not fit a byte", axis)
		}
	}

	full := &ChunkDefaults{Base: base, Pos: make([]voxel.ChunkPos, MaxChunkDefaults)}
	for i := range full.Pos {
		full.Pos[i] = base
	}
	// Compared without assert.Equal: a diff of 65536 positions would take
	// minutes to print.
	b, err := Encode(full)
	require.NoError(t, err, "exactly MaxChunkDefaults positions")
	got, err := Decode(b, testLimits)
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(full, got), "decoded as encoded")
	full.Pos = append(full.Pos, base)
	_, err = Encode(full)
	assert.Error(t, err, "one more than MaxChunkDefaults")
}

// msgpack's one-byte integers end at 127 (positive) and -32 (negative):
// the decoder reads both ends as integers.
func TestFixintEdges(t *testing.T) {
	for _, v := range []int32{0, 127, 128, -1, -32, -33, math.MaxInt32, math.MinInt32} {
		m := &ChunkDrop{Pos: voxel.ChunkPos{X: v, Y: v, Z: v}}
		assert.NoError(t, roundTrip(t, m, testLimits), "%d", v)
	}
	for _, b := range []voxel.Block{0, 127, 128, 200} {
		m := &EditBroadcast{Pos: voxel.ChunkPos{X: 1}, Index: 127, Block: b}
		assert.NoError(t, roundTrip(t, m, testLimits), "block %d", b)
	}
}

// A message with the wrong number of fields says how many it should have.
func TestFieldCountIsReported(t *testing.T) {
	b, err := Encode(&ChunkDrop{Pos: voxel.ChunkPos{X: 1}})
	require.NoError(t, err)
	b[0]++ // one more array element than a ChunkDrop has
	_, err = Decode(append(b, 0), testLimits)
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "5 elements, want 4")
}

// Unsigned fields take any integer encoding a peer may choose, zero in a
// signed one included, and accept their maximum exactly.
func TestUintEdges(t *testing.T) {
	b, err := Encode(&EditAck{Seq: 0})
	require.NoError(t, err)
	require.Equal(t, byte(0), b[len(b)-1], "zero as a positive fixint")
	signed := append(b[:len(b)-1:len(b)-1], 0xd0, 0) // int8 0
	m, err := Decode(signed, testLimits)
	require.NoError(t, err)
	assert.Equal(t, &EditAck{Seq: 0}, m)
	_, err = Decode(append(b[:len(b)-1:len(b)-1], 0xd0, 0xff), testLimits) // int8 -1
	assert.ErrorIs(t, err, ErrMalformed)

	top := &EditRequest{Seq: math.MaxUint32, Pos: voxel.ChunkPos{X: 1}, Index: voxel.ChunkVolume - 1, Block: testLimits.MaxBlock}
	assert.NoError(t, roundTrip(t, top, testLimits), "every field at its maximum")
	over := *top
	over.Block++
	assert.ErrorIs(t, roundTrip(t, &over, testLimits), ErrMalformed, "block past MaxBlock")
}

// A frame of exactly the cap is written and read; one byte more is not.
func TestFrameCapEdges(t *testing.T) {
	m := &Refuse{Reason: "0123456789"}
	b, err := Encode(m)
	require.NoError(t, err)
	n := len(b)
	enc := NewEncoder()
	frame, err := enc.AppendFrame([]byte("keep"), m, n)
	require.NoError(t, err, "payload of exactly the cap")
	assert.Equal(t, "keep", string(frame[:4]))
	_, err = enc.AppendFrame(nil, m, n-1)
	assert.ErrorIs(t, err, ErrFrameTooLarge)

	got, err := NewFrameReader(bytes.NewReader(frame[4:]), n).Next()
	require.NoError(t, err, "reading a frame of exactly the cap")
	assert.Equal(t, b, got)
	_, err = NewFrameReader(bytes.NewReader(frame[4:]), n-1).Next()
	assert.ErrorIs(t, err, ErrFrameTooLarge)
}

// Frames larger than the first read step arrive whole, however the
// stream is cut into reads.
func TestFrameAcrossReadSteps(t *testing.T) {
	for _, size := range []int{growStep - 1, growStep, growStep + 1, 3*growStep + 7} {
		payload := make([]byte, size)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		stream := AppendRawFrame(AppendRawFrame(nil, payload), []byte{1, 2, 3})
		fr := NewFrameReader(iotest.OneByteReader(bytes.NewReader(stream)), ChunkCap)
		got, err := fr.Next()
		require.NoError(t, err, "size %d", size)
		assert.Equal(t, payload, got, "size %d", size)
		got, err = fr.Next()
		require.NoError(t, err)
		assert.Equal(t, []byte{1, 2, 3}, got)
		_, err = fr.Next()
		assert.ErrorIs(t, err, io.EOF)
	}
}

// A reason longer than MaxReasonLen is cut, never inside a character.
func TestReasonCutOnACharacter(t *testing.T) {
	head := strings.Repeat("a", MaxReasonLen-1)
	m, err := Decode(must(Encode(&Refuse{Reason: head + "é and more"})), testLimits)
	require.NoError(t, err)
	assert.Equal(t, head, m.(*Refuse).Reason, "the 2-byte é would cross the limit")
	m, err = Decode(must(Encode(&Refuse{Reason: head + "b"})), testLimits)
	require.NoError(t, err)
	assert.Equal(t, head+"b", m.(*Refuse).Reason, "exactly MaxReasonLen bytes are kept")
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
