package backup

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

const (
	testSeed = 412
	testGen  = 2
)

// world is n chunks with a few edits and stamps each, in Compare order.
func world(n int) []Chunk {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []Chunk
	for i := range n {
		c := Chunk{Pos: voxel.ChunkPos{X: int32(i/9 - 3), Y: int32(i/3%3 - 1), Z: int32(i%3) - 1}}
		for range 1 + rng.IntN(40) {
			c.Overlay = c.Overlay.With(uint16(rng.IntN(voxel.ChunkVolume)), voxel.Block(rng.IntN(int(voxel.NumBlocks))))
		}
		for p := range rng.IntN(4) {
			c.Stamps = append(c.Stamps, Stamp{Player: uint64(p)<<40 | 7, Seq: rng.Uint32()})
		}
		out = append(out, c)
	}
	return out
}

func slice(cs []Chunk) Source {
	return func(yield func(Chunk) error) error {
		for _, c := range cs {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}
}

func encode(t testing.TB, cs []Chunk) []byte {
	t.Helper()
	var b bytes.Buffer
	h, err := Encode(&b, testSeed, testGen, slice(cs))
	require.NoError(t, err)
	require.EqualValues(t, HeaderSize+h.BodySize, b.Len())
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 200} {
		cs := world(n)
		b := encode(t, cs)
		h, got, err := ReadAll(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Equal(t, Header{Format: Format, Seed: testSeed, Generator: testGen, Chunks: uint64(n),
			Edits: edits(cs), BodySize: uint64(len(b) - HeaderSize), Sum: h.Sum}, h)
		if n == 0 {
			assert.Empty(t, got)
			continue
		}
		assert.Equal(t, cs, got)
		assert.Equal(t, b, encode(t, got), "canonical: what decodes encodes to the same bytes")
	}
}

func edits(cs []Chunk) (n uint64) {
	for _, c := range cs {
		n += uint64(len(c.Overlay))
	}
	return n
}

// Encode takes only what Decode would: each refusal names the chunk.
func TestEncodeRefusesWhatTheFormatCannotHold(t *testing.T) {
	ok := world(2)
	one := voxel.Overlay{{Index: 1, Block: 1}}
	for name, cs := range map[string][]Chunk{
		"out of order": {ok[1], ok[0]},
		"repeated":     {ok[0], ok[0]},
		"no edits":     {{Pos: ok[0].Pos}},
		"bad index":    {{Pos: ok[0].Pos, Overlay: voxel.Overlay{{Index: voxel.ChunkVolume, Block: 1}}}},
		"bad block":    {{Pos: ok[0].Pos, Overlay: voxel.Overlay{{Index: 1, Block: voxel.NumBlocks}}}},
		"unsorted":     {{Pos: ok[0].Pos, Overlay: voxel.Overlay{{Index: 2, Block: 1}, {Index: 1, Block: 1}}}},
		"player 0":     {{Pos: ok[0].Pos, Overlay: one, Stamps: []Stamp{{Player: 0, Seq: 1}}}},
		"player twice": {{Pos: ok[0].Pos, Overlay: one, Stamps: []Stamp{{Player: 5, Seq: 1}, {Player: 5, Seq: 2}}}},
		"too many stamps": {{Pos: ok[0].Pos, Overlay: one, Stamps: func() (s []Stamp) {
			for i := range MaxStamps + 1 {
				s = append(s, Stamp{Player: uint64(i + 1)})
			}
			return s
		}()}},
	} {
		var b bytes.Buffer
		_, err := Encode(&b, testSeed, testGen, slice(cs))
		assert.ErrorIs(t, err, ErrBadChunk, name)
		assert.Zero(t, b.Len(), "%s: nothing written", name)
	}
	// A Source that changes between the passes is caught, not written as a lie.
	calls := 0
	_, err := Encode(io.Discard, testSeed, testGen, func(yield func(Chunk) error) error {
		calls++
		return slice(ok[:calls])(yield)
	})
	assert.ErrorContains(t, err, "changed between the two passes")
}

// Every cut of a file is refused, as truncated or (a cut inside the magic)
// as not a backup; never accepted, never a panic.
func TestTruncatedFilesAreRefused(t *testing.T) {
	b := encode(t, world(30))
	for n := range len(b) {
		_, err := Verify(bytes.NewReader(b[:n]))
		switch {
		case n == 0:
			assert.ErrorIs(t, err, ErrNotBackup)
			assert.ErrorContains(t, err, "empty")
		default:
			assert.ErrorIs(t, err, ErrTruncated, "cut at %d", n)
			assert.ErrorIs(t, err, ErrDamaged, "truncated is damaged")
		}
	}
	_, err := Verify(bytes.NewReader(append(slices.Clone(b), 0)))
	assert.ErrorIs(t, err, ErrDamaged)
	assert.ErrorContains(t, err, "bytes follow the last record")
}

// A flipped bit anywhere is refused: in the header by its CRC (or as a
// version or magic this is not), in the body by a record's checks or the
// SHA-256.
func TestDamagedFilesAreRefused(t *testing.T) {
	b := encode(t, world(30))
	for i := range len(b) * 8 {
		d := slices.Clone(b)
		d[i/8] ^= 1 << (i % 8)
		_, err := Verify(bytes.NewReader(d))
		require.Error(t, err, "bit %d", i)
		switch {
		case i/8 < len(Magic):
			assert.ErrorIs(t, err, ErrNotBackup, "bit %d", i)
		case i/8 < 10:
			assert.ErrorIs(t, err, ErrVersion, "bit %d", i)
		default:
			assert.ErrorIs(t, err, ErrDamaged, "bit %d", i)
		}
	}
}

func TestHeaderRefusals(t *testing.T) {
	b := encode(t, world(3))
	withHeader := func(edit func(h []byte)) []byte {
		d := slices.Clone(b)
		edit(d[:HeaderSize])
		binary.BigEndian.PutUint32(d[80:], crc(d[:80]))
		return d
	}
	for name, tc := range map[string]struct {
		b    []byte
		want error
		msg  string
	}{
		"text":       {[]byte("hello, world"), ErrNotBackup, "not a citydrive edits backup"},
		"newer":      {withHeader(func(h []byte) { h[9] = 2 }), ErrVersion, "version 2 (a newer citydrive made it, or it is damaged); this citydrive reads version 1"},
		"crc":        {func() []byte { d := slices.Clone(b); d[20] ^= 1; return d }(), ErrDamaged, "header's checksum"},
		"reserved":   {withHeader(func(h []byte) { h[11] = 1 }), ErrDamaged, "reserved"},
		"chunks":     {withHeader(func(h []byte) { binary.BigEndian.PutUint64(h[24:], MaxChunks+1) }), ErrDamaged, "claims"},
		"edits":      {withHeader(func(h []byte) { binary.BigEndian.PutUint64(h[32:], 1) }), ErrDamaged, "claims 3 chunks with 1 edits"},
		"body":       {withHeader(func(h []byte) { binary.BigEndian.PutUint64(h[40:], 1<<60) }), ErrDamaged, "cannot hold"},
		"body short": {withHeader(func(h []byte) { binary.BigEndian.PutUint64(h[40:], 10) }), ErrDamaged, "cannot hold"},
	} {
		_, err := NewReader(bytes.NewReader(tc.b))
		assert.ErrorIs(t, err, tc.want, name)
		assert.ErrorContains(t, err, tc.msg, name)
	}
}

// The body's own checks, each reached with a header that agrees with it
// (so the CRC and the sizes pass and the record is what is wrong).
func TestRecordRefusals(t *testing.T) {
	rec := func(p voxel.ChunkPos, edits []byte, n int, stamps []byte, ns int) []byte {
		var r []byte
		for _, v := range [...]int32{p.X, p.Y, p.Z} {
			r = binary.BigEndian.AppendUint32(r, uint32(v))
		}
		r = binary.BigEndian.AppendUint16(r, uint16(n))
		r = append(r, edits...)
		r = append(r, byte(ns))
		return append(r, stamps...)
	}
	file := func(chunks, edits uint64, body ...[]byte) []byte {
		h := Header{Format: Format, Seed: 1, Generator: 1, Chunks: chunks, Edits: edits}
		all := bytes.Join(body, nil)
		h.BodySize = uint64(len(all))
		h.Sum = sha256.Sum256(all)
		return append(h.append(nil), all...)
	}
	a, c := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: 2}
	e1 := []byte{0, 1, 1}
	st := func(player uint64) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, player), 9)
	}
	for name, tc := range map[string]struct {
		b   []byte
		msg string
	}{
		"order":        {file(2, 2, rec(c, e1, 1, nil, 0), rec(a, e1, 1, nil, 0)), "follows"},
		"same chunk":   {file(2, 2, rec(a, e1, 1, nil, 0), rec(a, e1, 1, nil, 0)), "each chunk once"},
		"block":        {file(1, 1, rec(a, []byte{0, 1, 200}, 1, nil, 0)), "unknown block"},
		"index":        {file(1, 1, rec(a, []byte{0x80, 0, 1}, 1, nil, 0)), "out of range"},
		"index order":  {file(1, 2, rec(a, []byte{0, 2, 1, 0, 1, 1}, 2, nil, 0)), "out of order"},
		"player 0":     {file(1, 1, rec(a, e1, 1, st(0), 1)), "player 0"},
		"player twice": {file(1, 1, rec(a, e1, 1, append(st(3), st(3)...), 2)), "stamped twice"},
		"edit count":   {file(2, 2, rec(a, []byte{0, 1, 1, 0, 2, 1}, 2, nil, 0), rec(c, e1, 1, nil, 0)[:15]), "edits"},
	} {
		_, err := Verify(bytes.NewReader(tc.b))
		assert.ErrorIs(t, err, ErrDamaged, name)
		assert.ErrorContains(t, err, tc.msg, name)
	}
}

// Next stops for good at its first error.
func TestReaderErrorsAreFinal(t *testing.T) {
	b := encode(t, world(5))
	r, err := NewReader(bytes.NewReader(b[:len(b)-4]))
	require.NoError(t, err)
	var first error
	for first == nil {
		_, first = r.Next()
	}
	_, again := r.Next()
	assert.Equal(t, first, again)
	assert.True(t, errors.Is(first, ErrTruncated))
}

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
