package bots

import (
	"fmt"
	"io"
	"slices"
	"time"

	"citydrive/cmd/citydrive/internal/quantile"
)

// Report is the whole run.
type Report struct {
	Bots     []Bot
	Duration time.Duration
	// Server tick (from its Prometheus endpoint; zero without one).
	TickP99Hist    float64 // seconds, from the histogram's buckets over the run
	TickP99Summary float64 // seconds, the server's own 1-minute summary at the end
	TickP50Hist    float64
	// The tick's CPU time (its thread's; zero where the server does not
	// measure it): the server's own cost, without the machine's waits.
	TickCPUP50, TickCPUP99 float64
	TickCount              float64
	Scraped                bool
	// The server's tick rate (citydrive_tick_rate_hz), sampled every
	// rateSampleEvery: its rate before the bots joined, the lowest seen,
	// and with LeaveHalfAfter, the rate when the half left and how long
	// after that it was back at the rate before (negative: never).
	RateBefore, RateMin   float64
	RateAtLeave           float64
	RecoveredAfterLeaving time.Duration
	RateSamples           int
}

// summariseRates fills the rate fields from the samples: the lowest, and
// with leave > 0 the rate at leave and how long after it the rate was
// back at RateBefore (negative: not within the run).
func (r *Report) summariseRates(rates []rateSample, leave time.Duration) {
	r.RateSamples = len(rates)
	r.RecoveredAfterLeaving = -1
	if len(rates) == 0 {
		return
	}
	r.RateMin = rates[0].hz
	for _, s := range rates {
		r.RateMin = min(r.RateMin, s.hz)
	}
	if leave <= 0 {
		return
	}
	for _, s := range rates {
		if s.at < leave {
			r.RateAtLeave = s.hz
			continue
		}
		if r.RateBefore > 0 && s.hz >= r.RateBefore {
			r.RecoveredAfterLeaving = s.at - leave
			return
		}
	}
}

// WriteTable prints the report.
func (r Report) WriteTable(w io.Writer) {
	var in, out, join, joinS, tp, tpS []float64
	failed := 0
	acked, rejected := 0, 0
	var ackLat []float64
	failovers, handovers, ticks, late := 0, 0, 0, 0
	var longest time.Duration
	var gaps handoverGaps
	var lastBack time.Time
	var radii []int32
	var lastReject string
	for _, b := range r.Bots {
		if b.Err != nil {
			failed++
			continue
		}
		in, out = append(in, b.InBps), append(out, b.OutBps)
		radii = append(radii, b.Radius)
		if b.JoinSeconds > 0 {
			join, joinS = append(join, float64(b.JoinBytes)), append(joinS, b.JoinSeconds)
		}
		if b.TeleportSeconds > 0 {
			tp, tpS = append(tp, float64(b.TeleportBytes)), append(tpS, b.TeleportSeconds)
		}
		acked += b.EditsAcked
		ackLat = append(ackLat, b.AckLatency...)
		failovers += b.Failovers
		handovers += b.Handovers
		ticks, late, longest = ticks+b.Ticks, late+b.LateTicks, max(longest, b.LongestTick)
		gaps.add(b)
		if b.FailedOverAt.After(lastBack) {
			lastBack = b.FailedOverAt
		}
		rejected += b.EditsRejected
		if b.LastReject != "" {
			lastReject = b.LastReject
		}
	}
	fmt.Fprintf(w, "bots: %d (%d failed), ran %.1f s\n", len(r.Bots), failed, r.Duration.Seconds())
	for _, b := range r.Bots {
		if b.Err != nil {
			fmt.Fprintf(w, "  bot %d failed: %v\n", b.ID, b.Err)
			break
		}
	}
	if len(radii) > 0 {
		lo, hi := slices.Min(radii), slices.Max(radii)
		fmt.Fprintf(w, "area radius served: %d", lo)
		if hi != lo {
			fmt.Fprintf(w, " to %d", hi)
		}
		fmt.Fprintln(w, " chunks")
	}
	row := func(name string, v []float64, unit string) {
		if len(v) == 0 {
			fmt.Fprintf(w, "%-34s -\n", name)
			return
		}
		slices.Sort(v)
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		fmt.Fprintf(w, "%-34s mean %9.1f  p50 %9.1f  max %9.1f %s  (n=%d)\n", name, sum/float64(len(v)), quantile.Sorted(v, 0.5), v[len(v)-1], unit, len(v))
	}
	row("bytes/s in per player (steady)", in, "B/s")
	row("bytes/s out per player (steady)", out, "B/s")
	row("first area: bytes in", join, "B")
	row("first area: seconds", joinS, "s")
	row("teleport burst: bytes in", tp, "B")
	row("teleport burst: seconds", tpS, "s")
	fmt.Fprintf(w, "edits: %d acknowledged, %d rejected", acked, rejected)
	if lastReject != "" {
		fmt.Fprintf(w, " (last reason: %s)", lastReject)
	}
	fmt.Fprintln(w)
	if failovers > 0 {
		fmt.Fprintf(w, "failovers: %d; the last bot was back on a server at %s (unix ms %d)\n",
			failovers, lastBack.UTC().Format("15:04:05.000"), lastBack.UnixMilli())
	}
	if handovers > 0 {
		per := 0.0
		if mins := float64(len(r.Bots)-failed) * r.Duration.Minutes(); mins > 0 {
			per = float64(handovers) / mins
		}
		fmt.Fprintf(w, "handovers: %d (%.2f per bot-minute); %s\n", handovers, per, gaps)
	}
	if ticks > 0 {
		fmt.Fprintf(w, "bot ticks: %d, %.2f %% late (over %d periods after the last), longest between two %.0f ms\n",
			ticks, 100*float64(late)/float64(ticks), lateTick, float64(longest)/float64(time.Millisecond))
	}
	if len(ackLat) > 0 {
		slices.Sort(ackLat)
		ms := func(q float64) float64 { return quantile.Sorted(ackLat, q) * 1000 }
		fmt.Fprintf(w, "edit ack latency: p50 %.1f ms  p99 %.1f ms  (n=%d, bot-tick resolution)\n", ms(0.5), ms(0.99), len(ackLat))
	}
	if r.Scraped {
		fmt.Fprintf(w, "server tick p50 %.2f ms, p99 %.2f ms over this run (histogram, %.0f ticks); p99 %.2f ms (server's 1-minute summary)\n",
			r.TickP50Hist*1000, r.TickP99Hist*1000, r.TickCount, r.TickP99Summary*1000)
		if r.TickCPUP99 > 0 {
			fmt.Fprintf(w, "server tick CPU time: p50 %.2f ms, p99 %.2f ms (the tick's thread; wall time above adds the machine's waits)\n",
				r.TickCPUP50*1000, r.TickCPUP99*1000)
		}
		if r.RateSamples > 0 {
			fmt.Fprintf(w, "server tick rate: %.0f Hz before, lowest %.0f Hz (%d samples)", r.RateBefore, r.RateMin, r.RateSamples)
			switch {
			case r.RateAtLeave == 0:
			case r.RecoveredAfterLeaving >= 0:
				fmt.Fprintf(w, "; %.0f Hz when half the bots left, back to %.0f Hz %.2f s later", r.RateAtLeave, r.RateBefore, r.RecoveredAfterLeaving.Seconds())
			default:
				fmt.Fprintf(w, "; %.0f Hz when half the bots left, not back to %.0f Hz by the end", r.RateAtLeave, r.RateBefore)
			}
			fmt.Fprintln(w)
		}
	} else {
		fmt.Fprintln(w, "server tick p99: not measured (pass -metrics http://host:port/metrics)")
	}
}
