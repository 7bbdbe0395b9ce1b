package netsync

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"citydrive/netsync/wire"
)

// The world clock (wire.Clock): the server stamps its world time into the
// Welcome and answers the client's pings on the control stream; the client
// hands the samples to its estimator (cmd/citydrive/internal/worldclock)
// and nothing else about traffic is ever sent.

const (
	// DefaultClockInterval is how often a client pings the world clock.
	DefaultClockInterval = 2 * time.Second
	// clockSamplesKept bounds the samples a client holds for its frame
	// loop; older ones are dropped (the estimator keeps the recent best).
	clockSamplesKept = 16
)

// WallWorldClock is the default world clock: wall time since the Unix
// epoch, so a restarted server (or another server of the same world) goes
// on from about where the last one was instead of starting over.
func WallWorldClock() time.Duration { return time.Duration(time.Now().UnixMicro()) * time.Microsecond }

func (s *Server) worldNow() uint64 {
	return uint64(max(0, min(s.world.now().Microseconds(), wire.MaxClockMicros)))
}

// clockAnswerer answers one client's pings within its budget
// (ClockPingsPerSecond): past it the control reader waits for a token
// before reading on, so a flood is held back by the stream's flow control
// and costs the server no more than the budget. It is used only by that
// client's control-stream reader goroutine.
type clockAnswerer struct {
	s      *Server
	ctx    context.Context // the peer's
	ctrl   io.Writer       // the control stream
	enc    *wire.Encoder
	buf    []byte
	budget clocked
}

func (a *clockAnswerer) answer(m *wire.Clock) error {
	if m.World != 0 {
		return fmt.Errorf("%w: a client's Clock carries a world time", wire.ErrMalformed)
	}
	if !a.budget.take(time.Now()) {
		a.s.metrics.overBudget[budgetClock].Inc()
		t := time.NewTimer(a.budget.wait())
		select {
		case <-t.C:
		case <-a.ctx.Done():
			t.Stop()
			return a.ctx.Err()
		}
		a.budget.spend(time.Now())
	}
	var err error
	a.buf, err = a.enc.AppendFrame(a.buf[:0], &wire.Clock{Echo: m.Echo, World: a.s.worldNow()}, wire.ControlCap)
	if err != nil {
		return err
	}
	_, err = a.ctrl.Write(a.buf)
	return err
}

// ClockSample is one world-clock measurement on a client: it asked at
// Sent, the server's world clock read World, the answer came at Received
// (both with the monotonic clock reading, so differences are exact).
type ClockSample struct {
	Sent, Received time.Time
	World          time.Duration
}

// clockSamples is the client's mailbox of samples, filled by the control
// reader, drained by the frame loop.
type clockSamples struct {
	mu     sync.Mutex
	s      []ClockSample
	notify chan struct{}
}

func newClockSamples() *clockSamples {
	return &clockSamples{s: make([]ClockSample, 0, clockSamplesKept), notify: make(chan struct{}, 1)}
}

func (c *clockSamples) add(s ClockSample) {
	c.mu.Lock()
	if len(c.s) == clockSamplesKept {
		copy(c.s, c.s[1:])
		c.s = c.s[:len(c.s)-1]
	}
	c.s = append(c.s, s)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// LocalTime is the client's monotonic clock that ClockSamples are in:
// time since Dial started.
func (c *Client) LocalTime() time.Duration { return time.Since(c.start) }

// ClockSamples appends the world-clock samples that arrived since the last
// call (the Welcome's first) to dst without blocking.
func (c *Client) ClockSamples(dst []ClockSample) []ClockSample {
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	dst = append(dst, c.clock.s...)
	c.clock.s = c.clock.s[:0]
	return dst
}

// ClockNotify receives a value after new clock samples arrived.
func (c *Client) ClockNotify() <-chan struct{} { return c.clock.notify }

// onClock takes a server's answer to a ping (on the control reader).
func (c *Client) onClock(m *wire.Clock) error {
	now := time.Now()
	sent := c.start.Add(time.Duration(m.Echo) * time.Microsecond)
	if m.World == 0 || sent.After(now) {
		return fmt.Errorf("%w: Clock answer echoes a time not yet asked (%v after now) or has no world time", wire.ErrMalformed, sent.Sub(now))
	}
	c.clock.add(ClockSample{Sent: sent, Received: now, World: time.Duration(m.World) * time.Microsecond})
	return nil
}

// pingClock sends a Clock ping on the control stream every interval,
// the first at once, until the connection ends. Only this goroutine
// writes the control stream after the handshake.
func (c *Client) pingClock(ctrl io.Writer, interval time.Duration) {
	enc := wire.NewEncoder()
	var buf []byte
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		var err error
		buf, err = enc.AppendFrame(buf[:0], &wire.Clock{Echo: uint64(c.LocalTime().Microseconds())}, wire.ControlCap)
		if err == nil {
			_, err = ctrl.Write(buf)
		}
		if err != nil {
			c.fail(CodeOK, c.explain(err))
			return
		}
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
	}
}
