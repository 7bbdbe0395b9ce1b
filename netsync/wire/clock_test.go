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

// A Welcome of protocol 3 (no World field) or 6 (no FullHz) still
// decodes, so that a client can tell the player the versions differ
// rather than that the server sent garbage.
func TestWelcomeOfProtocol3And6StillDecodes(t *testing.T) {
	b, err := Encode(&Welcome{Protocol: 6, Seed: 7, Generator: 1, Player: 2, MaxRadius: 8, TickHz: 30, World: 5})
	require.NoError(t, err)
	b[0]--           // one element fewer in the array header
	b = b[:len(b)-1] // FullHz 0 is one byte
	m, err := Decode(b, testLimits)
	require.NoError(t, err)
	assert.Equal(t, &Welcome{Protocol: 6, Seed: 7, Generator: 1, Player: 2, MaxRadius: 8, TickHz: 30, World: 5, FullHz: 30}, m, "the rate announced is taken as the full one")
	b[0]--           // and no World
	b = b[:len(b)-1] // World 5 is one byte
	m, err = Decode(b, testLimits)
	require.NoError(t, err)
	assert.Equal(t, &Welcome{Protocol: 6, Seed: 7, Generator: 1, Player: 2, MaxRadius: 8, TickHz: 30, FullHz: 30}, m)
	b[0] -= 1 // five fields: malformed
	_, err = Decode(b[:len(b)-1], testLimits)
	assert.ErrorIs(t, err, ErrMalformed)
}

// A Welcome whose full rate is below its rate now is malformed: the
// world clock would run faster than real time.
func TestWelcomeFullHzIsAtLeastTheRate(t *testing.T) {
	b, err := Encode(&Welcome{Protocol: 7, TickHz: 30, FullHz: 15})
	require.NoError(t, err)
	_, err = Decode(b, testLimits)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, "full hz 15 below the tick rate 30")
}
