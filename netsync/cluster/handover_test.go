package cluster_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// halves is an owner directory giving the regions west of x = 0 to one
// server and the rest to another.
type halves struct {
	mu         sync.Mutex
	west, east string
}

// startHalves starts the west and the east server (through nodes 0 and 1),
// each owning its half of the world as dir says.
func startHalves(t *testing.T, nc *natstest.Cluster) (dir *halves, west, east *server) {
	t.Helper()
	dir = &halves{}
	withDir := func(c *netsync.ServerConfig) { c.Owners = dir }
	west, east = startServerWith(t, nc, 0, withDir), startServerWith(t, nc, 1, withDir)
	dir.mu.Lock()
	dir.west, dir.east = west.Addr().String(), east.Addr().String()
	dir.mu.Unlock()
	return dir, west, east
}

func (d *halves) Owner(rx, _ int32) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rx < 0 {
		return d.west, d.west != ""
	}
	return d.east, d.east != ""
}

func TestRegionsAreTheWiresRegions(t *testing.T) {
	require.Equal(t, cluster.RegionChunks, wire.RegionChunks, "clients compute regions from the wire's size")
}

// The handover test: one client drives across a border 20 times between
// the two servers owning its halves. Every frame an observer on the west
// server sees the car where it is, under the one id it had from the start
// (the east server shows it under that id once the west vouched for it)
// and never under another, and the driver sees the observer's;
// the client switches exactly 20 times (a wiggle along the border after
// the last crossing switches none); edits made at each crossing, one
// still in flight when it switches, are each answered once and stored
// once, in order.
func TestHandoverAcrossABorder20Times(t *testing.T) {
	nc := natstest.Start(t, 3)
	dir, west, east := startHalves(t, nc)

	const (
		z      = 272.0 // metres: inside chunk row 8, far from other borders
		radius = 4
		legs   = 20
		step   = 8.0 // metres a frame
		reach  = 80.0
	)
	chunkOf := func(x float64) voxel.ChunkPos {
		return voxel.ChunkPos{X: int32(math.Floor(x / voxel.ChunkSize)), Y: 1, Z: int32(math.Floor(z / voxel.ChunkSize))}
	}
	ocfg := west.clientConfig()
	ocfg.Centre, ocfg.Radius = chunkOf(-30), radius
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	oc, err := netsync.Dial(ctx, ocfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = oc.Close() })
	obs := &player{t: t, c: oc, held: map[voxel.ChunkPos]voxel.Overlay{}, acked: map[uint32]bool{}, refused: map[uint32]string{}}

	dcfg := west.clientConfig()
	dcfg.Centre, dcfg.Radius = chunkOf(-reach), radius
	pins := map[string]string{dir.west: west.Fingerprint(), dir.east: east.Fingerprint()}
	h, err := netsync.DialHandover(ctx, netsync.HandoverConfig{Client: dcfg, Pin: func(a string) string { return pins[a] }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	// The driver's view, from what the handover hands the game.
	drv := &player{t: t, held: map[voxel.ChunkPos]voxel.Overlay{}, acked: map[uint32]bool{}, refused: map[uint32]string{}}
	answers := map[uint32]int{}
	poll := func() {
		for _, m := range h.Poll(nil, 1024) {
			switch m := m.(type) {
			case *wire.EditAck:
				answers[m.Seq]++
			case *wire.EditReject:
				answers[m.Seq]++
			}
			drv.handle(m)
		}
		for {
			select {
			case m := <-oc.Messages():
				obs.handle(m)
				continue
			default:
			}
			break
		}
	}
	// wait polls until cond holds, sending the frame's cars again (a
	// datagram may be lost).
	var longest time.Duration
	wait := func(what string, send func(), cond func() bool) {
		t.Helper()
		start := time.Now()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for end := time.After(deadline); ; {
			poll()
			if cond() {
				longest = max(longest, time.Since(start))
				return
			}
			select {
			case <-tick.C:
				send()
			case <-h.Done():
				t.Fatalf("waiting for %s: the driver's connection ended: %v", what, h.Err())
			case <-end:
				t.Fatalf("waiting for %s: nothing within %v", what, deadline)
			}
		}
	}

	edit := chunkOf(1) // east of the border, held by both areas and the observer's
	type crossing struct{ inFlight, after uint32 }
	var crossings []crossing
	frame := 0
	centre := dcfg.Centre
	drive := func(x float64) {
		frame++
		if c := chunkOf(x); c != centre {
			centre = c
			require.NoError(t, h.Subscribe(c, radius))
		}
		before := h.Switches()
		// An edit made in the frame that switches is in flight as it does.
		wantSwitch := (h.PrimaryAddr() == dir.west && x >= 16) || (h.PrimaryAddr() == dir.east && x <= -16)
		var inFlight uint32
		if wantSwitch {
			inFlight, err = h.RequestEdit(edit, uint16(len(crossings)), voxel.Stone)
			require.NoError(t, err)
		}
		h.Step(time.Now(), x, z)
		if h.Dialling() {
			require.NoError(t, h.WaitDial(ctx))
		}
		if wantSwitch {
			require.Equal(t, before+1, h.Switches(), "frame %d at x=%v: no switch", frame, x)
			after, err := h.RequestEdit(edit, uint16(len(crossings)), voxel.Sand)
			require.NoError(t, err)
			crossings = append(crossings, crossing{inFlight, after})
		} else {
			require.Equal(t, before, h.Switches(), "frame %d at x=%v: a switch where none was due", frame, x)
		}
		me := wire.QuantiseCar(0, 0, x, 40, z, 0, 0)
		mark := wire.QuantiseCar(0, 0, -30, 40+float64(frame%10000)/100, z, 0, 0)
		send := func() {
			h.SendCar(me)
			oc.SendCar(mark)
		}
		send()
		if addr, ready := h.Spare(); addr != "" && !ready {
			wait("the spare's server to hear the car", send, func() bool { _, r := h.Spare(); return r })
		}
		wait("each to see the other's car this frame", send, func() bool {
			seenDriver, seenObs := false, false
			for _, c := range oc.Cars(nil) { // under the one id the world knows it by, on either server
				require.Equal(t, h.CarID(), c.Player, "frame %d at x=%v: the driver's car under another id", frame, x)
				seenDriver = seenDriver || c.Player == h.CarID() && c.X == me.X && c.Z == me.Z
			}
			for _, c := range h.Cars(nil) {
				require.NotEqual(t, h.CarID(), c.Player, "the driver's own car among the others")
				require.NotEqual(t, h.Primary().Player(), c.Player, "the driver's own car among the others")
				seenObs = seenObs || c.Player == oc.Player() && c.Y == mark.Y
			}
			return seenDriver && seenObs
		})
	}
	for leg := range legs {
		for i := 0; i <= int(2*reach/step); i++ {
			x := -reach + float64(i)*step
			if leg%2 == 1 {
				x = -x
			}
			drive(x)
		}
	}
	for i := range 20 { // along the border, inside the hysteresis
		drive(float64(i%2*2-1) * 12)
	}
	assert.Equal(t, legs, h.Switches(), "one switch a crossing")
	require.Len(t, crossings, legs)
	assert.Positive(t, h.Resent(), "edits in flight at a switch were sent again")
	t.Logf("%d frames, %d switches, %d edits resent; longest wait for a frame's cars %v", frame, h.Switches(), h.Resent(), longest)

	// Every edit answered once, none refused; what is stored is each
	// crossing's later edit (the resent earlier one was not applied
	// again over it), and both the driver and the observer hold that.
	wait("every answer", func() {}, func() bool {
		for _, c := range crossings {
			if answers[c.inFlight] == 0 || answers[c.after] == 0 {
				return false
			}
		}
		return true
	})
	for seq, n := range answers {
		assert.Equal(t, 1, n, "edit %d answered %d times", seq, n)
	}
	assert.Empty(t, drv.refused)
	scfg := east.clientConfig()
	scfg.Centre = edit
	stored := join(t, scfg)
	stored.c.SendCar(wire.QuantiseCar(0, 0, 16, 40, z, 0, 0))
	holdsAll := func(p *player) func() bool {
		return func() bool {
			for i := range crossings {
				if b, _ := p.block(edit, uint16(i)); b != voxel.Sand {
					return false
				}
			}
			return true
		}
	}
	stored.until("the stored edits", holdsAll(stored))
	end := time.After(deadline)
	for !holdsAll(drv)() || !holdsAll(obs)() {
		poll()
		select {
		case <-time.After(2 * time.Millisecond):
		case <-end:
			held := func(p *player) (bs []voxel.Block) {
				for i := range crossings {
					b, _ := p.block(edit, uint16(i))
					bs = append(bs, b)
				}
				return bs
			}
			t.Fatalf("the driver and the observer hold the crossings' edits within %v: driver %v, observer %v (all %v)", deadline, held(drv), held(obs), voxel.Sand)
		}
	}
}

// A server vouches for its own players only, with their key; a slot no
// server answers for vouches for nothing.
func TestWhoisVouchesOnlyWithThePlayersKey(t *testing.T) {
	nc := natstest.Start(t, 3)
	a, b := startServer(t, nc, 0), startServer(t, nc, 1)
	cfg := a.clientConfig()
	cfg.Identity = netsync.NewIdentityKey(0xfeed)
	p := join(t, cfg)
	ask := func(player uint32, key uint64) bool {
		got := make(chan bool, 1)
		b.node.Cars().Vouch(player, key, func(ok bool) { got <- ok })
		select {
		case ok := <-got:
			return ok
		case <-time.After(deadline):
			t.Fatal("no answer")
			return false
		}
	}
	assert.True(t, ask(p.c.Player(), 0xfeed))
	assert.False(t, ask(p.c.Player(), 0xfeee), "the wrong key")
	assert.False(t, ask(p.c.Player()+1, 0xfeed), "not a player there")
	assert.False(t, ask(4000<<cluster.PlayerBits|1, 0xfeed), "a slot no server holds")
}
