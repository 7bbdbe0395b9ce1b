package netsync

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCarRule(t *testing.T) {
	rule := CarRule{MaxSpeed: 58, Slack: 16}
	t0 := time.Unix(1000, 0)
	type snap struct {
		x    float64
		at   time.Duration // since t0
		want bool
	}
	cases := []struct {
		name  string
		rule  CarRule
		spawn bool // placed at x = 0 with a 100 m radius at t0
		snaps []snap
	}{
		{"no spawn to check: first snapshot anywhere", rule, false, []snap{{5e5, 0, true}}},
		{"first snapshot near the spawn", rule, true, []snap{{99, 0, true}}},
		{"first snapshot far from the spawn", rule, true, []snap{{5e5, 0, false}, {101, 0, false}, {50, 0, true}}},
		{"the spawn's radius grows as far as the car can drive", rule, true, []snap{{100 + 58, time.Second, true}}},
		{"top speed is fine", rule, false, []snap{{0, 0, true}, {58, time.Second, true}, {116, 2 * time.Second, true}}},
		{"jitter within the slack", rule, false, []snap{{0, 0, true}, {15, 10 * time.Millisecond, true}}},
		{"the slack is not collected snapshot by snapshot", rule, false, []snap{
			{0, 0, true}, {15, 33 * time.Millisecond, true}, {30, 66 * time.Millisecond, false}}},
		{"the slack is earned back by driving slower", rule, false, []snap{
			{0, 0, true}, {16, 0, true}, {16, time.Second, true}, {16 + 58 + 16, 2 * time.Second, true}}},
		{"a sustained 70 m/s runs the slack out", rule, false, []snap{
			{0, 0, true}, {70, time.Second, true}, {140, 2 * time.Second, false}, {210, 3 * time.Second, false}}},
		{"twice top speed is not", rule, false, []snap{{0, 0, true}, {58, time.Second, true}, {58 + 2*58 + 17, 2 * time.Second, false}}},
		{"a jump is rejected, and the car stays where it was", rule, false, []snap{
			{0, 0, true}, {20000, 33 * time.Millisecond, false}, {30, time.Second, true}}},
		{"a respawn by snapshots alone is never accepted", rule, false, []snap{
			{0, 0, true},
			{500, time.Second, false},
			{530, 2 * time.Second, false},
			{560, 4 * time.Second, false},
			{570, 6 * time.Second, false},
		}},
		{"off: any finite position", CarRule{}, false, []snap{{0, 0, true}, {1e6, time.Millisecond, true}}},
		{"never NaN", CarRule{}, false, []snap{{math.NaN(), 0, false}, {math.Inf(1), 0, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tr CarTrack
			if tc.spawn {
				tr.place(0, 0, 100, t0)
			}
			for i, s := range tc.snaps {
				assert.Equal(t, s.want, tc.rule.Judge(&tr, s.x, 0, 0, t0.Add(s.at)), "snapshot %d", i)
			}
		})
	}
}

// A placement (a granted reset) moves the car: the next snapshot must be
// near it, horizontally, whatever its height; the old place no longer is.
func TestCarPlacementMovesTheCar(t *testing.T) {
	rule := CarRule{MaxSpeed: 58, Slack: 16}
	t0 := time.Unix(1000, 0)
	var tr CarTrack
	assert.True(t, rule.Judge(&tr, 0, 0, 0, t0))
	tr.place(100, 40, 16, t0)
	x, z, ok := tr.where()
	assert.Equal(t, [2]float64{100, 40}, [2]float64{x, z})
	assert.True(t, ok)
	assert.False(t, rule.Judge(&tr, 0, 0, 0, t0), "a datagram from before the reset")
	assert.True(t, rule.Judge(&tr, 110, 25, 40, t0), "at the new place, on its ground")
	assert.False(t, tr.placed)
	assert.True(t, rule.Judge(&tr, 110+58, 25, 40, t0.Add(time.Second)), "and drives on from there")
}
