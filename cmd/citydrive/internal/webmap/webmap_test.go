package webmap_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/cmd/citydrive/internal/bots"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync"
	"citydrive/netsync/wire"
)

// serverRig is a server with its access rules but no map (the handshake
// tests need no browser, nor the module).
func serverRig(t *testing.T, data string) (*host.Host, *webmap.Access) {
	t.Helper()
	access, err := webmap.OpenAccess(data)
	require.NoError(t, err)
	h, err := host.Start(context.Background(), host.Options{Addr: "127.0.0.1:0", DataDir: data, Seed: testSeed,
		Logger: quiet(), Gate: access})
	require.NoError(t, err)
	return h, access
}

// join dials h as player key with password; the error is the refusal.
func join(t *testing.T, h *host.Host, key uint64, password string) (*netsync.Client, error) {
	t.Helper()
	cfg := h.ClientConfig()
	cfg.Identity, cfg.Password, cfg.Logger, cfg.Radius = netsync.NewIdentityKey(key), password, quiet(), 1
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := netsync.Dial(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var re *netsync.RefusedError
	require.True(t, errors.As(err, &re), "want a refusal, got %v", err)
	assert.True(t, re.ByServer)
	return re.Reason
}

func TestJoinPassword(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h, access := serverRig(t, t.TempDir())
	defer h.Close()
	require.NoError(t, access.SetPassword("sesame"))
	_, err := join(t, h, 1, "")
	assert.Contains(t, refusal(t, err), "this server needs a join password")
	_, err = join(t, h, 1, "open")
	assert.Contains(t, refusal(t, err), "wrong join password")
	c, err := join(t, h, 1, "sesame")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, access.SetPassword(""))
	c, err = join(t, h, 1, "")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	assert.False(t, access.State().Password)
}

func TestAllowList(t *testing.T) {
	h, access := serverRig(t, t.TempDir())
	defer h.Close()
	require.NoError(t, access.SetAllowOnly(true))
	_, err := join(t, h, 0xabc, "")
	assert.Contains(t, refusal(t, err), "only the players on its allow-list; ask its operator to add your player key 0000000000000abc")
	require.NoError(t, access.Allow(0xabc, true))
	_, err = join(t, h, 0xabc, "")
	require.NoError(t, err)
	_, err = join(t, h, 0xdef, "")
	refusal(t, err)
	assert.Equal(t, []string{"0000000000000abc"}, access.State().Allow)
}

// A ban is on disk before it takes effect: after a restart the key is
// still refused, and unbanning lets it in.
func TestBanSurvivesRestart(t *testing.T) {
	data := t.TempDir()
	h, access := serverRig(t, data)
	c, err := join(t, h, 42, "")
	require.NoError(t, err)
	require.NoError(t, access.Ban(42, "griefing", time.Now()))
	assert.Equal(t, 1, h.Server().Kick(42, "banned by the server's operator: griefing"))
	<-c.Done()
	assert.ErrorIs(t, c.Err(), netsync.ErrKicked)
	require.NoError(t, h.Close())

	h, access = serverRig(t, data)
	defer h.Close()
	assert.True(t, access.Banned(42))
	_, err = join(t, h, 42, "")
	assert.Equal(t, "you are banned from this server: griefing", refusal(t, err))
	require.NoError(t, access.Unban(42))
	_, err = join(t, h, 42, "")
	require.NoError(t, err)

	// A damaged file is refused with its name, not taken as "no bans".
	require.NoError(t, os.WriteFile(data+"/"+webmap.AccessFile, []byte("{bans"), 0o600))
	_, err = webmap.OpenAccess(data)
	assert.ErrorContains(t, err, "damaged")
}

// mapRig starts the web front end of h without the module (the API tests).
func mapRig(t *testing.T, h *host.Host, access *webmap.Access, shutdown func()) *webmap.Server {
	t.Helper()
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: h.Server(), Access: access,
		Token: "test-token-0123456789", Ready: h.Ready, Shutdown: shutdown, Interval: 100 * time.Millisecond,
		Assets: os.DirFS("static"), Logger: quiet()})
	require.NoError(t, err)
	return web
}

func post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The shutdown countdown reaches every player as Notices, the readiness
// probe turns 503 at once, and the server is stopped at the end.
func TestShutdownNoticeReachesClients(t *testing.T) {
	h, access := serverRig(t, t.TempDir())
	defer h.Close()
	stopped := make(chan struct{})
	web := mapRig(t, h, access, func() { close(stopped) })
	defer web.Close()
	c, err := join(t, h, 7, "")
	require.NoError(t, err)

	code, body := get(t, web.URL()+"healthz")
	assert.Equal(t, 200, code)
	assert.Equal(t, "ok\n", body)
	code, _ = get(t, web.URL()+"readyz")
	assert.Equal(t, 200, code)

	code, body = post(t, web.URL()+"api/admin/broadcast", "test-token-0123456789", `{"text":"hello, drivers"}`)
	require.Equal(t, 200, code, body)
	code, body = post(t, web.URL()+"api/admin/shutdown", "test-token-0123456789", `{"seconds":2,"text":"Back in five minutes."}`)
	require.Equal(t, 200, code, body)
	code, body = get(t, web.URL()+"readyz")
	assert.Equal(t, 503, code)
	assert.Contains(t, body, "shutting down")
	code, _ = post(t, web.URL()+"api/admin/shutdown", "test-token-0123456789", `{"seconds":2}`)
	assert.Equal(t, http.StatusConflict, code)

	var notices []wire.Notice
	timeout := time.After(10 * time.Second)
	for len(notices) < 3 {
		select {
		case m := <-c.Messages():
			if n, ok := m.(*wire.Notice); ok {
				notices = append(notices, *n)
			}
		case <-timeout:
			t.Fatalf("notices so far: %+v", notices)
		}
	}
	assert.Equal(t, wire.Notice{Text: "hello, drivers"}, notices[0])
	assert.Equal(t, wire.Notice{Text: "The server shuts down in 2 s. Back in five minutes.", Shutdown: 2}, notices[1])
	assert.Equal(t, wire.Notice{Text: "The server shuts down in 1 s. Back in five minutes.", Shutdown: 1}, notices[2])
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the countdown did not stop the server")
	}
}

func TestAdminAuthAndBounds(t *testing.T) {
	h, access := serverRig(t, t.TempDir())
	defer h.Close()
	web := mapRig(t, h, access, nil)
	defer web.Close()
	const tok = "test-token-0123456789"
	code, body := post(t, web.URL()+"api/admin/ban", "", `{"key":"0000000000000001"}`)
	assert.Equal(t, 401, code, body)
	code, _ = post(t, web.URL()+"api/admin/ban", tok, `{"key":"1"}`)
	assert.Equal(t, 400, code, "a short key")
	code, _ = post(t, web.URL()+"api/admin/ban", tok, `{"key":"0000000000000001","extra":1}`)
	assert.Equal(t, 400, code, "an unknown field")
	code, _ = post(t, web.URL()+"api/admin/broadcast", tok, `{"text":"`+strings.Repeat("x", 5000)+`"}`)
	assert.Equal(t, 400, code, "a body past its bound")
	c, err := join(t, h, 0x77, "")
	require.NoError(t, err)
	code, body = get(t, web.URL()+"api/players")
	require.Equal(t, 200, code)
	assert.Contains(t, body, fmt.Sprintf(`"id":%d`, c.Player()))
	assert.NotContains(t, body, "0000000000000077", "keys are for the admin")
	req, err := http.NewRequest(http.MethodGet, web.URL()+"api/admin/players", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Contains(t, string(b), `"key":"0000000000000077"`)
	code, _ = post(t, web.URL()+"api/admin/kick", tok, `{"id":999}`)
	assert.Equal(t, 404, code, "no such player")
	code, body = post(t, web.URL()+"api/admin/ban", tok, `{"key":"0000000000000001","reason":"spam"}`)
	assert.Equal(t, 200, code, body)
	assert.True(t, access.Banned(1))

	// Wrong tokens: five (the empty one above and four) are answered 401,
	// then the address waits (429), even with the right token.
	for range 4 {
		code, _ = post(t, web.URL()+"api/admin/unban", "wrong", `{"key":"0000000000000001"}`)
		assert.Equal(t, 401, code)
	}
	code, _ = post(t, web.URL()+"api/admin/unban", tok, `{"key":"0000000000000001"}`)
	assert.Equal(t, 429, code)
	assert.True(t, access.Banned(1))
}

// fakeSource is a server of n players driving in circles.
type fakeSource struct {
	n     int
	start time.Time
}

func (f *fakeSource) Snapshot(ctx context.Context, since uint64) (netsync.Snapshot, error) {
	now := time.Now()
	s := netsync.Snapshot{At: now, Tick: netsync.TickStats{Hz: 30, NominalHz: 30, P99: 2 * time.Millisecond, Ticks: 1024}}
	t := now.Sub(f.start).Seconds()
	for i := range f.n {
		a := t*0.1 + float64(i)
		s.Players = append(s.Players, netsync.PlayerInfo{ID: uint32(i + 1), Key: uint64(i) * 0x9e3779b97f4a7c15,
			Name: fmt.Sprintf("bot-%d", i), HasCar: true, X: 3000*math.Cos(a) + float64(i*40), Z: 3000 * math.Sin(a),
			Heading: a + math.Pi/2, Speed: 30, BytesIn: uint64(t * 2000), BytesOut: uint64(t * 3000)})
	}
	return s, nil
}
func (f *fakeSource) Kick(uint64, string) int                          { return 0 }
func (f *fakeSource) Notify(context.Context, wire.Notice) (int, error) { return 0, nil }

// sseBytes reads the stream at url for d and returns the bytes and the
// events after the first (history) one.
func sseBytes(t *testing.T, ctx context.Context, url string, d time.Duration) (int, map[string]int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	n, events, first := 0, map[string]int{}, true
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return n, events
		}
		if first {
			if line == "\n" {
				first = false
			}
			continue
		}
		n += len(line)
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			events[strings.TrimSpace(name)]++
		}
	}
}

// The stream to one viewer at 100 players, measured: the target is at
// most 4 kB/s.
func TestStreamBytesPerViewerAt100Players(t *testing.T) {
	access, err := webmap.OpenAccess(t.TempDir())
	require.NoError(t, err)
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: &fakeSource{n: 100, start: time.Now()},
		Access: access, Token: "test-token-0123456789", Assets: os.DirFS("static"), Logger: quiet()})
	require.NoError(t, err)
	defer web.Close()
	const d = 12 * time.Second
	n, events := sseBytes(t, context.Background(), web.URL()+"api/stream", d)
	bps := float64(n) / d.Seconds()
	t.Logf("one viewer, 100 players, default interval: %.0f bytes/s (%v)", bps, events)
	assert.GreaterOrEqual(t, events["cars"], 10)
	assert.LessOrEqual(t, bps, 4096.0)
}

// tickHist reads the server's tick-duration histogram.
func tickHist(t *testing.T, h *host.Host) (bounds []float64, counts []uint64) {
	t.Helper()
	mfs, err := h.Registry().Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != netsync.MetricTick || len(mf.Metric) == 0 {
			continue
		}
		hist := mf.Metric[0].GetHistogram()
		for _, b := range hist.GetBucket() {
			bounds = append(bounds, b.GetUpperBound())
			counts = append(counts, b.GetCumulativeCount())
		}
		counts = append(counts, hist.GetSampleCount())
		bounds = append(bounds, math.Inf(1))
		return bounds, counts
	}
	t.Fatal("no tick histogram")
	return nil, nil
}

// quantile of the ticks between two readings of the histogram, linear
// within a bucket.
func quantile(bounds []float64, before, after []uint64, q float64) (float64, uint64) {
	total := after[len(after)-1] - before[len(before)-1]
	if total == 0 {
		return 0, 0
	}
	rank := q * float64(total)
	prevLe, prevN := 0.0, 0.0
	for i, le := range bounds {
		n := float64(after[i] - before[i])
		if n >= rank {
			if math.IsInf(le, 1) {
				return prevLe, total
			}
			return prevLe + (le-prevLe)*(rank-prevN)/math.Max(n-prevN, 1), total
		}
		prevLe, prevN = le, n
	}
	return prevLe, total
}

// The server's tick p99 with 5 map viewers against none, side by side in
// one run (alternating phases, so a change in the machine's load falls on
// both). A measurement: WEBMAP_MEASURE=1 runs it.
func TestTickP99WithViewers(t *testing.T) {
	if os.Getenv("WEBMAP_MEASURE") == "" {
		t.Skip("a measurement (about a minute): WEBMAP_MEASURE=1 runs it")
	}
	data := t.TempDir()
	access, err := webmap.OpenAccess(data)
	require.NoError(t, err)
	tuning := netsync.DefaultServerConfig().Tuning
	tuning.SpawnRadius, tuning.MaxPlayersPerAddr, tuning.MaxHandshakesPerAddr = 0, 256, 256
	h, err := host.Start(context.Background(), host.Options{Addr: "127.0.0.1:0", DataDir: data, Seed: testSeed,
		Tuning: tuning, Logger: quiet(), Gate: access})
	require.NoError(t, err)
	defer h.Close()
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: h.Server(), Access: access,
		Token: "test-token-0123456789", Ready: h.Ready, Assets: os.DirFS("static"), Logger: quiet()})
	require.NoError(t, err)
	defer web.Close()
	nBots := 20
	if s := os.Getenv("WEBMAP_MEASURE_BOTS"); s != "" {
		_, _ = fmt.Sscan(s, &nBots)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = bots.Run(ctx, bots.Options{Addr: h.DialAddr(), Fingerprint: h.Fingerprint(), Seed: testSeed,
			N: nBots, Duration: 10 * time.Minute, Radius: 2, Logger: quiet()})
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, h, nBots)
	const phase = 10 * time.Second
	bounds, _ := tickHist(t, h)
	p99s := map[bool][]float64{}
	var bytesSeen []float64
	for i := range 6 {
		viewers := i%2 == 1
		_, before := tickHist(t, h)
		if viewers {
			var wg sync.WaitGroup
			var mu sync.Mutex
			for range 5 {
				wg.Go(func() {
					n, _ := sseBytes(t, context.Background(), web.URL()+"api/stream", phase)
					mu.Lock()
					bytesSeen = append(bytesSeen, float64(n)/phase.Seconds())
					mu.Unlock()
				})
			}
			wg.Wait()
		} else {
			time.Sleep(phase) // a measurement's phase: nothing to wait for but time
		}
		_, after := tickHist(t, h)
		p99, n := quantile(bounds, before, after, 0.99)
		t.Logf("phase %d, %d viewers: tick p99 %.3f ms over %d ticks", i, map[bool]int{true: 5}[viewers], p99*1000, n)
		p99s[viewers] = append(p99s[viewers], p99)
	}
	sort.Float64s(bytesSeen)
	ms := func(v []float64) string {
		var parts []string
		for _, x := range v {
			parts = append(parts, fmt.Sprintf("%.3f", x*1000))
		}
		return strings.Join(parts, " / ")
	}
	t.Logf("%d bots: tick p99 without viewers %s ms, with 5 viewers %s ms; each viewer got %.0f–%.0f bytes/s",
		nBots, ms(p99s[false]), ms(p99s[true]), bytesSeen[0], bytesSeen[len(bytesSeen)-1])
}

func waitFor(t *testing.T, h *host.Host, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		snap, err := h.Server().Snapshot(context.Background(), 0)
		require.NoError(t, err)
		if len(snap.Players) >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "only %d of %d bots joined", len(snap.Players), n)
	}
}

// Close ends the open streams and the countdown and leaves no goroutine.
func TestCloseEndsStreamsAndCountdown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	access, err := webmap.OpenAccess(t.TempDir())
	require.NoError(t, err)
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: &fakeSource{n: 3, start: time.Now()},
		Access: access, Token: "test-token-0123456789", Assets: os.DirFS("static"), Interval: 50 * time.Millisecond, Logger: quiet()})
	require.NoError(t, err)
	res, err := http.Get(web.URL() + "api/stream")
	require.NoError(t, err)
	r := bufio.NewReader(res.Body)
	for { // the first cars event: the viewer is in the hub
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if line == "event: cars\n" {
			break
		}
	}
	code, body := post(t, web.URL()+"api/admin/shutdown", "test-token-0123456789", `{"seconds":600}`)
	require.Equal(t, 200, code, body)
	require.NoError(t, web.Close())
	_, err = io.Copy(io.Discard, r) // the stream ended
	assert.NoError(t, err)
	require.NoError(t, res.Body.Close())
	http.DefaultClient.CloseIdleConnections()
}
