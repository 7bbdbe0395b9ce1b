package buildworkers

import (
	"log/slog"
	"math"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// testFarSlots keeps the far tier of the streamer tests small.
const testFarSlots = 64

// withFar turns on a small far tier (64 slots) writing into its own CPU
// buffer, which it returns.
func withFar(t *testing.T, c *Config) *slots.CPUBuffer {
	t.Helper()
	c.Far.Slots = testFarSlots
	buf, err := slots.NewCPUBuffer(c.Layout().Far)
	require.NoError(t, err)
	c.Far.Sink = buf
	return buf
}

// The far tier's limits: each edge of the valid range is accepted, one
// step past it refused; a far tier of no slots is off, even with a sink.
func TestFarConfigLimits(t *testing.T) {
	ok := DefaultConfig()
	ok.NewBuilder = func() Builder { return &fakeBuilder{} }
	ok.Far.Sink = &slots.CPUBuffer{}
	require.NoError(t, ok.Validate())
	valid := map[string]func(*FarConfig){
		"still car":      func(c *FarConfig) { c.Move = 0 },
		"no extra depth": func(c *FarConfig) { c.InFlight = 0 },
		"64 in flight":   func(c *FarConfig) { c.InFlight = 64 },
		"no slots: off":  func(c *FarConfig) { c.Slots = 0 },
		"no sink: off":   func(c *FarConfig) { c.Sink, c.Slots = nil, 0 },
	}
	for name, mutate := range valid {
		c := ok
		mutate(&c.Far)
		assert.NoError(t, c.Validate(), name)
	}
	invalid := map[string]func(*FarConfig){
		"walk clock 0":       func(c *FarConfig) { c.Every = 0 },
		"negative clock":     func(c *FarConfig) { c.Every = -time.Second },
		"negative move":      func(c *FarConfig) { c.Move = -1 },
		"NaN move":           func(c *FarConfig) { c.Move = math.NaN() },
		"negative in-flight": func(c *FarConfig) { c.InFlight = -1 },
		"65 in flight":       func(c *FarConfig) { c.InFlight = 65 },
		"tiny slots":         func(c *FarConfig) { c.VertsPerSlot = 0 },
	}
	for name, mutate := range invalid {
		c := ok
		mutate(&c.Far)
		assert.Error(t, c.Validate(), name)
	}
	assert.False(t, FarConfig{Slots: 0, Sink: &slots.CPUBuffer{}}.On())
	assert.False(t, FarConfig{Slots: 1}.On())
	assert.True(t, FarConfig{Slots: 1, Sink: &slots.CPUBuffer{}}.On())
}

// A streamer without a far tier (none configured, or a sink with no
// slots) has no far table, zero far counters, is never held up by the far
// tier, and gives its workers no extra depth.
func TestNoFarTier(t *testing.T) {
	for name, tweak := range map[string]func(*Config){
		"no sink":  func(c *Config) {},
		"no slots": func(c *Config) { c.Far.Sink, c.Far.Slots = &slots.CPUBuffer{}, 0 },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, 1, nil, tweak)
				assert.Nil(t, h.s.FarTable())
				assert.True(t, h.s.FarReady())
				h.runUntilReady(t, 200)
				assert.Equal(t, FarStats{}, h.s.FarStats())
				assert.True(t, h.s.FarReady())
				assert.Zero(t, h.s.pool.cfg.ExtraInFlight)
			})
		})
	}
}

// farTierHarness runs a far tier on its own (no streamer): tick advances
// its clock by dt with the car at car, lets a far walk it started finish
// and applies it, and reports whether one ran.
type farTierHarness struct {
	t *testing.T
	f *farTier
}

func newFarTierHarness(t *testing.T) *farTierHarness {
	cfg := DefaultFarConfig()
	cfg.Slots = testFarSlots
	buf, err := slots.NewCPUBuffer(cfg.table())
	require.NoError(t, err)
	cfg.Sink = buf
	require.Equal(t, time.Second, cfg.Every)
	require.Equal(t, 60.0, cfg.Move)
	f, err := newFarTier(cfg, world.New(testSeed), nil)
	require.NoError(t, err)
	t.Cleanup(f.close)
	return &farTierHarness{t: t, f: f}
}

func (h *farTierHarness) tick(dt float64, car, heading world.Vec2) bool {
	before := h.f.stats.Walks
	h.f.walk(dt, car, heading, true) // busy: a started walk is not applied yet
	synctest.Wait()
	h.f.walk(0, car, heading, false)
	require.False(h.t, h.f.inWalk, "a started walk is applied on the next quiet frame")
	return h.f.stats.Walks > before
}

// The far walk runs first at once, then on its one-second clock, and only
// when the car has moved at least 60 m or turned by more than 25° (cos 25°
// ≈ 0.906) since the last far walk started. Walks alternate between two
// buffers, so every walk's items reach the far table.
func TestFarWalkClockAndMove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newFarTierHarness(t)
		east := world.Vec2{X: 1}
		at := func(x float64) world.Vec2 { return world.Vec2{X: x} }
		steps := []struct {
			what    string
			dt      float64
			car     world.Vec2
			heading world.Vec2
			walks   bool
		}{
			{"the first frame walks", 1.0 / 60, at(0), east, true},
			{"half the clock, 100 m on", 0.5, at(100), east, false},
			{"the clock at exactly zero", 0.5, at(100), east, true},
			{"a full clock, not moved", 1, at(100), east, false},
			{"59 m on", 0.1, at(159), east, false},
			{"exactly 60 m on", 0.1, at(160), east, true},
			{"a full clock, turned 20°", 1, at(160), world.Vec2{X: math.Cos(20 * math.Pi / 180), Z: math.Sin(20 * math.Pi / 180)}, false},
			{"turned to a cosine of exactly 0.906", 0.1, at(160), world.Vec2{X: 0.906, Z: math.Sqrt(1 - 0.906*0.906)}, false},
			{"turned 30°, unnormalised", 0.1, at(160), world.Vec2{X: 2 * math.Cos(30*math.Pi/180), Z: 2 * math.Sin(30*math.Pi/180)}, true},
			{"turned back 30°", 0.1, at(160), east, false}, // the clock is not due
			{"due again", 1, at(160), east, true},
		}
		walks := 0
		for _, s := range steps {
			got := h.tick(s.dt, s.car, s.heading)
			require.Equal(t, s.walks, got, s.what)
			if got {
				walks++
				assert.Equal(t, s.car, h.f.lastCar, s.what)
			}
			assert.Equal(t, walks, h.f.stats.Walks, s.what)
			st := h.f.stats
			require.Positive(t, st.Items, s.what)
			assert.Equal(t, st.Items, h.f.table.Used(), "%s: the far table holds the last walk's items", s.what)
		}
	})
}

// farHarness is the streamer harness with the small far tier on.
func farHarness(t *testing.T, workers int, tweak func(*fakeBuilder), cfgTweak func(*Config)) (*harness, *slots.CPUBuffer) {
	var buf *slots.CPUBuffer
	h := newHarness(t, workers, tweak, func(c *Config) {
		buf = withFar(t, c)
		if cfgTweak != nil {
			cfgTweak(c)
		}
	})
	return h, buf
}

func (h *harness) runUntilFarReady(t *testing.T, maxFrames int) int {
	for f := 0; f < maxFrames; f++ {
		h.frame()
		if h.s.FarReady() {
			return f
		}
	}
	require.FailNow(t, "far tier never became ready", "%+v %+v", h.s.Stats(), h.s.FarStats())
	return 0
}

// The far tier is ready only once it has walked, every far item of the
// walk is built and no far build is in flight; its counters add up, and
// the near world stays ready meanwhile (far builds in flight are not near
// ones).
func TestFarReadyAndCounters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, buf := farHarness(t, 1, func(b *fakeBuilder) { b.simple = true }, nil)
		assert.False(t, h.s.FarReady(), "not walked yet")
		h.frame() // the near walk's frame: the far walk is not applied on it
		assert.Zero(t, h.s.FarStats().Walks)
		assert.False(t, h.s.FarReady(), "the far walk has not landed")
		h.runUntilReady(t, 200)
		f := h.runUntilFarReady(t, 400)
		t.Logf("far ready after %d more frames", f)
		st := h.s.FarStats()
		assert.Equal(t, testFarSlots, st.Items)
		assert.Equal(t, st.Items, st.Used)
		assert.Equal(t, st.Used, st.Built)
		assert.Equal(t, st.Used, st.Builds)
		assert.Zero(t, st.Pending)
		assert.Equal(t, int64(36*st.Builds), st.VertsBuilt)
		assert.Equal(t, st.Builds, st.Simplified, "every far build came back simplified")
		assert.Zero(t, h.s.Stats().InFlight)
		assert.True(t, h.s.Ready(), "the near world stays ready")
		ft := h.s.FarTable()
		for sl := int32(0); sl < testFarSlots; sl++ {
			require.True(t, ft.Built(sl))
			assert.Equal(t, int32(36), buf.Counts[sl])
			assert.Equal(t, h.s.Origin(), h.s.FarSlotOrigin(sl))
		}
		// A while later nothing has changed: the car stands still.
		for range 120 {
			h.frame()
		}
		assert.Equal(t, st.Builds, h.s.FarStats().Builds)
		assert.True(t, h.s.FarReady())
		assert.True(t, h.s.Ready())
	})
}

// Far results count against the upload budget like near ones: with room
// for two 36-vertex items a frame, never more than two far results land
// in a frame, and the far tier still completes.
func TestFarResultsUseTheUploadBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		itemBytes := 36 * slots.BytesPerVertex
		h, _ := farHarness(t, 1, nil, func(c *Config) { c.UploadBytesPerFrame = 2 * itemBytes })
		h.runUntilReady(t, 200)
		prev, most := h.s.FarStats().Builds, 0
		for f := 0; f < 400 && !h.s.FarReady(); f++ {
			h.frame()
			got := h.s.FarStats().Builds - prev
			prev = h.s.FarStats().Builds
			require.LessOrEqual(t, got, 2, "frame %d applied %d far results", f, got)
			most = max(most, got)
		}
		require.True(t, h.s.FarReady(), "the far tier still completes")
		assert.Equal(t, 2, most, "the budget is used")
	})
}

// A far item whose geometry exceeds its far slot is refused and logged,
// leaves its slot empty, is not retried, and does not hold up the far
// tier; far items that fit land and log nothing.
func TestFarOverflowIsLoggedAndLeftEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const msg = "far slot upload failed"
		logs := &captured{msgs: map[string]int{}}
		big := func(it walker.Item) bool { return it.Kind == walker.Far && it.Key%3 == 0 }
		var farVerts int
		h, buf := farHarness(t, 1, func(b *fakeBuilder) {
			b.count = func(it walker.Item) int {
				if big(it) {
					return farVerts + 1
				}
				return 36
			}
		}, func(c *Config) {
			c.Log = slog.New(logs)
			farVerts = c.Far.VertsPerSlot
		})
		h.runUntilReady(t, 200)
		h.runUntilFarReady(t, 400)
		for range 120 { // more far walk clocks: nothing is retried
			h.frame()
		}
		ft := h.s.FarTable()
		overflowing := 0
		for sl := int32(0); sl < testFarSlots; sl++ {
			require.NotZero(t, ft.Key(sl))
			if big(ft.Item(sl)) {
				overflowing++
				assert.False(t, ft.Built(sl))
				assert.Zero(t, buf.Counts[sl])
			} else {
				assert.True(t, ft.Built(sl))
				assert.Equal(t, int32(36), buf.Counts[sl])
			}
		}
		require.Positive(t, overflowing)
		require.Less(t, overflowing, testFarSlots)
		assert.Equal(t, overflowing, logs.n(msg), "one error line per refused far item")
		assert.Equal(t, uint64(overflowing), ft.Overflows())
		st := h.s.FarStats()
		assert.Equal(t, testFarSlots-overflowing, st.Builds)
		assert.Equal(t, testFarSlots-overflowing, st.Built)
		assert.True(t, h.s.FarReady())
	})
}

// When the workers fail with far builds in flight, those far items go back
// to pending and wait (the main goroutine builds near items only); the
// near world stays ready and the far tier reports itself unfinished.
func TestFarBuildsWaitWhenWorkersFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var farBuilds atomic.Int32
		h, _ := farHarness(t, 1, func(b *fakeBuilder) {
			b.count = func(it walker.Item) int {
				if it.Kind == walker.Far && farBuilds.Add(1) == 5 {
					panic("far build 5 exploded")
				}
				return 36
			}
		}, nil)
		h.runUntilReady(t, 200)
		for f := 0; f < 400 && h.s.Stats().Fallback == ""; f++ {
			h.frame()
		}
		require.Contains(t, h.s.Stats().Fallback, "far build 5 exploded")
		for range 120 {
			h.frame()
		}
		assert.True(t, h.s.Ready(), "the near world stays ready")
		assert.Zero(t, h.s.Stats().InFlight)
		st := h.s.FarStats()
		assert.Equal(t, 4, st.Builds, "the far builds answered before the failure")
		assert.Equal(t, st.Builds, st.Built)
		assert.Equal(t, st.Used-st.Built, st.Pending, "every unbuilt far item waits, the ones handed back too")
		assert.False(t, h.s.FarReady())
		assert.Equal(t, int32(5), farBuilds.Load(), "no far item is built on the main goroutine")
	})
}
