package netsync

import (
	"math"
	"sync"

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

// addrGate bounds concurrent handshakes per remote IP. It is safe for
// concurrent use (the accept loop acquires, handshake goroutines release).
type addrGate struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newAddrGate(max int) *addrGate { return &addrGate{max: max, n: map[string]int{}} }

// acquire takes a slot for ip, reporting false when ip holds max already.
func (g *addrGate) acquire(ip string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n[ip] >= g.max {
		return false
	}
	g.n[ip]++
	return true
}

// release gives back a slot acquire took.
func (g *addrGate) release(ip string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n[ip]--; g.n[ip] <= 0 {
		delete(g.n, ip)
	}
}

// held is how many slots ip holds (tests, metrics).
func (g *addrGate) held(ip string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n[ip]
}

// saturateCentre clamps a subscription centre so that every chunk of a
// cylinder of radius up to wire.AbsMaxRadius around it, and every offset
// from it, fits in int32: no position arithmetic can overflow.
func saturateCentre(c voxel.ChunkPos) voxel.ChunkPos {
	const m = wire.AbsMaxRadius
	clamp := func(v int32) int32 { return min(max(v, math.MinInt32+m), math.MaxInt32-m) }
	return voxel.ChunkPos{X: clamp(c.X), Y: clamp(c.Y), Z: clamp(c.Z)}
}
