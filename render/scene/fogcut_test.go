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

func TestFogRange(t *testing.T) {
	for _, c := range []struct {
		far        float32
		wet        bool
		scale      float32
		start, end float32
	}{
		{3000, false, 0, 1050, 2910},
		{3000, false, 1, 1050, 2910},
		{3000, true, 0, 450, 2910},
		{3000, false, 0.6, 630, 1746},
		{3000, true, 0.6, 270, 1746},
		{1000, false, 0.5, 175, 485},
		{3000, false, 1.5, 1050, 2910}, // out of (0, 1): as built
		{3000, false, -1, 1050, 2910},
	} {
		s, e := FogRange(c.far, c.wet, c.scale)
		assert.InDelta(t, c.start, s, 0.01, "%+v", c)
		assert.InDelta(t, c.end, e, 0.01, "%+v", c)
	}
}
