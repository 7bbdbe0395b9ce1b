package webgame_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// joinSeed is the joined test's world.
const joinSeed = 412

// joinedDrive is how long the autopilot drives joined before the checks
// (the 30 s; at SwiftShader's few frames a second, about 100
// frames).
const joinedDrive = 30 * time.Second

// pageLink is window.citydrive.link with the stats the test reads.
type pageLink struct {
	Connected                          bool
	Player, CarSeq                     uint32
	X, Y, Z, Heading                   float64
	Cars                               int
	EditsSent, EditsApplied, EditsRefd int
	ConnectMs                          float64
	Frames, Builds                     int
	FPS, Km                            float64
	Status, Lost                       string
}

const readLink = `(() => { const l = window.citydrive.link, s = window.citydrive.stats;
	return {Connected: !!l.connected, Player: l.player || 0, CarSeq: l.carSeq || 0, X: l.x || 0, Y: l.y || 0, Z: l.z || 0, Heading: l.heading || 0, Cars: l.cars || 0,
		EditsSent: l.editsSent || 0, EditsApplied: l.editsApplied || 0, EditsRefd: l.editsRefused || 0,
		ConnectMs: l.connectMs || 0, Frames: s.frames || 0, Builds: s.builds || 0, FPS: s.fps || 0, Km: s.km || 0, Status: l.status || "", Lost: l.lost || ""}; })()`

// The real game page joins a server over WebTransport with the join code
// in its fragment and plays in the server's world: a native client on the
// same server sees the page's car where the page says it sent it, and an
// edit made in the page reaches the native client.
// rig is a server with its web endpoint serving the game page.
type rig struct {
	*host.Host
	web string // the web endpoint's address
}

// joinRig is a server (taking WebTransport if wt) with the web endpoint
// serving the game page from dir.
func joinRig(t *testing.T, dir string, wt bool) rig {
	t.Helper()
	data := t.TempDir()
	access, err := webmap.OpenAccess(data)
	require.NoError(t, err)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	opt := host.Options{Addr: "127.0.0.1:0", DataDir: data, Seed: joinSeed, Logger: quiet, Gate: access}
	if wt {
		opt.WebTransportAddr = "127.0.0.1:0"
	}
	h, err := host.Start(context.Background(), opt)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	token, _, err := webmap.LoadOrCreateToken(data)
	require.NoError(t, err)
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: joinSeed, Source: h.Server(), Access: access,
		Token: token, Logger: quiet, Game: h.Server(), GameFiles: os.DirFS(dir)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = web.Close() })
	return rig{Host: h, web: web.Addr().String()}
}

// play is the page's URL with the join code of r's server pinned to
// fingerprint, and the autopilot on.
func (r rig) play(fingerprint string) string {
	code := fmt.Sprintf("citydrive://%s/%d/%s", r.Addr(), joinSeed, fingerprint)
	return "http://" + r.web + webmap.PlayPath + "?autopilot=1#" + code
}

func TestBrowserJoinsAServerOverWebTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and builds the game's WebAssembly module")
	}
	chromium(t)
	t0 := time.Now()
	h := joinRig(t, page(t), true)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	// The native player watches from the spawn and follows the page's car.
	ccfg := h.ClientConfig()
	ccfg.Radius = 4
	ccfg.Logger = quiet
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	native, err := netsync.Dial(dctx, ccfg)
	dcancel()
	require.NoError(t, err)
	t.Cleanup(func() { _ = native.Close() })
	var msgs []wire.Message
	var edits []wire.EditBroadcast
	held := map[voxel.ChunkPos]bool{} // chunks the server delivered to the native client
	drain := func() {
		msgs = native.Poll(msgs[:0], 1<<20)
		for _, m := range msgs {
			switch m := m.(type) {
			case *wire.EditBroadcast:
				edits = append(edits, *m)
			case *wire.ChunkDefaults:
				for _, p := range m.Pos {
					held[p] = true
				}
			case *wire.ChunkEdits:
				held[m.Pos] = true
			case *wire.ChunkDrop:
				delete(held, m.Pos)
			}
		}
	}

	ctx, errs := browser(t, 960, 540)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(h.play(h.Fingerprint()))))
	tNav := time.Now()
	l, err := eval[pageLink](ctx, `new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const c = window.citydrive;
			if (c.error) return rej(new Error(c.error));
			if (performance.now() - t0 > 150000) return rej(new Error("not driving joined after 150 s: " + JSON.stringify(c.stats) + " link: " + JSON.stringify(c.link) + " hud: " + document.getElementById("hud").textContent));
			if (c.link && c.link.connected && c.link.carSeq > 0 && !c.stats.loading) return res(`+readLink+`);
			setTimeout(poll, 200);
		})();
	})`)
	if err != nil {
		t.Logf("console errors: %v", errs())
	}
	require.NoError(t, err)
	tDriving := time.Now()
	t.Logf("joined: connected in %.0f ms (navigation to driving: %.1f s)", l.ConnectMs, time.Since(tNav).Seconds())
	assert.NotZero(t, l.Player)
	assert.NotEqual(t, native.Player(), l.Player)

	// The native player drives ahead of the page's car (its first snapshot
	// may be anywhere within the server's spawn radius), subscribed
	// around it, while the page drives joinedDrive.
	var at pageLink
	follow := func() (pageLink, error) {
		drain()
		at, err := eval[pageLink](ctx, readLink)
		if err != nil {
			return at, err
		}
		// 16 m ahead and 4 m to the side, facing the same way: in the
		// picture, and clear of the page's car.
		fx, fz := math.Cos(at.Heading), -math.Sin(at.Heading) // car.HeadingOf's inverse
		native.SendCar(wire.QuantiseCar(0, 0, at.X+16*fx-4*fz, at.Y, at.Z+16*fz+4*fx, at.Heading, 0))
		_ = native.Subscribe(voxel.ChunkAt(at.X, at.Y, at.Z), ccfg.Radius)
		return at, nil
	}
	waitFor(t, joinedDrive+120*time.Second, "the page drove joined and showed the native car", func() (bool, error) {
		at, err = follow()
		// Frames: the page's statistics are published at its first frame,
		// then every 30 frames or 2 s.
		return time.Since(tDriving) >= joinedDrive && at.Frames > 0 && at.Cars >= 1, err
	})
	t.Logf("driving joined: %+v (%.1f s driven, navigation to here %.1f s)", at, time.Since(tDriving).Seconds(), time.Since(tNav).Seconds())
	assert.True(t, at.Connected)
	assert.Greater(t, at.Km, 0.0, "the autopilot drove")
	assert.Greater(t, at.Builds, 50, "the streamer built the city")
	assert.Equal(t, 1, at.Cars, "the page shows the native player's car")

	// The native client sees the page's car where the page sent it: the
	// same snapshot (by Seq), within 1 m.
	var seen wire.CarSnapshot
	waitFor(t, 60*time.Second, "the native client heard the page's latest car", func() (bool, error) {
		at, err = follow()
		for _, s := range native.Cars(nil) {
			if s.Player == at.Player && s.Seq == at.CarSeq {
				seen = s
				return true, err
			}
		}
		return false, err
	})
	x, _, z := seen.Position()
	d := math.Hypot(x-at.X, z-at.Z)
	t.Logf("page sent car %d at (%.1f, %.1f); the native client heard (%.1f, %.1f): %.2f m apart", at.CarSeq, at.X, at.Z, x, z, d)
	assert.Less(t, d, 1.0)

	// An edit made in the page goes through the game's edit path and
	// reaches the native client, which holds the chunk.
	bx, by, bz := int64(math.Floor(at.X)), int64(math.Floor(at.Y))+4, int64(math.Floor(at.Z))
	wantPos, wantIdx := voxel.ChunkOf(bx, by, bz)
	waitFor(t, 30*time.Second, "the native client's area reached the page's car", func() (bool, error) {
		_, err := follow()
		return held[wantPos], err
	})
	why, err := eval[any](ctx, fmt.Sprintf("window.citydrive.edit(%d, %d, %d, %d)", bx, by, bz, voxel.Stone))
	require.NoError(t, err)
	require.Nil(t, why, "the page refused the edit")
	var got *wire.EditBroadcast
	waitFor(t, 30*time.Second, "the page's edit reached the native client", func() (bool, error) {
		at, err = follow()
		for i := range edits {
			if edits[i].Pos == wantPos && edits[i].Index == uint16(wantIdx) {
				got = &edits[i]
				return at.EditsApplied >= 1, err
			}
		}
		return false, err
	})
	assert.Equal(t, voxel.Stone, got.Block)
	t.Logf("page after the edit: %+v", at)
	assert.Equal(t, 1, at.EditsSent)
	assert.Zero(t, at.EditsRefd)
	// The picture is of the joined drive (WEBGAME_JOINED_SCREENSHOT=path
	// saves it: docs/img/browser-joined.png), before the kick puts the car
	// back at the spawn.
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	if path := os.Getenv("WEBGAME_JOINED_SCREENSHOT"); path != "" {
		require.NoError(t, os.WriteFile(path, shot, 0o644))
	}

	// An edit shows in the page's picture: the renderer stores the edited
	// chunks' new meshes and the block's colour appears where they are.
	sent := editShowsOnScreen(t, ctx, func() error { _, err := follow(); return err })
	waitFor(t, 30*time.Second, "the pillar's edits were acknowledged", func() (bool, error) {
		at, err = follow()
		return at.EditsApplied+at.EditsRefd >= 1+sent, err
	})
	assert.Equal(t, 1+sent, at.EditsApplied)
	assert.Zero(t, at.EditsRefd)

	// Kicked, the page is told why (the session's close code and reason,
	// as a native client is) and joins again: /play/config fetched anew,
	// a new session, a new player id.
	require.True(t, h.Server().KickPlayer(at.Player, "kicked by the test"))
	waitFor(t, 60*time.Second, "the kicked page joined again", func() (bool, error) {
		l, err := eval[pageLink](ctx, readLink)
		at = l
		return l.Connected && l.Player != 0 && l.Player != seen.Player, err
	})
	t.Logf("after the kick: player %d, lost: %q, status %q", at.Player, at.Lost, at.Status)
	assert.Contains(t, at.Lost, "kicked by the test")
	assert.Contains(t, at.Lost, netsync.ErrKicked.Error())
	assert.Empty(t, errs(), "the page logged errors")

	t.Logf("whole test: %.1f s", time.Since(t0).Seconds())
}

// waitFor polls cond every 100 ms (on the test's goroutine) until it
// holds, fails or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		require.NoError(t, err, what)
		if ok {
			return
		}
		require.True(t, time.Now().Before(deadline), "timed out (%v) waiting until %s", timeout, what)
		<-tick.C
	}
}

// A join code whose server takes no browsers plays solo in its world (on
// the page's own server); a
// join code that does not pin the server serving the page is refused,
// with what is wrong, before any session is opened.
func TestBrowserPageWithoutWebTransportPlaysSoloAndAWrongPinIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and builds the game's WebAssembly module")
	}
	chromium(t)
	dir := page(t)
	solo := joinRig(t, dir, false)
	joinable := joinRig(t, dir, true)
	ctx, errs := browser(t, 480, 270)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(solo.play(solo.Fingerprint()))))
	got, err := eval[string](ctx, `new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const c = window.citydrive;
			if (c.error) return rej(new Error(c.error));
			if (performance.now() - t0 > 120000) return rej(new Error("no frame after 120 s: " + JSON.stringify(c.stats)));
			if (c.stats.firstFrameMs > 0) return res(JSON.stringify({link: c.link, seed: c.stats.seed}));
			setTimeout(poll, 200);
		})();
	})`)
	require.NoError(t, err)
	t.Logf("solo: %s", got)
	assert.Contains(t, got, `"solo":true`, "the page's own server")
	assert.Contains(t, got, fmt.Sprintf(`"seed":"%d"`, joinSeed), "the join code's world")
	for _, e := range errs() { // Chromium logs the config's 404 itself; the page logs nothing
		assert.Contains(t, e, "404", "the page logged an error")
	}

	// The solo server's pin, the joinable server's page: refused.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(joinable.play(solo.Fingerprint()))))
	why, err := eval[string](ctx, `new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const c = window.citydrive;
			if (c.error) return res(c.error);
			if (performance.now() - t0 > 60000) return rej(new Error("no refusal after 60 s: " + JSON.stringify(c.link)));
			setTimeout(poll, 100);
		})();
	})`)
	require.NoError(t, err)
	t.Logf("wrong pin: %s", why)
	assert.Contains(t, why, "is not the one serving this page")
	assert.Zero(t, joinable.Server().Players())
}
