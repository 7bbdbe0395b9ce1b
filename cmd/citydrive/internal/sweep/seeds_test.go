package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint64
	}{
		{"7", []uint64{7}},
		{"0", []uint64{0}},
		{"1-3", []uint64{1, 2, 3}},
		{"4-4", []uint64{4}},
		{"1,5,7-9", []uint64{1, 5, 7, 8, 9}},
		{" 9 , 2-3 ", []uint64{9, 2, 3}},
		{"18446744073709551615", []uint64{1<<64 - 1}},
		{"18446744073709551614-18446744073709551615", []uint64{1<<64 - 2, 1<<64 - 1}},
	} {
		got, err := ParseSeeds(tc.in, 10)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestParseSeedsRejectsBadLists(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no seeds"},
		{"  ", "no seeds"},
		{"1,,2", "empty item"},
		{"1,", "empty item"},
		{"x", `bad seed "x"`},
		{"-5", `bad seed "-5"`},
		{"1-", `bad seed "1-"`},
		{"1-2-3", `bad seed "1-2-3"`},
		{"1.5", `bad seed "1.5"`},
		{"18446744073709551616", "bad seed"},
		{"9-3", `seed range "9-3" runs backwards`},
		{"1-3,2", "seed 2 is listed twice"},
		{"1-11", "more than 10 seeds"},
		{"1-5,6-11", "more than 10 seeds"},
		{"0-18446744073709551615", "more than 10 seeds"},
	} {
		_, err := ParseSeeds(tc.in, 10)
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want, tc.in)
		}
	}
}

func TestParseHours(t *testing.T) {
	got, err := ParseHours("0, 17.5,24,8")
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 17.5, 24, 8}, got)
	for _, tc := range []struct{ in, want string }{
		{"", "no hours"},
		{"0,", `bad hour ""`},
		{"25", `bad hour "25"`},
		{"-1", `bad hour "-1"`},
		{"NaN", `bad hour "NaN"`},
		{"noon", `bad hour "noon"`},
		{"8,8.0", "hour 8.0 is listed twice"},
	} {
		_, err := ParseHours(tc.in)
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want, tc.in)
		}
	}
}
