package gpubench

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/scene"
)

const msd = time.Millisecond

func frame(clear, depth, depthFar, main, mainFar, rest, sky, hud time.Duration) scene.GPUTimes {
	g := scene.GPUTimes{Valid: true, Clear: clear, DepthFar: depthFar, Depth: clear + depth + depthFar,
		MainFar: mainFar, Rest: rest, Sky: sky, Main: main + mainFar + rest + sky, HUD: hud}
	g.Total = g.Depth + g.Main + g.HUD
	return g
}

func TestReportMediansFloorAndRatio(t *testing.T) {
	c := NewCollector([]string{"base", "prepass=off"})
	for _, k := range []time.Duration{1, 2, 3} { // medians: the middle one
		c.Draw(0, frame(k*100*time.Microsecond, k*msd/2, k*msd/10, k*msd, k*msd/5, k*msd/20, k*msd/50, k*msd/4))
		c.Draw(1, frame(k*100*time.Microsecond, 0, 0, k*msd, k*msd/5, 0, 0, k*msd/4))
		c.Floor(scene.FloorTimes{Clear: k * msd / 4, Triangle: k * msd / 8, Blit: k * msd / 8, Total: k * msd / 2})
	}
	c.Prime(scene.GPUTimes{Shadow: 0})
	c.Prime(scene.GPUTimes{Shadow: 2 * msd, Total: 4 * msd})
	c.Prime(scene.GPUTimes{Shadow: 0})
	c.Prime(scene.GPUTimes{Shadow: 2 * msd, Total: 4 * msd})
	c.Wall(100 * msd)
	r := c.Report(Setup{Renderer: "test", Frames: 4})
	busy := 0.0 // every draw's, floor's and first draw's GPU time, over the wall
	for _, k := range []float64{1, 2, 3} {
		busy += k*(0.1+0.5+0.1+1+0.2+0.05+0.02+0.25) + k*(0.1+1+0.2+0.25) + k*0.5
	}
	assert.InDelta(t, (busy+8)/100, r.Setup.Busy, 1e-9)

	assert.InDelta(t, 1.0, r.Floor.Total, 1e-9)
	assert.InDelta(t, 0.5, r.Floor.Clear, 1e-9)
	assert.Equal(t, 3, r.Floor.Frames)
	assert.Equal(t, 2, r.Shadow.Refreshed)
	assert.InDelta(t, 2.0, r.Shadow.WhenDrawnMS, 1e-9)
	assert.InDelta(t, 1.0, r.Shadow.PerFrameMS, 1e-9, "2 ms on half the frames")
	require.Len(t, r.Variants, 2)
	b := r.Variants[0]
	assert.Equal(t, "base", b.Name)
	assert.Equal(t, 3, b.Draws)
	for _, p := range Passes {
		assert.Contains(t, b.Passes, p, "every pass reported")
	}
	assert.InDelta(t, 0.2, b.Passes["clear"], 1e-9)
	assert.InDelta(t, 1.0, b.Passes["depth"], 1e-9, "clear and far taken out of the depth pass")
	assert.InDelta(t, 0.2, b.Passes["depth far"], 1e-9)
	assert.InDelta(t, 2.0, b.Passes["main"], 1e-9, "far, trees and sky taken out of main")
	assert.InDelta(t, 0.4, b.Passes["main far"], 1e-9)
	assert.InDelta(t, 0.5, b.Passes["blit+HUD"], 1e-9)
	sum := 0.0
	for _, p := range Passes {
		sum += b.Passes[p]
	}
	assert.InDelta(t, sum+1.0, b.Total, 1e-9, "the columns add up to the total, the shadow map's share included")
	assert.InDelta(t, b.Total/r.Floor.Total, b.Ratio, 1e-9)
	assert.Zero(t, r.Variants[1].Passes["depth"])
	assert.Less(t, r.Variants[1].Total, b.Total)

	var out bytes.Buffer
	require.NoError(t, r.Table(&out))
	for _, want := range []string{"floor (3 frames): clear 0.500 + triangle 0.250 + blit 0.250 = 1.000", "prepass=off", "ratio", "main far", "shadow map: 2.000 when refreshed (2 of 4 frames)", "GPU busy "} {
		assert.Contains(t, out.String(), want)
	}
	out.Reset()
	require.NoError(t, r.JSON(&out))
	var back Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	assert.Equal(t, r, back)
}

// No floor frames: no ratio (never a division by zero).
func TestReportWithoutFloorHasNoRatio(t *testing.T) {
	c := NewCollector([]string{"base"})
	c.Draw(0, frame(msd, msd, 0, msd, 0, 0, 0, msd))
	r := c.Report(Setup{})
	assert.Zero(t, r.Variants[0].Ratio)
	assert.InDelta(t, 4.0, r.Variants[0].Total, 1e-9)
}

// Wall-clock times: per variant the median over frames, and the median of
// the ratios to the first variant frame by frame (not the ratio of the
// medians: frames differ more than variants do).
func TestReportWallTimesAndSameFrameRatio(t *testing.T) {
	c := NewCollector([]string{"a", "b"})
	c.WallFrame([]float64{10, 9})
	c.WallFrame([]float64{40, 20}) // a slow frame: b at half of a
	c.WallFrame([]float64{20, 18})
	c.WallFrame([]float64{1}) // not one a variant: left out
	r := c.Report(Setup{})
	require.Len(t, r.Variants, 2)
	assert.Equal(t, 20.0, r.Variants[0].WallMS)
	assert.Equal(t, 1.0, r.Variants[0].WallRatio)
	assert.Equal(t, 18.0, r.Variants[1].WallMS)
	assert.InDelta(t, 0.9, r.Variants[1].WallRatio, 1e-9, "median of 0.9, 0.5, 0.9")
	var b bytes.Buffer
	require.NoError(t, r.Table(&b))
	assert.Contains(t, b.String(), "wall clock")

	none := NewCollector([]string{"a"}).Report(Setup{})
	assert.Zero(t, none.Variants[0].WallMS)
	b.Reset()
	require.NoError(t, none.Table(&b))
	assert.NotContains(t, b.String(), "wall clock", "no wall times: no section")
}
