package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/voxel"
)

func TestAdmission(t *testing.T) {
	// Block index 0 of chunk (1,0,0) is centred at (32.5, 0.5, 0.5).
	e := voxel.BlockEdit{Pos: voxel.ChunkPos{X: 1}, Index: 0, Block: 1}
	near := [3]float64{32.5, 0.5, 10.5} // 10 m away
	far := [3]float64{32.5, 0.5, 60.5}  // 60 m away
	cases := []struct {
		name     string
		rule     admission
		holds    bool
		car      *[3]float64 // nil: no snapshot yet
		tokens   float64
		want     rejection
		label    string
		sentence string
		spent    bool
	}{
		{name: "admitted", rule: admission{reach: 48, rate: 20}, holds: true, car: &near, tokens: 1,
			want: admitted, spent: true},
		{name: "not delivered", rule: admission{reach: 48, rate: 20}, holds: false, car: &near, tokens: 1,
			want: notInArea, label: "area", sentence: "that chunk is not loaded in your area"},
		{name: "no car", rule: admission{reach: 48, rate: 20}, holds: true, tokens: 1,
			want: noCar, label: "reach", sentence: "no car position yet: the server has accepted none of your car (a new car starts near the spawn), so it cannot check your reach"},
		{name: "out of reach", rule: admission{reach: 48, rate: 20}, holds: true, car: &far, tokens: 1,
			want: outOfReach, label: "reach", sentence: "out of reach: that block is 60 m from your car; you can edit within 48 m"},
		{name: "reach off: any distance, no car needed", rule: admission{reach: 0, rate: 20}, holds: true, tokens: 1,
			want: admitted, spent: true},
		{name: "rate", rule: admission{reach: 48, rate: 20}, holds: true, car: &near, tokens: 0.5,
			want: tooFast, label: "rate", sentence: "too many edits: at most 20 per second"},
		{name: "a refused edit costs no token", rule: admission{reach: 48, rate: 20}, holds: true, car: &far, tokens: 1,
			want: outOfReach, label: "reach", sentence: "out of reach: that block is 60 m from your car; you can edit within 48 m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bucket := tokens{n: tc.tokens, rate: tc.rule.rate, burst: tc.rule.rate}
			var c [3]float64
			if tc.car != nil {
				c = *tc.car
			}
			v := tc.rule.check(e, tc.holds, c[0], c[1], c[2], tc.car != nil, &bucket)
			assert.Equal(t, tc.want, v.why)
			assert.Equal(t, tc.label, v.why.label())
			assert.Equal(t, tc.sentence, tc.rule.sentence(v))
			if tc.spent {
				assert.InDelta(t, tc.tokens-1, bucket.n, 1e-9, "an admitted edit takes a token")
			} else {
				assert.InDelta(t, tc.tokens, bucket.n, 1e-9)
			}
		})
	}
}

func TestRejectionLabelsAreTheMetricsLabels(t *testing.T) {
	for r := rejection(1); r < numRejections; r++ {
		assert.NotEmpty(t, r.label(), "rejection %d has a metric label", r)
	}
	assert.Equal(t, "world", worldError.label())
}

func TestTokenBucket(t *testing.T) {
	b := newTokens(2)
	assert.True(t, b.take())
	assert.True(t, b.take())
	assert.False(t, b.take(), "burst is the rate")
	b.refill(0.25)
	assert.False(t, b.take(), "half a token")
	b.refill(0.25)
	assert.True(t, b.take())
	b.refill(100)
	assert.InDelta(t, 2, b.n, 1e-9, "capped at the rate")
}

func TestBlockCentre(t *testing.T) {
	x, y, z := blockCentre(voxel.ChunkPos{X: -1, Y: 2, Z: 0}, uint16(voxel.Index(3, 4, 5)))
	assert.Equal(t, [3]float64{-32 + 3.5, 64 + 4.5, 5.5}, [3]float64{x, y, z})
}
