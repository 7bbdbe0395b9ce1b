package netsync

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// These tests pin the server's policies at the exact values where a rule
// switches: the last value it allows and the first it refuses.

func TestServerConfigEdges(t *testing.T) {
	valid := func() ServerConfig {
		c := DefaultServerConfig()
		c.DataDir, c.World = "/data", NewMemoryWorld()
		return c
	}
	cases := []struct {
		name     string
		ok, fail func(*ServerConfig)
	}{
		{"MaxRadius low", func(c *ServerConfig) { c.MaxRadius = 1 }, func(c *ServerConfig) { c.MaxRadius = 0 }},
		{"MaxRadius high", func(c *ServerConfig) { c.MaxRadius = wire.AbsMaxRadius }, func(c *ServerConfig) { c.MaxRadius = wire.AbsMaxRadius + 1 }},
		{"TickHz low", func(c *ServerConfig) { c.TickHz = 1 }, func(c *ServerConfig) { c.TickHz = 0 }},
		{"TickHz high", func(c *ServerConfig) { c.TickHz = wire.MaxTickHz }, func(c *ServerConfig) { c.TickHz = wire.MaxTickHz + 1 }},
		{"DeliveriesPerTick", func(c *ServerConfig) { c.DeliveriesPerTick = 1 }, func(c *ServerConfig) { c.DeliveriesPerTick = 0 }},
		{"DefaultsPerTick", func(c *ServerConfig) { c.DefaultsPerTick = 1 }, func(c *ServerConfig) { c.DefaultsPerTick = 0 }},
		{"InboundQueue", func(c *ServerConfig) { c.InboundQueue = 1 }, func(c *ServerConfig) { c.InboundQueue = 0 }},
		{"InboundPerTick", func(c *ServerConfig) { c.InboundPerTick = 1 }, func(c *ServerConfig) { c.InboundPerTick = 0 }},
		{"OutboundFrames", func(c *ServerConfig) { c.OutboundFrames = 1 }, func(c *ServerConfig) { c.OutboundFrames = 0 }},
		{"OutboundBytes", func(c *ServerConfig) { c.OutboundBytes = 1 }, func(c *ServerConfig) { c.OutboundBytes = 0 }},
		{"MaxHandshakes", func(c *ServerConfig) { c.MaxHandshakes = 1 }, func(c *ServerConfig) { c.MaxHandshakes = 0 }},
		{"MaxPlayers", func(c *ServerConfig) { c.MaxPlayers = 1 }, func(c *ServerConfig) { c.MaxPlayers = 0 }},
		{"MaxHandshakesPerAddr", func(c *ServerConfig) { c.MaxHandshakesPerAddr = 1 }, func(c *ServerConfig) { c.MaxHandshakesPerAddr = 0 }},
		{"EditsPerSecond", func(c *ServerConfig) { c.EditsPerSecond = 1e-9 }, func(c *ServerConfig) { c.EditsPerSecond = math.NaN() }},
		{"DeliveryBudget", func(c *ServerConfig) { c.DeliveryBudget = 0 }, func(c *ServerConfig) { c.DeliveryBudget = -1 }},
		{"HandshakeTimeout", func(c *ServerConfig) { c.HandshakeTimeout = 1 }, func(c *ServerConfig) { c.HandshakeTimeout = 0 }},
		{"HelloTimeout", func(c *ServerConfig) { c.HelloTimeout = 1 }, func(c *ServerConfig) { c.HelloTimeout = -1 }},
		{"FrameTimeout", func(c *ServerConfig) { c.FrameTimeout = 1 }, func(c *ServerConfig) { c.FrameTimeout = -1 }},
		{"SubscribeTimeout", func(c *ServerConfig) { c.SubscribeTimeout = 1 }, func(c *ServerConfig) { c.SubscribeTimeout = -1 }},
		{"SubscribesPerSecond", func(c *ServerConfig) { c.SubscribesPerSecond = 1 }, func(c *ServerConfig) { c.SubscribesPerSecond = 0.999 }},
		{"SubscribesPerSecond NaN", func(c *ServerConfig) { c.SubscribesPerSecond = 1e9 }, func(c *ServerConfig) { c.SubscribesPerSecond = math.NaN() }},
		{"TickBudget", func(c *ServerConfig) { c.TickBudget = 0 }, func(c *ServerConfig) { c.TickBudget = -1 }},
		{"TickFloorHz", func(c *ServerConfig) { c.TickFloorHz = 1 }, func(c *ServerConfig) { c.TickFloorHz = 0 }},
		{"MaxCarSpeed", func(c *ServerConfig) { c.MaxCarSpeed = 0 }, func(c *ServerConfig) { c.MaxCarSpeed = -1e-9 }},
		{"CarSlack", func(c *ServerConfig) { c.CarSlack = 0 }, func(c *ServerConfig) { c.CarSlack = math.NaN() }},
		{"SpawnRadius", func(c *ServerConfig) { c.SpawnRadius = 0 }, func(c *ServerConfig) { c.SpawnRadius = math.NaN() }},
		{"SpawnX", func(c *ServerConfig) { c.SpawnX = -1e9 }, func(c *ServerConfig) { c.SpawnX = math.Inf(1) }},
		{"SpawnZ", func(c *ServerConfig) { c.SpawnZ = 1e9 }, func(c *ServerConfig) { c.SpawnZ = math.NaN() }},
		{"ResetReach", func(c *ServerConfig) { c.ResetReach = 0 }, func(c *ServerConfig) { c.ResetReach = -1 }},
		{"ResetEvery", func(c *ServerConfig) { c.ResetEvery = 1 }, func(c *ServerConfig) { c.ResetEvery = 0 }},
		{"IdleLimit", func(c *ServerConfig) { c.IdleLimit = 1 }, func(c *ServerConfig) { c.IdleLimit = 0 }},
		{"MaxPlayersPerAddr", func(c *ServerConfig) { c.MaxPlayersPerAddr = 1 }, func(c *ServerConfig) { c.MaxPlayersPerAddr = 0 }},
		{"ClockPingsPerSecond", func(c *ServerConfig) { c.ClockPingsPerSecond = 1 }, func(c *ServerConfig) { c.ClockPingsPerSecond = 0.999 }},
		{"CarsPerSecond", func(c *ServerConfig) { c.CarsPerSecond = 1 }, func(c *ServerConfig) { c.CarsPerSecond = math.NaN() }},
		{"Reach", func(c *ServerConfig) { c.Reach = 0 }, func(c *ServerConfig) { c.Reach = math.NaN() }},
		{"Addr", func(c *ServerConfig) { c.Addr = ":0" }, func(c *ServerConfig) { c.Addr = "" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.ok(&c)
			assert.NoError(t, c.check(), "last allowed value")
			c = valid()
			tc.fail(&c)
			assert.Error(t, c.check(), "first refused value")
		})
	}
}

// Reach is measured from the car to the block's centre in all three
// axes, and a block exactly at the reach is allowed.
func TestAdmissionReachEdges(t *testing.T) {
	rule := admission{reach: 10, rate: 5}
	pos := voxel.ChunkPos{X: -1, Y: 2, Z: 3}
	index := uint16(voxel.Index(5, 6, 7))
	bx, by, bz := blockCentre(pos, index)
	assert.Equal(t, [3]float64{-32 + 5.5, 64 + 6.5, 96 + 7.5}, [3]float64{bx, by, bz})
	e := voxel.BlockEdit{Pos: pos, Index: index, Block: 1}
	for _, off := range [][3]float64{{10, 0, 0}, {0, -10, 0}, {0, 0, 10}, {6, 8, 0}, {0, 6, -8}} {
		bucket := newTokens(rule.rate)
		v := rule.check(e, true, bx+off[0], by+off[1], bz+off[2], true, &bucket)
		assert.Equal(t, admitted, v.why, "exactly at reach %v", off)
		for i := range off {
			off[i] *= 1.01
		}
		v = rule.check(e, true, bx+off[0], by+off[1], bz+off[2], true, &bucket)
		assert.Equal(t, outOfReach, v.why, "just past reach %v", off)
		assert.InDelta(t, 10.1, v.distance, 1e-9)
	}
}

func TestTokensEdges(t *testing.T) {
	b := tokens{n: 1, rate: 4, burst: 4}
	assert.True(t, b.take(), "exactly one token is enough")
	assert.False(t, b.take())
	b.refill(0.125) // half a token at 4 per second
	assert.InDelta(t, 0.5, b.n, 1e-12)
	assert.False(t, b.take())
	b.refill(0.125)
	assert.True(t, b.take())
	b.refill(10)
	assert.Equal(t, 4.0, b.n, "capped at the burst")
}

func TestDilationEdges(t *testing.T) {
	const ms = time.Millisecond
	d := newDilation(10*ms, 30, 10)
	for range 100 {
		assert.Equal(t, 30, d.observe(10*ms), "exactly the budget is no overload")
	}
	assert.Equal(t, 1.0, d.factor)

	// One tick at 3× the budget: target 1+2² = 5, capped at 30/10 = 3;
	// the factor moves 5 % of the way: 1.1, so 30/1.1 = 27.3 → 27.
	d.observe(30 * ms)
	assert.InDelta(t, 1.1, d.factor, 1e-12)
	assert.Equal(t, 27, d.hz())

	high := newDilation(10*ms, 20, 50)
	assert.Equal(t, 20, high.floorHz, "a floor above the rate is the rate")
	assert.Equal(t, 20, high.observe(time.Second), "no room to slow down")

	// Rounding: 30 / 1.0345 = 29.0 → 29, 30/1.0169 = 29.5 → 30.
	r := newDilation(10*ms, 30, 10)
	r.factor = 30.0 / 29.4
	assert.Equal(t, 29, r.hz())
	r.factor = 30.0 / 29.6
	assert.Equal(t, 30, r.hz())
}

// The clock is read on every timeCheckEvery-th look only, and a tick
// that reaches its deadline exactly still has time.
func TestPacingClockEdges(t *testing.T) {
	clk := &fakeClock{}
	p := pacing{edited: 1 << 20, defaults: 1 << 20, skips: 1 << 20, budget: 10 * time.Millisecond, now: clk.now}
	p.startTick(1)
	q := p.client()
	for i := range timeCheckEvery {
		assert.True(t, q.look(i))
		clk.t = clk.t.Add(time.Millisecond) // past the deadline from look 11 on, unseen
	}
	clk.t = p.deadline
	assert.True(t, q.look(timeCheckEvery), "exactly at the deadline: still in time")
	assert.True(t, q.inTime())
	clk.t = p.deadline.Add(time.Nanosecond)
	assert.True(t, q.look(timeCheckEvery+1), "not a clock look")
	assert.False(t, q.look(2*timeCheckEvery), "past the deadline")
	assert.False(t, q.inTime())

	// A new tick has time again, from a fresh deadline.
	p.startTick(1)
	assert.Equal(t, clk.t.Add(10*time.Millisecond), p.deadline)
	q = p.client()
	assert.True(t, q.look(0))
	assert.True(t, q.inTime())

	// Without a budget there is no deadline to read.
	p.budget = 0
	p.startTick(1)
	assert.True(t, p.deadline.IsZero())
}

func TestPacingStartsWhereItStopped(t *testing.T) {
	p := pacing{now: time.Now}
	p.startTick(0) // no clients: nothing to start
	assert.Equal(t, 0, p.start)
	p.ranOut(4)
	p.startTick(3)
	assert.Equal(t, 1, p.start, "the client index wraps to the clients left")
	assert.Equal(t, []int{1, 2, 0}, []int{p.turn(0, 3), p.turn(1, 3), p.turn(2, 3)})
	p.allServed()
	p.startTick(3)
	assert.Equal(t, 2, p.start)
}

// The defaults are the ones docs/networking.md's limits table promises
// (and the flags of `citydrive server` show).
func TestDefaultServerConfigIsTheDocumentedOne(t *testing.T) {
	c := DefaultServerConfig()
	assert.Equal(t, "127.0.0.1:0", c.Addr)
	assert.Equal(t, Tuning{
		MaxRadius: 8, TickHz: 30, DeliveriesPerTick: 32, DefaultsPerTick: 1024,
		MaxBlock: wire.DefaultLimits.MaxBlock, EditsPerSecond: 20, DeliveryBudget: 3 * time.Millisecond, Reach: 48,
		InboundQueue: 256, InboundPerTick: 64, OutboundFrames: 4096, OutboundBytes: 8 << 20,
		MaxHandshakes: 64, MaxPlayers: 512, HandshakeTimeout: transport.HandshakeTimeout,
		SubscribesPerSecond: 8, SubscribeChunksPerTick: 16384, MaxHandshakesPerAddr: 8,
		MaxPlayersPerAddr: 8, IdleLimit: time.Minute, ClockPingsPerSecond: 2, CarsPerSecond: 60,
		ResetEvery: 2 * time.Second, ResetReach: 150,
		HelloTimeout: 2 * time.Second, FrameTimeout: 5 * time.Second, SubscribeTimeout: 10 * time.Second,
		MaxCarSpeed: 58, CarSlack: 16, SpawnRadius: 1500,
		TickBudget: 10 * time.Millisecond, TickFloorHz: 10,
	}, c.Tuning)
}

// A car's move is measured in all three axes from where it was, and a
// move of exactly top speed × time + slack is allowed.
func TestCarRuleEdges(t *testing.T) {
	rule := CarRule{MaxSpeed: 50, Slack: 10}
	t0 := time.Unix(1000, 0)
	from := [3]float64{100, 20, -300}
	for _, move := range [][3]float64{{60, 0, 0}, {0, -60, 0}, {0, 0, 60}, {36, 0, -48}} {
		for _, scale := range []float64{1, 1.001} {
			var tr CarTrack
			assert.True(t, rule.Judge(&tr, from[0], from[1], from[2], t0))
			ok := rule.Judge(&tr, from[0]+move[0]*scale, from[1]+move[1]*scale, from[2]+move[2]*scale, t0.Add(time.Second))
			assert.Equal(t, scale == 1, ok, "move %v × %v in 1 s (limit 60 m)", move, scale)
		}
	}
	// Time before the last accepted snapshot counts as none: only the slack is allowed.
	var tr CarTrack
	assert.True(t, rule.Judge(&tr, 0, 0, 0, t0))
	assert.True(t, rule.Judge(&tr, 10, 0, 0, t0.Add(-time.Second)))
	assert.False(t, rule.Judge(&tr, 20.5, 0, 0, t0.Add(-time.Second)))
}

// The slack is a credit: spent by a move past top speed, earned back by a
// slower one, never above the slack; exactly the credit is allowed.
func TestCarSlackCreditEdges(t *testing.T) {
	rule := CarRule{MaxSpeed: 50, Slack: 10}
	t0 := time.Unix(1000, 0)
	var tr CarTrack
	assert.True(t, rule.Judge(&tr, 0, 0, 0, t0))
	assert.True(t, rule.Judge(&tr, 60, 0, 0, t0.Add(time.Second)), "top speed for a second plus the slack")
	assert.Zero(t, tr.credit)
	assert.False(t, rule.Judge(&tr, 60.001, 0, 0, t0.Add(time.Second)), "no credit left")
	assert.True(t, rule.Judge(&tr, 60+49, 0, 0, t0.Add(2*time.Second)), "a metre under top speed")
	assert.Equal(t, 1.0, tr.credit, "earns a metre back")
	assert.True(t, rule.Judge(&tr, 60+49+1, 0, 0, t0.Add(2*time.Second)), "exactly the credit")
	assert.True(t, rule.Judge(&tr, 110, 0, 0, t0.Add(time.Hour)), "parked an hour")
	assert.Equal(t, 10.0, tr.credit, "never above the slack")
}
