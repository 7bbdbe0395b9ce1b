package webgame_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The browser game and the desktop game drive the same seed at the same
// size, interleaved in one run, so both meet the machine's load alike
// (issue #29: fps under SwiftShader next to the desktop's under llvmpipe).
// A measurement, not a check: it runs only when WEBGAME_FPS_DESKTOP names
// a citydrive binary (xvfb-run on PATH), and logs a table.
const (
	fpsWidth, fpsHeight = 960, 540
	fpsSeed             = 412
	fpsDrive            = 30 * time.Second
	fpsPairs            = 3
)

// fpsRun is one drive's figures.
type fpsRun struct {
	frames     int
	seconds    float64
	workP50    float64 // main-thread work per frame, ms
	workP99    float64
	firstFrame float64 // ms from start (navigation, or process start) to the first frame
}

func (r fpsRun) fps() float64 { return float64(r.frames) / r.seconds }

func TestFPSBrowserBesideDesktop(t *testing.T) {
	desktop := os.Getenv("WEBGAME_FPS_DESKTOP")
	if desktop == "" {
		t.Skip("a measurement: set WEBGAME_FPS_DESKTOP=path/to/citydrive (and have xvfb-run) to run it")
	}
	chromium(t)
	dir := page(t)
	var rows []string
	for i := 0; i < fpsPairs; i++ {
		var b fpsRun
		// A subtest each: its browser closes when it ends (a page left
		// open goes on drawing beside the next drive).
		t.Run(fmt.Sprintf("browser%d", i+1), func(t *testing.T) { b = browserDrive(t, dir) })
		d := desktopDrive(t, desktop)
		rows = append(rows,
			fmt.Sprintf("| %d | browser, WebGL2 on SwiftShader | %.2f | %d in %.1f s | %.0f / %.0f | %.1f s |", i+1, b.fps(), b.frames, b.seconds, b.workP50, b.workP99, b.firstFrame/1000),
			fmt.Sprintf("| %d | desktop, GL 4.1 on llvmpipe | %.2f | %d in %.1f s | %.1f / %.1f | — |", i+1, d.fps(), d.frames, d.seconds, d.workP50, d.workP99))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("%dx%d, seed %d, autopilot, %s each, interleaved; load average after: %s\n| pair | game | fps | frames | main-thread work p50 / p99, ms | load to first frame |\n|---|---|---|---|---|---|\n%s",
		fpsWidth, fpsHeight, fpsSeed, fpsDrive, strings.TrimSpace(string(load)), strings.Join(rows, "\n"))
}

// browserDrive opens the page solo with the autopilot and counts the
// frames presented over fpsDrive of wall time after the first frame.
func browserDrive(t *testing.T, dir string) fpsRun {
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	ctx, _ := browser(t, fpsWidth, fpsHeight)
	ctx, cancel := context.WithTimeout(ctx, fpsDrive+3*time.Minute)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/?seed=%d&autopilot=1", srv.URL, fpsSeed))))
	type mark struct {
		T, Presented, First, P50, P99 float64
	}
	read := func(wait string) mark {
		m, err := eval[mark](ctx, `new Promise((res, rej) => {
			const t0 = performance.now();
			(function poll() {
				const c = window.citydrive, s = c && c.stats;
				if (c && c.error) return rej(new Error(c.error));
				if (performance.now() - t0 > 150000 + `+strconv.FormatInt(fpsDrive.Milliseconds(), 10)+`) return rej(new Error("no frames in time"));
				if (s && s.presented > 0 && `+wait+`) return res({T: performance.now(), Presented: s.presented,
					First: s.firstFrameMs, P50: s.frameMsP50 || 0, P99: s.frameMsP99 || 0});
				setTimeout(poll, 50);
			})();
		})`)
		require.NoError(t, err)
		return m
	}
	a := read("true")
	b := read(fmt.Sprintf("performance.now() >= %f", a.T+float64(fpsDrive.Milliseconds())))
	return fpsRun{frames: int(b.Presented - a.Presented), seconds: (b.T - a.T) / 1000, workP50: b.P50, workP99: b.P99, firstFrame: a.First}
}

var desktopSummary = regexp.MustCompile(`in ([0-9.]+) s of wall time .*: ([0-9]+) frames, CPU frame time \(update \+ draw calls, before the swap\) median ([0-9.]+) ms, p99 ([0-9.]+) ms`)

// desktopDrive runs the desktop game's own timed drive under Xvfb.
func desktopDrive(t *testing.T, bin string) fpsRun {
	cmd := exec.Command("xvfb-run", "-a", "-s", fmt.Sprintf("-screen 0 %dx%dx24", fpsWidth, fpsHeight),
		bin, "-autopilot", "-duration", fpsDrive.String(), "-seed", strconv.Itoa(fpsSeed),
		"-width", strconv.Itoa(fpsWidth), "-height", strconv.Itoa(fpsHeight))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := desktopSummary.FindSubmatch(out)
	require.NotNil(t, m, "no summary line in:\n%s", out)
	f := func(i int) float64 { v, err := strconv.ParseFloat(string(m[i]), 64); require.NoError(t, err); return v }
	return fpsRun{seconds: f(1), frames: int(f(2)), workP50: f(3), workP99: f(4)}
}
