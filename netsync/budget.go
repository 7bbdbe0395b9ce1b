package netsync

import (
	"math"
	"time"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// subscribeGate is one client's Subscribe budget: a token bucket of rate
// Subscribes per second (also the burst). Offered Subscribes are coalesced,
// only the newest kept, and due hands out at most one per call (the tick
// calls it once per client), so a flood costs one cylinder rebuild per
// client per tick at most, and on average no more than rate per second.
type subscribeGate struct {
	bucket tokens
	next   wire.Subscribe
	have   bool
}

func newSubscribeGate(rate float64) subscribeGate { return subscribeGate{bucket: newTokens(rate)} }

// offer keeps m as the Subscribe to apply next, replacing one not yet
// applied; it reports whether one was replaced (coalesced).
func (g *subscribeGate) offer(m *wire.Subscribe) (coalesced bool) {
	coalesced = g.have
	g.next, g.have = *m, true
	return coalesced
}

// due returns the Subscribe to apply now, if one waits and the budget has
// a token.
func (g *subscribeGate) due() (wire.Subscribe, bool) {
	if !g.have || !g.bucket.take() {
		return wire.Subscribe{}, false
	}
	g.have = false
	return g.next, true
}

// waiting reports whether a Subscribe waits for budget.
func (g *subscribeGate) waiting() bool { return g.have }

// tickWork is a per-tick allowance of work units shared by every client
// (cylinder changes, for SubscribeChunksPerTick): work may start while
// the allowance is not used up, so the last piece may pass it, and at
// least one piece runs per tick whatever its size.
type tickWork struct{ limit, used int }

// start opens a tick with limit units.
func (w *tickWork) start(limit int) { w.limit, w.used = limit, 0 }

// open reports whether more work may start this tick.
func (w *tickWork) open() bool { return w.used < w.limit }

// spend records n units of work done.
func (w *tickWork) spend(n int) { w.used += n }

// saturateCentre clamps a subscription centre so that every chunk of a
// cylinder of radius up to wire.AbsMaxRadius around it, and every offset
// from it, fits in int32: no position arithmetic can overflow.
func saturateCentre(c voxel.ChunkPos) voxel.ChunkPos {
	const m = wire.AbsMaxRadius
	clamp := func(v int32) int32 { return min(max(v, math.MinInt32+m), math.MaxInt32-m) }
	return voxel.ChunkPos{X: clamp(c.X), Y: clamp(c.Y), Z: clamp(c.Z)}
}

// budgetKind names a per-client budget of a message kind that has no
// rule of its own (Subscribes are coalesced, edits rejected by their
// bucket): what happens past it is the kind's, see each use.
type budgetKind uint8

const (
	budgetClock budgetKind = iota // Clock pings: the control reader waits for a token
	budgetCar                     // car datagrams: dropped unread
	budgetReset                   // Reset requests: answered with a refusal
	numBudgetKinds
)

var budgetNames = [numBudgetKinds]string{budgetClock: "clock", budgetCar: "car", budgetReset: "reset"}

func (k budgetKind) String() string { return budgetNames[k] }

// clocked is a token bucket refilled by the wall clock, for budgets kept
// by a connection's own goroutine (the tick refills the others).
type clocked struct {
	tokens
	last time.Time
}

func newClocked(rate, burst float64, now time.Time) clocked {
	return clocked{tokens: newBucket(rate, burst), last: now}
}

// take refills up to now and spends one token if there is one.
func (c *clocked) take(now time.Time) bool {
	c.refill(max(0, now.Sub(c.last).Seconds()))
	c.last = now
	return c.tokens.take()
}

// spend refills up to now and spends a token, owed if there is none (a
// caller that waited for wait's duration).
func (c *clocked) spend(now time.Time) {
	c.refill(max(0, now.Sub(c.last).Seconds()))
	c.last = now
	c.n--
}

// wait is how long until a token will be there (0: one is).
func (c *clocked) wait() time.Duration {
	if c.n >= 1 {
		return 0
	}
	return time.Duration((1 - c.n) / c.rate * float64(time.Second))
}
