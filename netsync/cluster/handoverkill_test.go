package cluster_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"

	"citydrive/netsync/cluster/natstest"
)

// The owner a client is being handed to dies at the switch: the client
// drives from the west server's half into the east's, switches in the
// frame it makes an edit, and the east server is killed before answering.
// The client ends on the west server (its spare), its car seen there, the
// edit answered once and stored.
func TestOwnerKilledDuringHandoverClientEndsOnALiveServer(t *testing.T) {
	nc := natstest.Start(t, 3)
	dir, west, east := startHalves(t, nc)
	const z, radius = 272.0, 4
	chunkOf := func(x float64) voxel.ChunkPos {
		return voxel.ChunkPos{X: int32(math.Floor(x / voxel.ChunkSize)), Y: 1, Z: int32(math.Floor(z / voxel.ChunkSize))}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*deadline)
	defer cancel()
	ocfg := west.clientConfig()
	ocfg.Centre, ocfg.Radius = chunkOf(-30), radius
	obs := join(t, ocfg)
	dcfg := west.clientConfig()
	dcfg.Centre, dcfg.Radius = chunkOf(-80), radius
	pins := map[string]string{dir.west: west.Fingerprint(), dir.east: east.Fingerprint()}
	h, err := netsync.DialHandover(ctx, netsync.HandoverConfig{Client: dcfg, Pin: func(a string) string { return pins[a] }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	answers := map[uint32]int{}
	acked := map[uint32]bool{}
	poll := func() {
		for _, m := range h.Poll(nil, 1024) {
			switch m := m.(type) {
			case *wire.EditAck:
				answers[m.Seq]++
				acked[m.Seq] = true
			case *wire.EditReject:
				answers[m.Seq]++
			}
		}
		for {
			select {
			case m := <-obs.c.Messages():
				obs.handle(m)
				continue
			default:
			}
			break
		}
	}
	centre := dcfg.Centre
	frame := func(x float64) {
		if c := chunkOf(x); c != centre {
			centre = c
			require.NoError(t, h.Subscribe(c, radius))
		}
		h.Step(time.Now(), x, z)
		if h.Dialling() {
			_ = h.WaitDial(ctx) // a dial to the dead server fails; the client stays
		}
		h.SendCar(wire.QuantiseCar(0, 0, x, 40, z, 0, 0))
		poll()
	}
	edit := chunkOf(1)
	var inFlight uint32
	x := -80.0
	for h.PrimaryAddr() != dir.east {
		require.Less(t, x, 80.0, "never switched east")
		if x >= 16 && inFlight == 0 {
			inFlight, err = h.RequestEdit(edit, 7, voxel.Stone)
			require.NoError(t, err)
		}
		before := h.Switches()
		frame(x)
		if h.Switches() == before {
			// wait for the spare to be ready before moving on, as a car
			// would take frames to get there
			end := time.Now().Add(deadline)
			for addr, ready := h.Spare(); addr != "" && !ready && time.Now().Before(end); addr, ready = h.Spare() {
				frame(x)
				time.Sleep(5 * time.Millisecond) // a frame
			}
			// Past the border the switch also waits for the east server
			// to vouch for the car's id (up to 2 s): stay there meanwhile,
			// as a loaded machine can outrun it.
			for x >= 16 && h.PrimaryAddr() != dir.east && time.Now().Before(end) {
				frame(x)
				time.Sleep(5 * time.Millisecond) // a frame
			}
		}
		x += 8
	}
	require.NotZero(t, inFlight, "an edit made at the switch")
	// The new owner dies at once; the cluster hands its half to the west
	// server (as a lapsed lease would).
	east.stop(t, true)
	dir.mu.Lock()
	dir.east = dir.west
	dir.mu.Unlock()
	end := time.Now().Add(deadline)
	for {
		frame(x)
		seen := false
		for _, c := range obs.c.Cars(nil) {
			seen = seen || c.Player == h.CarID()
		}
		if h.PrimaryAddr() == dir.west && h.Primary().Err() == nil && seen && answers[inFlight] > 0 {
			break
		}
		require.True(t, time.Now().Before(end), "on the west server with its car seen and the edit answered within %v (primary %s, seen %v, answers %d)",
			deadline, h.PrimaryAddr(), seen, answers[inFlight])
		time.Sleep(5 * time.Millisecond) // a frame
	}
	require.True(t, acked[inFlight], "the edit in flight at the kill is stored")
	obs.until("the edit on the west server", func() bool { b, _ := obs.block(edit, 7); return b == voxel.Stone })
	for i := 0; i < 20; i++ { // later answers would be repeats
		frame(x)
	}
	require.Equal(t, 1, answers[inFlight], "answered once")
}
