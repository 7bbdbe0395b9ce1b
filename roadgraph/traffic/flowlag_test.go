package traffic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// The first vehicle held up by the car (the only one late, so the first
// the flow keeps) reports its lag and that the car holds it, and Ahead
// looks along its path from where the flow has it.
func TestTheFirstHeldUpVehicleReportsItsLag(t *testing.T) {
	w := world.New(testSeed)
	_, p := busyJunction(t, w)
	s := NewSchedule(w, 17.5)
	car, first := carInLane(t, s, p)
	f := NewFlow(NewSchedule(w, 17.5))
	const dt = 1.0 / 60
	t0 := beforeEntry(s, first)
	tt := t0
	for ; tt < t0+40 && f.Lagging() == 0; tt += dt {
		f.Update(tt, dt, car.Pos, 250, car)
	}
	require.Equal(t, 1, f.Lagging(), "one vehicle held up")
	k := f.lags[0].key
	assert.Positive(t, f.Lag(k), "it runs late")
	assert.True(t, f.WaitsForCar(k), "the car holds it up")
	var v Vehicle
	for _, o := range f.Vehicles() {
		if o.Key == k {
			v = o
		}
	}
	require.Equal(t, k, v.Key, "it is on the road")
	a, ok := f.Ahead(k, tt-dt, 3)
	require.True(t, ok)
	assert.InDelta(t, v.U+3, a.U, 1e-6, "Ahead is 3 m further along")
	// one on its schedule reports none
	other := k
	other.Cycle += 7
	assert.Zero(t, f.Lag(other))
	assert.False(t, f.WaitsForCar(other))
}
