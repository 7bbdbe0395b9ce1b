package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
)

// A Fleet keeps each player's newest car for its TTL, drops what does not
// decode, and keeps at most maxFleet players.
func TestFleetKeepsTheNewestCarsWithinBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	f := &Fleet{prefix: "citydrive.1", ttl: fleetTTL, now: func() time.Time { return now },
		cars: map[uint32]remoteCar{}, rosters: map[uint32]roster{}}
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

	// A roster names its own slot's players only; garbage is dropped.
	f.receivedRoster(&nats.Msg{Subject: "citydrive.1.roster.2", Data: []byte(`{"id":`)})
	long := strings.Repeat("é", wire.MaxNameLen) // 2 bytes a rune: cut, and mended
	f.receivedRoster(&nats.Msg{Subject: "citydrive.1.roster.2",
		Data: fmt.Appendf(nil, `[{"id":%d,"name":"bot-9"},{"id":%d,"name":"impostor"},{"id":%d,"name":"%s"}]`, b, a, b+1, long)})
	f.receivedRoster(&nats.Msg{Subject: "citydrive.1.roster.x", Data: []byte(`[]`)})
	assert.Equal(t, "bot-9", f.Name(b))
	assert.Empty(t, f.Name(a), "slot 2's roster does not name slot 1's players")
	assert.LessOrEqual(t, len(f.Name(b+1)), wire.MaxNameLen)
	assert.True(t, utf8.ValidString(f.Name(b+1)))

	now = now.Add(rosterTTL + time.Millisecond)
	assert.Empty(t, f.Cars(nil), "gone after the TTL")
	assert.Empty(t, f.Name(b), "a roster not heard again is forgotten")

	for i := range maxFleet + 10 {
		f.received(msg(wire.CarSnapshot{Player: uint32(i + 1), Seq: 1}))
	}
	assert.Len(t, f.Cars(nil), maxFleet, "at most maxFleet players")
}
