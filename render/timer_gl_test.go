package render

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
)

// Timer queries: results arrive a few frames late without stalling, and
// after a finish every pass that drew has a positive time that sums up.
func TestGPUTimesPerPass(t *testing.T) {
	r := glRenderer(t)
	g := city(t, r, farCamera.Add(mgl64.Vec3{3, -0.5, 2}))
	f := cityFrame(g)
	f.HUD = []string{"GPU TIMER TEST"}
	var got GPUTimes
	onMain(func() {
		for i := 0; i < timerLag+2; i++ {
			_ = r.Draw(f)
			r.Present()
		}
		got = r.GPUTimes()
	})
	assert.True(t, got.Valid, "results arrive within a few frames")
	var last GPUTimes
	onMain(func() {
		f.Camera.Position = f.Camera.Position.Add(mgl64.Vec3{0, 0, -20}) // shadow refresh
		target := f.Camera.Position.Add(mgl64.Vec3{0, -1.2, -20})
		f.Camera.Target = &target
		_ = r.Draw(f)
		last = r.AwaitGPUTimes()
	})
	assert.True(t, last.Valid)
	assert.Greater(t, last.Frame, got.Frame)
	assert.Greater(t, last.Main, time.Duration(0))
	assert.Greater(t, last.Depth, time.Duration(0))
	assert.Greater(t, last.HUD, time.Duration(0))
	assert.Greater(t, last.Shadow, time.Duration(0), "the shadow map was refreshed this frame")
	assert.Equal(t, last.Shadow+last.Depth+last.Main+last.Terrain+last.HUD, last.Total)
	assert.Contains(t, last.String(), "SHADOW")
	t.Log(last)
}
