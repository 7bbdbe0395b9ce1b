package netsync

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/wire"
)

// With ClientConfig.CarLog each car's last relays (repeats too) are kept,
// oldest first, a new car's only while fewer than MaxCars are logged, and
// a car not heard for carLogKeep is forgotten; without it nothing is.
func TestHeardLogKeepsEachCarsLastRelays(t *testing.T) {
	t0 := time.Unix(100, 0)
	now := t0
	c := &Client{cfg: ClientConfig{CarLog: 3, MaxCars: 1, now: func() time.Time { return now }},
		cars: map[uint32]heardCar{}, carLog: map[uint32]*carLog{}, logBase: t0}
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for i, seq := range []uint32{10, 11, 12, 12, 13} {
		c.logHeard(wire.CarSnapshot{Player: 7, Seq: seq}, ms(i*33))
	}
	c.logHeard(wire.CarSnapshot{Player: 8, Seq: 1}, ms(140))
	got, cut := c.HeardLog(7, nil)
	assert.Equal(t, []HeardAt{{12, ms(66)}, {12, ms(99)}, {13, ms(132)}}, got)
	assert.True(t, cut, "10 and 11 forgotten")
	got, _ = c.HeardLog(8, nil)
	assert.Empty(t, got, "MaxCars logged already")

	now = ms(132).Add(carLogKeep)
	c.Cars(nil)
	assert.Len(t, c.carLog, 1, "kept carLogKeep")
	now = now.Add(time.Millisecond)
	c.Cars(nil)
	assert.Empty(t, c.carLog)

	off := &Client{cfg: ClientConfig{MaxCars: 1}, cars: map[uint32]heardCar{}}
	got, cut = off.HeardLog(7, nil)
	assert.Empty(t, got)
	assert.False(t, cut)
}
