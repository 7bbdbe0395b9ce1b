package netsync

import "time"

// timeCheckEvery is how many pending chunks a delivery pass looks at
// between two reads of the clock (reading it per chunk costs more than the
// look itself).
const timeCheckEvery = 16

// pacing bounds chunk deliveries. Per client per tick: at most edited
// ChunkEdits, defaults procedural defaults, and looks past at most skips
// chunks the world has not got ready. Per tick, for all clients together:
// at most budget of wall time (0: no time bound). Clients are served
// round-robin, and a tick that runs out of time makes the client it ran
// out on the first of the next tick, so nobody starves.
type pacing struct {
	edited, defaults, skips int
	budget                  time.Duration
	now                     func() time.Time

	next     int // the client the next tick starts with
	start    int // this tick's first client
	deadline time.Time
	expired  bool
}

// startTick opens a tick's budget for n clients.
func (p *pacing) startTick(n int) {
	p.expired = false
	p.deadline = time.Time{}
	if p.budget > 0 {
		p.deadline = p.now().Add(p.budget)
	}
	if n > 0 {
		p.start = p.next % n
	}
}

// turn is the index of the k-th client to serve this tick (of n).
func (p *pacing) turn(k, n int) int { return (p.start + k) % n }

// ranOut records that the tick's time ran out while serving client i.
func (p *pacing) ranOut(i int) { p.next = i }

// allServed records that every client was served within the budget.
func (p *pacing) allServed() { p.next = p.start + 1 }

// client opens one client's share of the tick.
func (p *pacing) client() quota { return quota{p: p} }

// quota is one client's deliveries in one tick.
type quota struct {
	p                         *pacing
	edited, defaults, skipped int
}

// look reports whether the i-th pending chunk of this client's pass may
// be looked at: the client's counts and the tick's time both allow it.
func (q *quota) look(i int) bool {
	p := q.p
	if i%timeCheckEvery == 0 && !p.deadline.IsZero() && p.now().After(p.deadline) {
		p.expired = true
	}
	return !p.expired && q.edited < p.edited && q.defaults < p.defaults && q.skipped < p.skips
}

func (q *quota) sentEdits()   { q.edited++ }
func (q *quota) sentDefault() { q.defaults++ }
func (q *quota) notReady()    { q.skipped++ }

// inTime reports whether the tick's time budget still holds.
func (q *quota) inTime() bool { return !q.p.expired }
