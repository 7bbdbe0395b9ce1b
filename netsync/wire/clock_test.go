package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func FuzzClock(f *testing.F) { fuzzKind(f, KindClock) }

// A ping and its answer are a few bytes; a time past MaxClockMicros is
// refused, not rounded.
func TestClockSizeAndRange(t *testing.T) {
	ping, err := Encode(&Clock{Echo: 12_345_678})
	require.NoError(t, err)
	answer, err := Encode(&Clock{Echo: 12_345_678, World: 1_780_000_000_000_000})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(ping), 8)
	assert.LessOrEqual(t, len(answer), 16)
	over, err := Encode(&Clock{Echo: 1, World: MaxClockMicros + 1})
	require.NoError(t, err)
	_, err = Decode(over, testLimits)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, "world")
}

// A Welcome of protocol 3 (no World field) still decodes, so that a client
// can tell the player the versions differ rather than that the server
// sent garbage.
func TestWelcomeOfProtocol3StillDecodes(t *testing.T) {
	b, err := Encode(&Welcome{Protocol: 3, Seed: 7, Generator: 1, Player: 2, MaxRadius: 8, TickHz: 30})
	require.NoError(t, err)
	b[0]--           // one element fewer in the array header
	b = b[:len(b)-1] // World 0 is one byte
	m, err := Decode(b, testLimits)
	require.NoError(t, err)
	assert.Equal(t, &Welcome{Protocol: 3, Seed: 7, Generator: 1, Player: 2, MaxRadius: 8, TickHz: 30}, m)
	b[0] -= 2 // five fields: malformed
	_, err = Decode(b[:len(b)-1], testLimits)
	assert.ErrorIs(t, err, ErrMalformed)
}
