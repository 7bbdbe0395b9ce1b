package netsync

import (
	"context"
	"errors"
	"math"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/quic-go/quic-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// TestSubscribeFloodIsCoalesced: one client sends thousands of Subscribes
// as fast as it can; the server rebuilds its cylinder at most
// SubscribesPerSecond (plus the burst), keeps ticking, and a well-behaved
// pair of clients keeps exchanging car updates throughout.
func TestSubscribeFloodIsCoalesced(t *testing.T) {
	s := startServer(t, nil)
	a := dial(t, s.clientConfig())
	b := dial(t, s.clientConfig())
	flooder := dial(t, s.clientConfig())
	firstDefault(t, flooder)
	h := startHonest(t, s)
	applied0 := count(t, s.metrics.subsApplied)
	ticks0 := count(t, s.metrics.ticks)
	start := time.Now()

	const n = 5000
	stop := make(chan struct{})
	flooded := make(chan error, 1)
	go func() {
		defer close(flooded)
		for i := 0; i < n; {
			select {
			case <-stop:
				return
			default:
			}
			err := flooder.Subscribe(voxel.ChunkPos{X: int32(i % 50)}, 4)
			if errors.Is(err, ErrQueueFull) {
				continue // the client's own queue: retry at once
			}
			if err != nil {
				flooded <- err
				return
			}
			i++
		}
		// Answered after every Subscribe above has been taken in.
		_, err := flooder.RequestEdit(voxel.ChunkPos{X: 1 << 20}, 0, 1)
		flooded <- err
	}()
	defer func() { close(stop); <-flooded }()

	// The well-behaved clients' cars keep flowing during the flood.
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	deadline := time.After(testTimeout)
	for seq, seen := uint32(1), 0; seen < 20; seq++ {
		a.SendCar(wire.QuantiseCar(0, seq, 10, 1, 20, 0.5, 30))
		for _, c := range b.Cars(nil) {
			if c.Player == a.Welcome().Player {
				seen++
			}
		}
		select {
		case <-frameT.C:
		case <-deadline:
			t.Fatalf("cars stopped flowing during the flood (%d seen)", seen)
		}
	}
	reject := nextOf[*wire.EditReject](t, flooder)
	assert.Contains(t, reject.Reason, "not loaded")
	h.check(t)
	elapsed := time.Since(start).Seconds()
	applied := count(t, s.metrics.subsApplied) - applied0
	ticks := count(t, s.metrics.ticks) - ticks0
	coalesced := count(t, s.metrics.subsCoalesced)
	t.Logf("%d Subscribes in %.2fs: %.0f applied, %.0f coalesced, %.0f ticks", n, elapsed, applied, coalesced, ticks)
	rate := DefaultServerConfig().SubscribesPerSecond
	assert.LessOrEqual(t, applied, rate+rate*elapsed+1, "applied within the budget")
	assert.LessOrEqual(t, applied, ticks+1, "at most one rebuild per tick")
	assert.GreaterOrEqual(t, coalesced, n-applied-1, "the rest coalesced")
	assert.GreaterOrEqual(t, ticks, 0.5*100*elapsed, "the tick kept (at least half) its rate")
	assert.NoError(t, flooder.Err(), "a flooder is slowed, not cut off")
	assert.NoError(t, a.Err())
	assert.NoError(t, b.Err())
}

// dialFrom opens QUIC connections from a chosen loopback IP.
func dialFrom(t *testing.T, s *testServer, ip string, n int) []*quic.Conn {
	t.Helper()
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(ip)})
	require.NoError(t, err)
	tr := &quic.Transport{Conn: udp}
	t.Cleanup(func() { _ = tr.Close(); _ = udp.Close() })
	tlsConf, err := transport.ClientTLS(s.Fingerprint(), wire.ProtocolVersion)
	require.NoError(t, err)
	conns := make([]*quic.Conn, n)
	for i := range conns {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		conns[i], err = tr.Dial(ctx, s.Addr().(*net.UDPAddr), tlsConf, transport.ClientQUIC())
		cancel()
		require.NoError(t, err)
	}
	return conns
}

// closedCodes waits for every one of conns to be closed by the server and
// counts the close codes.
func closedCodes(t *testing.T, conns []*quic.Conn) map[quic.ApplicationErrorCode]int {
	t.Helper()
	got := map[quic.ApplicationErrorCode]int{}
	for _, c := range conns {
		select {
		case <-c.Context().Done():
		case <-time.After(testTimeout):
			t.Fatal("the server did not close a connection")
		}
		ae, ok := remoteAppError(context.Cause(c.Context()))
		require.True(t, ok, "closed with %v", context.Cause(c.Context()))
		got[ae.ErrorCode]++
	}
	return got
}

// TestHalfOpenHandshakesFromOneAddress: one address opens many connections
// and never sends a Hello. It gets MaxHandshakesPerAddr slots, the rest are
// refused busy at once, another address still joins, and the held ones are
// let go after HelloTimeout.
func TestHalfOpenHandshakesFromOneAddress(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) {
		c.MaxHandshakes, c.MaxHandshakesPerAddr, c.HelloTimeout = 4, 2, 2*time.Second
	})
	h := startHonest(t, s)
	attack := dialFrom(t, s, "127.0.0.2", 6)
	var busy, held []*quic.Conn
	// The refusals come at once; find them by waiting on all six in order
	// of closing: the first four to close must be the busy ones.
	closed := make(chan *quic.Conn, len(attack))
	var wg sync.WaitGroup
	for _, c := range attack {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-c.Context().Done()
			closed <- c
		}()
	}
	for range 4 {
		select {
		case c := <-closed:
			busy = append(busy, c)
		case <-time.After(testTimeout):
			t.Fatal("excess half-open connections were not refused")
		}
	}
	assert.Equal(t, map[quic.ApplicationErrorCode]int{CodeBusy: 4}, closedCodes(t, busy))
	assert.Equal(t, 2, s.pool.held("127.0.0.2"))

	good := dial(t, s.clientConfig()) // from 127.0.0.1
	firstDefault(t, good)

	for range 2 {
		held = append(held, <-closed)
	}
	wg.Wait()
	assert.Equal(t, map[quic.ApplicationErrorCode]int{CodeTimeout: 2}, closedCodes(t, held))
	e := waitEvent(t, s, EventLeft, func(e Event) bool { return e.Code == CodeTimeout })
	assert.Contains(t, e.Reason, "within")
	assert.NoError(t, good.Err())
	h.check(t) // over the whole attack: the half-open ones were held for their 2 s
}

// TestPerAddressLimitCountsOnlyHalfOpen: the per-address slot is given
// back once the Hello is in, so a client from the same address as one
// still finishing its handshake (Welcome read, chunk stream not opened)
// joins even at a limit of one: players behind one NAT, and bots on one
// host, contend only for their Hello's round trip.
func TestPerAddressLimitCountsOnlyHalfOpen(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.MaxHandshakesPerAddr = 1 })
	slow := rawDial(t, s, nil, false)
	f := helloJoin(t, 42)
	_, err := slow.ctrl.Write(f)
	require.NoError(t, err)
	p, err := wire.NewFrameReader(slow.ctrl, wire.ControlCap).Next()
	require.NoError(t, err)
	m, err := wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	require.IsType(t, &wire.Welcome{}, m)
	assert.Zero(t, s.pool.held("127.0.0.1"), "the Hello is in: the address slot is free")

	good := dial(t, s.clientConfig()) // same address, while slow's handshake is still open
	firstDefault(t, good)
	assert.NoError(t, good.Err())
	assert.Zero(t, count(t, s.metrics.handshakesBusy.WithLabelValues("addr")))
}

// TestSlowClientsAreLetGo: a frame that stalls half-way, and a client
// that joins but never subscribes, are closed with CodeTimeout.
func TestSlowClientsAreLetGo(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) {
		c.FrameTimeout, c.SubscribeTimeout = 300*time.Millisecond, 300*time.Millisecond
	})
	good := dial(t, s.clientConfig())
	firstDefault(t, good)
	h := startHonest(t, s)

	stalled := rawDial(t, s, nil, true)
	sub := frame(t, &wire.Subscribe{Radius: 2})
	_, err := stalled.chunk.Write(sub[:len(sub)-1]) // and never the last byte
	require.NoError(t, err)
	ae := stalled.closedWith(t)
	assert.Equal(t, CodeTimeout, ae.ErrorCode)
	assert.Contains(t, ae.ErrorMessage, "stalled")

	edit := frame(t, &wire.EditRequest{Seq: 1, Pos: voxel.ChunkPos{}, Index: 1, Block: 1})
	silent := rawJoin(t, s, nil, true, edit) // an edit, never a Subscribe
	ae = silent.closedWith(t)
	assert.Equal(t, CodeTimeout, ae.ErrorCode)
	assert.Contains(t, ae.ErrorMessage, "no Subscribe")
	assert.NoError(t, good.Err())
	h.check(t)
}

// TestBurstOfJoinsKeepsThePlayerLimit: places are reserved before the
// Welcome, so many simultaneous joins cannot pass MaxPlayers.
func TestBurstOfJoinsKeepsThePlayerLimit(t *testing.T) {
	const max, n = 3, 12
	s := startServer(t, func(c *ServerConfig) { c.MaxPlayers, c.MaxHandshakesPerAddr = max, n })
	var wg sync.WaitGroup
	errs := make([]error, n)
	clients := make([]*Client, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			clients[i], errs[i] = Dial(ctx, s.clientConfig())
		}()
	}
	wg.Wait()
	joined := 0
	for i, err := range errs {
		if err == nil {
			joined++
			defer clients[i].Close()
			continue
		}
		var re *RefusedError
		require.ErrorAs(t, err, &re)
		assert.Contains(t, re.Reason, "server full")
	}
	assert.Equal(t, max, joined)
	assert.LessOrEqual(t, int(s.players.Load()), max)
}

// TestRefuseFrameArrives: the refused client reads the Refuse frame itself,
// not only the close reason.
func TestRefuseFrameArrives(t *testing.T) {
	s := startServer(t, nil)
	r := rawDial(t, s, nil, false)
	_, err := r.ctrl.Write(frame(t, &wire.Hello{Protocol: wire.ProtocolVersion, Seed: 7, Generator: 3}))
	require.NoError(t, err)
	p, err := wire.NewFrameReader(r.ctrl, wire.ControlCap).Next()
	require.NoError(t, err, "the Refuse frame was discarded by the close")
	m, err := wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	require.IsType(t, &wire.Refuse{}, m)
	assert.Contains(t, m.(*wire.Refuse).Reason, "seed")
	_ = r.conn.CloseWithError(0, "read the refusal")
}

// TestExtremeCentreIsSaturated: a Subscribe at the edge of int32 is served
// around the nearest centre whose cylinder fits, not wrapped around.
func TestExtremeCentreIsSaturated(t *testing.T) {
	s := startServer(t, nil)
	cfg := s.clientConfig()
	cfg.Centre = voxel.ChunkPos{X: math.MaxInt32, Y: math.MinInt32, Z: math.MaxInt32}
	c := dial(t, cfg)
	d := nextOf[*wire.ChunkDefaults](t, c)
	assert.Equal(t, saturateCentre(cfg.Centre), d.Base)
	assert.Equal(t, saturateCentre(cfg.Centre), d.Pos[0])
	assert.NoError(t, c.Err())
}

// count reads a counter's value.
func count(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	return m.GetCounter().GetValue()
}

// TestImpossibleCarMovesAreNotRelayed: after a plausible car, a jump far
// beyond what the car can drive in a tick is dropped: the other client
// never sees it.
func TestImpossibleCarMovesAreNotRelayed(t *testing.T) {
	s := startServer(t, nil)
	h := startHonest(t, s)
	a := dial(t, s.clientConfig())
	b := dial(t, s.clientConfig())
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	deadline := time.After(testTimeout)
	seq := uint32(0)
	for len(b.Cars(nil)) == 0 { // the plausible car arrives first
		seq++
		a.SendCar(wire.QuantiseCar(0, seq, 10, 1, 20, 0, 0))
		select {
		case <-frameT.C:
		case <-deadline:
			t.Fatal("car never relayed")
		}
	}
	for count(t, s.metrics.carsRejected) < 5 { // 50 m in one frame: a jump
		seq++
		a.SendCar(wire.QuantiseCar(0, seq, 60, 1, 20, 0, 0))
		for _, c := range b.Cars(nil) {
			x, _, _ := c.Position()
			assert.InDelta(t, 10, x, 0.01, "the jump was relayed")
		}
		select {
		case <-frameT.C:
		case <-deadline:
			t.Fatal("the jumps were not rejected")
		}
	}
	assert.NoError(t, a.Err(), "an impossible car is dropped, the player is not")
	h.check(t)
}

// TestOverloadSlowsTime: a server whose every tick is over budget slows
// down to the floor and tells its clients the rate as it goes.
func TestOverloadSlowsTime(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.TickBudget, c.TickFloorHz = time.Nanosecond, 50 })
	c := dial(t, s.clientConfig())
	last := c.Welcome().TickHz // the slowing may have begun before the join
	assert.LessOrEqual(t, last, uint32(100))
	for last != 50 {
		r := nextOf[*wire.TickRate](t, c)
		assert.Less(t, r.Hz, last, "the rate only falls under constant overload")
		last = r.Hz
	}
	assert.Equal(t, int32(50), s.curHz.Load())
	late := dial(t, s.clientConfig())
	assert.Equal(t, uint32(50), late.Welcome().TickHz, "a joiner is welcomed with the current rate")
	assert.Equal(t, uint32(100), late.Welcome().FullHz, "and the full one: time runs at half speed")
}

// A Hello the server timed out surfaces as ErrTimedOut, which callers
// such as the bots may retry like ErrBusy.
func TestLateHelloIsErrTimedOut(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.HelloTimeout = time.Nanosecond })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := Dial(ctx, s.clientConfig())
	require.ErrorIs(t, err, ErrTimedOut)
	assert.NotErrorIs(t, err, ErrBusy)
}
