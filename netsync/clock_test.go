package netsync

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
)

// Over loopback the client's world-clock samples put the server's clock
// (here 5000 s ahead of the test's) within each sample's half round trip,
// and the best of them within a millisecond or so; the Welcome is the
// first sample.
func TestWorldClockSamplesOverLoopback(t *testing.T) {
	base := time.Now()
	const ahead = 5000 * time.Second
	s := startServer(t, func(c *ServerConfig) {
		c.WorldClock = func() time.Duration { return time.Since(base) + ahead }
		c.ClockPingsPerSecond = 100 // it pings every 20 ms
	})
	cfg := s.clientConfig()
	cfg.ClockInterval = 20 * time.Millisecond
	c := dial(t, cfg)
	assert.NotZero(t, c.Welcome().World)

	// local time here is time since base: the true offset is ahead
	truth := ahead
	var got []ClockSample
	deadline := time.After(testTimeout)
	for len(got) < 10 {
		got = c.ClockSamples(got)
		if len(got) >= 10 {
			break
		}
		select {
		case <-c.ClockNotify():
		case <-deadline:
			require.FailNow(t, "too few clock samples", "%d", len(got))
		}
	}
	best := time.Hour
	var bestErr time.Duration
	const quantum = 2 * time.Microsecond // both stamps are whole µs
	for _, smp := range got {
		rtt := smp.Received.Sub(smp.Sent)
		require.GreaterOrEqual(t, rtt, time.Duration(0))
		off := smp.World - (smp.Sent.Sub(base)+smp.Received.Sub(base))/2
		err := (off - truth).Abs()
		assert.LessOrEqual(t, err, rtt/2+quantum, "sample %+v", smp)
		if rtt < best {
			best, bestErr = rtt, err
		}
	}
	t.Logf("%d samples; best round trip %v, its offset error %v", len(got), best, bestErr)
	assert.Less(t, best, 50*time.Millisecond, "loopback")
}

// A client that sends the server a world time is broken: it loses its
// connection. Pings within the budget are answered in order
// (TestClockPingFloodIsHeldToItsBudget floods it).
func TestClockFromAClientIsChecked(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.ClockPingsPerSecond = 5 })
	r := rawDial(t, s, nil, true)
	enc := wire.NewEncoder()
	var b []byte
	for i := range 5 { // five pings at once: the budget's burst
		var err error
		b, err = enc.AppendFrame(b, &wire.Clock{Echo: uint64(100 + i)}, wire.ControlCap)
		require.NoError(t, err)
	}
	_, err := r.ctrl.Write(b)
	require.NoError(t, err)
	fr := wire.NewFrameReader(r.ctrl, wire.ControlCap)
	p, err := fr.Next()
	require.NoError(t, err)
	m, err := wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	answer := m.(*wire.Clock)
	assert.Equal(t, uint64(100), answer.Echo)
	assert.NotZero(t, answer.World)
	p, err = fr.Next()
	require.NoError(t, err)
	m, err = wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, uint64(101), m.(*wire.Clock).Echo, "in order")

	_, err = r.ctrl.Write(frame(t, &wire.Clock{Echo: 1, World: 1}))
	require.NoError(t, err)
	assert.Equal(t, CodeProtocol, r.closedWith(t).ErrorCode)
}
