package bots

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The report's failover, ack-latency, tick-CPU and tick-rate lines: the
// figures an operator reads after a cluster drill or a load run.
func TestWriteTableFailoverAndLatency(t *testing.T) {
	first := time.Date(2026, 12, 1, 13, 0, 1, 250e6, time.UTC)
	last := first.Add(1500 * time.Millisecond)
	var lat []float64
	for i := range 100 { // 1 … 100 ms, spread over two bots
		lat = append(lat, float64(i+1)/1000)
	}
	rep := Report{Bots: []Bot{
		{ID: 0, Failovers: 1, FailedOverAt: last, AckLatency: lat[:40]},
		{ID: 1, Failovers: 2, FailedOverAt: first, AckLatency: lat[40:]},
		{ID: 2, Err: errors.New("lost"), Failovers: 5, FailedOverAt: last.Add(time.Hour), AckLatency: []float64{9}},
		{ID: 3}, // never failed over: its zero time is not the latest
	}}
	var b bytes.Buffer
	rep.WriteTable(&b)
	out := b.String()
	assert.Contains(t, out, "failovers: 3; the last bot was back on a server at 13:00:02.750 (unix ms 1796130002750)\n",
		"the failed bot's failovers and time are not counted")
	// The nearest rank (package quantile): p50 is the 50th of 100, p99 the
	// 99th.
	assert.Contains(t, out, "edit ack latency: p50 50.0 ms  p99 99.0 ms  (n=100, bot-tick resolution)\n")

	// One latency: both quantiles are it.
	b.Reset()
	Report{Bots: []Bot{{AckLatency: []float64{0.0042}}}}.WriteTable(&b)
	assert.Contains(t, b.String(), "edit ack latency: p50 4.2 ms  p99 4.2 ms  (n=1, bot-tick resolution)\n")

	// No failover, no acked edit: neither line.
	b.Reset()
	Report{Bots: []Bot{{}}}.WriteTable(&b)
	assert.NotContains(t, b.String(), "failovers")
	assert.NotContains(t, b.String(), "ack latency")
}

// The radius the bots were served: one figure, or the range when servers
// of a cluster differ; failed bots have none.
func TestWriteTableRadius(t *testing.T) {
	var b bytes.Buffer
	Report{Bots: []Bot{{Radius: 8}, {Radius: 8}, {Err: errors.New("x")}}}.WriteTable(&b)
	assert.Contains(t, b.String(), "area radius served: 8 chunks\n")
	b.Reset()
	Report{Bots: []Bot{{Radius: 8}, {Radius: 3}, {Radius: 5}, {Err: errors.New("x"), Radius: 1}}}.WriteTable(&b)
	assert.Contains(t, b.String(), "area radius served: 3 to 8 chunks\n")
	b.Reset()
	Report{Bots: []Bot{{Err: errors.New("x"), Radius: 1}}}.WriteTable(&b)
	assert.NotContains(t, b.String(), "radius")
}

func TestWriteTableServerRates(t *testing.T) {
	base := Report{Bots: []Bot{{}}, Scraped: true, TickCount: 10, TickCPUP50: 0.0005, TickCPUP99: 0.004,
		RateBefore: 30, RateMin: 11, RateSamples: 40}
	cases := []struct {
		name string
		mod  func(*Report)
		want string // "" : no rate line
	}{
		{name: "nobody left", mod: func(*Report) {},
			want: "server tick rate: 30 Hz before, lowest 11 Hz (40 samples)\n"},
		{name: "back after the half left", mod: func(r *Report) { r.RateAtLeave, r.RecoveredAfterLeaving = 12, 1250*time.Millisecond },
			want: "server tick rate: 30 Hz before, lowest 11 Hz (40 samples); 12 Hz when half the bots left, back to 30 Hz 1.25 s later\n"},
		{name: "back at once", mod: func(r *Report) { r.RateAtLeave, r.RecoveredAfterLeaving = 12, 0 },
			want: "; 12 Hz when half the bots left, back to 30 Hz 0.00 s later\n"},
		{name: "never back", mod: func(r *Report) { r.RateAtLeave, r.RecoveredAfterLeaving = 12, -1 },
			want: "; 12 Hz when half the bots left, not back to 30 Hz by the end\n"},
		{name: "no samples", mod: func(r *Report) { r.RateSamples = 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			tc.mod(&r)
			var b bytes.Buffer
			r.WriteTable(&b)
			out := b.String()
			assert.Contains(t, out, "server tick CPU time: p50 0.50 ms, p99 4.00 ms")
			if tc.want == "" {
				assert.NotContains(t, out, "tick rate")
				return
			}
			assert.Contains(t, out, tc.want)
		})
	}

	// A server that does not measure its tick's CPU time: no CPU line.
	var b bytes.Buffer
	r := base
	r.TickCPUP50, r.TickCPUP99 = 0, 0
	r.WriteTable(&b)
	assert.NotContains(t, b.String(), "CPU time")
	assert.Contains(t, b.String(), "server tick p50")
}
