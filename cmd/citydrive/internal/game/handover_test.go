package game

import (
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/netsync"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/roadgraph/world"
	"citydrive/voxel"
	"citydrive/voxel/ground"
)

// The game's link joins a cluster server and is handed over to the owner
// of the region it drives into (its leases: the server with a player
// there): the first Owners makes it a handover, the car crossing the
// border switches it to the other server, the observer there sees the
// car, and an edit made after the switch is answered once, applied.
func TestLinkIsHandedOverAcrossARegionBorder(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const seed = 412
	nc := natstest.Start(t, 3)
	start := func(dir string, via int) *host.Host {
		h, err := host.Start(ctx, host.Options{DataDir: dir, Seed: seed, Logger: log, Cluster: nc.URLs(via), Replicas: 3})
		require.NoError(t, err)
		t.Cleanup(func() { _ = h.Close() })
		return h
	}
	westDir := t.TempDir()
	west := start(westDir, 0)
	eastDir := t.TempDir() // one identity for both, as cmd/cluster.sh runs them
	pem, err := os.ReadFile(filepath.Join(westDir, "server-identity.pem"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(eastDir, "server-identity.pem"), pem, 0o600))
	east := start(eastDir, 1)
	require.Equal(t, west.Fingerprint(), east.Fingerprint())

	w := world.New(seed)
	const z = 272.0
	at := func(x float64) (world.Vec2, float64, voxel.ChunkPos) {
		y := w.Height(x, z)
		return world.Vec2{X: x, Z: z}, y, voxel.ChunkAt(x, y, z)
	}
	// The observer makes region 0 (x ≥ 0) the east server's.
	_, oy, och := at(120)
	ocfg := east.ClientConfig()
	ocfg.Centre, ocfg.Radius, ocfg.Logger = och, 4, log
	obs, err := netsync.Dial(ctx, ocfg)
	require.NoError(t, err)
	defer obs.Close()
	obsCar := wire.QuantiseCar(0, 0, 120, oy, z, 0, 0)

	car, y, ch := at(-80)
	cfg := west.ClientConfig()
	cfg.Centre, cfg.Radius, cfg.Logger = ch, 4, log
	c, err := netsync.Dial(ctx, cfg)
	require.NoError(t, err)
	l := newLink(c, nil, nil)
	defer l.close()
	tc := ground.New(ground.Options{Seed: seed, Radius: 4, Workers: 1, Sink: nullSink{}, Subscribe: l.subscribe})
	defer tc.Close()
	l.world = tc

	// frame drives the car to x, a frame of 50 ms (40 m/s at 2 m a frame).
	clock := 0.0
	frame := func(x float64) {
		car, y, _ = at(x)
		clock += 0.05
		tc.Update(car, y)
		l.update(clock, 0.05, car.X, y, car.Z, 0, 20)
		require.NoError(t, l.check())
		obs.SendCar(obsCar)
		obs.Drain(nopSink{}, 1024)
		time.Sleep(50 * time.Millisecond) // paces the car: the servers time its speed by their clocks
	}
	until := func(what string, x float64, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(20 * time.Second); !cond(); {
			require.True(t, time.Now().Before(end), "no %s within 20 s", what)
			frame(x)
		}
	}
	until("owners from the west server (a handover)", -80, func() bool { return l.h != nil })
	for x := -80.0; x <= 40; x += 2 {
		frame(x)
	}
	until("the switch to the east server", 40, func() bool { return l.h.Switches() == 1 })
	assert.Equal(t, east.DialAddr(), l.h.PrimaryAddr())
	until("the observer to see the car under its one id", 40, func() bool {
		for _, s := range obs.Cars(nil) {
			if s.Player == l.h.CarID() && math.Abs(float64(s.X)-float64(wire.QuantiseCar(0, 0, 40, 0, 0, 0, 0).X)) < 2 {
				return true
			}
		}
		return false
	})

	target, _ := voxel.ChunkOf(int64(math.Floor(car.X+editReach)), int64(math.Floor(y)), int64(math.Floor(car.Z)))
	until("the edit's chunk", 40, func() bool { return tc.Announced(target) })
	l.edit(car.X, car.Z, y, [2]float64{1, 0}, true)
	require.Equal(t, 1, l.pending)
	until("the edit's answer", 40, func() bool { return l.pending == 0 })
	assert.True(t, strings.HasSuffix(l.status, "APPLIED"), l.status)
	for range 10 { // no second answer comes
		frame(40)
	}
	assert.Zero(t, l.pending, "answered once")
}

// nopSink takes an observer's messages.
type nopSink struct{}

func (nopSink) ChunkDefault(voxel.ChunkPos)                       {}
func (nopSink) ChunkDrop(voxel.ChunkPos)                          {}
func (nopSink) ChunkEdits(voxel.ChunkPos, voxel.Overlay)          {}
func (nopSink) EditBroadcast(voxel.ChunkPos, uint16, voxel.Block) {}
func (nopSink) EditResult(uint32, bool, string)                   {}
