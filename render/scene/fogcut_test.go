package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The cut distance is where the smoothstep fog reaches FarFogCutFog:
// nearer is thinner fog, farther thicker.
func TestFogCutDistance(t *testing.T) {
	const start, end = 700, 1940
	d := FogCutDistance(start, end)
	assert.Greater(t, d, float32(start))
	assert.Less(t, d, float32(end))
	fog := func(d float32) float32 {
		x := (d - start) / (end - start)
		return x * x * (3 - 2*x)
	}
	assert.InDelta(t, FarFogCutFog, fog(d), 1e-4)
	assert.Less(t, fog(d-5), float32(FarFogCutFog))
}
