package netsync

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDilation(t *testing.T) {
	const ms = time.Millisecond
	cases := []struct {
		name  string
		work  []time.Duration // per tick
		want  int             // rate after them
		check func(t *testing.T, rates []int)
	}{
		{name: "within budget: full rate", work: repeat(9*ms, 50), want: 30},
		{name: "one slow tick barely moves it", work: []time.Duration{time.Second}, want: 27},
		{name: "twice the budget for long: half rate (1+1²)", work: repeat(20*ms, 200), want: 15},
		{name: "hopeless overload: the floor", work: repeat(time.Second, 100), want: 10},
		{name: "recovers when the load falls", work: append(repeat(20*ms, 200), repeat(2*ms, 200)...), want: 30},
		{name: "from the floor back to full rate within 5 s of the load falling (issue 12)",
			work: append(repeat(time.Second, 100), repeat(2*ms, 200)...), want: 30,
			check: func(t *testing.T, rates []int) {
				elapsed := 0.0
				for _, hz := range rates[100:] {
					if hz == 30 {
						break
					}
					elapsed += 1 / float64(hz)
				}
				assert.Less(t, elapsed, 5.0, "seconds at the rates it ran")
				t.Logf("back to 30 Hz %.2f s after the load fell", elapsed)
			}},
		{name: "smooth: rate never jumps by more than a few Hz a tick", work: repeat(30*ms, 60), want: 10,
			check: func(t *testing.T, rates []int) {
				for i := 1; i < len(rates); i++ {
					assert.LessOrEqual(t, rates[i-1]-rates[i], 6, "tick %d", i)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDilation(10*ms, 30, 10)
			var rates []int
			for _, w := range tc.work {
				rates = append(rates, d.observe(w))
			}
			assert.Equal(t, tc.want, rates[len(rates)-1])
			if tc.check != nil {
				tc.check(t, rates)
			}
		})
	}
	off := newDilation(0, 30, 10)
	assert.Equal(t, 30, off.observe(time.Second), "budget 0: off")
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}
