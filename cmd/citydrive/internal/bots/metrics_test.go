package bots

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
)

func mustParse(t *testing.T, text string) metrics {
	t.Helper()
	m, err := parseMetrics(strings.NewReader(text))
	require.NoError(t, err)
	return m
}

// tickHist is the exposition of the tick histogram with these cumulative
// counts at 1 ms, 10 ms, 100 ms and +Inf (the +Inf line left out when
// inf is false: the count stands for it, as in the protobuf format), and
// an unrelated histogram beside it.
func tickHist(inf bool, counts ...float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# TYPE unrelated histogram\nunrelated_bucket{le=\"1\"} 7\nunrelated_bucket{le=\"+Inf\"} 7\nunrelated_sum 1\nunrelated_count 7\n")
	fmt.Fprintf(&b, "# TYPE %s histogram\n", netsync.MetricTick)
	for i, le := range []string{"0.001", "0.01", "0.1", "+Inf"} {
		if le != "+Inf" || inf {
			fmt.Fprintf(&b, "%s_bucket{le=%q} %g\n", netsync.MetricTick, le, counts[i])
		}
	}
	fmt.Fprintf(&b, "%s_sum 0.5\n%s_count %g\n", netsync.MetricTick, netsync.MetricTick, counts[3])
	return b.String()
}

func TestHistQuantile(t *testing.T) {
	before := tickHist(true, 5, 5, 5, 5)
	cases := []struct {
		name        string
		after       string
		q           float64
		want, wantN float64
	}{
		// Over the run: 10 ticks ≤ 1 ms, 80 in (1, 10] ms, 10 in (10, 100] ms.
		{name: "p99 interpolates in its bucket", after: tickHist(true, 15, 95, 105, 105), q: 0.99, want: 0.01 + 0.09*9/10, wantN: 100},
		{name: "p50", after: tickHist(true, 15, 95, 105, 105), q: 0.5, want: 0.001 + 0.009*40/80, wantN: 100},
		{name: "p5 in the first bucket", after: tickHist(true, 15, 95, 105, 105), q: 0.05, want: 0.001 * 5 / 10, wantN: 100},
		{name: "without the +Inf line", after: tickHist(false, 15, 95, 105, 105), q: 0.99, want: 0.01 + 0.09*9/10, wantN: 100},
		{name: "beyond the last finite bucket: its bound", after: tickHist(true, 5, 5, 5, 105), q: 0.99, want: 0.1, wantN: 100},
		{name: "beyond it, counted by the count alone", after: tickHist(false, 5, 5, 5, 105), q: 0.99, want: 0.1, wantN: 100},
		{name: "rank on an empty bucket's bound", after: tickHist(true, 5, 5, 5, 105), q: 0, want: 0.001, wantN: 100},
		{name: "no ticks in the run", after: tickHist(true, 5, 5, 5, 5), q: 0.99},
		{name: "no histogram", after: "x 1\n", q: 0.99},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := histQuantile(mustParse(t, before), mustParse(t, tc.after), netsync.MetricTick, tc.q)
			assert.InDelta(t, tc.want, got, 1e-12)
			assert.Equal(t, tc.wantN, n)
		})
	}
	// Without a scrape before (its histogram missing), the whole count.
	got, n := histQuantile(mustParse(t, "x 1\n"), mustParse(t, tickHist(true, 10, 90, 100, 100)), netsync.MetricTick, 0.5)
	assert.InDelta(t, 0.001+0.009*40/80, got, 1e-12)
	assert.Equal(t, 100.0, n)
}

// The exposition format as servers write it: a sample may carry a
// timestamp after its value, and a label value may hold spaces (and
// escaped quotes); an untyped sample without a TYPE line is read too.
func TestScrape(t *testing.T) {
	body := strings.Join([]string{
		"# HELP citydrive_tick_rate_hz the tick rate",
		"# TYPE citydrive_tick_rate_hz gauge",
		"citydrive_tick_rate_hz 29.5 1700000000000",
		"",
		`# TYPE citydrive_edits_rejected_total counter`,
		`citydrive_edits_rejected_total{reason="out of reach"} 4 1700000000001`,
		`citydrive_edits_rejected_total{reason="say \"no\""} 2`,
		"untyped_thing 7",
		"# TYPE citydrive_tick_quantile_seconds summary",
		`citydrive_tick_quantile_seconds{quantile="0.5"} 0.004`,
		`citydrive_tick_quantile_seconds{quantile="0.99"} 0.012 1700000000002`,
		"citydrive_tick_quantile_seconds_sum 3",
		"citydrive_tick_quantile_seconds_count 600",
		"",
	}, "\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			_, _ = io.WriteString(w, body)
		case "/broken":
			_, _ = io.WriteString(w, "a 1\nb notanumber\n")
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	m, err := scrape(context.Background(), srv.URL+"/metrics")
	require.NoError(t, err)
	hz, ok := m.value(netsync.MetricTickRate)
	assert.True(t, ok)
	assert.Equal(t, 29.5, hz, "the value, not the timestamp")
	rejected := m[netsync.MetricEditsRejected].GetMetric()
	require.Len(t, rejected, 2)
	assert.Equal(t, "out of reach", rejected[0].GetLabel()[0].GetValue())
	assert.Equal(t, 4.0, rejected[0].GetCounter().GetValue())
	assert.Equal(t, `say "no"`, rejected[1].GetLabel()[0].GetValue())
	assert.Equal(t, 2.0, rejected[1].GetCounter().GetValue())
	v, ok := m.value("untyped_thing")
	assert.True(t, ok)
	assert.Equal(t, 7.0, v)
	assert.Equal(t, 0.012, m.summaryQuantile(netsync.MetricTickQuantiles, 0.99))
	assert.Zero(t, m.summaryQuantile(netsync.MetricTickQuantiles, 0.999), "a quantile the server does not keep")
	_, ok = m.value("missing")
	assert.False(t, ok)

	_, err = scrape(context.Background(), srv.URL+"/broken")
	assert.ErrorContains(t, err, "line 2", "a page that is not the format is an error, not a figure")
	_, err = scrape(context.Background(), srv.URL+"/other")
	assert.ErrorContains(t, err, "404")
}

// What client_golang serves (the server's registry) reads back: a gauge,
// a histogram and a summary.
func TestScrapeReadsTheServersRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	rate := prometheus.NewGauge(prometheus.GaugeOpts{Name: netsync.MetricTickRate, Help: "h"})
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{Name: netsync.MetricTick, Help: "h", Buckets: []float64{0.001, 0.01}})
	sum := prometheus.NewSummary(prometheus.SummaryOpts{Name: netsync.MetricTickQuantiles, Help: "h", Objectives: map[float64]float64{0.99: 0.001}})
	reg.MustRegister(rate, hist, sum)
	rate.Set(30)
	for _, v := range []float64{0.0005, 0.005, 0.005, 0.05} {
		hist.Observe(v)
		sum.Observe(v)
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	m, err := scrape(context.Background(), srv.URL)
	require.NoError(t, err)
	hz, _ := m.value(netsync.MetricTickRate)
	assert.Equal(t, 30.0, hz)
	assert.Equal(t, []bucket{{0.001, 1}, {0.01, 3}, {math.Inf(1), 4}}, m.buckets(netsync.MetricTick))
	assert.Equal(t, 0.05, m.summaryQuantile(netsync.MetricTickQuantiles, 0.99))
}
