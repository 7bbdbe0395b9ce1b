package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func FuzzOwners(f *testing.F)   { fuzzKind(f, KindOwners) }
func FuzzHandover(f *testing.F) { fuzzKind(f, KindHandover) }

func TestOwnerIndexCoversTheBlock(t *testing.T) {
	seen := map[int]bool{}
	for dz := -1; dz <= 1; dz++ {
		for dx := -1; dx <= 1; dx++ {
			i := OwnerIndex(dx, dz)
			require.True(t, i >= 0 && i < OwnerCells)
			seen[i] = true
		}
	}
	assert.Len(t, seen, OwnerCells)
	assert.Equal(t, 4, OwnerIndex(0, 0), "the centre")
}

// An address over MaxAddrLen is clipped when encoding and refused when
// decoding; a region past the i32 chunk range is refused.
func TestOwnersBounds(t *testing.T) {
	m := &Owners{RX: -3, RZ: 4}
	m.Addrs[0] = strings.Repeat("a", 2*MaxAddrLen)
	b, err := Encode(m)
	require.NoError(t, err)
	got, err := Decode(b, DefaultLimits)
	require.NoError(t, err)
	assert.Len(t, got.(*Owners).Addrs[0], MaxAddrLen)

	long := []byte{0x9c, byte(KindOwners), 0, 0, 0xda, (MaxAddrLen + 1) >> 8, (MaxAddrLen + 1) & 0xff}
	long = append(long, strings.Repeat("a", MaxAddrLen+1)...)
	for range OwnerCells - 1 {
		long = append(long, 0xa0)
	}
	_, err = Decode(long, DefaultLimits)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, "owner address")

	far := []byte{0x9c, byte(KindOwners), 0xce, 0x7f, 0xff, 0xff, 0xff, 0}
	for range OwnerCells {
		far = append(far, 0xa0)
	}
	_, err = Decode(far, DefaultLimits)
	assert.ErrorContains(t, err, "region x")

	_, err = Decode([]byte{0x93, byte(KindHandover), 2, 0}, DefaultLimits)
	assert.ErrorContains(t, err, "drive")
}
