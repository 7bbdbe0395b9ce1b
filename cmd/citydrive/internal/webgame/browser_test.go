package webgame_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds a headless-capable Chromium (Debian's package: cmd/deps.sh).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: cmd/deps.sh installs Debian's chromium package for this test")
	return ""
}

// page is static/ with a freshly built game.wasm and Go's wasm_exec.js,
// so the test never serves a stale module.
func page(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("static", "index.html"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), b, 0o644))
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "game.wasm"), "./wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "building game.wasm: %s", out)
	b, err = os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wasm_exec.js"), b, 0o644))
	return dir
}

// browser starts headless Chromium with WebGL2 on SwiftShader, its
// software rasteriser (no GPU here); errs collects console errors.
func browser(t *testing.T, width, height int) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.WindowSize(width, height),
		chromedp.Flag("use-gl", "angle"), chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true), chromedp.Flag("ignore-gpu-blocklist", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	require.NoError(t, chromedp.Do(ctx))
	var mu sync.Mutex
	var errs []string
	done := make(chan struct{})
	msgs := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancelB(); cancelA(); <-done })
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

func eval[T any](ctx context.Context, js string) (T, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// pageStats is window.citydrive.stats.
type pageStats struct {
	Frames                 int
	FPS                    float64
	FirstFrameMs           float64
	FrameMsP50, FrameMsP99 float64
	Builds, Stale, Slots   int
	MultiDraws, Draws      int
	Vertices               int
	Km                     float64
	Fallback               string
	// beyond the slots (render/webgl's PublishStats)
	Vehicles, Trees                int
	TerrainChunks, TerrainResident int
	FarSlots, ShadowMaps           int
	ShadowVertices, FarVertices    int
	TerrainQuads                   int
	RenderScale                    float64
	TargetWidth, TargetHeight      int
}

// driveFrames: frames of autopilot driving the test waits for (seconds
// on SwiftShader, which draws the city at a few frames a second).
const driveFrames = 90

func TestBrowserDrivesTheCityInWebGL2(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and builds the game's WebAssembly module")
	}
	chromium(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(page(t))))
	defer srv.Close()
	ctx, errs := browser(t, 960, 540)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?seed=412&autopilot=1")))
	st, err := eval[pageStats](ctx, `new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const c = window.citydrive;
			if (c.error) return rej(new Error(c.error));
			if (performance.now() - t0 > 150000) return rej(new Error("not driving after 150 s: " + JSON.stringify(c.stats) + " hud: " + document.getElementById("hud").textContent));
			if (c.stats.frames >= `+fmt.Sprint(driveFrames)+`) return res({Frames: c.stats.frames, FPS: c.stats.fps,
				FirstFrameMs: c.stats.firstFrameMs, FrameMsP50: c.stats.frameMsP50, FrameMsP99: c.stats.frameMsP99,
				Builds: c.stats.builds, Stale: c.stats.stale, Slots: c.stats.slots, MultiDraws: c.stats.multiDraws,
				Draws: c.stats.draws, Vertices: c.stats.vertices, Km: c.stats.km, Fallback: c.stats.fallback,
				Vehicles: c.stats.vehicles, Trees: c.stats.trees, TerrainChunks: c.stats.terrainChunks,
				TerrainResident: c.stats.terrainResident, FarSlots: c.stats.farSlots, ShadowMaps: c.stats.shadowMaps,
				ShadowVertices: c.stats.shadowVertices, FarVertices: c.stats.farVertices, TerrainQuads: c.stats.terrainQuads,
				RenderScale: c.stats.renderScale, TargetWidth: c.stats.targetWidth, TargetHeight: c.stats.targetHeight});
			setTimeout(poll, 200);
		})();
	})`)
	if err != nil {
		t.Logf("console errors: %v", errs())
	}
	require.NoError(t, err)
	t.Logf("page stats: %+v", st)
	assert.Empty(t, errs(), "the page logged errors")
	assert.Greater(t, st.Builds, 50, "the streamer built the city")
	assert.Greater(t, st.Slots, 50)
	assert.Greater(t, st.Vertices, 10000, "the main pass drew slot geometry")
	assert.Greater(t, st.Km, 0.0, "the autopilot drove")
	assert.Empty(t, st.Fallback, "the build worker stayed healthy")
	assert.Greater(t, st.Vehicles, 0, "traffic vehicles were drawn")
	assert.Greater(t, st.TerrainChunks, 0, "voxel ground chunks were drawn")
	assert.GreaterOrEqual(t, st.TerrainResident, st.TerrainChunks)
	assert.Greater(t, st.FarSlots, 0, "the far tier was drawn")
	assert.Greater(t, st.ShadowMaps, 0, "the sun's shadow map was drawn")
	assert.Greater(t, st.ShadowVertices, 1000, "slots cast shadows")
	// SwiftShader draws a few frames a second, far under the 60 fps the
	// controller aims at: the drawing buffer has shrunk below the canvas.
	assert.Less(t, st.RenderScale, 1.0, "the adaptive render scale came down")
	assert.GreaterOrEqual(t, st.RenderScale, 0.55, "not below its floor")
	assert.Less(t, st.TargetWidth, 960, "the drawing buffer is smaller than the canvas")
	assert.InDelta(t, 960*st.RenderScale, float64(st.TargetWidth), 1.5, "the canvas's width times the scale")

	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	s := spread(img)
	t.Logf("screenshot: %d colours (16-level bins); top rows sky %.0f %%, bottom third grey/dark %.0f %%", s.colours, 100*s.skyTop, 100*s.groundBottom)
	assert.Greater(t, s.colours, 40, "a city, not one colour")
	// the far tier's towers stand against much of it (0.5 before the far tier;
	// 7-70 % since, as the drive ends among towers or not): a blank or
	// unlit frame has none
	assert.Greater(t, s.skyTop, 0.03, "sky across the top")
	assert.Greater(t, s.groundBottom, 0.2, "road, lots and buildings at the bottom, not sky")
	if path := os.Getenv("WEBGAME_SCREENSHOT"); path != "" {
		require.NoError(t, os.WriteFile(path, shot, 0o644))
	}

	// The engine sound waits for a gesture (browsers allow audio only
	// from one); a click starts it and the frames keep it fed.
	before, err := eval[pageAudio](ctx, readAudio)
	require.NoError(t, err)
	assert.Zero(t, before.Chunks, "no sound before a gesture")
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(100, 100)))
	a, err := eval[pageAudio](ctx, `new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const a = window.citydrive.audio;
			if (performance.now() - t0 > 60000) return rej(new Error("no sound 60 s after the click: " + JSON.stringify(a)));
			if (a.state === "running" && a.chunks >= 5) return res(`+readAudio+`);
			setTimeout(poll, 100);
		})();
	})`)
	require.NoError(t, err)
	t.Logf("audio after the click: %+v", a)
	assert.Equal(t, "running", a.State)
}

// pageAudio is window.citydrive.audio.
type pageAudio struct {
	State        string
	Chunks, Gaps int
}

const readAudio = `(() => { const a = window.citydrive.audio; return {State: a.state || "", Chunks: a.chunks || 0, Gaps: a.gaps || 0}; })()`

type imageSpread struct {
	colours      int     // distinct colours at 16 levels a channel
	skyTop       float64 // share of the top tenth that is blue-ish (sky)
	groundBottom float64 // share of the bottom third that is not (city)
}

func spread(img image.Image) imageSpread {
	b := img.Bounds()
	bins := map[uint32]bool{}
	var top, topSky, bot, botGround int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			bins[(r>>4)<<8|(g>>4)<<4|bl>>4] = true
			sky := bl > r+10 && bl > 120
			switch {
			case y < b.Min.Y+b.Dy()/10:
				top++
				if sky {
					topSky++
				}
			case y > b.Max.Y-b.Dy()/3:
				bot++
				if !sky {
					botGround++
				}
			}
		}
	}
	return imageSpread{colours: len(bins), skyTop: float64(topSky) / float64(max(top, 1)), groundBottom: float64(botGround) / float64(max(bot, 1))}
}
