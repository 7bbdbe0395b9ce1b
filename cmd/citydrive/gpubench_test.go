//go:build cgo

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/gpubench"
)

// A short gpubench run (this test binary as citydrive, so GL is on its
// main thread) reports every variant with every pass, the floor, and the
// ratio of the two; llvmpipe's figures mean nothing, their shape does.
func TestGPUBenchReportsEveryPassFloorAndRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the game for a few seconds")
	}
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run -a")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "gpubench", "-json", "-width", "320", "-height", "200", "-after", "2s",
		"-frames", "3", "-rounds", "2", "-warmup", "0", "-variants", "base; prepass=off ;direct,lean")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	var rep gpubench.Report
	require.NoError(t, json.Unmarshal(out, &rep), string(out))

	assert.Equal(t, 320, rep.Setup.TargetW, "render scale 1")
	assert.Equal(t, 3, rep.Setup.Frames)
	assert.Equal(t, 1+2*4, rep.Setup.DrawsPerSwap)
	assert.Positive(t, rep.Setup.Busy, "the GPU's share of the wall time")
	assert.Equal(t, 3*2, rep.Floor.Frames, "a floor frame each round of each frame")
	assert.Positive(t, rep.Floor.Total)
	assert.InDelta(t, rep.Floor.Total, rep.Floor.Clear+rep.Floor.Triangle+rep.Floor.Blit, rep.Floor.Total*0.5+0.5)
	require.Len(t, rep.Variants, 3)
	for i, name := range []string{"base", "prepass=off", "direct,lean"} {
		v := rep.Variants[i]
		assert.Equal(t, name, v.Name)
		assert.Equal(t, 3*2, v.Draws, "%s: every draw logged", name)
		for _, p := range gpubench.Passes {
			assert.Contains(t, v.Passes, p, "%s: pass %s", name, p)
		}
		assert.Positive(t, v.Total)
		assert.InDelta(t, v.Total/rep.Floor.Total, v.Ratio, 1e-9)
	}
	assert.Zero(t, rep.Variants[1].Passes["depth"], "no pre-pass")
	assert.Zero(t, rep.Variants[1].Passes["depth far"])
	assert.NotContains(t, rep.Notes, "direct,lean: drawn through the target (the render scale is not 1, or the window has no depth buffer)")
	assert.Contains(t, rep.Notes, "software rasteriser (llvmpipe): the times are the CPU's, not a GPU's")
}
