package wire

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func FuzzReset(f *testing.F) { fuzzKind(f, KindReset) }
func FuzzPose(f *testing.F)  { fuzzKind(f, KindPose) }

func TestResetAndPoseRoundTrip(t *testing.T) {
	for _, m := range []Message{
		&Reset{Seq: 1, X: math.MinInt32, Y: -5, Z: math.MaxInt32, Heading: math.MaxUint16},
		&Pose{Seq: 0, X: 100, Y: 0, Z: -200, Heading: 3, Reason: ""},
		&Pose{Seq: math.MaxUint32, X: 1, Y: 2, Z: 3, Reason: "too many resets"},
	} {
		f, err := NewEncoder().AppendFrame(nil, m, ControlCap)
		require.NoError(t, err)
		got, err := Decode(f[4:], DefaultLimits)
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
}

// A Reset of seq 0 (the server's own placements) is malformed.
func TestResetSeqZeroIsMalformed(t *testing.T) {
	f, err := NewEncoder().AppendFrame(nil, &Reset{Seq: 0}, ControlCap)
	require.NoError(t, err)
	_, err = Decode(f[4:], DefaultLimits)
	assert.ErrorIs(t, err, ErrMalformed)
}

func TestPoseUnits(t *testing.T) {
	p := Pose{X: 150, Y: -250, Z: 1, Heading: 16384}
	x, y, z := p.Position()
	assert.Equal(t, [3]float64{1.5, -2.5, 0.01}, [3]float64{x, y, z})
	assert.InDelta(t, math.Pi/2, p.Radians(), 1e-12)
}
