package bots

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"citydrive/netsync"
)

// scrapeTimeout bounds one read of the server's /metrics.
const scrapeTimeout = 10 * time.Second

// metrics is one read of the server's Prometheus endpoint: its metric
// families by name.
type metrics map[string]*dto.MetricFamily

// scrape reads the Prometheus text exposition at url.
func scrape(ctx context.Context, url string) (metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	return parseMetrics(resp.Body)
}

// parseMetrics reads the text exposition format.
func parseMetrics(r io.Reader) (metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	m, err := p.TextToMetricFamilies(r)
	return metrics(m), err
}

// value is metric name's value (of its first series): a gauge's, a
// counter's or an untyped sample's; false when m has none.
func (m metrics) value(name string) (float64, bool) {
	f := m[name]
	if f == nil || len(f.Metric) == 0 {
		return 0, false
	}
	s := f.Metric[0]
	switch {
	case s.Gauge != nil:
		return s.Gauge.GetValue(), true
	case s.Counter != nil:
		return s.Counter.GetValue(), true
	case s.Untyped != nil:
		return s.Untyped.GetValue(), true
	}
	return 0, false
}

// summaryQuantile is the q quantile of summary name as the server
// computed it; 0 when m has none.
func (m metrics) summaryQuantile(name string, q float64) float64 {
	f := m[name]
	if f == nil || len(f.Metric) == 0 {
		return 0
	}
	for _, sq := range f.Metric[0].GetSummary().GetQuantile() {
		if sq.GetQuantile() == q {
			return sq.GetValue()
		}
	}
	return 0
}

// bucket is a histogram's cumulative count up to le.
type bucket struct{ le, n float64 }

// buckets is histogram name's buckets by bound, the +Inf one (the sample
// count) last; nil when m has none.
func (m metrics) buckets(name string) []bucket {
	f := m[name]
	if f == nil || len(f.Metric) == 0 || f.Metric[0].Histogram == nil {
		return nil
	}
	h := f.Metric[0].Histogram
	bs := make([]bucket, 0, len(h.Bucket)+1)
	for _, b := range h.Bucket {
		n := float64(b.GetCumulativeCount())
		if b.CumulativeCountFloat != nil {
			n = b.GetCumulativeCountFloat()
		}
		bs = append(bs, bucket{b.GetUpperBound(), n})
	}
	slices.SortFunc(bs, func(a, b bucket) int { return cmp.Compare(a.le, b.le) })
	// The text format lists the +Inf bucket, the protobuf one leaves it
	// to the sample count.
	if len(bs) == 0 || !math.IsInf(bs[len(bs)-1].le, 1) {
		n := float64(h.GetSampleCount())
		if h.SampleCountFloat != nil {
			n = h.GetSampleCountFloat()
		}
		bs = append(bs, bucket{math.Inf(1), n})
	}
	return bs
}

// histQuantile estimates quantile q of histogram name over the interval
// between two scrapes, interpolating linearly inside the bucket, and
// returns it with the interval's sample count (0, 0 without samples).
func histQuantile(before, after metrics, name string, q float64) (float64, float64) {
	prev := map[float64]float64{}
	for _, b := range before.buckets(name) {
		prev[b.le] = b.n
	}
	bs := after.buckets(name)
	for i := range bs {
		bs[i].n -= prev[bs[i].le]
	}
	if len(bs) == 0 || bs[len(bs)-1].n == 0 {
		return 0, 0
	}
	total := bs[len(bs)-1].n
	rank := q * total
	prevLe, prevN := 0.0, 0.0
	for _, b := range bs {
		if b.n >= rank {
			if math.IsInf(b.le, 1) {
				return prevLe, total
			}
			if b.n == prevN {
				return b.le, total
			}
			return prevLe + (b.le-prevLe)*(rank-prevN)/(b.n-prevN), total
		}
		prevLe, prevN = b.le, b.n
	}
	return prevLe, total
}

// rateSample is the server's tick rate at a moment of the run.
type rateSample struct {
	at time.Duration // since the start
	hz float64
}

// sampleRate reads the server's tick-rate gauge at every tick until ctx
// ends (failed reads are skipped).
func sampleRate(ctx context.Context, url string, start time.Time, tick <-chan time.Time) []rateSample {
	var out []rateSample
	for {
		select {
		case <-ctx.Done():
			return out
		case <-tick:
		}
		m, err := scrape(ctx, url)
		if hz, ok := m.value(netsync.MetricTickRate); err == nil && ok {
			out = append(out, rateSample{at: time.Since(start), hz: hz})
		}
	}
}
