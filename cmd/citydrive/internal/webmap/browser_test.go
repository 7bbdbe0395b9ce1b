package webmap_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/bots"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/mapimg"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
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

var (
	assetsOnce sync.Once
	assetsDir  string
	assetsErr  error
)

// assets is static/ with a freshly built map.wasm and Go's wasm_exec.js,
// so the test never serves a stale module.
func assets(t *testing.T) string {
	t.Helper()
	assetsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "webmap-assets")
		if err != nil {
			assetsErr = err
			return
		}
		assetsDir = dir
		for _, f := range []string{"index.html", "map.js", "style.css"} {
			b, err := os.ReadFile(filepath.Join("static", f))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			if err != nil {
				assetsErr = err
				return
			}
		}
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "map.wasm"), "./wasm")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			assetsErr = fmt.Errorf("building map.wasm: %v\n%s", err, out)
			return
		}
		b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "wasm_exec.js"), b, 0o644)
		}
		assetsErr = err
	})
	require.NoError(t, assetsErr)
	return assetsDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if assetsDir != "" {
		_ = os.RemoveAll(assetsDir)
	}
	os.Exit(code)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

const testSeed = 412

// rig is a server with the web map, as `citydrive server -web` runs it.
type rig struct {
	h      *host.Host
	web    *webmap.Server
	access *webmap.Access
	token  string
	data   string
}

func startRig(t *testing.T, data string) *rig {
	t.Helper()
	access, err := webmap.OpenAccess(data)
	require.NoError(t, err)
	tuning := netsync.DefaultServerConfig().Tuning
	tuning.SpawnRadius = 0 // bots start where they like (citydrive bots' advice)
	tuning.MaxRadius = 3
	tuning.MaxPlayersPerAddr, tuning.MaxHandshakesPerAddr = 64, 64 // every bot is on loopback
	h, err := host.Start(context.Background(), host.Options{Addr: "127.0.0.1:0", DataDir: data, Seed: testSeed,
		Tuning: tuning, Logger: quiet(), Gate: access})
	require.NoError(t, err)
	token, _, err := webmap.LoadOrCreateToken(data)
	require.NoError(t, err)
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: h.Server(), Access: access,
		Token: token, Edited: h.World().EditedChunks, Ready: h.Ready, Assets: os.DirFS(assets(t)),
		Interval: 200 * time.Millisecond, Logger: quiet()})
	require.NoError(t, err)
	r := &rig{h: h, web: web, access: access, token: token, data: data}
	t.Cleanup(r.close)
	return r
}

func (r *rig) close() {
	_ = r.web.Close()
	_ = r.h.Close()
}

// browser starts headless Chromium; errs collects console errors and
// uncaught exceptions.
func browser(t *testing.T, width, height int) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(width, height))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	require.NoError(t, chromedp.Do(ctx)) // starts the browser: the console has a target to follow
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
				errs = append(errs, m.String()+" "+m.URL)
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancelB(); cancelA(); <-done })
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// eval runs JavaScript (awaiting a promise) and decodes its value.
func eval[T any](ctx context.Context, js string) (T, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

type marker struct {
	ID     uint32
	X, Z   float64
	H      float64 // heading, radians
	PX, PY float64
	// W, Hgt: an area to avoid from PX-14, PY-24 (0: a marker and its label)
	W, Hgt float64
}

func TestBrowserMapShowsBotsAndAdminWorks(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test starts Chromium, a server and 20 bots")
	}
	chromium(t)
	r := startRig(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 20
	botsDone := make(chan bots.Report, 1)
	go func() {
		rep, _ := bots.Run(ctx, bots.Options{Addr: r.h.DialAddr(), Fingerprint: r.h.Fingerprint(), Seed: testSeed,
			N: n, Duration: 10 * time.Minute, Speed: 1.5, Radius: 2, EditEvery: 3 * time.Second, Spread: 140, Logger: quiet()})
		botsDone <- rep
	}()
	defer func() { cancel(); <-botsDone }()
	snap := waitPlayers(t, r, n)
	lo, hi := world.Vec2{X: math.Inf(1), Z: math.Inf(1)}, world.Vec2{X: math.Inf(-1), Z: math.Inf(-1)}
	for _, p := range snap.Players {
		lo.X, lo.Z, hi.X, hi.Z = min(lo.X, p.X), min(lo.Z, p.Z), max(hi.X, p.X), max(hi.Z, p.Z)
	}
	cx, cz := (lo.X+hi.X)/2, (lo.Z+hi.Z)/2
	// every bot in view (the canvas is about 970×700 px), the lots visible
	mpp := math.Max(1.2, math.Max((hi.X-lo.X)/800, (hi.Z-lo.Z)/520))

	bctx, errs := browser(t, 1280, 860)
	url := fmt.Sprintf("%s#x=%.1f&z=%.1f&mpp=%g", r.web.URL(), cx, cz, mpp)
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(url)))
	// Loaded: the module ran, every visible tile is drawn, every bot has a marker.
	_, err := eval[bool](bctx, `new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const s = window.citydrive && window.citydrive.state;
			if (s && s.ready && !s.pending && s.tiles > 0 && window.citydrive.drawn.length >= `+fmt.Sprint(n)+`) return res(true);
			if (performance.now() - t0 > 60000) return rej(new Error("map not ready: " + JSON.stringify(s && {ready: s.ready, pending: s.pending, cars: s.cars.size})));
			setTimeout(poll, 100);
		})();
	})`)
	require.NoError(t, err)
	assert.Empty(t, errs(), "the page logged errors")

	// 20 markers within 5 m of where the server has the bots' cars.
	ms, err := eval[[]marker](bctx, `window.citydrive.drawn.map(d => ({ID: d.id, X: d.x, Z: d.z, H: d.h, PX: d.px, PY: d.py}))`)
	require.NoError(t, err)
	snap, err = r.h.Server().Snapshot(context.Background(), 0)
	require.NoError(t, err)
	byID := map[uint32]marker{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	require.Len(t, snap.Players, n)
	for _, p := range snap.Players {
		m, ok := byID[p.ID]
		if assert.True(t, ok, "no marker for player %d", p.ID) {
			assert.LessOrEqual(t, math.Hypot(m.X-p.X, m.Z-p.Z), 5.0, "player %d's marker", p.ID)
		}
	}
	// And they are drawn there: a marker is a red disc with a white
	// heading line from its centre, so 3 px behind the centre is red
	// (unless another marker's label covers it).
	size, err := eval[[2]int](bctx, `[document.getElementById("view").width, document.getElementById("view").height]`)
	require.NoError(t, err)
	var behind []marker
	for _, m := range ms {
		m.PX, m.PY = m.PX-3*math.Cos(m.H), m.PY-3*math.Sin(m.H)
		if m.PX >= 0 && m.PY >= 0 && m.PX < float64(size[0]) && m.PY < float64(size[1]) {
			behind = append(behind, m)
		}
	}
	assert.GreaterOrEqual(t, len(behind), n*3/4, "markers in view")
	px := canvasPixels(t, bctx, behind)
	red := 0
	for _, c := range px {
		if c.R > 180 && c.G < 90 && c.B < 100 {
			red++
		}
	}
	assert.GreaterOrEqual(t, red, len(behind)*3/4, "marker pixels red: %v", px)

	// Roads where `citydrive map` draws them: sample its road pixels in
	// the page's canvas (traffic and edits may cover a few).
	ref := referenceMap(testSeed, world.Vec2{X: cx, Z: cz}, 600, mpp)
	edited, err := eval[[]string](bctx, `Array.from(window.citydrive.state.edited.keys())`)
	require.NoError(t, err)
	ox, oy := float64(size[0])/2-300, float64(size[1])/2-300
	for _, k := range edited { // edited chunks are shaded over the roads
		var ex, ez int
		_, _ = fmt.Sscanf(k, "%d,%d", &ex, &ez)
		sx, sy := (float64(ex)*32-cx)/mpp+float64(size[0])/2, (float64(ez)*32-cz)/mpp+float64(size[1])/2
		ms = append(ms, marker{PX: sx + 14, PY: sy + 24, W: 32 / mpp, Hgt: 32 / mpp})
	}
	samples := roadSamples(ref, 60, ms, ox, oy)
	require.NotEmpty(t, samples)
	got := canvasPixels(t, bctx, samples)
	roadish := 0
	for _, c := range got {
		if isRoad(c) {
			roadish++
		}
	}
	t.Logf("canvas: %d of %d of citydrive map's road pixels are road", roadish, len(got))
	assert.GreaterOrEqual(t, roadish, len(got)*9/10, "%v", got)

	if path := os.Getenv("WEBMAP_SCREENSHOT"); path != "" {
		shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, shot, 0o644))
	}

	// A wrong token gets 401.
	status, err := eval[int](bctx, `fetch("api/admin/state", {headers: {Authorization: "Bearer wrong-wrong-wrong-wrong"}}).then(r => r.status)`)
	require.NoError(t, err)
	assert.Equal(t, 401, status)

	// Kick from the page: the marker is gone within a second.
	victim := snap.Players[0]
	_, err = eval[chromedp.Void](bctx, fmt.Sprintf(`window.citydrive.useToken(%q)`, r.token))
	require.NoError(t, err)
	gone, err := eval[float64](bctx, fmt.Sprintf(`new Promise(async (res, rej) => {
		const t0 = performance.now();
		const r = await window.citydrive.admin("kick", {id: %d});
		if (!r.ok) return rej(new Error("kick: " + r.status + " " + JSON.stringify(r.body)));
		(function poll() {
			if (!window.citydrive.drawn.some(d => d.id === %d)) return res(performance.now() - t0);
			if (performance.now() - t0 > 5000) return rej(new Error("marker still there"));
			setTimeout(poll, 20);
		})();
	})`, victim.ID, victim.ID))
	require.NoError(t, err)
	t.Logf("kicked player %d: its marker was gone %.0f ms after the request", victim.ID, gone)
	assert.Less(t, gone, 1000.0)

	// Ban from the page: the bot goes, and its key is refused coming back.
	banned := snap.Players[1]
	res, err := eval[struct {
		OK     bool `json:"ok"`
		Status int  `json:"status"`
	}](bctx, fmt.Sprintf(`window.citydrive.admin("ban", {key: %q, reason: "griefing"})`, webmap.FormatKey(banned.Key)))
	require.NoError(t, err)
	require.True(t, res.OK, "ban: %d", res.Status)
	cfg := r.h.ClientConfig()
	cfg.Identity, cfg.Logger = netsync.NewIdentityKey(banned.Key), quiet()
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	c, err := netsync.Dial(dctx, cfg)
	if c != nil {
		_ = c.Close()
	}
	var re *netsync.RefusedError
	require.True(t, errors.As(err, &re), "rejoin of a banned key: %v", err)
	assert.Contains(t, re.Reason, "banned from this server: griefing")
	assert.True(t, r.access.Banned(banned.Key))
}

// waitPlayers waits until n players have a car.
func waitPlayers(t *testing.T, r *rig, n int) netsync.Snapshot {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		snap, err := r.h.Server().Snapshot(context.Background(), 0)
		require.NoError(t, err)
		cars := 0
		for _, p := range snap.Players {
			if p.HasCar {
				cars++
			}
		}
		if cars >= n {
			return snap
		}
		require.True(t, time.Now().Before(deadline), "only %d of %d bots have a car", cars, n)
	}
	return netsync.Snapshot{}
}

// canvasPixels reads the page's canvas at the markers' pixel positions.
func canvasPixels(t *testing.T, ctx context.Context, at []marker) []color.RGBA {
	t.Helper()
	var pts [][2]int
	for _, m := range at {
		pts = append(pts, [2]int{int(m.PX), int(m.PY)})
	}
	js := fmt.Sprintf(`(() => { const g = document.getElementById("view").getContext("2d");
		return %s.map(([x, y]) => Array.from(g.getImageData(x, y, 1, 1).data)); })()`, jsonPoints(pts))
	out, err := eval[[][4]uint8](ctx, js)
	require.NoError(t, err)
	cs := make([]color.RGBA, len(out))
	for i, p := range out {
		cs[i] = color.RGBA{p[0], p[1], p[2], p[3]}
	}
	return cs
}

func jsonPoints(pts [][2]int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,%d]", p[0], p[1])
	}
	b.WriteByte(']')
	return b.String()
}

// referenceMap is `citydrive map`'s picture around centre: the graph the
// walker grows from the nearest road, with the lattice beyond it (the
// walk's cost colours are drawn over the same road pixels, so they are
// left out).
func referenceMap(seed uint64, centre world.Vec2, size int, scale float64) *image.RGBA {
	w := world.New(seed)
	g := roadgraph.New(w)
	if j := g.JunctionNear(centre); j != nil {
		g.EnsureJunctionArms(j)
		if h, ok := g.Nearest(centre); ok {
			wk, err := walker.New(walker.DefaultParams(), slots.DefaultSlots)
			if err == nil {
				e := h.Edge
				wk.Walk(g, e.Nodes[h.Seg].Lerp(e.Nodes[h.Seg+1], 0.5), e.Tangent(h.Seg))
			}
		}
	}
	return mapimg.Draw(mapimg.Scene{World: w, Graph: g, Car: world.Vec2{X: 1e9, Z: 1e9}, Heading: world.Vec2{X: 1},
		Centre: centre, Size: size, Scale: scale, MaxCost: 1})
}

// The colours of citydrive map's roads (mapimg): loaded roads, lattice
// roads beyond them, junction discs.
var (
	mapRoad    = color.RGBA{70, 70, 74, 255}
	mapLattice = color.RGBA{120, 120, 125, 255}
	mapJunc    = color.RGBA{20, 20, 20, 255}
	mapJuncIn  = color.RGBA{30, 30, 30, 255}
)

func isMapRoad(c color.RGBA) bool { return c == mapRoad || c == mapLattice }

// isRoad: the web map's carriageway or kerb, or a traffic vehicle on it.
func isRoad(c color.RGBA) bool {
	return near(c, 58, 58, 64) || near(c, 90, 90, 96) || near(c, 232, 232, 240)
}

func near(c color.RGBA, r, g, b int) bool {
	d := func(a uint8, b int) int { return max(int(a)-b, b-int(a)) }
	return d(c.R, r) <= 6 && d(c.G, g) <= 6 && d(c.B, b) <= 6
}

// roadSamples picks up to n of ref's road pixels, spread over the
// picture, away from markers (labels cover the map there), as canvas
// positions (ref's pixel + offset).
func roadSamples(ref *image.RGBA, n int, avoid []marker, ox, oy float64) []marker {
	b := ref.Bounds()
	var all []marker
	for y := 4; y < b.Dy()-4; y += 7 {
		for x := 4; x < b.Dx()-4; x += 7 {
			if !isMapRoad(ref.RGBAAt(x, y)) {
				continue
			}
			px, py := float64(x)+ox, float64(y)+oy
			clear := true
			for _, m := range avoid {
				w, h := m.W, m.Hgt
				if w == 0 {
					w, h = 154, 38
				}
				if px > m.PX-14 && px < m.PX-14+w && py > m.PY-24 && py < m.PY-24+h {
					clear = false
					break
				}
			}
			if clear {
				all = append(all, marker{PX: px, PY: py})
			}
		}
	}
	if len(all) <= n {
		return all
	}
	out := make([]marker, 0, n)
	for i := range n {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

// The WebAssembly map draws the same roads as `citydrive map`, for three
// seeds, each around its default start (a road near the origin): every
// road pixel of citydrive map has a web-map road pixel within 1 px
// (≥ 99%), and every web-map carriageway pixel has a citydrive-map road
// pixel within 3 px (≥ 97%: citydrive map draws the lattice beyond its
// loaded graph at half width).
func TestWASMMapDrawsTheRoadsOfCitydriveMap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	chromium(t)
	r := startRig(t, t.TempDir())
	bctx, errs := browser(t, 800, 600)
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(r.web.URL())))
	_, err := eval[bool](bctx, `new Promise(res => { (function poll() {
		if (window.citydrive && window.citydrive.state.ready) return res(true); setTimeout(poll, 50); })(); })`)
	require.NoError(t, err)
	const size, scale = 512, 1.6
	for _, seed := range []uint64{412, 7, 2026} {
		w := world.New(seed)
		g := roadgraph.New(w)
		j := g.JunctionNear(world.Vec2{})
		require.NotNil(t, j, "seed %d: no road near the origin", seed)
		centre := j.Pos
		ref := referenceMap(seed, centre, size, scale)
		x0, z0 := centre.X-size/2*scale, centre.Z-size/2*scale
		b64, err := eval[string](bctx, fmt.Sprintf(`(() => {
			const px = citydriveMap.tile("%d", %g, %g, %g, %d);
			let s = ""; for (let i = 0; i < px.length; i += 8192) s += String.fromCharCode.apply(null, px.subarray(i, i + 8192));
			return btoa(s); })()`, seed, x0, z0, scale, size))
		require.NoError(t, err)
		raw, err := base64.StdEncoding.DecodeString(b64)
		require.NoError(t, err)
		require.Len(t, raw, size*size*4)
		web := &image.RGBA{Pix: raw, Stride: size * 4, Rect: image.Rect(0, 0, size, size)}
		fwd, fwdN := match(ref, web, isMapRoad, func(c color.RGBA) bool { return isRoad(c) }, 1)
		rev, revN := match(web, ref, func(c color.RGBA) bool { return near(c, 58, 58, 64) },
			func(c color.RGBA) bool { return isMapRoad(c) || c == mapJunc || c == mapJuncIn }, 3)
		t.Logf("seed %d at (%.0f, %.0f): %.2f%% of %d citydrive-map road pixels are web-map road (±1 px); %.2f%% of %d web-map road pixels are citydrive-map road (±3 px)",
			seed, centre.X, centre.Z, 100*fwd, fwdN, 100*rev, revN)
		assert.Greater(t, fwdN, 2000)
		assert.GreaterOrEqual(t, fwd, 0.99, "seed %d", seed)
		assert.GreaterOrEqual(t, rev, 0.97, "seed %d", seed)
		if os.Getenv("WEBMAP_PIXELS") != "" {
			writePNG(t, filepath.Join(os.Getenv("WEBMAP_PIXELS"), fmt.Sprintf("seed%d-map.png", seed)), ref)
			writePNG(t, filepath.Join(os.Getenv("WEBMAP_PIXELS"), fmt.Sprintf("seed%d-web.png", seed)), web)
		}
	}
	assert.Empty(t, errs())
}

// match is the share of a's pixels that pass in whose b has a pixel
// passing want within radius px, and how many a had.
func match(a, b *image.RGBA, in, want func(color.RGBA) bool, radius int) (float64, int) {
	n, hit := 0, 0
	bb := b.Bounds()
	for y := radius; y < a.Bounds().Dy()-radius; y++ {
		for x := radius; x < a.Bounds().Dx()-radius; x++ {
			if !in(a.RGBAAt(x, y)) {
				continue
			}
			n++
		found:
			for dy := -radius; dy <= radius; dy++ {
				for dx := -radius; dx <= radius; dx++ {
					if image.Pt(x+dx, y+dy).In(bb) && want(b.RGBAAt(x+dx, y+dy)) {
						hit++
						break found
					}
				}
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(hit) / float64(n), n
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, png.Encode(f, img))
}
