package netsync

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// Issue 23's attacks: one address (or a few) must not lock newcomers
// out, take every seat, cost a core with clock pings, or teleport.

// joinShare is the share of other addresses' joins that must succeed
// while an attack on the handshake runs.
const joinShare = 0.95

// helloFrom is the stalled-handshake attacker: n connections from ip,
// one after another, each sending its Hello and reading the answer (a
// Welcome, or a refusal), then never opening its chunk stream.
func helloFrom(t *testing.T, s *testServer, ip string, n int) {
	t.Helper()
	hello := helloJoin(t, 42)
	for range n { // each dialled after the last one's Hello is answered
		c := dialFrom(t, s, ip, 1)[0]
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		st, err := c.OpenStreamSync(ctx)
		cancel()
		if err != nil { // refused busy already: the server's right
			continue
		}
		if _, err := st.Write(hello); err != nil {
			continue
		}
		_ = st.SetReadDeadline(time.Now().Add(testTimeout))
		_, _ = wire.NewFrameReader(st, wire.ControlCap).Next()
	}
}

// join runs a whole join from ip, as a client does (Hello, Welcome, chunk
// stream, Subscribe, the spawn), and keeps the connection open; the error
// says why it failed.
func join(t *testing.T, s *testServer, ip string) (*quic.Conn, error) {
	t.Helper()
	conn := dialFrom(t, s, ip, 1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	ctrl, err := conn.OpenStreamSync(ctx)
	if err != nil {
		return conn, err
	}
	if _, err := ctrl.Write(helloJoin(t, 42)); err != nil {
		return conn, err
	}
	_ = ctrl.SetReadDeadline(time.Now().Add(testTimeout))
	p, err := wire.NewFrameReader(ctrl, wire.ControlCap).Next()
	if err != nil {
		return conn, err
	}
	m, err := wire.Decode(p, wire.DefaultLimits)
	if err != nil {
		return conn, err
	}
	switch m := m.(type) {
	case *wire.Welcome:
	case *wire.Refuse:
		return conn, fmt.Errorf("refused: %s", m.Reason)
	default:
		return conn, fmt.Errorf("got %v", m.Kind())
	}
	chunk, err := conn.OpenStreamSync(ctx)
	if err != nil {
		return conn, err
	}
	if _, err := chunk.Write(frame(t, &wire.Subscribe{Radius: 1})); err != nil {
		return conn, err
	}
	_ = chunk.SetReadDeadline(time.Now().Add(testTimeout))
	if p, err = wire.NewFrameReader(chunk, wire.ChunkCap).Next(); err != nil {
		return conn, err
	}
	if m, err = wire.Decode(p, wire.DefaultLimits); err != nil {
		return conn, err
	}
	if _, ok := m.(*wire.Pose); !ok {
		return conn, fmt.Errorf("first on the chunk stream: %v, want the spawn", m.Kind())
	}
	return conn, nil
}

// joinFrom is join, closing the connection afterwards.
func joinFrom(t *testing.T, s *testServer, ip string) error {
	t.Helper()
	conn, err := join(t, s, ip)
	_ = conn.CloseWithError(0, "joined")
	return err
}

// joinsFromOthers runs n joins, each from its own address of 127.0.1.x,
// and returns the share that succeeded.
func joinsFromOthers(t *testing.T, s *testServer, n int) float64 {
	t.Helper()
	ok := 0
	for i := range n {
		err := joinFrom(t, s, fmt.Sprintf("127.0.1.%d", i+1))
		if err == nil {
			ok++
		} else {
			t.Logf("join %d: %v", i, err)
		}
	}
	return float64(ok) / float64(n)
}

// TestStalledAfterHelloLocksNobodyOut (issue 23, defect 1): 70
// connections from one address send a Hello and never open the chunk
// stream. They hold no handshake slot after their Hello, and seats only
// up to MaxPlayersPerAddr; joins from other addresses succeed meanwhile.
func TestStalledAfterHelloLocksNobodyOut(t *testing.T) {
	s := startServer(t, nil)
	h := startHonest(t, s)
	helloFrom(t, s, "127.0.0.2", 70)
	share := joinsFromOthers(t, s, 20)
	t.Logf("stalled-after-Hello attack: %.0f %% of other addresses' joins succeeded", 100*share)
	assert.GreaterOrEqual(t, share, joinShare)
	assert.LessOrEqual(t, s.seats.held("127.0.0.2"), DefaultServerConfig().MaxPlayersPerAddr)
	assert.Zero(t, s.pool.held("127.0.0.2"), "no slot held after a Hello")
	h.check(t)
}

// TestHalfOpenFromNineAddressesLocksNobodyOut (issue 23, defect 1): nine
// addresses hold every handshake slot with TLS-only connections (here
// the Hello deadline is long, as if they renewed them before it); a
// newcomer takes the slot of the address holding the most, so joins from
// other addresses succeed.
func TestHalfOpenFromNineAddressesLocksNobodyOut(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.HelloTimeout = time.Minute })
	h := startHonest(t, s)
	for i := range 9 {
		dialFrom(t, s, fmt.Sprintf("127.0.0.%d", 10+i), 8)
	}
	require.Eventually(t, func() bool { return s.pool.total() == DefaultServerConfig().MaxHandshakes },
		testTimeout, time.Millisecond, "the attack fills the pool")
	share := joinsFromOthers(t, s, 20)
	t.Logf("nine addresses holding every slot: %.0f %% of other addresses' joins succeeded", 100*share)
	assert.GreaterOrEqual(t, share, joinShare)
	h.check(t)
}

// TestBothHandshakeAttacksAtOnce: the stalled-after-Hello attack and
// nine addresses keeping 8 TLS-only connections each open, redialling
// as theirs time out or are evicted, while other addresses join.
func TestBothHandshakeAttacksAtOnce(t *testing.T) {
	s := startServer(t, nil)
	h := startHonest(t, s)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 9 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tlsFrom(t, s, fmt.Sprintf("127.0.0.%d", 10+i), 8, stop)
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	helloFrom(t, s, "127.0.0.2", 70)
	share := joinsFromOthers(t, s, 40)
	t.Logf("both attacks: %.0f %% of other addresses' joins succeeded", 100*share)
	assert.GreaterOrEqual(t, share, joinShare)
	h.check(t)
}

// tlsFrom keeps n TLS-only connections from ip open until stop, dialling
// a new one (at most one per attackEvery) whenever one is closed.
func tlsFrom(t *testing.T, s *testServer, ip string, n int, stop <-chan struct{}) {
	const attackEvery = 20 * time.Millisecond
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(ip)})
	if !assert.NoError(t, err) {
		return
	}
	tr := &quic.Transport{Conn: udp}
	tlsConf, err := transport.ClientTLS(s.Fingerprint(), wire.ProtocolVersion)
	if !assert.NoError(t, err) {
		return
	}
	var watchers sync.WaitGroup
	defer func() { _ = tr.Close(); _ = udp.Close(); watchers.Wait() }()
	closed := make(chan struct{}, n)
	for range n {
		closed <- struct{}{}
	}
	pace := time.NewTicker(attackEvery)
	defer pace.Stop()
	for {
		select {
		case <-stop:
			return
		case <-closed:
		}
		select {
		case <-stop:
			return
		case <-pace.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := tr.Dial(ctx, s.Addr().(*net.UDPAddr), tlsConf, transport.ClientQUIC())
		cancel()
		if err != nil {
			closed <- struct{}{}
			continue
		}
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			select {
			case <-c.Context().Done():
			case <-stop:
				_ = c.CloseWithError(0, "attack over")
			}
			closed <- struct{}{}
		}()
	}
}

// TestOneAddressCannotTakeAllSeats (issue 23, defect 2): one address
// joins many idle, subscribed players and keeps them; it gets
// MaxPlayersPerAddr of them, the rest are refused with a reason, and
// another address still joins.
func TestOneAddressCannotTakeAllSeats(t *testing.T) {
	s := startServer(t, nil)
	max := DefaultServerConfig().MaxPlayersPerAddr
	joined := 0
	for range max + 5 {
		if _, err := join(t, s, "127.0.0.2"); err != nil {
			assert.ErrorContains(t, err, "too many players from your address")
			continue
		}
		joined++
	}
	assert.Equal(t, max, joined)
	assert.NoError(t, joinFrom(t, s, "127.0.0.3"), "another address joins")
	assert.Equal(t, 5.0, count(t, s.metrics.playersRefusedAddr))
}

// TestIdleConnectionsAreLetGo: a player that subscribes but sends neither
// car nor edit is let go after IdleLimit; one sending its car is not.
func TestIdleConnectionsAreLetGo(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.IdleLimit = 300 * time.Millisecond })
	idle := rawDial(t, s, nil, true)
	driver := dial(t, s.clientConfig())
	ae := func() *quic.ApplicationError {
		frameT := time.NewTicker(10 * time.Millisecond)
		defer frameT.Stop()
		for {
			driver.SendCar(wire.QuantiseCar(0, 0, 10, 1, 20, 0, 0))
			select {
			case <-idle.conn.Context().Done():
				return idle.closedWith(t)
			case <-frameT.C:
			case <-time.After(testTimeout):
				t.Fatal("the idle connection was not let go")
			}
		}
	}()
	assert.Equal(t, CodeTimeout, ae.ErrorCode)
	assert.Contains(t, ae.ErrorMessage, "idle")
	assert.NoError(t, driver.Err(), "the driver is kept")
	assert.Equal(t, 1.0, count(t, s.metrics.idleClosed))
}

// TestClockPingFloodIsHeldToItsBudget (issue 23, defect 4): a client
// sends Clock pings as fast as it can; the server reads and answers no
// more than ClockPingsPerSecond (plus the burst), holding the rest back
// by flow control, keeps the flooder, and the honest players play on.
func TestClockPingFloodIsHeldToItsBudget(t *testing.T) {
	s := startServer(t, nil)
	h := startHonest(t, s)
	r := rawDial(t, s, nil, true)
	ping := frame(t, &wire.Clock{Echo: 1})
	burst := make([]byte, 0, 64*len(ping))
	for range 64 {
		burst = append(burst, ping...)
	}
	wrote := make(chan error, 1)
	go func() { // until the test closes the connection
		for {
			if _, err := r.ctrl.Write(burst); err != nil {
				wrote <- err
				return
			}
		}
	}()
	answers := make(chan struct{}, 1024)
	read := make(chan error, 1)
	go func() {
		fr := wire.NewFrameReader(r.ctrl, wire.ControlCap)
		for {
			if _, err := fr.Next(); err != nil {
				read <- err
				return
			}
			answers <- struct{}{}
		}
	}()
	start := time.Now()
	const flood = 1500 * time.Millisecond
	<-time.After(flood) // the attack's length, not a wait for a goroutine
	n := len(answers)
	elapsed := time.Since(start).Seconds()
	rate := DefaultServerConfig().ClockPingsPerSecond
	t.Logf("clock flood: %d answers in %.2f s (budget %g/s)", n, elapsed, rate)
	assert.LessOrEqual(t, float64(n), rate+rate*elapsed+1, "answered within the budget")
	assert.Positive(t, n, "answered within the budget, not cut off")
	assert.Positive(t, count(t, s.metrics.overBudget[budgetClock]))
	select {
	case <-r.conn.Context().Done():
		t.Fatalf("the flooder was cut off: %v", context.Cause(r.conn.Context()))
	default:
	}
	h.check(t)
	_ = r.conn.CloseWithError(0, "done")
	<-wrote
	<-read
}

// TestCarDatagramFloodIsDroppedUnread: car datagrams past CarsPerSecond
// are dropped before decoding; the sender keeps its connection.
func TestCarDatagramFloodIsDroppedUnread(t *testing.T) {
	s := startServer(t, nil)
	r := rawDial(t, s, nil, true)
	d, err := wire.AppendCarDatagram(nil, []wire.CarSnapshot{wire.QuantiseCar(0, 1, 10, 1, 20, 0, 0)})
	require.NoError(t, err)
	for count(t, s.metrics.overBudget[budgetCar]) == 0 {
		for range 200 {
			if err := r.conn.SendDatagram(d); err != nil {
				require.ErrorContains(t, err, "queue") // quic-go's own send queue: go on
			}
		}
		select {
		case <-r.conn.Context().Done():
			t.Fatalf("cut off: %v", context.Cause(r.conn.Context()))
		default:
		}
	}
}

// TestTwoCarDatagramSaysWhatIsWrong (issue 23, item 6): a well-formed
// datagram of two cars is closed with a reason naming the count.
func TestTwoCarDatagramSaysWhatIsWrong(t *testing.T) {
	s := startServer(t, nil)
	r := rawDial(t, s, nil, true)
	c := wire.QuantiseCar(0, 1, 10, 1, 20, 0, 0)
	d, err := wire.AppendCarDatagram(nil, []wire.CarSnapshot{c, c})
	require.NoError(t, err)
	require.NoError(t, r.conn.SendDatagram(d))
	ae := r.closedWith(t)
	assert.Equal(t, CodeProtocol, ae.ErrorCode)
	assert.Contains(t, ae.ErrorMessage, "2 cars")
	assert.NotContains(t, ae.ErrorMessage, "<nil>")
}

// driveUntil sends the car at (x, 1, z) every 5 ms until seen reports the
// watcher saw it, failing after testTimeout.
func driveUntil(t *testing.T, a *Client, x, z float64, seen func() bool) {
	t.Helper()
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	deadline := time.After(testTimeout)
	for !seen() {
		a.SendCar(wire.QuantiseCar(0, 0, x, 1, z, 0, 0))
		select {
		case <-frameT.C:
		case <-deadline:
			t.Fatal("the car was never relayed")
		}
	}
}

// carOf is the watcher's latest snapshot of player, if any.
func carOf(w *Client, player uint32) (wire.CarSnapshot, bool) {
	for _, c := range w.Cars(nil) {
		if c.Player == player {
			return c, true
		}
	}
	return wire.CarSnapshot{}, false
}

// TestFirstCarMustBeNearTheSpawn (issue 23, defect 5): the first snapshot
// 5 km from the spawn is not relayed, for longer than a held car waits
// for its Pose, and gives no reach; at the spawn the car is relayed.
func TestFirstCarMustBeNearTheSpawn(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.Reach = 48 })
	a := dial(t, s.clientConfig())
	w := dial(t, s.clientConfig())
	assert.Equal(t, wire.Pose{}, a.Spawn(), "the spawn: the origin, Seq 0")
	there := s.clientConfig() // watches the far place
	there.Centre = voxel.ChunkAt(5000, 1, 20)
	w2 := dial(t, there)
	require.NoError(t, a.Subscribe(there.Centre, 1))
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	for start := time.Now(); time.Since(start) < holdCorrectEvery+200*time.Millisecond; <-frameT.C {
		a.SendCar(wire.QuantiseCar(0, 0, 5000, 1, 20, 0, 0))
		_, relayed := carOf(w2, a.Player())
		require.False(t, relayed, "a car far from the spawn was relayed")
	}
	seq, err := a.RequestEdit(there.Centre, uint16(voxel.Index(5000%voxel.ChunkSize, 1, 20)), 1)
	require.NoError(t, err)
	for {
		m := next(t, a)
		if r, ok := m.(*wire.EditReject); ok && r.Seq == seq {
			assert.Contains(t, r.Reason, "no car position")
			break
		}
		_, isAck := m.(*wire.EditAck)
		require.False(t, isAck, "an edit where the car is not was applied")
		_, isPose := m.(*wire.Pose)
		require.False(t, isPose, "a car never accepted is not moved")
	}
	driveUntil(t, a, 10, 20, func() bool { _, ok := carOf(w, a.Player()); return ok })
	assert.NoError(t, a.Err())
}

// TestHeldCarIsToldWhereItIs: a car held after a jump is sent, after
// holdCorrectEvery, a Pose (Seq 0) of the place it was last accepted.
func TestHeldCarIsToldWhereItIs(t *testing.T) {
	s := startServer(t, nil)
	a := dial(t, s.clientConfig())
	w := dial(t, s.clientConfig())
	driveUntil(t, a, 10, 20, func() bool { _, ok := carOf(w, a.Player()); return ok })
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	deadline := time.After(testTimeout)
	for {
		a.SendCar(wire.QuantiseCar(0, 0, 900, 1, 20, 0, 0))
		for _, m := range a.Poll(nil, 64) {
			if p, ok := m.(*wire.Pose); ok {
				assert.Equal(t, uint32(0), p.Seq)
				x, _, z := p.Position()
				assert.Equal(t, [2]float64{10, 20}, [2]float64{x, z}, "held where it was accepted")
				assert.Contains(t, p.Reason, "held")
				return
			}
		}
		select {
		case <-frameT.C:
		case <-deadline:
			t.Fatal("the held car was never told where it is")
		}
	}
}

// TestJumpIsHeldAndGivesNoReach (issue 23, defect 5): a 500 m jump and
// plausible snapshots there for longer than the old re-anchoring took
// (3 s) are never relayed, and an edit there is out of reach.
func TestJumpIsHeldAndGivesNoReach(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.Reach = 48 })
	a := dial(t, s.clientConfig())
	w := dial(t, s.clientConfig())
	driveUntil(t, a, 10, 20, func() bool { _, ok := carOf(w, a.Player()); return ok })

	const jumpX = 510.0
	target := voxel.ChunkAt(jumpX, 1, 20)
	there := s.clientConfig() // watches the jump's place
	there.Centre = target
	w2 := dial(t, there)
	require.NoError(t, a.Subscribe(target, 1))
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	start := time.Now()
	for time.Since(start) < 3500*time.Millisecond {
		a.SendCar(wire.QuantiseCar(0, 0, jumpX, 1, 20, 0, 0))
		_, seen := carOf(w2, a.Player())
		require.False(t, seen, "the jump was relayed after %v", time.Since(start))
		<-frameT.C
	}
	seq, err := a.RequestEdit(target, uint16(voxel.Index(int(jumpX)%voxel.ChunkSize, 1, 20)), 1)
	require.NoError(t, err)
	for {
		m := next(t, a)
		if r, ok := m.(*wire.EditReject); ok && r.Seq == seq {
			assert.Contains(t, r.Reason, "out of reach")
			break
		}
		if ack, ok := m.(*wire.EditAck); ok && ack.Seq == seq {
			t.Fatal("an edit at the jump's place was applied")
		}
	}
	assert.NoError(t, a.Err())
}

// TestSustainedOverspeedIsHeld (issue 23, defect 5): a car driving at
// 70 m/s (the top speed is 58) is relayed no farther than the top speed
// and the slack allow.
func TestSustainedOverspeedIsHeld(t *testing.T) {
	s := startServer(t, nil)
	a := dial(t, s.clientConfig())
	wide := s.clientConfig() // watches x from 0 to 256 m
	wide.Centre, wide.Radius = voxel.ChunkPos{X: 3}, 4
	w := dial(t, wide)
	driveUntil(t, a, 0, 20, func() bool { _, ok := carOf(w, a.Player()); return ok })
	cfg := DefaultServerConfig()
	frameT := time.NewTicker(5 * time.Millisecond)
	defer frameT.Stop()
	start := time.Now()
	farthest := 0.0
	for time.Since(start) < 3*time.Second {
		a.SendCar(wire.QuantiseCar(0, 0, 70*time.Since(start).Seconds(), 1, 20, 0, 0))
		if c, ok := carOf(w, a.Player()); ok {
			x, _, _ := c.Position()
			farthest = max(farthest, x)
		}
		<-frameT.C
	}
	elapsed := time.Since(start).Seconds()
	t.Logf("70 m/s for %.2f s: relayed up to %.0f m (70 m/s: %.0f m)", elapsed, farthest, 70*elapsed)
	assert.LessOrEqual(t, farthest, cfg.MaxCarSpeed*elapsed+cfg.CarSlack, "relayed past top speed")
}

// TestResetIsAnsweredWithThePose: a reset within reach is granted, the
// car relayed at its new place at once; another at once is refused for
// the rate, one too far for the reach, each Pose saying where the car is.
func TestResetIsAnsweredWithThePose(t *testing.T) {
	for _, tc := range []struct {
		name   string
		every  time.Duration
		to     float64 // x of the second reset
		reason string
	}{
		{"too soon", time.Hour, 50, "too many resets"},
		{"too far", time.Nanosecond, 40 + 151, "at most 150 m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, func(c *ServerConfig) { c.ResetEvery = tc.every })
			a := dial(t, s.clientConfig())
			w := dial(t, s.clientConfig())
			driveUntil(t, a, 10, 20, func() bool { _, ok := carOf(w, a.Player()); return ok })

			seq, err := a.Reset(40, 2, 20, 1) // in w's area (radius 1: x < 64)
			require.NoError(t, err)
			p := nextOf[*wire.Pose](t, a)
			assert.Equal(t, seq, p.Seq)
			assert.Empty(t, p.Reason, "granted")
			x, _, z := p.Position()
			assert.Equal(t, [2]float64{40, 20}, [2]float64{x, z})
			driveUntil(t, a, 40, 20, func() bool {
				c, _ := carOf(w, a.Player())
				x, _, _ := c.Position()
				return x == 40
			})

			seq, err = a.Reset(tc.to, 2, 20, 1)
			require.NoError(t, err)
			p = nextOf[*wire.Pose](t, a)
			assert.Equal(t, seq, p.Seq)
			assert.Contains(t, p.Reason, tc.reason)
			x, _, _ = p.Position()
			assert.Equal(t, 40.0, x, "the car stays where it is")
			assert.NoError(t, a.Err())
		})
	}
}
