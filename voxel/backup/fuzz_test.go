package backup

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode: no input panics or allocates past its bounds, every error
// is one of the package's, and whatever decodes whole encodes back to the
// very same bytes (the form is canonical). testdata/fuzz/FuzzDecode holds
// the committed corpus: go test -fuzz FuzzDecode ./voxel/backup adds to it.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, nil))
	f.Add(encode(f, world(1)))
	f.Add(encode(f, world(4)))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, cs, err := ReadAll(bytes.NewReader(b))
		if err != nil {
			require.True(t, errors.Is(err, ErrNotBackup) || errors.Is(err, ErrVersion) || errors.Is(err, ErrDamaged), "%v", err)
			return
		}
		var out bytes.Buffer
		h2, err := Encode(&out, h.Seed, h.Generator, slice(cs))
		require.NoError(t, err)
		require.Equal(t, h, h2)
		require.Equal(t, b, out.Bytes())
		_, err = Verify(bytes.NewReader(b))
		require.NoError(t, err)
	})
}

// FuzzBody fuzzes the records behind a header made to agree with them
// (sizes, counts, checksums), so the fuzzer gets past the CRC and the
// SHA-256 to the record checks FuzzDecode rarely reaches.
func FuzzBody(f *testing.F) {
	for _, n := range []int{1, 3} {
		b := encode(f, world(n))
		f.Add(b[HeaderSize:], uint64(n), edits(world(n)))
	}
	f.Fuzz(func(t *testing.T, body []byte, chunks, nedits uint64) {
		h := Header{Format: Format, Seed: 1, Generator: 1, Chunks: chunks, Edits: nedits,
			BodySize: uint64(len(body)), Sum: sha256.Sum256(body)}
		b := append(h.append(nil), body...)
		_, cs, err := ReadAll(bytes.NewReader(b))
		if err != nil {
			require.True(t, errors.Is(err, ErrDamaged), "%v", err)
			return
		}
		var out bytes.Buffer
		_, err = Encode(&out, 1, 1, slice(cs))
		require.NoError(t, err)
		require.Equal(t, b, out.Bytes())
	})
}
