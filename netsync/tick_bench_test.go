package netsync

import (
	"context"
	"fmt"
	"testing"
	"time"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// BenchmarkTick is one server tick with n players at radius 8, no sockets:
// the players stand 1,500 m apart on a grid (as `citydrive bots` starts
// them) and drive east at 30 m/s, so each crosses into a new chunk about
// once a second and Subscribes again, staggered; every player's car is
// fresh every tick. ns/op is the tick's own work (the issue-12 budget is
// 10 ms at 200 players).
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{100, 200, 400} {
		b.Run(fmt.Sprintf("players=%d", n), func(b *testing.B) { benchTick(b, n) })
	}
}

func benchTick(b *testing.B, n int) {
	const (
		hz     = 30
		speed  = 30.0 // m/s
		radius = 8
		spread = 1500.0
	)
	cfg := DefaultServerConfig()
	cfg.DataDir, cfg.World, cfg.Logger = b.TempDir(), NewMemoryWorld(), quietLog()
	cfg.DeliveryBudget = 0 // count bound only: the benchmark is the work, not the clock
	s := &Server{
		cfg: cfg, log: cfg.Logger, ctx: context.Background(),
		joins: make(chan *serverPeer, 1), peers: map[uint32]*serverPeer{},
		enc: wire.NewEncoder(), union: newUnion(),
		pace:  pacing{edited: cfg.DeliveriesPerTick, defaults: cfg.DefaultsPerTick, skips: maxSkips, now: time.Now},
		admit: admission{reach: cfg.Reach, rate: cfg.EditsPerSecond},
		cars:  cfg.CarRule(),
		hz:    hz, live: map[uint32]*serverPeer{},
	}
	s.metrics = newMetrics(s)
	side := 1
	for side*side < n {
		side++
	}
	type bot struct {
		p      *serverPeer
		x, z   float64
		centre voxel.ChunkPos
	}
	bots := make([]*bot, n)
	for i := range bots {
		ctx, cancel := context.WithCancel(context.Background())
		b.Cleanup(cancel)
		p := &serverPeer{
			id: uint32(i + 1), log: cfg.Logger, ctx: ctx, cancel: cancel,
			in:  make(chan wire.Message, cfg.InboundQueue),
			out: newQueue(cfg.OutboundFrames, cfg.OutboundBytes), cars: newCarSlot(),
			area: newArea(), tokens: newTokens(cfg.EditsPerSecond), sub: newSubscribeGate(cfg.SubscribesPerSecond),
		}
		// Staggered along the chunk so the Subscribes spread over ticks.
		x := (float64(i%side)-float64(side-1)/2)*spread + float64(i%32)
		z := (float64(i/side) - float64(side-1)/2) * spread
		bots[i] = &bot{p: p, x: x, z: z, centre: voxel.ChunkAt(x, 10, z)}
		s.peers[p.id], s.order = p, append(s.order, p)
		p.in <- &wire.Subscribe{Centre: bots[i].centre, Radius: radius}
	}
	now := time.Now()
	seq := uint32(0)
	step := func() {
		now = now.Add(time.Second / hz)
		seq++
		for _, bt := range bots {
			bt.x += speed / hz
			c := wire.QuantiseCar(bt.p.id, seq, bt.x, 10, bt.z, 0.25, speed)
			bt.p.carMu.Lock()
			bt.p.carIn, bt.p.carHave, bt.p.carNew = c, true, true
			bt.p.carMu.Unlock()
			if ch := voxel.ChunkAt(bt.x, 10, bt.z); ch != bt.centre {
				bt.centre = ch
				bt.p.in <- &wire.Subscribe{Centre: ch, Radius: radius}
			}
		}
	}
	drainOut := func() {
		for _, bt := range bots {
			for len(bt.p.out.ch) > 0 {
				f := <-bt.p.out.ch
				bt.p.out.bytes.Add(-int64(len(*f)))
				putFrame(f)
			}
			bt.p.cars.take(nil)
		}
	}
	// Every area loaded first: the benchmark is the steady state.
	for range 4 * hz {
		step()
		s.tick(now)
		drainOut()
	}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		step()
		b.StartTimer()
		s.tick(now)
		b.StopTimer()
		drainOut()
		b.StartTimer()
	}
}
