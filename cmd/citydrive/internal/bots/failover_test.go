package bots

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// onMessage is a log handler that closes seen at the first record with
// message msg (it stands for every handler derived from it).
type onMessage struct {
	msg  string
	seen chan struct{}
	once *sync.Once
}

func newOnMessage(msg string) onMessage {
	return onMessage{msg: msg, seen: make(chan struct{}), once: &sync.Once{}}
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }

// closeWhenJoined closes s once the bot logged its join, and reports when.
func closeWhenJoined(t *testing.T, h onMessage, s *netsync.Server) <-chan time.Time {
	at := make(chan time.Time, 1)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		select {
		case <-h.seen:
			at <- time.Now()
			_ = s.Close()
		case <-stop:
		}
	}()
	return at
}

// A bot given two servers joins the first; when that one goes away it
// moves to the next, which sends it its area again, and the run goes on:
// its steady window spans both connections and its byte counts hold both.
func TestBotFailsOverToTheNextServer(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	a := startServer(t, func(*netsync.ServerConfig) {})
	onB := make(chan struct{}, 8)
	b := startServer(t, func(c *netsync.ServerConfig) {
		c.Observer = func(e netsync.Event) {
			if e.Kind == netsync.EventJoined {
				select {
				case onB <- struct{}{}:
				default:
				}
			}
		}
	})
	h := newOnMessage("bot joined")
	lostAt := closeWhenJoined(t, h, a)
	const run = 3 * time.Second
	begin := time.Now()
	rep, err := Run(context.Background(), Options{
		Addr: a.Addr().String() + "," + b.Addr().String(), Fingerprint: a.Fingerprint() + "," + b.Fingerprint(),
		Seed: 42, N: 1, Duration: run, Radius: 1, EditEvery: -1, Logger: slog.New(h),
	})
	require.NoError(t, err)
	bot := rep.Bots[0]
	require.NoError(t, bot.Err)
	var lost time.Time
	select {
	case lost = <-lostAt:
	default:
		t.Fatal("the bot never joined the first server")
	}
	assert.Len(t, onB, 1, "the bot joined the second server, once")
	assert.Equal(t, 1, bot.Failovers)
	assert.True(t, bot.FailedOverAt.After(lost), "back after the loss")
	assert.Positive(t, bot.JoinSeconds, "joined on the first server")
	assert.Less(t, bot.JoinSeconds, lost.Sub(begin).Seconds())
	area := len(plan.Cylinder(voxel.ChunkPos{}, 1, nil))
	assert.GreaterOrEqual(t, bot.Chunks, 2*area, "the second server sent the area again")

	// The steady window goes on over the new connection: it covers at
	// least the time from the failover to the end of the run.
	assert.GreaterOrEqual(t, bot.SteadySeconds, begin.Add(run).Sub(bot.FailedOverAt).Seconds())
	assert.Less(t, bot.SteadySeconds, rep.Duration.Seconds())
	// Both connections' bytes are in the whole-run figures; outside the
	// join and the steady window lies only the new connection's handshake.
	steadyIn := bot.InBps * bot.SteadySeconds
	counted := float64(bot.JoinBytes) + steadyIn
	assert.GreaterOrEqual(t, float64(bot.BytesIn), counted-1e-6*steadyIn)
	assert.Less(t, float64(bot.BytesIn), counted+16<<10, "a handshake's worth uncounted at most")
	assert.GreaterOrEqual(t, float64(bot.BytesOut), bot.OutBps*bot.SteadySeconds*(1-1e-6))
	assert.Less(t, float64(bot.BytesOut), float64(1<<30))
}

// A bot with one server has nowhere to go: it reports the loss at once.
func TestBotLosesItsOnlyServer(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	s := startServer(t, func(*netsync.ServerConfig) {})
	h := newOnMessage("bot joined")
	closeWhenJoined(t, h, s)
	const run = 20 * time.Second
	rep, err := Run(context.Background(), Options{
		Addr: s.Addr().String(), Fingerprint: s.Fingerprint(),
		Seed: 42, N: 1, Duration: run, Radius: 1, EditEvery: -1, Logger: slog.New(h),
	})
	require.NoError(t, err)
	bot := rep.Bots[0]
	// The server's own word (not a failed redial): it shut down.
	require.Error(t, bot.Err)
	assert.Contains(t, bot.Err.Error(), "server shutting down")
	assert.NotContains(t, bot.Err.Error(), "failing over")
	assert.Zero(t, bot.Failovers)
	assert.Less(t, rep.Duration, run, "it stops when the server is gone, not at the end of the run")
}

// A bot whose next server refuses it (another world) stops with that
// refusal rather than trying again.
func TestBotFailoverRefused(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	a := startServer(t, func(*netsync.ServerConfig) {})
	other := startServer(t, func(c *netsync.ServerConfig) { c.Seed = 43 })
	h := newOnMessage("bot joined")
	closeWhenJoined(t, h, a)
	const run = 20 * time.Second
	rep, err := Run(context.Background(), Options{
		Addr: a.Addr().String() + "," + other.Addr().String(), Fingerprint: a.Fingerprint() + "," + other.Fingerprint(),
		Seed: 42, N: 1, Duration: run, Radius: 1, EditEvery: -1, Logger: slog.New(h),
	})
	require.NoError(t, err)
	bot := rep.Bots[0]
	var re *netsync.RefusedError
	require.ErrorAs(t, bot.Err, &re)
	assert.ErrorContains(t, bot.Err, "failing over")
	assert.ErrorContains(t, bot.Err, "seed")
	assert.Zero(t, bot.Failovers)
	assert.Less(t, rep.Duration, run)
}

// With LeaveHalfAfter the odd-numbered bots close their connection then,
// without an error, and the others drive on to the end.
func TestHalfTheBotsLeave(t *testing.T) {
	t.Parallel() // waits out its run; the waits overlap
	s := startServer(t, func(*netsync.ServerConfig) {})
	const speed, leave, run = 20, 500 * time.Millisecond, 2 * time.Second
	rep, err := Run(context.Background(), Options{
		Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42, N: 4,
		Duration: run, LeaveHalfAfter: leave, Speed: speed, Radius: 1, EditEvery: -1,
	})
	require.NoError(t, err)
	require.Len(t, rep.Bots, 4)
	for i, b := range rep.Bots {
		require.NoError(t, b.Err, "bot %d", i)
		if i%2 == 1 {
			assert.LessOrEqual(t, b.DistanceM, speed*leave.Seconds(), "bot %d left at %v", i, leave)
		} else {
			assert.Greater(t, b.DistanceM, speed*leave.Seconds(), "bot %d drove on", i)
		}
	}
}
