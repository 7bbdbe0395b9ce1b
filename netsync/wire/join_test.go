package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func FuzzJoin(f *testing.F)   { fuzzKind(f, KindJoin) }
func FuzzNotice(f *testing.F) { fuzzKind(f, KindNotice) }

// Over-long or invalid text is cut to a valid prefix when encoding, so an
// honest peer never sends what the other side must refuse; a peer that
// sends it anyway is malformed.
func TestJoinAndNoticeTextBounds(t *testing.T) {
	m := &Join{Key: 1, Name: strings.Repeat("é", MaxNameLen), Password: "\xff" + strings.Repeat("x", 2*MaxPasswordLen)}
	b, err := Encode(m)
	require.NoError(t, err)
	got, err := Decode(b, DefaultLimits)
	require.NoError(t, err)
	j := got.(*Join)
	assert.Equal(t, strings.Repeat("é", MaxNameLen/2), j.Name)
	assert.Len(t, j.Password, MaxPasswordLen)
	assert.True(t, strings.HasPrefix(j.Password, "?x"))

	long := []byte{0x94, byte(KindJoin), 1, 0xd9, MaxNameLen + 1}
	long = append(long, strings.Repeat("n", MaxNameLen+1)...)
	long = append(long, 0xa0)
	_, err = Decode(long, DefaultLimits)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, "name")

	over, err := Encode(&Notice{Text: "x", Shutdown: MaxShutdownSeconds})
	require.NoError(t, err)
	over[len(over)-3]++ // 86400 is uint32 0xce 00 01 51 80: make it 0x0001_5280 + 1<<8
	_, err = Decode(over, DefaultLimits)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, "shutdown")
}
