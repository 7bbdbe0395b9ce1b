package hud

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// extent is the box around every vertex laid out.
func extent(v []float32) (x0, y0, x1, y1 float32) {
	x0, y0, x1, y1 = 1e9, 1e9, -1e9, -1e9
	for i := 0; i+1 < len(v); i += VertexFloats {
		x0, x1 = min(x0, v[i]), max(x1, v[i])
		y0, y1 = min(y0, v[i+1]), max(y1, v[i+1])
	}
	return
}

// The speed sits in the bottom-right corner, the time of day under the
// minimap, both on screen at every size; drawing allocates nothing.
func TestPlayerHUDLayout(t *testing.T) {
	p := &Player{Speed: "123", Unit: "KM/H", Clock: "17:30"}
	for _, size := range [][2]int{{1280, 720}, {1920, 1080}, {640, 360}, {3840, 2160}} {
		w, h := size[0], size[1]
		l := Layout{Scale: ScaleFor(h)}
		_, my, side := l.MapRect(w, h)
		l.PlayerHUD(w, h, p, my+side)
		x0, y0, x1, y1 := extent(l.V)
		assert.True(t, x0 >= 0 && y0 >= 0 && x1 <= float32(w) && y1 <= float32(h), "%dx%d: %v %v %v %v", w, h, x0, y0, x1, y1)
		sx0, sy0, sx1, sy1 := l.SpeedRect(w, h)
		assert.Greater(t, sx0, float32(w)*0.6, "%dx%d: right", w, h)
		assert.Greater(t, sy0, float32(h)*0.75, "%dx%d: bottom", w, h)
		assert.Equal(t, float32(w)-8*l.Scale, sx1)
		assert.Equal(t, float32(h)-8*l.Scale, sy1)
		assert.Greater(t, y1, my+side, "the clock is under the map")
	}
	l := Layout{Scale: 2, V: make([]float32, 0, 1<<14)}
	assert.Zero(t, testing.AllocsPerRun(10, func() {
		l.V = l.V[:0]
		l.PlayerHUD(1280, 720, p, 210)
		l.Notice(1280, 720, &Player{Speed: "1", Notice: "SCREENSHOT SAVED: /HOME/ME/PICTURES/CITYDRIVE.PNG"})
	}))
}

// The notice is one line, centred clear of the speed's panel, cut where
// it would run under it.
func TestNoticeLayout(t *testing.T) {
	l := Layout{Scale: 2}
	l.Notice(1280, 720, &Player{Speed: "1", Notice: ""})
	assert.Empty(t, l.V)
	l.Notice(1280, 720, &Player{Speed: "1", Notice: "SETTINGS SAVED"})
	x0, _, x1, y1 := extent(l.V)
	assert.InDelta(t, 640, (x0+x1)/2, 1, "centred")
	assert.Equal(t, float32(720-16), y1, "at the bottom")
	assert.Len(t, l.V, (2+13)*6*VertexFloats, "panel, accent bar, glyphs")

	l = Layout{Scale: 2}
	long := ""
	for range 40 {
		long += "EDIT "
	}
	l.Notice(1280, 720, &Player{Speed: "1", Notice: long})
	sx0, _, _, _ := l.SpeedRect(1280, 720)
	x0, _, x1, _ = extent(l.V)
	assert.Less(t, x1, sx0, "clear of the speed")
	assert.Greater(t, x0, 1280-sx0, "as far from the left edge")

	l = Layout{Scale: 1}
	l.Notice(200, 150, &Player{Speed: "1", Notice: "SERVER LOST: RECONNECTING"})
	x0, _, x1, _ = extent(l.V)
	assert.True(t, x0 >= 0 && x1 <= 200, "a narrow screen: the whole width, %v..%v", x0, x1)
}
