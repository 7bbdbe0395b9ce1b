package netsync

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCarRule(t *testing.T) {
	rule := carRule{maxSpeed: 58, slack: 16, reanchor: 3 * time.Second}
	t0 := time.Unix(1000, 0)
	type snap struct {
		x    float64
		at   time.Duration // since t0
		want bool
	}
	cases := []struct {
		name  string
		rule  carRule
		snaps []snap
	}{
		{"first snapshot anywhere", rule, []snap{{5e5, 0, true}}},
		{"top speed is fine", rule, []snap{{0, 0, true}, {58, time.Second, true}, {116, 2 * time.Second, true}}},
		{"jitter within the slack", rule, []snap{{0, 0, true}, {15, 10 * time.Millisecond, true}}},
		{"the slack is not collected snapshot by snapshot", rule, []snap{
			{0, 0, true}, {15, 33 * time.Millisecond, true}, {30, 66 * time.Millisecond, false}}},
		{"twice top speed is not", rule, []snap{{0, 0, true}, {58, time.Second, true}, {58 + 2*58 + 17, 2 * time.Second, false}}},
		{"a jump is rejected, and the car stays where it was", rule, []snap{
			{0, 0, true}, {20000, 33 * time.Millisecond, false}, {30, time.Second, true}}},
		{"a respawn is accepted after a plausible while there", rule, []snap{
			{0, 0, true},
			{20000, time.Second, false},
			{20030, 2 * time.Second, false},
			{20060, 4 * time.Second, true},
			{20070, 4100 * time.Millisecond, true},
		}},
		{"a cheater jumping about never re-anchors", rule, []snap{
			{0, 0, true},
			{20000, time.Second, false},
			{40000, 2 * time.Second, false},
			{20000, 3 * time.Second, false},
			{40000, 5 * time.Second, false},
		}},
		{"off: any finite position", carRule{}, []snap{{0, 0, true}, {1e6, time.Millisecond, true}}},
		{"never NaN", carRule{}, []snap{{math.NaN(), 0, false}, {math.Inf(1), 0, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tr carTrack
			for i, s := range tc.snaps {
				assert.Equal(t, s.want, tc.rule.judge(&tr, s.x, 0, 0, t0.Add(s.at)), "snapshot %d", i)
			}
		})
	}
}
