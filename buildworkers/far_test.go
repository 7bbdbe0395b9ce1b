package buildworkers

import (
	"io"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// The far tier: the near world is ready before any far build lands, far
// items then fill their own slots (never the near ones) with real coarse
// geometry, within the far slot, and the far reach is kilometres.
func TestFarTierAfterNearAndComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := world.New(412)
		cfg := DefaultConfig()
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
		cfg.NewBuilder = func() Builder { return NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
		near, err := slots.NewCPUBuffer(cfg.Slots)
		require.NoError(t, err)
		farCfg := slots.Config{Slots: cfg.Far.Slots, VertsPerSlot: cfg.Far.VertsPerSlot}
		farBuf, err := slots.NewCPUBuffer(farCfg)
		require.NoError(t, err)
		cfg.Far.Sink = farBuf
		now := time.Now()
		s, err := NewStreamer(cfg, w, near, now)
		require.NoError(t, err)
		defer s.Close()
		car, _ := w.Junction(world.Cell{I: 3, J: 0})
		head := world.Vec2{Z: 1}
		nearReadyAt, farReadyAt := -1, -1
		for f := 0; f < 3000 && farReadyAt < 0; f++ {
			now = now.Add(time.Second / 60)
			s.Update(1.0/60, car, head, now)
			synctest.Wait()
			if nearReadyAt < 0 {
				if s.Ready() {
					nearReadyAt = f
				} else {
					require.Zero(t, s.FarStats().Builds, "no far build before the near world is ready (frame %d)", f)
				}
			}
			if st := s.FarStats(); st.Walks > 0 && st.Pending == 0 && st.Built == st.Used && s.inFlight() == 0 {
				farReadyAt = f
			}
		}
		require.GreaterOrEqual(t, nearReadyAt, 0)
		require.GreaterOrEqual(t, farReadyAt, 0, "far tier complete")
		st := s.FarStats()
		t.Logf("near ready at frame %d, far complete at frame %d: %+v", nearReadyAt, farReadyAt, st)
		assert.Greater(t, st.Items, 100)
		assert.GreaterOrEqual(t, st.Reach.Ahead, 2000.0)
		assert.GreaterOrEqual(t, st.Reach.Behind, 700.0)
		assert.Equal(t, st.Items, st.Used)
		ft := s.FarTable()
		for sl := int32(0); sl < int32(farCfg.Slots); sl++ {
			if ft.Key(sl) == 0 {
				continue
			}
			assert.Equal(t, walker.Far, ft.Item(sl).Kind)
			assert.LessOrEqual(t, int(ft.Count(sl)), farCfg.VertsPerSlot)
			assert.Equal(t, ft.Count(sl), farBuf.Counts[sl])
		}
		// Near slots hold near items only.
		for sl := int32(0); sl < int32(cfg.Slots.Slots); sl++ {
			if k := s.Table().Key(sl); k != 0 {
				assert.NotEqual(t, walker.Far, s.Table().Item(sl).Kind)
			}
		}
	})
}

func TestFarConfigValidate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NewBuilder = func() Builder { return nil }
	cfg.Far.Sink = &slots.CPUBuffer{}
	cfg.Far.Walk.Cost = 0
	assert.Error(t, cfg.Validate())
	cfg.Far = DefaultFarConfig() // no sink: off
	assert.NoError(t, cfg.Validate())
}
