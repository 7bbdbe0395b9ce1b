package cluster

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
)

// A Fleet keeps each player's newest car for its TTL, drops what does not
// decode, and keeps at most maxFleet players.
func TestFleetKeepsTheNewestCarsWithinBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	f := &Fleet{ttl: fleetTTL, now: func() time.Time { return now }, cars: map[uint32]remoteCar{}}
	msg := func(cs ...wire.CarSnapshot) *nats.Msg {
		b, err := wire.AppendCarDatagram(nil, cs)
		require.NoError(t, err)
		return &nats.Msg{Subject: "citydrive.1.cars.0.0", Data: b}
	}
	f.received(&nats.Msg{Data: []byte{0xff, 0x01, 0x02}}) // hostile: dropped
	assert.Empty(t, f.Cars(nil))

	a, b := uint32(1<<PlayerBits|5), uint32(2<<PlayerBits|9)
	f.received(msg(wire.CarSnapshot{Player: a, Seq: 10, X: 100}, wire.CarSnapshot{Player: b, Seq: 3}))
	f.received(msg(wire.CarSnapshot{Player: a, Seq: 9, X: 999})) // older: ignored
	cars := f.Cars(nil)
	require.Len(t, cars, 2)
	for _, c := range cars {
		if c.Player == a {
			assert.Equal(t, int32(100), c.X)
		}
	}
	assert.Equal(t, uint32(1), ServerSlot(a))
	assert.Equal(t, "s2", ServerName(b))

	now = now.Add(fleetTTL + time.Millisecond)
	assert.Empty(t, f.Cars(nil), "gone after the TTL")

	for i := range maxFleet + 10 {
		f.received(msg(wire.CarSnapshot{Player: uint32(i + 1), Seq: 1}))
	}
	assert.Len(t, f.Cars(nil), maxFleet, "at most maxFleet players")
}
