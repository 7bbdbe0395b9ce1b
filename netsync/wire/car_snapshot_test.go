package wire

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuantiseCar(t *testing.T) {
	s := QuantiseCar(3, 9, 1234.567, -12.345, 98765.4321, -math.Pi/2, 30.004)
	x, y, z := s.Position()
	assert.InDelta(t, 1234.567, x, 0.005)
	assert.InDelta(t, -12.345, y, 0.005)
	assert.InDelta(t, 98765.4321, z, 0.005)
	assert.InDelta(t, 3*math.Pi/2, s.HeadingRad(), 2*math.Pi/65536)
	assert.InDelta(t, 30.0, s.SpeedMS(), 0.005)
	big := QuantiseCar(0, 0, 1e12, math.NaN(), -1e12, 0, 1e6)
	assert.Equal(t, int32(math.MaxInt32), big.X)
	assert.Equal(t, int32(0), big.Y)
	assert.Equal(t, int32(math.MinInt32), big.Z)
	assert.Equal(t, int16(math.MaxInt16), big.Speed)
}

func TestSeqNewer(t *testing.T) {
	assert.True(t, SeqNewer(2, 1))
	assert.False(t, SeqNewer(1, 1))
	assert.True(t, SeqNewer(0, math.MaxUint32), "wraps")
	assert.False(t, SeqNewer(math.MaxUint32, 0))
}

func TestCarDatagram(t *testing.T) {
	cars := make([]CarSnapshot, MaxCarsPerDatagram)
	for i := range cars {
		cars[i] = QuantiseCar(uint32(i), uint32(i*7), float64(i), -float64(i), 3, 1, -2)
	}
	p, err := AppendCarDatagram(nil, cars)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(p), MaxDatagramSize)
	got, err := DecodeCarDatagram(p, nil)
	require.NoError(t, err)
	assert.Equal(t, cars, got)

	_, err = AppendCarDatagram(nil, append(cars, cars[0]))
	require.Error(t, err)
	_, err = AppendCarDatagram(nil, nil)
	require.Error(t, err)

	for name, bad := range map[string][]byte{
		"empty":       {},
		"tag":         append([]byte{0x00}, p[1:]...),
		"count high":  append([]byte{DatagramCars, byte(MaxCarsPerDatagram)}, p[2:len(p)-CarSnapshotSize]...),
		"count zero":  {DatagramCars, 0},
		"ragged":      p[:len(p)-1],
		"count 255":   {DatagramCars, 255, 1, 2, 3},
		"over 1200 B": make([]byte, MaxDatagramSize+1),
	} {
		_, err := DecodeCarDatagram(bad, nil)
		assert.True(t, errors.Is(err, ErrBadDatagram), "%s: %v", name, err)
	}
}

func FuzzCarDatagram(f *testing.F) {
	p, _ := AppendCarDatagram(nil, []CarSnapshot{QuantiseCar(1, 2, 3, 4, 5, 6, 7), QuantiseCar(9, 8, 7, 6, 5, 4, 3)})
	f.Add(p)
	f.Add([]byte{DatagramCars, 255})
	f.Fuzz(func(t *testing.T, in []byte) {
		cars, err := DecodeCarDatagram(in, nil)
		if err != nil {
			if !errors.Is(err, ErrBadDatagram) {
				t.Fatal(err)
			}
			return
		}
		if len(cars) == 0 || len(cars) > MaxCarsPerDatagram {
			t.Fatalf("%d cars", len(cars))
		}
		out, err := AppendCarDatagram(nil, cars)
		if err != nil || string(out) != string(in) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	})
}
