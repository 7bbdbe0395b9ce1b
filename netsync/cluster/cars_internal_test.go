package cluster

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/wire"
)

// carsAt is a Cars with no connection, on a clock the test moves.
func carsAt(now *time.Time, rule netsync.CarRule) *Cars {
	c := newCars(nil, "citydrive.1", rule, slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.close() // no publisher or subscriber: the test calls received itself
	c.now = func() time.Time { return *now }
	return c
}

func carMsg(t *testing.T, cs ...wire.CarSnapshot) *nats.Msg {
	t.Helper()
	b, err := wire.AppendCarDatagram(nil, cs)
	require.NoError(t, err)
	return &nats.Msg{Subject: "citydrive.1.cars.0.0", Data: b}
}

func remoteX(c *Cars, player uint32) (int32, bool) {
	for _, s := range c.Remote(nil) {
		if s.Player == player {
			return s.X, true
		}
	}
	return 0, false
}

// Another server's car passes this server's car rule before it is
// relayed: a jump further than the car could drive is not, the car stays
// where it was last accepted, and it drives on from there.
func TestRemoteCarJumpIsNotRelayed(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0
	rule := netsync.DefaultServerConfig().CarRule()
	require.Equal(t, netsync.CarRule{MaxSpeed: 58, Slack: 16}, rule)
	c := carsAt(&now, rule)
	id := uint32(2<<PlayerBits | 7)

	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 1, X: 0}))
	now = t0.Add(100 * time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 2, X: 500})) // 5 m in 0.1 s: 50 m/s
	x, ok := remoteX(c, id)
	require.True(t, ok)
	assert.Equal(t, int32(500), x, "a plausible move is relayed")

	now = t0.Add(200 * time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 3, X: 100_000})) // 995 m in 0.1 s
	x, ok = remoteX(c, id)
	require.True(t, ok, "the car is still shown")
	assert.Equal(t, int32(500), x, "held where it was last accepted, the jump not relayed")
	assert.Equal(t, 1.0, counter(c.rejected))

	now = t0.Add(300 * time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 4, X: 1500})) // 10 m in 0.2 s
	x, _ = remoteX(c, id)
	assert.Equal(t, int32(1500), x, "it drives on from where it was held")

	// A car that keeps jumping is held, then gone after the TTL; its
	// next snapshot starts it afresh (as one driving into a watched region).
	now = t0.Add(400 * time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 5, X: 200_000}))
	now = t0.Add(1300 * time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 6, X: 200_500}))
	x, _ = remoteX(c, id)
	assert.Equal(t, int32(1500), x, "still held within the TTL")
	assert.Equal(t, 3.0, counter(c.rejected))
	now = t0.Add(1600 * time.Millisecond)
	_, ok = remoteX(c, id)
	assert.False(t, ok, "not accepted within the TTL: no longer shown")
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 7, X: 201_000}))
	x, _ = remoteX(c, id)
	assert.Equal(t, int32(201_000), x, "afresh after the TTL")

	// An older snapshot never.
	now = t0.Add(1700 * time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: id, Seq: 6, X: 201_100}))
	x, _ = remoteX(c, id)
	assert.Equal(t, int32(201_000), x, "an older snapshot is ignored")
}

// Without a rule (zero CarRule: not checked) every finite move is relayed.
func TestRemoteCarsUncheckedWithoutARule(t *testing.T) {
	now := time.Unix(1000, 0)
	c := carsAt(&now, netsync.CarRule{})
	c.received(carMsg(t, wire.CarSnapshot{Player: 1, Seq: 1, X: 0}))
	now = now.Add(time.Millisecond)
	c.received(carMsg(t, wire.CarSnapshot{Player: 1, Seq: 2, X: 100_000}))
	x, _ := remoteX(c, 1)
	assert.Equal(t, int32(100_000), x)
	assert.Zero(t, counter(c.rejected))
}

// The operator's map shows what players are shown: the fleet applies the
// node's rule too.
func TestFleetHoldsAnImplausibleJump(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0
	f := &Fleet{prefix: "citydrive.1", ttl: fleetTTL, now: func() time.Time { return now },
		rule: netsync.CarRule{MaxSpeed: 58, Slack: 16}, cars: map[uint32]remoteCar{}, rosters: map[uint32]roster{}}
	f.received(carMsg(t, wire.CarSnapshot{Player: 3, Seq: 1, X: 0}))
	now = t0.Add(time.Second)
	f.received(carMsg(t, wire.CarSnapshot{Player: 3, Seq: 2, X: 500_000}))
	cars := f.Cars(nil)
	require.Len(t, cars, 1)
	assert.Equal(t, int32(0), cars[0].X)
}
