package webmap_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync/webcert"
	"citydrive/netsync/wire"
)

// testGamePage stands in for the game's page (package webgame): it opens
// the session the way the page does, from /play/config and the join code
// in the fragment, and runs the first half of the handshake.
const testGamePage = `<!doctype html><meta charset="utf-8"><title>test</title><script>
window.joinTest = async (handshake, forge) => {
  const code = decodeURIComponent(location.hash.slice(1));
  const cfg = await (await fetch("config")).json();
  if (!code.endsWith("/" + cfg.fingerprint)) throw new Error("join code and server disagree: " + code);
  const hashes = cfg.hashes.map(h => ({algorithm: "sha-256", value: new Uint8Array(h.match(/../g).map(b => parseInt(b, 16)))}));
  if (forge) hashes.forEach(h => { h.value[0] ^= 1; });
  const wt = new WebTransport(cfg.webtransport, {serverCertificateHashes: hashes});
  await wt.ready;
  const s = await wt.createBidirectionalStream();
  const w = s.writable.getWriter();
  await w.write(new Uint8Array(handshake));
  const r = s.readable.getReader();
  let got = [];
  for (;;) { // one frame: 4-byte length, then the message
    const {value, done} = await r.read();
    if (done) break;
    got.push(...value);
    if (got.length >= 4) {
      const n = ((got[0] << 24) | (got[1] << 16) | (got[2] << 8) | got[3]) >>> 0;
      if (got.length >= 4 + n) break;
    }
  }
  wt.close({closeCode: 0, reason: "done"});
  return got;
};
</script>`

// playRig is a server taking WebTransport, with the web endpoint serving
// the test page as the game.
func playRig(t *testing.T) (*host.Host, *webmap.Server) {
	t.Helper()
	data := t.TempDir()
	access, err := webmap.OpenAccess(data)
	require.NoError(t, err)
	h, err := host.Start(context.Background(), host.Options{Addr: "127.0.0.1:0", WebTransportAddr: "127.0.0.1:0",
		DataDir: data, Seed: testSeed, Logger: quiet(), Gate: access})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	token, _, err := webmap.LoadOrCreateToken(data)
	require.NoError(t, err)
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: h.Server(), Access: access,
		Token: token, Logger: quiet(), Game: h.Server(),
		GameFiles: fstest.MapFS{"index.html": {Data: []byte(testGamePage)}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = web.Close() })
	return h, web
}

func TestPlayConfigIsSignedByTheJoinCodesPin(t *testing.T) {
	h, web := playRig(t)
	rsp, err := http.Get("http://" + web.Addr().String() + "/play/config")
	require.NoError(t, err)
	defer rsp.Body.Close()
	require.Equal(t, http.StatusOK, rsp.StatusCode)
	var c struct {
		WebTransport, Seed, Fingerprint, Identity string
		Certificates, Hashes                      []string
	}
	require.NoError(t, json.NewDecoder(rsp.Body).Decode(&c))
	assert.Equal(t, fmt.Sprint(testSeed), c.Seed)
	assert.Equal(t, h.Fingerprint(), c.Fingerprint)
	assert.Equal(t, fmt.Sprintf("https://%s%s", h.Server().WebTransportAddr(), h.Server().WebTransportPath()), c.WebTransport,
		"the session's host is the one the page was reached at")
	var o webcert.Offer
	o.Identity, err = base64.StdEncoding.DecodeString(c.Identity)
	require.NoError(t, err)
	for _, s := range c.Certificates {
		der, err := base64.StdEncoding.DecodeString(s)
		require.NoError(t, err)
		o.Certs = append(o.Certs, der)
	}
	hashes, err := webcert.Verify(h.Fingerprint(), o, time.Now())
	require.NoError(t, err, "a page holding the join code can trust the offer")
	require.Len(t, c.Hashes, len(hashes))
	for i := range hashes {
		assert.Equal(t, webcert.Hex(hashes[i]), c.Hashes[i])
	}
	assert.True(t, strings.HasSuffix(web.PlayURL("example.org", "citydrive://example.org:4242/1/ab"), "/play/#citydrive://example.org:4242/1/ab"))
}

func TestPlayWithoutWebTransportSaysSo(t *testing.T) {
	data := t.TempDir()
	h, access := serverRig(t, data) // no -webtransport-addr, no game files
	t.Cleanup(func() { _ = h.Close() })
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: h.Server(), Access: access,
		Token: strings.Repeat("a", 32), Logger: quiet(), Game: h.Server()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = web.Close() })
	code, body := get(t, web.URL()+"play/config")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, body, "webtransport")
	code, body = get(t, web.URL()+"play/")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, body, "not in this build")
}

// A real browser accepts the server's short-lived certificate by its
// hash, opens the session and gets the server's Welcome.
func TestBrowserOpensAWebTransportSession(t *testing.T) {
	chromium(t)
	h, web := playRig(t)
	bctx, _ := browser(t, 400, 300)
	code := fmt.Sprintf("citydrive://127.0.0.1:%d/%d/%s", 1, testSeed, h.Fingerprint())
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(web.PlayURL("127.0.0.1", code))))
	enc := wire.NewEncoder()
	hs, err := enc.AppendFrame(nil, &wire.Hello{Protocol: wire.ProtocolVersion, Seed: testSeed, Generator: h.ClientConfig().Generator}, wire.ControlCap)
	require.NoError(t, err)
	hs, err = enc.AppendFrame(hs, &wire.Join{Key: 9, Name: "chromium"}, wire.ControlCap)
	require.NoError(t, err)
	js, _ := json.Marshal(toInts(hs))
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	// With hashes that are not the server's, Chromium refuses the session:
	// the hashes are what it trusts.
	_, err = eval[[]int](ctx, fmt.Sprintf("window.joinTest(%s, true)", js))
	require.Error(t, err)
	t.Logf("forged hashes: %v", err)
	assert.Contains(t, err.Error(), "WebTransport")
	got, err := eval[[]int](ctx, fmt.Sprintf("window.joinTest(%s, false)", js))
	require.NoError(t, err)
	b := make([]byte, len(got))
	for i, v := range got {
		b[i] = byte(v)
	}
	require.Greater(t, len(b), 4)
	m, err := wire.Decode(b[4:], wire.DefaultLimits)
	require.NoError(t, err)
	welcome, ok := m.(*wire.Welcome)
	require.True(t, ok, "want a Welcome, got %#v", m)
	assert.Equal(t, uint64(testSeed), welcome.Seed)
}

func toInts(b []byte) []int {
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v)
	}
	return out
}
