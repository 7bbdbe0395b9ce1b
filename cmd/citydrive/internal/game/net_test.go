package game

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/ground"
	"citydrive/voxel/mesh"
)

type nullSink struct{}

func (nullSink) Insert(*mesh.Mesh)     {}
func (nullSink) Remove(voxel.ChunkPos) {}

// Solo play goes through the network: the game's link joins a loopback
// server over QUIC, receives its area, and an edit made with the edit key
// is committed by the server, acknowledged, and broadcast back.
func TestSoloEditTakesTheNetworkPath(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const seed = 412
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: seed, Logger: log})
	require.NoError(t, err)
	defer h.Close()
	cfg := h.ClientConfig()
	cfg.Radius, cfg.Logger = 2, log
	c, err := netsync.Dial(ctx, cfg)
	require.NoError(t, err)

	l := newLink(c, nil, nil)
	defer l.close()
	tc := ground.New(ground.Options{Seed: seed, Radius: 2, Workers: 1, Sink: nullSink{}, Subscribe: l.subscribe})
	defer tc.Close()
	l.world = tc

	// A car on land.
	w := world.New(seed)
	var car world.Vec2
	for x := 0.0; ; x += 17 {
		if w.Height(x, 40) > 3 {
			car = world.Vec2{X: x, Z: 40}
			break
		}
	}
	y := w.Height(car.X, car.Z)
	l.update(0, 1, car.X, y, car.Z, 0, 0) // sends the car: the server checks reach against it
	tc.Update(car, y)                     // subscribes

	// wait hands server messages to the link until cond holds.
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !cond() {
			select {
			case m := <-c.Messages():
				netsync.Dispatch(sink{l}, m)
			case <-deadline:
				require.FailNow(t, "timed out waiting for "+what)
			}
		}
	}
	// The block the edit key builds: editReach ahead, on the ground.
	target, _ := voxel.ChunkOf(int64(math.Floor(car.X+editReach)), int64(math.Floor(y)), int64(math.Floor(car.Z)))
	wait("the edit's chunk", func() bool { return tc.Announced(target) })

	l.update(0.1, 0.1, car.X, y, car.Z, 0, 0)
	l.edit(car.X, car.Z, y, [2]float64{1, 0}, true) // Q: build a block ahead
	require.Equal(t, 1, l.pending)
	wait("the edit's answer", func() bool { return l.pending == 0 })
	assert.True(t, strings.HasSuffix(l.status, "APPLIED"), l.status)
	// Acknowledged only after the server committed it (host tests check the
	// store across a restart); the broadcast comes back to us too.
	wait("the edit's broadcast", func() bool { return l.edits > 0 })

	// What a page shows of the link (window.citydrive.link).
	st := l.state()
	assert.True(t, st.Connected)
	assert.Equal(t, c.Player(), st.Player)
	assert.Equal(t, c.CarSeq(), st.CarSeq, "the latest car sent")
	assert.InDelta(t, car.X, st.X, 0.01)
	assert.InDelta(t, car.Z, st.Z, 0.01)
	assert.Equal(t, 1, st.EditsSent)
	assert.Equal(t, 1, st.EditsApplied)
	assert.Zero(t, st.EditsRefused)
}

// QueueEdit refuses what it cannot send: offline, more than a frame's
// queue.
func TestQueueEditSaysWhyNot(t *testing.T) {
	offline := &Session{queued: make(chan queuedEdit, maxQueuedEdits)}
	assert.ErrorContains(t, offline.QueueEdit(1, 2, 3, voxel.Stone), "offline")
	s := &Session{link: &link{}, queued: make(chan queuedEdit, maxQueuedEdits)}
	for range maxQueuedEdits {
		require.NoError(t, s.QueueEdit(1, 2, 3, voxel.Stone))
	}
	assert.ErrorContains(t, s.QueueEdit(1, 2, 3, voxel.Stone), "already wait")
	assert.Equal(t, queuedEdit{x: 1, y: 2, z: 3, b: voxel.Stone}, <-s.queued)
}

// A client whose server restarts keeps driving and rejoins: the link
// redials in the background, resubscribes, and the area streams again.
func TestLinkRejoinsARestartedServer(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const seed = 412
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := pc.LocalAddr().String()
	require.NoError(t, pc.Close())
	dir := t.TempDir()
	h1, err := host.Start(ctx, host.Options{Addr: addr, DataDir: dir, Seed: seed, Logger: log})
	require.NoError(t, err)
	cfg := h1.ClientConfig()
	cfg.Radius, cfg.Logger = 2, log
	dial := func(ctx context.Context) (*netsync.Client, error) { return netsync.Dial(ctx, cfg) }
	c, err := dial(ctx)
	require.NoError(t, err)
	l := newLink(c, nil, dial)
	defer l.close()
	tc := ground.New(ground.Options{Seed: seed, Radius: 2, Workers: 1, Sink: nullSink{}, Subscribe: l.subscribe})
	defer tc.Close()
	l.world = tc
	car := world.Vec2{X: 100, Z: 100}
	tc.Update(car, 5)
	first := <-c.Messages() // the area arrives
	require.NotNil(t, first)

	require.NoError(t, h1.Close())
	<-c.Done()
	require.NoError(t, l.check(), "with a dialer a lost server is not the end")
	assert.Nil(t, l.c)
	assert.Contains(t, l.status, "RECONNECTING")
	l.update(0, 1, car.X, 5, car.Z, 0, 0) // harmless while disconnected
	l.edit(car.X, car.Z, 5, [2]float64{1, 0}, true)
	assert.Contains(t, l.status, "NOT SENT")

	h2, err := host.Start(ctx, host.Options{Addr: addr, DataDir: dir, Seed: seed, Logger: log})
	require.NoError(t, err)
	defer h2.Close()
	select {
	case nc := <-l.redialed:
		l.redialed <- nc // hand it back to check, which swaps it in
	case <-time.After(20 * time.Second):
		require.FailNow(t, "no reconnection")
	}
	require.NoError(t, l.check())
	require.NotNil(t, l.c)
	assert.Equal(t, "RECONNECTED: BACK AT THE SPAWN", l.status)
	p, reset, ok := l.takePose()
	assert.True(t, ok, "the car goes to the new connection's spawn")
	assert.False(t, reset)
	assert.Equal(t, l.c.Spawn(), p)
	tc.Update(car, 5) // resubscribes
	select {
	case m := <-l.c.Messages():
		require.NotNil(t, m, "the area streams again")
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no area after rejoining")
	}
}

// Backspace over the network: the link asks the server (a Reset) and the
// car moves only with the server's answer, a Pose; a second reset at once
// is refused for the rate, and its Pose puts the car where the server
// has it, with the reason on the HUD.
func TestLinkResetIsTheServersAnswer(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := host.Start(ctx, host.Options{DataDir: t.TempDir(), Seed: 412, Logger: log})
	require.NoError(t, err)
	defer h.Close()
	cfg := h.ClientConfig()
	cfg.Radius, cfg.Logger = 1, log
	c, err := netsync.Dial(ctx, cfg)
	require.NoError(t, err)
	l := newLink(c, nil, nil)
	defer l.close()
	answer := func() (p wire.Pose, reset bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			if p, reset, ok := l.takePose(); ok {
				return p, reset
			}
			select {
			case m := <-c.Messages():
				if p, ok := m.(*wire.Pose); ok { // no terrain here: the chunks are skipped
					sink{l}.Pose(*p)
				}
			case <-deadline:
				require.FailNow(t, "no Pose")
			}
		}
	}
	require.True(t, l.reset(30, 2, 40, 0.5))
	p, reset := answer()
	assert.True(t, reset)
	assert.Empty(t, p.Reason)
	x, _, z := p.Position()
	assert.Equal(t, [2]float64{30, 40}, [2]float64{x, z})

	require.True(t, l.reset(35, 2, 40, 0.5))
	p, reset = answer()
	assert.True(t, reset)
	assert.Contains(t, p.Reason, "too many resets")
	assert.Contains(t, l.status, "RESET REFUSED")
}
