package cluster_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// A car keeps the id the world knows it by across every handover, also
// once the connection to its first server has closed (the car drove far
// from that server's regions): an observer on that server sees it leave
// and come back under its one id, never under another, in every frame it
// is near. Under another id, to the observer one car would vanish and
// another appear beside it (netsync's TestPlayerWhoLeftIsStillVouchedFor
// is the rule).
func TestCarKeepsItsIDAfterItsFirstConnectionCloses(t *testing.T) {
	nc := natstest.Start(t, 3)
	dir, west, east := startHalves(t, nc)

	const (
		z      = 272.0 // metres: inside chunk row 8, far from other borders
		radius = 4
		step   = 8.0  // metres a frame
		reach  = 80.0 // west of the border, where the drive starts and ends
		far    = 160.0
		near   = 80.0 // the observer (at -30 m) is shown the car this close to the border
	)
	chunkOf := func(x float64) voxel.ChunkPos {
		return voxel.ChunkPos{X: int32(math.Floor(x / voxel.ChunkSize)), Y: 1, Z: int32(math.Floor(z / voxel.ChunkSize))}
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	ocfg := west.clientConfig()
	ocfg.Centre, ocfg.Radius = chunkOf(-30), radius
	oc, err := netsync.Dial(ctx, ocfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = oc.Close() })

	dcfg := west.clientConfig()
	dcfg.Centre, dcfg.Radius = chunkOf(-reach), radius
	pins := map[string]string{dir.west: west.Fingerprint(), dir.east: east.Fingerprint()}
	h, err := netsync.DialHandover(ctx, netsync.HandoverConfig{Client: dcfg, Pin: func(a string) string { return pins[a] }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	first := h.Primary()

	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	wait := func(what string, send func(), cond func() bool) {
		t.Helper()
		for end := time.After(deadline); ; {
			h.Poll(nil, 1024)
			oc.Poll(nil, 1024)
			if cond() {
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
	centre := dcfg.Centre
	frame := 0
	drive := func(x float64) {
		frame++
		if c := chunkOf(x); c != centre {
			centre = c
			require.NoError(t, h.Subscribe(c, radius))
		}
		h.Step(time.Now(), x, z)
		if h.Dialling() {
			require.NoError(t, h.WaitDial(ctx))
		}
		me := wire.QuantiseCar(0, 0, x, 40, z, 0, 0)
		send := func() {
			h.SendCar(me)
			oc.SendCar(wire.QuantiseCar(0, 0, -30, 40, z, 0, 0))
		}
		send()
		if addr, ready := h.Spare(); addr != "" && !ready {
			wait("the spare's server to hear the car", send, func() bool { _, r := h.Spare(); return r })
		}
		if math.Abs(x) > near {
			return
		}
		wait("the observer to see the car here under its one id", send, func() bool {
			here := false
			for _, c := range oc.Cars(nil) {
				require.Equal(t, h.CarID(), c.Player, "frame %d at x=%v: the car under another id (switches %d)", frame, x, h.Switches())
				here = here || c.X == me.X && c.Z == me.Z
			}
			return here
		})
	}
	for x := -reach; x <= far; x += step {
		drive(x)
	}
	// Dropped as the spare far from the west server's regions (closed off
	// the frame), once it drives the car no more: frames go on meanwhile.
	for end, frames := time.After(deadline), time.NewTicker(10*time.Millisecond); ; {
		select {
		case <-first.Done():
			frames.Stop()
		case <-frames.C:
			h.Step(time.Now(), far, z)
			h.SendCar(wire.QuantiseCar(0, 0, far, 40, z, 0, 0))
			h.Poll(nil, 1024)
			continue
		case <-end:
			t.Fatal("the car's first connection was not closed far from its server's regions")
		}
		break
	}
	for x := far; x >= -reach; x -= step {
		drive(x)
	}
	assert.Equal(t, 2, h.Switches(), "east and back west")
	assert.Equal(t, dir.west, h.PrimaryAddr())
	t.Logf("%d frames, %d switches", frame, h.Switches())
}
