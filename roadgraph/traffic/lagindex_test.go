package traffic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// The lag index finds every lagging vehicle by key, full or after some
// were forgotten, and no one else; the platoon filter never misses one.
func TestLagTableFindsEveryLaggingVehicle(t *testing.T) {
	var x lagTable
	lags := make([]lagging, 0, maxLagging)
	key := func(i int) Key {
		return Key{Edge: uint64(i / 8), Cycle: int64(i%3) - 1, Lane: uint8(i % 2), K: uint8(i % 8)}
	}
	for i := range maxLagging {
		lags = append(lags, lagging{key: key(i)})
		x.add(key(i), i)
	}
	for i := range maxLagging {
		require.Equal(t, i, x.find(lags, key(i)))
		k := key(i)
		require.True(t, x.platoonMayLag(k.Edge, k.Lane, k.Cycle))
	}
	require.Equal(t, -1, x.find(lags, Key{Edge: 1 << 40}))
	// forget every third, as Update does (the last moved into its place)
	for i := 0; i < len(lags); i += 3 {
		lags[i] = lags[len(lags)-1]
		lags = lags[:len(lags)-1]
	}
	x.rebuild(lags)
	for i := range lags {
		require.Equal(t, i, x.find(lags, lags[i].key))
	}
	for i := range maxLagging {
		in := false
		for _, l := range lags {
			in = in || l.key == key(i)
		}
		if !in {
			require.Equal(t, -1, x.find(lags, key(i)), "%+v was forgotten", key(i))
		}
	}
}

// A vehicle's path answers Schedule.At's position, heading and U to the
// bit, on its lane and through its turn.
func TestPathIsAtToTheBit(t *testing.T) {
	w := world.New(412)
	s := NewSchedule(w, 17.5)
	vs := s.Vehicles(100, downtown412, 300, nil)
	require.Greater(t, len(vs), 100)
	turns := 0
	for _, v := range vs {
		p, ok := s.pathOf(v.Key)
		require.True(t, ok)
		for lag := 5.0; lag >= -40; lag -= 1.5 {
			want, wok := s.At(v.Key, 100, lag)
			pos, dir, u, ok := p.at(100, lag)
			require.Equal(t, wok, ok, "%+v lag %v", v.Key, lag)
			if ok {
				require.Equal(t, want.Pos, pos)
				require.Equal(t, want.Dir, dir)
				require.Equal(t, want.U, u)
				if u > want.Stop {
					turns++
				}
			}
		}
	}
	require.Greater(t, turns, 50, "the turns are checked too")
}
