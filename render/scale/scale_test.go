package scale

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChoose(t *testing.T) {
	target := 1.0 / 60
	cases := []struct {
		name       string
		avg, scale float64
		want       float64
	}{
		{"slow shrinks 12%", target * 1.5, 1, 0.88},
		{"just over 1.25x shrinks", target*1.25 + 1e-9, 1, 0.88},
		{"exactly 1.25x holds", target * 1.25, 0.8, 0.8},
		{"between thresholds holds", target * 1.1, 0.8, 0.8},
		{"exactly 1.035x holds", target * 1.035, 0.8, 0.8},
		{"fast grows 6%", target * 0.5, 0.8, 0.8 * 1.06},
		{"grow capped at 1", target * 0.5, 0.98, 1},
		{"at 1 stays 1", target * 0.5, 1, 1},
		{"shrink floored at 0.55", target * 3, 0.6, 0.55},
		{"at floor stays", target * 3, 0.55, 0.55},
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, Choose(c.avg, target, c.scale), 1e-12, c.name)
	}
}

// run feeds n frames of constant duration and returns the scale.
func run(c *Controller, n int, frame float64) float64 {
	for i := 0; i < n; i++ {
		c.Observe(frame, frame)
	}
	return c.Scale()
}

func TestControllerAdjustsOnlyEveryTwoSeconds(t *testing.T) {
	c := New(Full)
	slow := 1.0 / 30 // 2x the 60 fps target
	// 59 frames of 1/30 s is 1.97 s: no change yet.
	assert.Equal(t, 1.0, run(c, 59, slow))
	// Frame 60 passes 2 s: one step down.
	assert.InDelta(t, 0.88, run(c, 1, slow), 1e-12)
	assert.InDelta(t, 0.88, run(c, 59, slow), 1e-12)
	assert.InDelta(t, 0.88*0.88, run(c, 1, slow), 1e-12)
}

func TestControllerFloorAndRecovery(t *testing.T) {
	c := New(Full)
	// 40 s of very slow frames reaches the floor and stays there.
	assert.InDelta(t, MinScale, run(c, 400, 0.1), 1e-12)
	// Fast frames: the smoothed time needs a few frames to fall, then the
	// scale grows by 6% per 2 s until capped at 1.
	assert.Less(t, run(c, 2000, 1.0/120), 1.0, "growth is slow: 6% per 2 s")
	run(c, 2000, 1.0/120)
	assert.Equal(t, 1.0, c.Scale())
}

func TestControllerProfiles(t *testing.T) {
	// 25 ms frames: too slow for full (16.7 ms target), fine for cool (33 ms),
	// fine-ish for battery (22.2 ms target: 25 < 22.2*1.25 holds).
	frame := 0.025
	full, cool, battery := New(Full), New(Cool), New(Battery)
	battery.scale = 0.9
	assert.Less(t, run(full, 200, frame), 1.0)
	assert.Equal(t, 1.0, run(cool, 200, frame))
	assert.Equal(t, 0.9, run(battery, 200, frame))
}

func TestControllerFrozenAndBadSamples(t *testing.T) {
	c := New(Full)
	c.Frozen = true
	assert.Equal(t, 1.0, run(c, 300, 0.2))
	c2 := New(Full)
	_, changed := c2.Observe(math.NaN(), math.NaN())
	assert.False(t, changed)
	assert.Equal(t, 0.0, c2.Smoothed())
}

func TestSmoothing(t *testing.T) {
	c := New(Full)
	c.Observe(0.01, 0.01)
	assert.InDelta(t, 0.01, c.Smoothed(), 1e-12)
	c.Observe(0.01, 0.11)
	assert.InDelta(t, 0.02, c.Smoothed(), 1e-12)
	c.Observe(0.01, 50) // a stall is clamped to 1 s
	assert.InDelta(t, 0.02+0.1*(1-0.02), c.Smoothed(), 1e-12)
}

func TestParseProfile(t *testing.T) {
	for _, name := range []string{"full", "cool", "battery", "FULL"} {
		p, err := ParseProfile(name)
		require.NoError(t, err)
		assert.NotZero(t, p.TargetFPS)
	}
	_, err := ParseProfile("turbo")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "full, cool, battery")
	assert.Equal(t, 60.0, Full.TargetFPS)
	assert.Equal(t, 1.5, Full.MaxPixelRatio)
	assert.Equal(t, 1.0, Cool.MaxPixelRatio)
	assert.Equal(t, 30.0, Cool.TargetFPS)
	assert.Less(t, Cool.ShadowSize, Full.ShadowSize)
	assert.Equal(t, 45.0, Battery.CapFPS)
}

func TestTargetSize(t *testing.T) {
	w, h := TargetSize(1280, 720, 1280, 720, 1.5, 1)
	assert.Equal(t, [2]int{1280, 720}, [2]int{w, h})
	w, h = TargetSize(1280, 720, 1280, 720, 1.5, 0.55)
	assert.Equal(t, [2]int{704, 396}, [2]int{w, h})
	// A 2x HiDPI framebuffer capped at 1.5 pixel ratio.
	w, h = TargetSize(2560, 1440, 1280, 720, 1.5, 1)
	assert.Equal(t, [2]int{1920, 1080}, [2]int{w, h})
	w, h = TargetSize(2560, 1440, 1280, 720, 1, 1)
	assert.Equal(t, [2]int{1280, 720}, [2]int{w, h})
	w, h = TargetSize(0, 0, 0, 0, 1, 1)
	assert.Equal(t, [2]int{1, 1}, [2]int{w, h})
}
