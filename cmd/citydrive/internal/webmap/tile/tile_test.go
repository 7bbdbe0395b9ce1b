package tile

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// A tile is a pure function of the seed and its spec, holds roads, lots
// and water, and costs little enough to draw on the page's main thread.
func TestTileIsPureAndHasTheCity(t *testing.T) {
	s := Spec{X0: -205, Z0: -400, Scale: 1.6, Size: 256}
	r := New(412)
	start := time.Now()
	a := append([]byte(nil), r.Draw(s, nil)...)
	t.Logf("256² tile at 1.6 m/px: %v (native)", time.Since(start))
	b := New(412).Draw(s, nil)
	assert.True(t, bytes.Equal(a, b), "the same tile twice differs")
	count := map[[3]uint8]int{}
	for i := 0; i < len(a); i += 4 {
		count[[3]uint8{a[i], a[i+1], a[i+2]}]++
		require.Equal(t, byte(255), a[i+3])
	}
	assert.Greater(t, count[Road], 500, "road pixels")
	assert.Greater(t, count[building]+count[downtownB], 100, "building footprints")
	other := New(7).Draw(s, nil)
	assert.False(t, bytes.Equal(a, other), "another seed, another city")
}

func TestTrafficAroundAPoint(t *testing.T) {
	tr := NewTraffic(412, 17.5)
	vs := tr.At(1.78e9, world.Vec2{X: 0, Z: -172}, 400)
	assert.NotEmpty(t, vs)
	n := len(vs)
	again := NewTraffic(412, 17.5).At(1.78e9, world.Vec2{X: 0, Z: -172}, 400)
	assert.Len(t, again, n, "traffic is a function of seed, hour and time")
	for _, v := range vs {
		assert.LessOrEqual(t, v.Pos.Sub(world.Vec2{X: 0, Z: -172}).Len(), 400.0+1)
	}
}
