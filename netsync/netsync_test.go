package netsync

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(restartChildEnv); dir != "" { // a server process of TestClientNoticesARestartAtOnce
		os.Exit(restartChild(dir, os.Getenv(restartAddrEnv)))
	}
	goleak.VerifyTestMain(m)
}

const testTimeout = 10 * time.Second

func quietLog() *slog.Logger {
	if os.Getenv("NETSYNC_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type testServer struct {
	*Server
	events chan Event
	world  World
}

func startServer(t *testing.T, mod func(*ServerConfig)) *testServer {
	t.Helper()
	return startServerHook(t, mod, nil)
}

// startServerHook is startServer with hook called on the server before it
// runs (tests swap a policy's clock there).
func startServerHook(t *testing.T, mod func(*ServerConfig), hook func(*Server)) *testServer {
	t.Helper()
	events := make(chan Event, 256)
	cfg := DefaultServerConfig()
	cfg.DataDir, cfg.Seed, cfg.Generator, cfg.World = t.TempDir(), 42, 3, NewMemoryWorld()
	cfg.MaxRadius, cfg.TickHz, cfg.MaxBlock, cfg.Logger = 4, 100, 200, quietLog()
	cfg.Reach = 0      // off: these clients send no cars (admission_test.go checks reach)
	cfg.TickBudget = 0 // time dilation off: a loaded test machine must not change the rate (TestOverloadSlowsTime turns it on)
	cfg.Observer = func(e Event) {
		select {
		case events <- e:
		default:
		}
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := NewServer(cfg)
	require.NoError(t, err)
	if hook != nil {
		hook(s)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, <-done)
	})
	return &testServer{Server: s, events: events, world: cfg.World}
}

func (s *testServer) clientConfig() ClientConfig {
	return ClientConfig{Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42, Generator: 3,
		Radius: 1, MaxBlock: 200, Logger: quietLog()}
}

func dial(t *testing.T, cfg ClientConfig) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := Dial(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// next returns the client's next message, failing after testTimeout.
func next(t *testing.T, c *Client) wire.Message {
	t.Helper()
	select {
	case m := <-c.Messages():
		return m
	case <-c.Done():
		t.Fatalf("connection ended: %v", c.Err())
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for a message")
	}
	return nil
}

// nextOf skips messages until one of type T arrives.
func nextOf[T wire.Message](t *testing.T, c *Client) T {
	t.Helper()
	for {
		if m, ok := next(t, c).(T); ok {
			return m
		}
	}
}

func waitEvent(t *testing.T, s *testServer, kind EventKind, match func(Event) bool) Event {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case e := <-s.events:
			if e.Kind == kind && (match == nil || match(e)) {
				return e
			}
		case <-deadline:
			t.Fatalf("timed out waiting for a %v event", kind)
		}
	}
}

func TestHandshakeAndChunkDelivery(t *testing.T) {
	s := startServer(t, nil)
	edited := voxel.ChunkPos{X: 1}
	require.NoError(t, s.world.(*MemoryWorld).Apply(voxel.BlockEdit{Pos: edited, Index: 100, Block: 7}))
	c := dial(t, s.clientConfig())
	w := c.Welcome()
	assert.NotZero(t, w.World, "the world clock")
	w.World = 0
	assert.Equal(t, wire.Welcome{Protocol: wire.ProtocolVersion, Seed: 42, Generator: 3, Player: c.Player(), MaxRadius: 4, TickHz: 100, FullHz: 100}, w)
	assert.NotZero(t, c.Player())
	e := waitEvent(t, s, EventJoined, nil)
	assert.Equal(t, c.Player(), e.Player)

	// Radius 1 at the origin: the centre and its four neighbours, centre
	// first; the edited one carries its edits.
	got := map[voxel.ChunkPos]wire.Message{}
	first := next(t, c)
	require.IsType(t, &wire.ChunkDefaults{}, first)
	assert.Equal(t, voxel.ChunkPos{}, first.(*wire.ChunkDefaults).Pos[0], "nearest first")
	for _, p := range first.(*wire.ChunkDefaults).Pos {
		got[p] = first
	}
	for len(got) < 5 {
		m := next(t, c)
		switch m := m.(type) {
		case *wire.ChunkDefaults:
			for _, p := range m.Pos {
				got[p] = m
			}
		case *wire.ChunkEdits:
			got[m.Pos] = m
		default:
			t.Fatalf("unexpected %v", m.Kind())
		}
	}
	assert.Equal(t, &wire.ChunkEdits{Pos: edited, Edits: []voxel.Edit{{Index: 100, Block: 7}}}, got[edited])
	assert.Len(t, got, 5)

	// Moving away delivers what entered; what left the client's own
	// cylinder gets no ChunkDrop (the client evicts it itself).
	require.NoError(t, c.Subscribe(voxel.ChunkPos{X: 10}, 1))
	m := next(t, c)
	require.IsType(t, &wire.ChunkDefaults{}, m, "no ChunkDrop before the new area")
	d := m.(*wire.ChunkDefaults)
	assert.Equal(t, voxel.ChunkPos{X: 10}, d.Base)
	assert.Equal(t, voxel.ChunkPos{X: 10}, d.Pos[0])
	assert.Len(t, d.Pos, 5, "one message for the whole new area")
}

// firstDefault asserts that the next message is a ChunkDefaults and
// returns its first (nearest) position.
func firstDefault(t *testing.T, c *Client) voxel.ChunkPos {
	t.Helper()
	m := next(t, c)
	d, ok := m.(*wire.ChunkDefaults)
	require.True(t, ok, "want ChunkDefaults, got %v", m.Kind())
	return d.Pos[0]
}

func TestEditsReachOtherClientsAfterTheChunk(t *testing.T) {
	s := startServer(t, nil)
	a := dial(t, s.clientConfig())
	b := dial(t, s.clientConfig())
	origin := voxel.ChunkPos{}
	for _, c := range []*Client{a, b} {
		assert.Equal(t, origin, firstDefault(t, c))
	}
	seq, err := a.RequestEdit(origin, 1234, 9)
	require.NoError(t, err)
	want := &wire.EditBroadcast{Pos: origin, Index: 1234, Block: 9}
	assert.Equal(t, want, nextOf[*wire.EditBroadcast](t, a))
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, a))
	assert.Equal(t, want, nextOf[*wire.EditBroadcast](t, b))

	// A client joining later gets the chunk with the edit in it.
	c := dial(t, s.clientConfig())
	assert.Equal(t, &wire.ChunkEdits{Pos: origin, Edits: []voxel.Edit{{Index: 1234, Block: 9}}}, next(t, c))

	// An edit outside the area is rejected with a reason.
	seq, err = a.RequestEdit(voxel.ChunkPos{X: 50}, 1, 1)
	require.NoError(t, err)
	rej := nextOf[*wire.EditReject](t, a)
	assert.Equal(t, seq, rej.Seq)
	assert.Contains(t, rej.Reason, "not loaded in your area")
}

func TestEditRateLimit(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.EditsPerSecond = 2 })
	a := dial(t, s.clientConfig())
	assert.Equal(t, voxel.ChunkPos{}, firstDefault(t, a))
	for i := range 5 {
		_, err := a.RequestEdit(voxel.ChunkPos{}, uint16(i), 1)
		require.NoError(t, err)
	}
	acks, rejects := 0, 0
	for acks+rejects < 5 {
		switch m := next(t, a).(type) {
		case *wire.EditAck:
			acks++
		case *wire.EditReject:
			rejects++
			assert.Contains(t, m.Reason, "too many edits")
		}
	}
	assert.GreaterOrEqual(t, rejects, 1)
}

func TestMismatchRefusedWithMessageOnBothSides(t *testing.T) {
	s := startServer(t, nil)
	cases := map[string]struct {
		mod  func(*ClientConfig)
		want string
	}{
		"seed":      {func(c *ClientConfig) { c.Seed = 7 }, "start the client with -seed 42"},
		"generator": {func(c *ClientConfig) { c.Generator = 2 }, "generator version 3, your client 2"},
		"protocol":  {func(c *ClientConfig) { c.Protocol = wire.ProtocolVersion + 1 }, "protocol version mismatch"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := s.clientConfig()
			tc.mod(&cfg)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			_, err := Dial(ctx, cfg)
			var re *RefusedError
			require.ErrorAs(t, err, &re)
			assert.True(t, re.ByServer)
			assert.Contains(t, re.Reason, tc.want)
			e := waitEvent(t, s, EventRefused, nil)
			assert.Equal(t, re.Reason, e.Reason, "the server shows the same message")
			assert.Equal(t, CodeRefused, e.Code)
		})
	}
}

func TestWrongFingerprintRejected(t *testing.T) {
	s := startServer(t, nil)
	cfg := s.clientConfig()
	other := startServer(t, nil)
	cfg.Fingerprint = other.Fingerprint()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := Dial(ctx, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not match the pinned fingerprint")
}

func TestServerIdentitySurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultServerConfig()
	cfg.DataDir, cfg.World, cfg.Logger = dir, NewMemoryWorld(), quietLog()
	s1, err := NewServer(cfg)
	require.NoError(t, err)
	fp := s1.Fingerprint()
	require.NoError(t, s1.Close())
	s2, err := NewServer(cfg)
	require.NoError(t, err)
	assert.Equal(t, fp, s2.Fingerprint())
	require.NoError(t, s2.Close())
}

func TestCarRelay(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.SpawnRadius = 0 }) // d's car starts 32 km out

	a := dial(t, s.clientConfig())
	b := dial(t, s.clientConfig())
	far := s.clientConfig()
	far.Centre = voxel.ChunkPos{X: 1000}
	c := dial(t, far)
	// Cars are sent every frame, as the game does; datagrams may be lost.
	frame := time.NewTicker(5 * time.Millisecond)
	defer frame.Stop()
	deadline := time.After(testTimeout)
	for {
		a.SendCar(wire.QuantiseCar(0, 0, 10, 1, 20, 0.5, 30))
		if cars := b.Cars(nil); len(cars) == 1 {
			got := cars[0]
			assert.Equal(t, a.Player(), got.Player)
			x, _, z := got.Position()
			assert.InDelta(t, 10, x, 0.01)
			assert.InDelta(t, 20, z, 0.01)
			assert.InDelta(t, 30, got.SpeedMS(), 0.01)
			break
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("car never relayed")
		}
	}
	assert.Empty(t, a.Cars(nil), "own car is not echoed")

	// A car in c's area reaches c; the relay that brings it (and every
	// one before it) leaves out a's car, outside c's area, which the
	// server holds all along.
	d := dial(t, far)
	farX := float64(far.Centre.X*voxel.ChunkSize + voxel.ChunkSize/2)
	for {
		d.SendCar(wire.QuantiseCar(0, 0, farX, 1, 20, 0.5, 30))
		if cars := c.Cars(nil); len(cars) > 0 {
			require.Len(t, cars, 1, "only the car in c's area")
			assert.Equal(t, d.Player(), cars[0].Player)
			break
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("car in the area never relayed")
		}
	}
}

// rawClient is a hand-driven QUIC connection for misbehaving-peer tests.
type rawClient struct {
	ep    *transport.Endpoint
	conn  *quic.Conn
	ctrl  *quic.Stream
	chunk *quic.Stream
}

func rawDial(t *testing.T, s *testServer, conf *quic.Config, handshake bool) *rawClient {
	t.Helper()
	return rawJoin(t, s, conf, handshake, frame(t, &wire.Subscribe{Radius: 1}))
}

// rawJoin is rawDial writing first (as a real client writes its first
// Subscribe) on the chunk stream after the handshake.
func rawJoin(t *testing.T, s *testServer, conf *quic.Config, handshake bool, first []byte) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	tlsConf, err := transport.ClientTLS(s.Fingerprint(), wire.ProtocolVersion)
	require.NoError(t, err)
	if conf == nil {
		conf = transport.ClientQUIC()
	}
	ep, conn, err := transport.Dial(ctx, s.Addr().String(), tlsConf, conf)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ep.Close() })
	r := &rawClient{ep: ep, conn: conn}
	r.ctrl, err = conn.OpenStreamSync(ctx)
	require.NoError(t, err)
	if !handshake {
		return r
	}
	enc := wire.NewEncoder()
	f, err := enc.AppendFrame(nil, &wire.Hello{Protocol: wire.ProtocolVersion, Seed: 42, Generator: 3}, wire.ControlCap)
	require.NoError(t, err)
	f, err = enc.AppendFrame(f, &wire.Join{Key: 1}, wire.ControlCap)
	require.NoError(t, err)
	_, err = r.ctrl.Write(f)
	require.NoError(t, err)
	p, err := wire.NewFrameReader(r.ctrl, wire.ControlCap).Next()
	require.NoError(t, err)
	m, err := wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	require.IsType(t, &wire.Welcome{}, m)
	r.chunk, err = conn.OpenStreamSync(ctx)
	require.NoError(t, err)
	// As a real client does: the first Subscribe makes the stream visible.
	_, err = r.chunk.Write(first)
	require.NoError(t, err)
	return r
}

// closedWith waits for the server to close the raw connection and returns
// its application error.
func (r *rawClient) closedWith(t *testing.T) *quic.ApplicationError {
	t.Helper()
	select {
	case <-r.conn.Context().Done():
	case <-time.After(testTimeout):
		t.Fatal("server did not close the connection")
	}
	ae, ok := remoteAppError(context.Cause(r.conn.Context()))
	require.True(t, ok, "closed with %v", context.Cause(r.conn.Context()))
	return ae
}

func frame(t *testing.T, m wire.Message) []byte {
	f, err := wire.NewEncoder().AppendFrame(nil, m, wire.ChunkCap)
	require.NoError(t, err)
	return f
}

func TestHostileClientsAreCutOffOthersCarryOn(t *testing.T) {
	s := startServer(t, nil)
	good := dial(t, s.clientConfig())
	assert.Equal(t, voxel.ChunkPos{}, firstDefault(t, good))

	var before, after runtimeMem
	before.read()

	bomb := []byte{0x95, byte(wire.KindChunkEdits), 0, 0, 0, 0xc6, 0x7f, 0xff, 0xff, 0xff, 0, 1, 1}
	cases := map[string]struct {
		handshake bool
		send      func(r *rawClient) error
		stream    func(r *rawClient) *quic.Stream
	}{
		"garbage instead of Hello":   {false, nil, func(r *rawClient) *quic.Stream { return r.ctrl }},
		"length bomb":                {true, nil, nil},
		"oversized frame":            {true, nil, nil},
		"truncated frame":            {true, nil, nil},
		"garbage":                    {true, nil, nil},
		"radius above maximum":       {true, nil, nil},
		"server message from client": {true, nil, nil},
		"message on control stream":  {true, nil, func(r *rawClient) *quic.Stream { return r.ctrl }},
		"bad car datagram":           {true, func(r *rawClient) error { return r.conn.SendDatagram([]byte{wire.DatagramCars, 200, 1}) }, nil},
	}
	payload := map[string][]byte{
		"garbage instead of Hello":   []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"length bomb":                wire.AppendRawFrame(nil, bomb),
		"oversized frame":            {0xff, 0xff, 0xff, 0xff, 1, 2, 3},
		"truncated frame":            {0, 0, 0, 100, 0x94, 10},
		"garbage":                    wire.AppendRawFrame(nil, []byte{0xc1, 0xc1, 0xc1}),
		"radius above maximum":       frame(t, &wire.Subscribe{Radius: 5}),
		"server message from client": frame(t, &wire.ChunkDrop{}),
		"message on control stream":  frame(t, &wire.Subscribe{Radius: 1}),
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := rawDial(t, s, nil, tc.handshake)
			if tc.send != nil {
				require.NoError(t, tc.send(r))
			} else {
				st := r.chunk
				if tc.stream != nil {
					st = tc.stream(r)
				}
				_, err := st.Write(payload[name])
				require.NoError(t, err)
				if name == "truncated frame" || name == "garbage instead of Hello" {
					require.NoError(t, st.Close())
				}
			}
			ae := r.closedWith(t)
			assert.Equal(t, CodeProtocol, ae.ErrorCode, ae.ErrorMessage)
			assert.NotEmpty(t, ae.ErrorMessage)
			e := waitEvent(t, s, EventLeft, func(e Event) bool {
				return e.Remote.String() == r.conn.LocalAddr().String()
			})
			assert.Equal(t, CodeProtocol, e.Code)
			assert.NotEmpty(t, e.Reason)
		})
	}

	// Many length bombs at once: memory stays flat. Each waits until the
	// server has let the last one go (its seat is free again: the address
	// has only so many).
	for range 20 {
		r := rawDial(t, s, nil, true)
		_, err := r.chunk.Write(wire.AppendRawFrame(nil, bomb))
		require.NoError(t, err)
		r.closedWith(t)
		waitEvent(t, s, EventLeft, func(e Event) bool {
			return e.Remote.String() == r.conn.LocalAddr().String()
		})
	}
	after.read()
	assert.Less(t, after.heap-before.heap, int64(50<<20), "heap growth")
	t.Logf("heap before %d KiB, after %d KiB", before.heap>>10, after.heap>>10)

	// The well-behaved client never noticed.
	seq, err := good.RequestEdit(voxel.ChunkPos{}, 5, 5)
	require.NoError(t, err)
	assert.Equal(t, &wire.EditAck{Seq: seq}, nextOf[*wire.EditAck](t, good))
	assert.NoError(t, good.Err())
}

// bigWorld makes every chunk heavily edited, so deliveries are large.
type bigWorld struct{ edits voxel.Overlay }

func (w *bigWorld) UnionChanged(_, _ []voxel.ChunkPos)                  {}
func (w *bigWorld) Chunk(voxel.ChunkPos) (voxel.Overlay, bool)          { return w.edits, true }
func (w *bigWorld) CommittedEdits(func(uint64, voxel.BlockEdit, error)) {}
func (w *bigWorld) SubmitEdit(uint64, voxel.BlockEdit) error {
	return errors.New("read-only")
}

func TestNonReadingClientIsCutOff(t *testing.T) {
	w := &bigWorld{}
	for i := range 4000 {
		w.edits = append(w.edits, voxel.Edit{Index: uint16(i * 8), Block: 1})
	}
	s := startServer(t, func(c *ServerConfig) {
		c.World = w
		c.OutboundBytes = 512 << 10
	})
	good := dial(t, s.clientConfig())
	conf := transport.ClientQUIC()
	conf.InitialStreamReceiveWindow = 32 << 10
	conf.MaxStreamReceiveWindow = 32 << 10
	conf.InitialConnectionReceiveWindow = 64 << 10
	conf.MaxConnectionReceiveWindow = 64 << 10
	r := rawDial(t, s, conf, true)
	_, err := r.chunk.Write(frame(t, &wire.Subscribe{Radius: 4}))
	require.NoError(t, err)
	// r never reads.
	e := waitEvent(t, s, EventLeft, nil)
	assert.Equal(t, CodeSlowConsumer, e.Code)
	assert.Contains(t, e.Reason, "not reading")
	ae := r.closedWith(t)
	assert.Equal(t, CodeSlowConsumer, ae.ErrorCode)
	// The reading client is still served.
	_, ok := next(t, good).(*wire.ChunkEdits)
	assert.True(t, ok)
	assert.NoError(t, good.Err())
}

func TestServerShutdownEndsClients(t *testing.T) {
	s := startServer(t, nil)
	c := dial(t, s.clientConfig())
	waitEvent(t, s, EventJoined, nil)
	require.NoError(t, s.Close())
	select {
	case <-c.Done():
	case <-time.After(testTimeout):
		t.Fatal("client did not notice the shutdown")
	}
	assert.Error(t, c.Err())
}
