package netsync

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/webcert"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

func startWTServer(t *testing.T, mod func(*ServerConfig)) *testServer {
	t.Helper()
	return startServer(t, func(c *ServerConfig) {
		c.WebTransportAddr = "127.0.0.1:0"
		if mod != nil {
			mod(c)
		}
	})
}

// wtClient is a browser's side of a session, by hand: the page's client
// does the same over the browser's WebTransport.
type wtClient struct {
	tr    *webtransport.Transport
	sess  *webtransport.Session
	ctrl  *webtransport.Stream
	chunk *webtransport.Stream
	msgs  chan wire.Message
}

// wtTLS pins the hashes the page would pass as serverCertificateHashes.
func wtTLS(hashes [][sha256.Size]byte) *tls.Config { return pinnedTLS(hashes) }

func (s *testServer) wtURL(path string) string {
	return "https://" + s.WebTransportAddr().String() + path
}

// wtOpen opens a session at path with the hashes the server offers now,
// checked against its pin as a page checks them.
func wtOpen(t *testing.T, s *testServer, path string) (*webtransport.Transport, *webtransport.Session) {
	t.Helper()
	offer, ok, err := s.WebCertificates()
	require.NoError(t, err)
	require.True(t, ok)
	hashes, err := webcert.Verify(s.Fingerprint(), offer, time.Now())
	require.NoError(t, err, "the offer is signed by the identity the join code pins")
	tr := &webtransport.Transport{TLSClientConfig: wtTLS(hashes)}
	t.Cleanup(func() { _ = tr.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	rsp, sess, err := tr.Dial(ctx, s.wtURL(path), nil)
	require.NoError(t, err)
	require.Equal(t, 200, rsp.StatusCode)
	return tr, sess
}

// wtJoin opens a session and runs the handshake and the first Subscribe.
func wtJoin(t *testing.T, s *testServer, key uint64) (*wtClient, *wire.Welcome) {
	t.Helper()
	tr, sess := wtOpen(t, s, s.WebTransportPath())
	c := &wtClient{tr: tr, sess: sess, msgs: make(chan wire.Message, 1024)}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var err error
	c.ctrl, err = sess.OpenStreamSync(ctx)
	require.NoError(t, err)
	enc := wire.NewEncoder()
	f, err := enc.AppendFrame(nil, &wire.Hello{Protocol: wire.ProtocolVersion, Seed: 42, Generator: 3}, wire.ControlCap)
	require.NoError(t, err)
	f, err = enc.AppendFrame(f, &wire.Join{Key: key, Name: "browser"}, wire.ControlCap)
	require.NoError(t, err)
	_, err = c.ctrl.Write(f)
	require.NoError(t, err)
	p, err := wire.NewFrameReader(c.ctrl, wire.ControlCap).Next()
	require.NoError(t, err)
	m, err := wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	welcome, ok := m.(*wire.Welcome)
	require.True(t, ok, "want a Welcome, got %#v", m)
	c.chunk, err = sess.OpenStreamSync(ctx)
	require.NoError(t, err)
	_, err = c.chunk.Write(frame(t, &wire.Subscribe{Radius: 1}))
	require.NoError(t, err)
	go func() { // ends when the session does (closed in Cleanup)
		defer close(c.msgs)
		_ = readFrames(c.chunk, wire.ChunkCap, 0, wire.Limits{MaxRadius: 4, MaxBlock: 200}, func(m wire.Message) error {
			c.msgs <- m
			return nil
		})
	}()
	t.Cleanup(func() {
		_ = sess.CloseWithError(0, "")
		for range c.msgs {
		}
	})
	return c, welcome
}

func wtNextOf[T wire.Message](t *testing.T, c *wtClient) T {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case m, ok := <-c.msgs:
			require.True(t, ok, "session ended")
			if m, ok := m.(T); ok {
				return m
			}
		case <-deadline:
			t.Fatal("timed out waiting for a message")
		}
	}
}

func TestWebTransportPlayerSharesTheWorldWithANativeOne(t *testing.T) {
	s := startWTServer(t, func(c *ServerConfig) { c.SpawnRadius = 0 })
	native := dial(t, s.clientConfig())
	assert.Equal(t, voxel.ChunkPos{}, firstDefault(t, native))
	web, welcome := wtJoin(t, s, 77)
	assert.Equal(t, uint64(42), welcome.Seed)
	wtNextOf[*wire.Pose](t, web) // the spawn, first on the chunk stream
	defaults := wtNextOf[*wire.ChunkDefaults](t, web)
	assert.Contains(t, defaults.Pos, voxel.ChunkPos{}, "the browser's area arrives")

	// It drives: car snapshots by datagram reach the native player.
	car, err := wire.AppendCarDatagram(nil, []wire.CarSnapshot{wire.QuantiseCar(0, 1, 12, 1, 21, 0.25, 9)})
	require.NoError(t, err)
	frameTick := time.NewTicker(5 * time.Millisecond)
	defer frameTick.Stop()
	deadline := time.After(testTimeout)
	for len(native.Cars(nil)) == 0 {
		require.NoError(t, web.sess.SendDatagram(car))
		select {
		case <-frameTick.C:
		case <-deadline:
			t.Fatal("the browser's car never reached the native player")
		}
	}
	got := native.Cars(nil)[0]
	assert.Equal(t, welcome.Player, got.Player, "the server names the car by its session's player")
	x, _, z := got.Position()
	assert.InDelta(t, 12, x, 0.01)
	assert.InDelta(t, 21, z, 0.01)

	// It edits: acked to the browser, broadcast to the native player.
	_, err = web.chunk.Write(frame(t, &wire.EditRequest{Player: 77, Seq: 1, Pos: voxel.ChunkPos{}, Index: 99, Block: 5}))
	require.NoError(t, err)
	want := &wire.EditBroadcast{Pos: voxel.ChunkPos{}, Index: 99, Block: 5}
	assert.Equal(t, want, wtNextOf[*wire.EditBroadcast](t, web))
	assert.Equal(t, &wire.EditAck{Seq: 1}, wtNextOf[*wire.EditAck](t, web))
	assert.Equal(t, want, nextOf[*wire.EditBroadcast](t, native))

	// And sees the native player's car.
	deadline = time.After(testTimeout)
	for {
		native.SendCar(wire.QuantiseCar(0, 0, 3, 1, 4, 0, 0))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		d, err := web.sess.ReceiveDatagram(ctx)
		cancel()
		if err == nil {
			cars, err := wire.DecodeCarDatagram(d, nil)
			require.NoError(t, err)
			if i := slices.IndexFunc(cars, func(c wire.CarSnapshot) bool { return c.Player == native.Player() }); i >= 0 {
				break
			}
		}
		select {
		case <-deadline:
			t.Fatal("the native car never reached the browser")
		default:
		}
	}
	assert.Equal(t, 2, s.Players())
}

// sessionClosedWith waits for the server to end sess and returns its code.
func sessionClosedWith(t *testing.T, sess *webtransport.Session) *webtransport.SessionError {
	t.Helper()
	select {
	case <-sess.Context().Done():
	case <-time.After(testTimeout):
		t.Fatal("server did not close the session")
	}
	_, err := sess.AcceptStream(context.Background()) // answers at once with the close
	var se *webtransport.SessionError
	require.ErrorAs(t, err, &se)
	return se
}

func TestHostileWebTransportPeerLosesItsSessionServerLives(t *testing.T) {
	s := startWTServer(t, nil)
	bad, _ := wtJoin(t, s, 1)
	_, err := bad.chunk.Write([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3}) // a 4 GiB frame
	require.NoError(t, err)
	se := sessionClosedWith(t, bad.sess)
	assert.Equal(t, webtransport.SessionErrorCode(CodeProtocol), se.ErrorCode)
	assert.Contains(t, se.Message, "frame")
	waitEvent(t, s, EventLeft, func(e Event) bool { return e.Code == CodeProtocol })

	// A bad car datagram loses the session too, the way a native one does.
	bad2, _ := wtJoin(t, s, 2)
	require.NoError(t, bad2.sess.SendDatagram([]byte{wire.DatagramCars, 200, 1}))
	assert.Equal(t, webtransport.SessionErrorCode(CodeProtocol), sessionClosedWith(t, bad2.sess).ErrorCode)

	// The server lives: a native player and a browser both join.
	native := dial(t, s.clientConfig())
	assert.Equal(t, voxel.ChunkPos{}, firstDefault(t, native))
	good, _ := wtJoin(t, s, 3)
	wtNextOf[*wire.ChunkDefaults](t, good)
}

func TestWebTransportSessionHasTheNativeStreamLimit(t *testing.T) {
	s := startWTServer(t, nil)
	c, _ := wtJoin(t, s, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.sess.OpenStreamSync(ctx) // a third stream: no credit for it
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// The native client cannot open a unidirectional stream at all; a
	// browser's session loses its connection for one.
	uni, err := c.sess.OpenUniStream()
	require.NoError(t, err)
	_, err = uni.Write([]byte{1})
	require.NoError(t, err)
	se := sessionClosedWith(t, c.sess)
	assert.Equal(t, webtransport.SessionErrorCode(CodeProtocol), se.ErrorCode)
	assert.Contains(t, se.Message, "unidirectional")
}

func TestWebTransportVersionMismatchIsExplained(t *testing.T) {
	s := startWTServer(t, nil)
	_, sess := wtOpen(t, s, "/citydrive/"+strconv.Itoa(int(wire.ProtocolVersion)-1))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	ctrl, err := sess.OpenStreamSync(ctx)
	require.NoError(t, err)
	_, err = ctrl.Write(frame(t, &wire.Hello{Protocol: wire.ProtocolVersion - 1, Seed: 42, Generator: 3}))
	require.NoError(t, err)
	p, err := wire.NewFrameReader(ctrl, wire.ControlCap).Next()
	require.NoError(t, err)
	m, err := wire.Decode(p, wire.DefaultLimits)
	require.NoError(t, err)
	require.IsType(t, &wire.Refuse{}, m)
	assert.Contains(t, m.(*wire.Refuse).Reason, "protocol version mismatch")
}

func TestWebTransportWrongPathIsNotFound(t *testing.T) {
	s := startWTServer(t, nil)
	offer, _, err := s.WebCertificates()
	require.NoError(t, err)
	tr := &webtransport.Transport{TLSClientConfig: wtTLS(offer.Hashes())}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	rsp, _, err := tr.Dial(ctx, s.wtURL("/admin"), nil)
	require.Error(t, err)
	if rsp != nil {
		assert.Equal(t, 404, rsp.StatusCode)
	}
}

func TestWebTransportConnectionWithoutSessionTimesOut(t *testing.T) {
	s := startWTServer(t, func(c *ServerConfig) { c.HelloTimeout = 200 * time.Millisecond })
	offer, _, err := s.WebCertificates()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	conf := &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true}
	conn, err := quic.DialAddr(ctx, s.WebTransportAddr().String(), wtTLS(offer.Hashes()), conf)
	require.NoError(t, err)
	defer conn.CloseWithError(0, "")
	e := waitEvent(t, s, EventLeft, func(e Event) bool { return e.Code == CodeTimeout })
	assert.Contains(t, e.Reason, "no WebTransport session")
	select {
	case <-conn.Context().Done():
	case <-time.After(testTimeout):
		t.Fatal("the connection stayed open")
	}
}

func TestWebTransportOffAndItsAddress(t *testing.T) {
	s := startServer(t, nil)
	assert.Nil(t, s.WebTransportAddr())
	_, ok, err := s.WebCertificates()
	require.NoError(t, err)
	assert.False(t, ok)
	w := startWTServer(t, nil)
	ua, isUDP := w.WebTransportAddr().(*net.UDPAddr)
	require.True(t, isUDP)
	assert.NotEqual(t, w.Addr().(*net.UDPAddr).Port, ua.Port)
	assert.Equal(t, fmt.Sprintf("/citydrive/%d", wire.ProtocolVersion), w.WebTransportPath())
}

// wtQUIC dials a bare QUIC connection to the WebTransport port, as a
// browser's first step.
func wtQUIC(t *testing.T, s *testServer) *quic.Conn {
	t.Helper()
	offer, _, err := s.WebCertificates()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	conf := &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true}
	conn, err := quic.DialAddr(ctx, s.WebTransportAddr().String(), wtTLS(offer.Hashes()), conf)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.CloseWithError(0, "") })
	return conn
}

func closedCode(t *testing.T, conn *quic.Conn) quic.ApplicationErrorCode {
	t.Helper()
	select {
	case <-conn.Context().Done():
	case <-time.After(testTimeout):
		t.Fatal("the connection stayed open")
	}
	var ae *quic.ApplicationError
	require.ErrorAs(t, context.Cause(conn.Context()), &ae)
	return ae.ErrorCode
}

func TestWebTransportSharesTheHandshakePool(t *testing.T) {
	s := startWTServer(t, func(c *ServerConfig) { c.MaxHandshakesPerAddr = 1 })
	wtQUIC(t, s) // no session yet: it holds this address's one slot
	// Wait until the server has taken it in (its slot is held then).
	require.Eventually(t, func() bool { return s.pool.held("127.0.0.1") == 1 }, testTimeout, time.Millisecond)
	second := wtQUIC(t, s)
	assert.Equal(t, CodeBusy, closedCode(t, second), "a second browser connection from the address is busy")
	_, err := Dial(context.Background(), s.clientConfig())
	require.ErrorIs(t, err, ErrBusy, "and so is a native one: one pool")
}

func TestWebTransportOneSessionPerConnection(t *testing.T) {
	s := startWTServer(t, nil)
	conn := wtQUIC(t, s)
	tr := &webtransport.Transport{}
	defer tr.Close()
	cc, err := tr.NewClientConn(conn)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	url := s.wtURL(s.WebTransportPath())
	_, first, err := cc.Dial(ctx, url, nil)
	require.NoError(t, err)
	defer first.CloseWithError(0, "")
	rsp, _, err := cc.Dial(ctx, url, nil)
	require.Error(t, err)
	require.NotNil(t, rsp)
	assert.Equal(t, 429, rsp.StatusCode)
}

func TestWebTransportCarriesAFullCarDatagram(t *testing.T) {
	s := startWTServer(t, nil)
	c, _ := wtJoin(t, s, 1)
	cars := make([]wire.CarSnapshot, wire.MaxCarsPerDatagram)
	d, err := wire.AppendCarDatagram(nil, cars)
	require.NoError(t, err)
	// The server relays up to this size; the path is symmetric, so the
	// client's side shows it fits behind the session prefix.
	require.NoError(t, c.sess.SendDatagram(d), "%d bytes", len(d))
	// (The server then cuts the client off: a client sends its own car only.)
	assert.Equal(t, webtransport.SessionErrorCode(CodeProtocol), sessionClosedWith(t, c.sess).ErrorCode)
}

func TestKickEndsAWebTransportSession(t *testing.T) {
	s := startWTServer(t, nil)
	c, _ := wtJoin(t, s, 55)
	wtNextOf[*wire.ChunkDefaults](t, c) // in the tick, so Kick finds it
	require.Equal(t, 1, s.Kick(55, "kicked by the operator"))
	se := sessionClosedWith(t, c.sess)
	assert.Equal(t, webtransport.SessionErrorCode(CodeKicked), se.ErrorCode)
	assert.Equal(t, "kicked by the operator", se.Message)
}

func TestClipReasonKeepsRunesWhole(t *testing.T) {
	long := strings.Repeat("é", maxCloseReason) // 2 bytes each
	got := clipReason(long)
	assert.LessOrEqual(t, len(got), maxCloseReason)
	assert.True(t, utf8.ValidString(got))
	assert.Equal(t, "short", clipReason("short"))
}

func TestAPageClosingItsSessionFreesItsSeat(t *testing.T) {
	s := startWTServer(t, nil)
	c, welcome := wtJoin(t, s, 5)
	wtNextOf[*wire.ChunkDefaults](t, c)
	require.Equal(t, 1, s.Players())
	require.NoError(t, c.sess.CloseWithError(0, "tab closed"))
	e := waitEvent(t, s, EventLeft, func(e Event) bool { return e.Player == welcome.Player })
	assert.Equal(t, CodeOK, e.Code)
	assert.Zero(t, s.Players())
}

func TestServerShutdownClosesWebTransportSessionsWithItsCode(t *testing.T) {
	s := startWTServer(t, nil)
	c, _ := wtJoin(t, s, 5)
	wtNextOf[*wire.ChunkDefaults](t, c)
	require.NoError(t, s.Close())
	se := sessionClosedWith(t, c.sess)
	assert.Equal(t, webtransport.SessionErrorCode(CodeShutdown), se.ErrorCode)
	assert.Equal(t, "server shutting down", se.Message)
}
