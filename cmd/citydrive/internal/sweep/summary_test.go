package sweep

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/soak"
)

// judged is a finished run of seed at hour with rep, judged as Run does.
func judged(seed uint64, hour float64, wall time.Duration, rep soak.Report) Result {
	r := Result{Job: Job{Seed: seed, Hour: hour, Duration: time.Minute}, Report: rep, Wall: wall}
	r.Broken = judge(r)
	return r
}

func crashed(seed uint64, hour float64) Result {
	r := Result{Job: Job{Seed: seed, Hour: hour, Duration: time.Minute}, Err: errors.New("exit status 2: boom")}
	r.Broken = judge(r)
	return r
}

func ok(km float64) soak.Report {
	return soak.Report{KM: km, Builds: 200, GameSeconds: 60, ContactsByKind: map[string]int{"furniture": 0}}
}

func TestSummariseTotals(t *testing.T) {
	scraped := ok(2)
	scraped.Contacts, scraped.CarContacts = 2, 1
	scraped.ContactsByKind = map[string]int{"parked_car": 1, "furniture": 1}
	stuck := ok(0.4)
	stuck.StuckEpisodes = 1
	results := []Result{
		judged(1, 0, 3*time.Second, ok(1)),
		judged(1, 17.5, time.Second, scraped),
		judged(2, 0, 2*time.Second, stuck),
		crashed(3, 0),
	}
	s := Summarise(results, 5*time.Second)
	assert.Equal(t, "summary", s.Type)
	assert.Equal(t, 4, s.Runs)
	assert.Equal(t, 3, s.Seeds)
	assert.Equal(t, 3, s.FailingRuns, "the scrapes, the stuck drive and the crash")
	assert.Equal(t, 1, s.ErroredRuns)
	assert.Equal(t, 1, s.StuckEpisodes)
	assert.Equal(t, 2, s.Contacts)
	assert.Equal(t, 1, s.ContactsByKind["parked_car"])
	assert.Equal(t, 1, s.ContactsByKind["furniture"])
	assert.Contains(t, s.ContactsByKind, "traffic", "every kind is present")
	assert.Zero(t, s.ContactsByKind["traffic"])
	assert.InDelta(t, 3.4, s.KM, 1e-9)
	assert.Equal(t, 600, s.Builds)
	assert.InDelta(t, 3.4/(180.0/3600), s.AverageKMH, 1e-9, "km over game hours of the finished runs")
	assert.InDelta(t, 5, s.WallSeconds, 1e-9)
	require.NotNil(t, s.Worst)
	assert.Equal(t, uint64(3), s.Worst.Seed, "a run that did not finish is the worst")
	assert.Equal(t, "exit status 2: boom", s.Worst.Error)
	var failing []uint64
	for _, r := range s.Failing {
		failing = append(failing, r.Seed)
	}
	assert.Equal(t, []uint64{1, 2, 3}, failing)
	require.Len(t, s.Slowest, 4)
	assert.Equal(t, uint64(1), s.Slowest[0].Seed)
	assert.InDelta(t, 3, s.Slowest[0].WallSeconds, 1e-9)
	text := s.String()
	for _, want := range []string{"4 runs over 3 seeds", "3 failing (1 did not finish)", "parked car 1, furniture 1",
		"worst:     seed 3 at hour 0 did not finish", "1@0 3.0 s", "failing:   1@17.5 2@0 3@0"} {
		assert.Contains(t, text, want)
	}
}

// The worst run: more stuck episodes first, then more contacts, then
// fewer km; the earliest of equals.
func TestWorstRanksStuckThenContactsThenKM(t *testing.T) {
	with := func(stuck, contacts int, km float64) soak.Report {
		r := ok(km)
		r.StuckEpisodes, r.Contacts = stuck, contacts
		return r
	}
	for _, tc := range []struct {
		name    string
		reports []soak.Report
		want    uint64 // the index of the worst, as seed
	}{
		{"stuck beats contacts", []soak.Report{with(0, 5, 1), with(1, 0, 9), with(0, 0, 0.1)}, 1},
		{"contacts beat km", []soak.Report{with(0, 0, 0.1), with(0, 1, 9)}, 1},
		{"then fewer km", []soak.Report{with(1, 1, 3), with(1, 1, 2), with(1, 1, 4)}, 1},
		{"the earliest of equals", []soak.Report{with(0, 0, 1), with(0, 0, 1)}, 0},
	} {
		var rs []Result
		for i, rep := range tc.reports {
			rs = append(rs, judged(uint64(i), 0, time.Second, rep))
		}
		w := Worst(rs)
		require.NotNil(t, w, tc.name)
		assert.Equal(t, tc.want, w.Seed, tc.name)
	}
	assert.Nil(t, Worst(nil))
	s := Summarise(nil, 0)
	assert.Nil(t, s.Worst)
	assert.NotNil(t, s.Slowest, "an empty list in JSON, not null")
}

func TestSlowestKeepsTheTenSlowestSlowestFirst(t *testing.T) {
	var rs []Result
	for i := range 15 {
		rs = append(rs, judged(uint64(i), 0, time.Duration((i*7)%15)*time.Second, ok(1)))
	}
	slow := Slowest(rs, SlowestKept)
	require.Len(t, slow, 10)
	for i, r := range slow {
		assert.Equal(t, time.Duration(14-i)*time.Second, r.Wall)
	}
	assert.Equal(t, time.Duration(0), rs[0].Wall, "the results themselves keep their order")
	assert.Len(t, Slowest(rs[:3], SlowestKept), 3)
}
