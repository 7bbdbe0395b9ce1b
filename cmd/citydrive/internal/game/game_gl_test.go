//go:build cgo

// The GL tests (a real window) need cgo; the rest of the package does not.

package game

import (
	"image"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/render"
	"citydrive/roadgraph/world"
)

// GL must run on the main OS thread: TestMain keeps the main goroutine
// serving GL work while the tests run on others.
var mainQueue = make(chan func())

func TestMain(m *testing.M) {
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-mainQueue:
			f()
		case code := <-done:
			os.Exit(code)
		}
	}
}

// The renderer is a Display with every optional capability: these would
// otherwise fail silently (a type assertion that no longer matches).
var (
	_ Display       = (*render.Renderer)(nil)
	_ FarSinker     = (*render.Renderer)(nil)
	_ GPUTimer      = (*render.Renderer)(nil)
	_ StatsReporter = (*render.Renderer)(nil)
	_ Mouser        = (*render.Renderer)(nil)
)

func onMain(f func()) {
	ch := make(chan struct{})
	mainQueue <- func() { defer close(ch); f() }
	<-ch
}

// pixel classes of a daylight chase-camera frame: blue sky anywhere, grey
// asphalt and pavement in the lower half, and above the horizon whatever is
// neither sky nor foliage: facades, windows, roofs.
type classes struct{ sky, road, building, n int }

func classify(img *image.RGBA) (classes, int) {
	var c classes
	colours := map[[3]uint8]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		lower := y >= (b.Min.Y+b.Max.Y)/2
		for x := b.Min.X; x < b.Max.X; x++ {
			p := img.RGBAAt(x, y)
			r, g, bl := int(p.R), int(p.G), int(p.B)
			colours[[3]uint8{p.R >> 3, p.G >> 3, p.B >> 3}] = true
			c.n++
			grey := abs(r-g) < 14 && abs(g-bl) < 14 && r > 20 && r < 170
			green := g > r+15 && g > bl+10
			switch {
			case bl > r+25 && bl >= g && !lower:
				c.sky++
			case lower && grey:
				c.road++
			case !lower && !green:
				c.building++
			}
		}
	}
	return c, len(colours)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// After the initial world is built, the frame holds sky, road and building
// colours in plausible proportions: not blank, not one colour.
func TestInitialWorldFrameLooksLikeACity(t *testing.T) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run -a -s \"-screen 0 1280x720x24\"")
	}
	const seed = 7
	w := world.New(seed)
	cfg := buildworkers.DefaultConfig()
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	// Start downtown: the nearest junction of the lattice in a dense district.
	var start world.Vec2
	found := false
	for r := int32(0); r < 30 && !found; r++ {
		for i := -r; i <= r && !found; i++ {
			for j := -r; j <= r && !found; j++ {
				if p, ok := w.Junction(world.Cell{I: i, J: j}); ok && w.District(p.X, p.Z) == world.Downtown {
					start, found = p, true
				}
			}
		}
	}
	require.True(t, found, "a downtown junction")
	// Only GL work runs on the main goroutine: t.Skip and require end the
	// test's own goroutine, so they stay out here.
	var img *image.RGBA
	var openErr, err error
	var ready bool
	onMain(func() {
		ropt := render.Options{Width: 640, Height: 360, Hidden: true, FixedScale: 1, Layout: cfg.Layout()}
		win, e := render.Open(ropt)
		if e != nil {
			openErr = e
			return
		}
		s, e := New(Options{
			Streaming: cfg, World: w, TimeOfDay: 14, Start: start, Display: win,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard,
		})
		if e != nil {
			err = e
			return
		}
		defer s.Close()
		if err = s.Load(); err != nil {
			return
		}
		ready = s.stream.Ready()
		s.SetHUD(false)
		s.setCamera()
		s.buildFrame()
		gl := s.r.(*render.Renderer)
		if err = gl.Draw(&s.frame); err != nil {
			return
		}
		img, err = gl.Screenshot()
		if dir := os.Getenv("GAME_TEST_OUT"); dir != "" && err == nil {
			_ = gl.SaveScreenshot(dir + "/initial-world.png")
		}
	})
	if openErr != nil {
		t.Skipf("no GL 4.1 core context here: %v", openErr)
	}
	require.NoError(t, err)
	require.True(t, ready, "Load returns once the initial world is built")
	c, distinct := classify(img)
	frac := func(v int) float64 { return float64(v) / float64(c.n) }
	t.Logf("sky %.2f road %.2f building %.2f, %d distinct colours", frac(c.sky), frac(c.road), frac(c.building), distinct)
	assert.Greater(t, distinct, 100, "not blank, not one colour")
	assert.Greater(t, frac(c.sky), 0.02, "some sky above the city")
	assert.Less(t, frac(c.sky), 0.45, "not just sky")
	assert.Greater(t, frac(c.road), 0.15, "road under the car")
	assert.Greater(t, frac(c.building), 0.1, "buildings beside the road")
}
