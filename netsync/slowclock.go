package netsync

import (
	"sync"
	"time"
)

// slowClock is the world clock the server announces, slowed with the tick
// rate: while the server ticks at hz of its TickHz, world time runs at
// hz/TickHz of its source's. Time is what slows under load, not only the
// ticks, so the traffic every client computes from the world clock slows
// with the server (protocol 7). The time lost is not caught up when the
// rate recovers; a server that never slows announces its source exactly.
// Read by handshakes and clock answers, set by the tick: a mutex.
type slowClock struct {
	mu      sync.Mutex
	source  func() time.Duration
	started bool
	at      time.Duration // the source's reading at the last rate change
	world   time.Duration // the world time then
	rate    float64       // world seconds per source second, (0, 1]
	last    time.Duration // the latest reading: the clock never goes back
}

func newSlowClock(source func() time.Duration) *slowClock {
	if source == nil {
		source = WallWorldClock
	}
	return &slowClock{source: source, rate: 1}
}

// now is the world time.
func (c *slowClock) now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read(c.source())
}

func (c *slowClock) read(src time.Duration) time.Duration {
	if !c.started { // on first use: a test's source may start late
		c.at, c.world, c.started = src, src, true
	}
	c.last = max(c.last, c.world+time.Duration(float64(max(0, src-c.at))*c.rate))
	return c.last
}

// setRate makes the clock run at rate from now on.
func (c *slowClock) setRate(rate float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	src := c.source()
	c.world, c.at, c.rate = c.read(src), src, rate
}
