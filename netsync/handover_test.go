package netsync

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// fakeDirectory is an OwnerDirectory the test changes while the server
// ticks.
type fakeDirectory struct {
	mu sync.Mutex
	m  map[[2]int32]string
}

func (d *fakeDirectory) Owner(rx, rz int32) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.m[[2]int32{rx, rz}]
	return a, ok
}

func (d *fakeDirectory) set(rx, rz int32, addr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[[2]int32]string{}
	}
	d.m[[2]int32{rx, rz}] = addr
}

func TestOwnersAreToldAndToldAgainOnChange(t *testing.T) {
	dir := &fakeDirectory{}
	dir.set(0, 0, "a:1")
	dir.set(-1, 0, "b:1")
	s := startServer(t, func(c *ServerConfig) { c.Owners = dir })
	c := dial(t, s.clientConfig())

	m := nextOf[*wire.Owners](t, c)
	assert.Equal(t, [2]int32{0, 0}, [2]int32{m.RX, m.RZ})
	want := [wire.OwnerCells]string{}
	want[wire.OwnerIndex(0, 0)], want[wire.OwnerIndex(-1, 0)] = "a:1", "b:1"
	assert.Equal(t, want, m.Addrs)

	dir.set(1, 0, "c:1") // a lease taken over under the client
	m = nextOf[*wire.Owners](t, c)
	want[wire.OwnerIndex(1, 0)] = "c:1"
	assert.Equal(t, want, m.Addrs)

	require.NoError(t, c.Subscribe(voxel.ChunkPos{X: -1}, 1)) // into region -1
	m = nextOf[*wire.Owners](t, c)
	assert.Equal(t, [2]int32{-1, 0}, [2]int32{m.RX, m.RZ})
	assert.Equal(t, "a:1", m.Addrs[wire.OwnerIndex(1, 0)])
	assert.Equal(t, "b:1", m.Addrs[wire.OwnerIndex(0, 0)])
	assert.Empty(t, m.Addrs[wire.OwnerIndex(0, 1)])
}

func TestRegionOf(t *testing.T) {
	for c, want := range map[int32]int32{0: 0, 15: 0, 16: 1, -1: -1, -16: -1, -17: -2} {
		assert.Equal(t, want, regionOf(c), "chunk %d", c)
	}
}

// seen reports the latest snapshot of player's car relayed to c.
func seen(c *Client, player uint32) (wire.CarSnapshot, bool) { return c.heard(player) }

// A spare on standby is not shown: its snapshots are ignored until it
// drives here.
func TestStandbyCarIsNotShownUntilItDrives(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.SpawnX, c.SpawnZ, c.SpawnRadius = 5000, 5000, 100 })
	near := s.clientConfig()
	near.Centre = voxel.ChunkPos{X: 5000 / voxel.ChunkSize, Z: 5000 / voxel.ChunkSize}
	o := dial(t, near)
	q := dial(t, near)
	spareCfg := near
	spareCfg.SpareOf = 99
	sp := dial(t, spareCfg)

	frame := time.NewTicker(5 * time.Millisecond)
	defer frame.Stop()
	deadline := time.After(testTimeout)
	for {
		sp.SendCar(wire.QuantiseCar(0, 0, 5001, 1, 5000, 0, 0))
		q.SendCar(wire.QuantiseCar(0, 0, 5003, 1, 5000, 0, 0))
		_, shown := seen(o, sp.Player())
		require.False(t, shown, "a standby car was relayed")
		if c, ok := seen(o, q.Player()); ok && c.Seq >= 20 {
			break // twenty of q's frames went by, sp's alongside
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("q's car never relayed")
		}
	}
	require.NoError(t, sp.queue(&wire.Handover{Drive: true}))
	for {
		sp.SendCar(wire.QuantiseCar(0, 0, 5001, 1, 5000, 0, 0))
		if _, ok := seen(o, sp.Player()); ok {
			break
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("the car that drives here now was never relayed")
		}
	}
}

// fakeExchange stands in for the cluster's car exchange: one remote car.
type fakeExchange struct{ remote wire.CarSnapshot }

func (*fakeExchange) Publish([]wire.CarSnapshot) {}
func (f *fakeExchange) Remote(dst []wire.CarSnapshot) []wire.CarSnapshot {
	return append(dst, f.remote)
}

// A car handed over from another server (Handover From its id there) is
// placed where the cluster saw it: its snapshots are accepted far from
// the spawn, where a fresh join's are not.
func TestHandedOverCarIsPlacedWhereTheClusterSawIt(t *testing.T) {
	fx := &fakeExchange{remote: wire.QuantiseCar(777, 1, 5000, 1, 5000, 0, 0)}
	s := startServer(t, func(c *ServerConfig) { c.Cars, c.SpawnRadius = fx, 100 }) // spawn at 0, 0; MaxCarSpeed on
	near := s.clientConfig()
	near.Centre = voxel.ChunkPos{X: 5000 / voxel.ChunkSize, Z: 5000 / voxel.ChunkSize}
	o := dial(t, near)
	fresh := dial(t, near)
	spareCfg := near
	spareCfg.SpareOf = 99
	sp := dial(t, spareCfg)
	require.NoError(t, sp.queue(&wire.Handover{Drive: true, From: 777}))

	frame := time.NewTicker(5 * time.Millisecond)
	defer frame.Stop()
	deadline := time.After(testTimeout)
	for {
		sp.SendCar(wire.QuantiseCar(0, 0, 5000.5, 1, 5000, 0, 0))
		fresh.SendCar(wire.QuantiseCar(0, 0, 5000.5, 1, 5000, 0, 0))
		if c, ok := seen(o, sp.Player()); ok {
			x, _, _ := c.Position()
			if x > 5000.4 { // its own snapshot, not only the placement
				break
			}
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("the handed-over car was never relayed")
		}
	}
	_, shown := seen(o, fresh.Player())
	assert.False(t, shown, "a fresh join far from the spawn is held, not relayed")
}

func TestCatchUpHandsTheGameOnlyWhatDiffers(t *testing.T) {
	same, changed, fresh, freshEdited, heldOnly := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: 2}, voxel.ChunkPos{X: 3}, voxel.ChunkPos{X: 4}, voxel.ChunkPos{X: 5}
	stone := voxel.Overlay{{Index: 7, Block: voxel.Stone}}
	held := map[voxel.ChunkPos]voxel.Overlay{same: stone, changed: stone, heldOnly: nil}
	next := map[voxel.ChunkPos]voxel.Overlay{same: stone, changed: stone.With(8, voxel.Sand), fresh: nil, freshEdited: stone}
	base := voxel.ChunkPos{Y: 1}
	got := catchUp(nil, held, next, base)
	assert.Equal(t, []wire.Message{
		&wire.ChunkEdits{Pos: changed, Edits: next[changed]},
		&wire.ChunkEdits{Pos: freshEdited, Edits: stone},
		&wire.ChunkDefaults{Base: base, Pos: []voxel.ChunkPos{fresh}},
	}, got)
	assert.Empty(t, catchUp(nil, next, next, base), "nothing differs: nothing to hand over")
}

// The link's model follows what its server delivered, as the game does.
func TestLinkTracksItsChunks(t *testing.T) {
	l := &link{chunks: map[voxel.ChunkPos]voxel.Overlay{}}
	a, b := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: 2}
	l.track(&wire.ChunkDefaults{Pos: []voxel.ChunkPos{a, b}})
	l.track(&wire.EditBroadcast{Pos: a, Index: 3, Block: voxel.Stone})
	l.track(&wire.EditBroadcast{Pos: voxel.ChunkPos{X: 9}, Index: 3, Block: voxel.Stone}) // not held: ignored
	l.track(&wire.ChunkDrop{Pos: b})
	l.track(&wire.TickRate{Hz: 12})
	assert.Equal(t, map[voxel.ChunkPos]voxel.Overlay{a: {{Index: 3, Block: voxel.Stone}}}, l.chunks)
	assert.Equal(t, uint32(12), l.hz)
}

func TestAnsweredSeqsAnswerOnceAndForgetTheOldest(t *testing.T) {
	a := newAnsweredSeqs(2)
	assert.True(t, a.first(1))
	assert.False(t, a.first(1), "a second answer of one edit")
	assert.True(t, a.first(2))
	assert.True(t, a.first(3)) // forgets 1
	assert.True(t, a.first(1))
	assert.False(t, a.first(3))
	assert.Len(t, a.set, 2)
}

// A car the server stops relaying (its player left, or was handed to
// another server under another id) is forgotten after CarForget, so the
// game does not show it frozen for ever.
func TestCarsForgetACarNoLongerRelayed(t *testing.T) {
	s := startServer(t, func(c *ServerConfig) { c.SpawnRadius = 0 })
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	bcfg := s.clientConfig()
	bcfg.now = func() time.Time { return time.Unix(0, clock.Load()) }
	b := dial(t, bcfg)
	a := dial(t, s.clientConfig())
	c := dial(t, s.clientConfig())
	frame := time.NewTicker(5 * time.Millisecond)
	defer frame.Stop()
	deadline := time.After(testTimeout)
	sees := func(who *Client) bool {
		for _, s := range b.Cars(nil) {
			if s.Player == who.Player() {
				return true
			}
		}
		return false
	}
	for !sees(a) || !sees(c) {
		a.SendCar(wire.QuantiseCar(0, 0, 10, 1, 20, 0, 0))
		c.SendCar(wire.QuantiseCar(0, 0, 12, 1, 20, 0, 0))
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("cars never relayed")
		}
	}
	gone := a.Player()
	require.NoError(t, a.Close())
	waitEvent(t, s, EventLeft, func(e Event) bool { return e.Player == gone })
	clock.Add(int64(CarForget / 2))
	for {
		c.SendCar(wire.QuantiseCar(0, 0, 12, 1, 20, 0, 0))
		if s, ok := b.heard(c.Player()); ok && s.Seq > 50 {
			break // c's relays went on well after a left
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("c's car stopped")
		}
	}
	clock.Add(int64(CarForget/2) + 1)
	assert.True(t, sees(c), "a car still relayed stays")
	for _, s := range b.Cars(nil) {
		assert.NotEqual(t, gone, s.Player, "a car no longer relayed is forgotten")
	}
}

// vouchingExchange is a fakeExchange whose other server vouches for its
// car's id with one key.
type vouchingExchange struct {
	fakeExchange
	key uint64
}

func (v *vouchingExchange) Vouch(player uint32, key uint64, answer func(bool)) {
	go answer(player == v.remote.Player && key == v.key) // from another goroutine, as NATS does
}

// A handed-over car keeps the id the world knows it by once its first
// server vouches for it, and is placed where that car was; a player
// claiming another's car id without its key is neither placed there (its
// snapshots far from the spawn are held) nor shown under that id.
func TestVouchedCarKeepsItsIDAndAClaimWithoutTheKeyDoesNot(t *testing.T) {
	const key = 0x5eed
	vx := &vouchingExchange{fakeExchange: fakeExchange{remote: wire.QuantiseCar(777, 1, 5000, 1, 5000, 0, 0)}, key: key}
	s := startServer(t, func(c *ServerConfig) { c.Cars, c.SpawnRadius = vx, 100 }) // spawn at 0, 0
	near := s.clientConfig()
	near.Centre = voxel.ChunkPos{X: 5000 / voxel.ChunkSize, Z: 5000 / voxel.ChunkSize}
	o := dial(t, near)
	honest, thief := near, near
	honest.SpareOf, honest.Identity = 777, NewIdentityKey(key)
	thief.SpareOf, thief.Identity = 777, NewIdentityKey(key+1)
	h, th := dial(t, honest), dial(t, thief)
	require.NoError(t, h.queue(&wire.Handover{Drive: true, From: 777}))
	require.NoError(t, th.queue(&wire.Handover{Drive: true, From: 777}))

	frame := time.NewTicker(5 * time.Millisecond)
	defer frame.Stop()
	deadline := time.After(testTimeout)
	hx := wire.QuantiseCar(0, 0, 5000.5, 1, 5000, 0, 0)
	tx := wire.QuantiseCar(0, 0, 5000.7, 1, 5000, 0, 0)
	for {
		h.SendCar(hx)
		th.SendCar(tx)
		asWorld := false
		for _, c := range o.Cars(nil) {
			require.NotEqual(t, tx.X, c.X, "the thief's car placed beside the car it claimed")
			asWorld = asWorld || c.Player == 777 && c.X == hx.X
		}
		if asWorld {
			break
		}
		select {
		case <-frame.C:
		case <-deadline:
			t.Fatal("the vouched car was never shown under its id")
		}
	}
}

// westEastDir gives regions x < 0 to west, the rest to east.
type westEastDir struct{ west, east string }

func (d westEastDir) Owner(rx, _ int32) (string, bool) {
	if rx < 0 {
		return d.west, true
	}
	return d.east, true
}

// The spare is dialled near the border, closed far from it, and dialled
// again on the way back; Close leaves nothing running (goleak).
func TestHandoverOpensAndDropsTheSpare(t *testing.T) {
	dir := &westEastDir{}
	mod := func(c *ServerConfig) { c.Owners = dir }
	w, e := startServer(t, mod), startServer(t, mod)
	*dir = westEastDir{west: w.Addr().String(), east: e.Addr().String()}
	cfg := w.clientConfig()
	cfg.Centre = voxel.ChunkPos{X: -3}
	pins := map[string]string{dir.west: w.Fingerprint(), dir.east: e.Fingerprint()}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	h, err := DialHandover(ctx, HandoverConfig{Client: cfg, Pin: func(a string) string { return pins[a] }})
	require.NoError(t, err)
	defer func() { require.NoError(t, h.Close()) }()
	for deadline := time.After(testTimeout); !h.haveOwners; {
		h.Poll(nil, 64)
		select {
		case <-deadline:
			t.Fatal("no Owners")
		case <-time.After(time.Millisecond):
		}
	}
	at := func(x float64) {
		h.Step(time.Now(), x, 16)
		require.NoError(t, h.WaitDial(ctx))
	}
	at(-100)
	addr, _ := h.Spare()
	assert.Empty(t, addr, "far from the border: no spare")
	at(-60)
	addr, ready := h.Spare()
	assert.Equal(t, dir.east, addr, "near the border: a spare to its owner")
	assert.False(t, ready, "no cluster: the east server has not heard the car")
	at(16) // inside, but the spare cannot place the car: no switch
	assert.Equal(t, dir.west, h.PrimaryAddr())
	at(-100)
	addr, _ = h.Spare()
	assert.Empty(t, addr, "96 m away: dropped")
	at(-60)
	addr, _ = h.Spare()
	assert.Equal(t, dir.east, addr, "dialled again on the way back")
	assert.Zero(t, h.Switches())
}
