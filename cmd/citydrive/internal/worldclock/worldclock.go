// Package worldclock estimates the server's world clock on a client, the
// clock traffic (roadgraph/traffic) runs on, from ping samples: the client
// notes its local time t0 when it asks, the server stamps its world time
// ts, the client notes t1 when the answer arrives. The world time at the
// client is then local + offset with offset = ts - (t0+t1)/2, wrong by at
// most (t1-t0)/2; the sample with the shortest round trip of the recent
// ones is the best. The clock a client reads never runs backwards (traffic
// would reverse) and corrects itself by slewing, not jumping, once set.
// Pure policy: the caller brings the samples (no sockets here).
package worldclock

import "math"

const (
	// window is how many recent samples the best one is chosen from.
	window = 16
	// maxSlew is how fast (seconds per second) a set clock moves towards
	// a better estimate: 5% faster or slower than real time.
	maxSlew = 0.05
	// jumpBeyond: a correction larger than this (seconds) is made at once,
	// forwards only (the clock was far off: a server restart, a stall).
	jumpBeyond = 2.0
)

type sample struct{ offset, rtt float64 }

// Clock is one client's estimate of the world clock. The zero value has
// no estimate yet.
type Clock struct {
	samples [window]sample
	n, next int
	applied float64 // the offset Now uses
	last    float64 // the last world time Now returned
	local   float64 // the local time of that call
	set     bool
}

// Add records one ping: asked at local time t0, answered with world time
// ts, answer received at local time t1.
func (c *Clock) Add(t0, ts, t1 float64) {
	if t1 < t0 {
		return
	}
	c.samples[c.next] = sample{offset: ts - (t0+t1)/2, rtt: t1 - t0}
	c.next = (c.next + 1) % window
	c.n = min(c.n+1, window)
}

// Estimate is the best offset of the recent samples and its error bound
// (half its round trip); ok is false before the first sample.
func (c *Clock) Estimate() (offset, bound float64, ok bool) {
	if c.n == 0 {
		return 0, 0, false
	}
	best := c.samples[0]
	for _, s := range c.samples[1:c.n] {
		if s.rtt < best.rtt {
			best = s
		}
	}
	return best.offset, best.rtt / 2, true
}

// Now is the world time at local time local: the estimate, slewed so that
// successive calls never go backwards. Before any sample it is local.
func (c *Clock) Now(local float64) float64 {
	target, _, ok := c.Estimate()
	if !ok {
		return local
	}
	dt := math.Max(0, local-c.local)
	switch {
	case !c.set:
		c.applied, c.set = target, true
	case target-c.applied > jumpBeyond:
		c.applied = target
	default:
		step := maxSlew * dt
		c.applied += math.Max(-step, math.Min(step, target-c.applied))
	}
	t := math.Max(local+c.applied, c.last)
	c.last, c.local = t, local
	return t
}
