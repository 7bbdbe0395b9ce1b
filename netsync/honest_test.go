package netsync

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
)

// What a hostile test requires of everyone else while it attacks: a
// well-behaved player keeps at least honestCarShare of its car updates
// reaching another player, and the server at least honestTickRate ticks a
// second.
const (
	honestCarShare = 0.95
	honestTickRate = 28
	honestEvery    = 100 * time.Millisecond // 10 Hz: never two updates in one 30 Hz tick
	honestMinSent  = 10
)

// honest is a well-behaved player (driver) sending a parked car and a
// second one (watcher) counting the driver's updates it receives.
type honest struct {
	s            *testServer
	driver       *Client
	watcher      *Client
	stop, done   chan struct{}
	mu           sync.Mutex
	sent         int
	seen         map[uint32]bool
	ticks0       float64
	t0           time.Time
	lastSeq      uint32
	driverPlayer uint32
}

// startHonest joins the two players and starts the driver's updates; call
// check when the attack is over.
func startHonest(t *testing.T, s *testServer) *honest {
	t.Helper()
	h := &honest{s: s, stop: make(chan struct{}), done: make(chan struct{}), seen: map[uint32]bool{}}
	h.driver = dial(t, s.clientConfig())
	h.watcher = dial(t, s.clientConfig())
	firstDefault(t, h.driver)
	firstDefault(t, h.watcher)
	h.driverPlayer = h.driver.Welcome().Player
	h.ticks0, h.t0 = count(t, s.metrics.ticks), time.Now()
	go h.run()
	return h
}

func (h *honest) run() {
	defer close(h.done)
	send := time.NewTicker(honestEvery)
	defer send.Stop()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	var cars []wire.CarSnapshot
	for {
		select {
		case <-h.stop:
			return
		case <-send.C:
			h.mu.Lock()
			h.lastSeq++
			h.sent++
			seq := h.lastSeq
			h.mu.Unlock()
			h.driver.SendCar(wire.QuantiseCar(0, seq, 10, 1, 20, 0, 0))
		case <-poll.C:
			cars = h.watcher.Cars(cars[:0])
			h.mu.Lock()
			for _, c := range cars {
				if c.Player == h.driverPlayer {
					h.seen[c.Seq] = true
				}
			}
			h.mu.Unlock()
		}
	}
}

// check waits for at least honestMinSent updates, stops the driver, lets
// the last update arrive and asserts the share and the tick rate.
func (h *honest) check(t *testing.T) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		h.mu.Lock()
		n := h.sent
		h.mu.Unlock()
		if n >= honestMinSent {
			break
		}
		select {
		case <-time.After(honestEvery):
		case <-deadline:
			t.Fatal("the well-behaved player could not send")
		}
	}
	ticks, elapsed := count(t, h.s.metrics.ticks)-h.ticks0, time.Since(h.t0).Seconds()
	close(h.stop)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	require.NoError(t, h.driver.Err())
	require.NoError(t, h.watcher.Err())
	// The newest update may still be in flight: count it only if it came.
	sent := h.sent
	if !h.seen[h.lastSeq] {
		sent--
	}
	share := float64(len(h.seen)) / float64(sent)
	t.Logf("well-behaved player: %d of %d car updates arrived (%.0f %%); %.0f ticks/s", len(h.seen), sent, 100*share, ticks/elapsed)
	assert.GreaterOrEqual(t, share, honestCarShare, "the well-behaved player's car updates")
	assert.GreaterOrEqual(t, ticks/elapsed, float64(honestTickRate), "the server's tick rate")
}
