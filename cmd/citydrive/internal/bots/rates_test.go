package bots

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
)

// scripted serves the k-th request the k-th answer: a tick rate, or a
// failure (0: an HTTP 500, -1: a page without the gauge); past the end of
// the script, the last answer.
type scripted struct {
	mu     sync.Mutex
	answer []float64
	served int
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	a := s.answer[min(s.served, len(s.answer)-1)]
	s.served++
	s.mu.Unlock()
	switch {
	case a == 0:
		http.Error(w, "down", http.StatusInternalServerError)
	case a < 0:
		fmt.Fprintln(w, "citydrive_players 3")
	default:
		fmt.Fprintf(w, "citydrive_players 3\n%s %g\n", netsync.MetricTickRate, a)
	}
}

// Every tick reads the gauge once; failed reads and pages without it are
// skipped, the rest kept in order with the time since the start.
func TestSampleRate(t *testing.T) {
	h := &scripted{answer: []float64{30, 0, 12, -1, 9.5, 30, 0}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	out := make(chan []rateSample, 1)
	go func() { out <- sampleRate(ctx, srv.URL, start, tick) }()
	// Receiving tick k+1 means read k is done; the last (7th) read fails
	// or is cut short by the cancel, skipped either way.
	for range 7 {
		tick <- time.Now()
	}
	cancel()
	got := <-out
	var hz []float64
	for i, s := range got {
		hz = append(hz, s.hz)
		assert.Positive(t, s.at)
		assert.LessOrEqual(t, s.at, time.Since(start))
		if i > 0 {
			assert.GreaterOrEqual(t, s.at, got[i-1].at)
		}
	}
	assert.Equal(t, []float64{30, 12, 9.5, 30}, hz)
}

// A run with a metrics endpoint samples the tick rate while it runs: the
// rate before (the scrape ahead of the run) and the lowest during it.
func TestRunSamplesTheTickRate(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	h := &scripted{answer: []float64{30, 7}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	rep, err := Run(context.Background(), Options{Duration: time.Second, MetricsURL: srv.URL})
	require.NoError(t, err)
	assert.True(t, rep.Scraped)
	assert.Equal(t, 30.0, rep.RateBefore)
	require.Positive(t, rep.RateSamples, "a 1 s run reads the rate every %v", rateSampleEvery)
	h.mu.Lock()
	assert.LessOrEqual(t, rep.RateSamples, h.served-2, "one read per sample, besides the scrapes before and after")
	h.mu.Unlock()
	assert.Equal(t, 7.0, rep.RateMin)
	assert.Zero(t, rep.RateAtLeave, "nobody left")
	assert.Negative(t, rep.RecoveredAfterLeaving)
}

// Without a metrics endpoint nothing is sampled.
func TestRunWithoutMetricsSamplesNothing(t *testing.T) {
	rep, err := Run(context.Background(), Options{Duration: 2 * rateSampleEvery})
	require.NoError(t, err)
	assert.Zero(t, rep.RateSamples)
	assert.Zero(t, rep.RateBefore)
}
