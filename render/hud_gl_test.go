package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/hud"
)

// The minimap lands in the top-right corner with its roads, and the pause
// menu dims the frame under a panel.
func TestMinimapAndPauseMenuDraw(t *testing.T) {
	r := glRenderer(t)
	f := cityFrame(city(t, r, farCamera.Add(mgl64.Vec3{0, -0.5, 0})))
	plain, _ := draw(t, r, f)

	// One road straight through the car from west to east, north-up.
	f.Minimap = &hud.Minimap{Range: 100, Roads: []float32{-500, 0, 500, 0}}
	img, st := draw(t, r, f)
	require.Zero(t, st.HUDDropped)
	var l hud.Layout
	l.Scale = hud.ScaleFor(testH)
	x0, y0, side := l.MapRect(testW, testH)
	cy := int(y0 + side/2)
	road := rgb(img, int(x0+side/4), cy)
	back := rgb(img, int(x0+side/4), int(y0+side/4))
	assert.Greater(t, road[0], 150, "road pixels in the map: %v", road)
	assert.Less(t, back[0], 90, "the map's dark panel: %v", back)
	far := rgb(img, testW/4, testH*3/4)
	assert.Equal(t, rgb(plain, testW/4, testH*3/4), far, "the rest of the frame is untouched")
	writePNG(t, "minimap.png", img)

	// The menu dims what is outside its panel.
	f.Minimap = nil
	f.Menu = &hud.Menu{Title: "PAUSED", Items: []string{"RESUME", "QUIT"}, Hint: "ESC"}
	img, _ = draw(t, r, f)
	p, m := rgb(plain, 4, testH-4), rgb(img, 4, testH-4)
	assert.Less(t, m[0]+m[1]+m[2], (p[0]+p[1]+p[2])*3/4, "dimmed: plain %v menu %v", p, m)
	writePNG(t, "menu.png", img)
	f.Menu = nil
}

// The player's HUD: the speed's digits in the bottom-right corner, and the
// notice line over a menu, not dimmed by it.
func TestPlayerHUDDraws(t *testing.T) {
	r := glRenderer(t)
	f := cityFrame(city(t, r, farCamera.Add(mgl64.Vec3{0, -0.5, 0})))
	f.Player = &hud.Player{Speed: "888", Unit: "KM/H", Clock: "17:30", Notice: "SAVED"}
	defer func() { f.Player, f.Menu = nil, nil }()
	img, st := draw(t, r, f)
	require.Zero(t, st.HUDDropped)
	writePNG(t, "player-hud.png", img)
	var l hud.Layout
	l.Scale = hud.ScaleFor(testH)
	count := func(x0, y0, x1, y1 int, want func(c [3]int) bool) (n int) {
		for y := max(y0, 0); y < min(y1, testH); y++ {
			for x := max(x0, 0); x < min(x1, testW); x++ {
				if want(rgb(img, x, y)) {
					n++
				}
			}
		}
		return n
	}
	white := func(c [3]int) bool { return c[0] > 200 && c[1] > 200 && c[2] > 200 }
	accent := func(c [3]int) bool { return c[0] > 200 && c[1] > 140 && c[1] < 220 && c[2] < 100 }
	x0, y0, x1, y1 := l.SpeedRect(testW, testH)
	assert.Greater(t, count(int(x0), int(y0), int(x1), int(y1), white), 100, "the speed's digits, white, in its panel")
	assert.Positive(t, count(0, testH/2, testW, testH, accent), "the notice's accent bar")

	f.Menu = &hud.Menu{Title: "PAUSED", Items: []string{"RESUME"}}
	img, _ = draw(t, r, f)
	writePNG(t, "player-hud-menu.png", img)
	assert.Zero(t, count(int(x0), int(y0), int(x1), int(y1), white), "the speed is under the menu's dimming")
	assert.Positive(t, count(0, testH/2, testW, testH, accent), "the notice is over it")
}
