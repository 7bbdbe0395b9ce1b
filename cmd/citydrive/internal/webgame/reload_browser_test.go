package webgame_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/voxel"
)

// waitPlaying waits until the page is connected (solo: to its own
// server) and draws the world, and returns its link.
func waitPlaying(t *testing.T, ctx context.Context, what string, notPlayer uint32) pageLink {
	t.Helper()
	l, err := eval[pageLink](ctx, fmt.Sprintf(`new Promise((res, rej) => {
		const t0 = performance.now();
		(function poll() {
			const c = window.citydrive;
			if (c.error) return rej(new Error(c.error));
			if (performance.now() - t0 > 150000) return rej(new Error("not playing after 150 s: " + JSON.stringify(c.stats) + " link: " + JSON.stringify(c.link)));
			if (c.link && c.link.connected && c.link.carSeq > 0 && c.link.player != %d && !c.stats.loading) return res(%s);
			setTimeout(poll, 200);
		})();
	})`, notPlayer, readLink))
	require.NoError(t, err, what)
	return l
}

// pageIdentity is the link's key and name.
type pageIdentity struct{ Key, Name string }

func identityOf(t *testing.T, ctx context.Context) pageIdentity {
	t.Helper()
	id, err := eval[pageIdentity](ctx, `({Key: window.citydrive.link.key, Name: window.citydrive.link.name})`)
	require.NoError(t, err)
	return id
}

// Solo in the page is a server in the page whose world keeps its edits in
// IndexedDB: an edit made through the game's edit path is still there
// after a reload, and the reload is the same player with the name kept.
func TestBrowserSoloEditsSurviveAReload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and builds the game's WebAssembly module")
	}
	chromium(t)
	t0 := time.Now()
	srv := httptest.NewServer(http.FileServer(http.Dir(page(t))))
	defer srv.Close()
	ctx, errs := browser(t, 480, 270)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?seed=412&name=solo%20tester")))
	l := waitPlaying(t, ctx, "solo", 0)
	first := identityOf(t, ctx)
	t.Logf("solo: player %d, key %s, name %q (%.1f s)", l.Player, first.Key, first.Name, time.Since(t0).Seconds())
	assert.Equal(t, "solo tester", first.Name)
	assert.Len(t, first.Key, 16)

	bx, by, bz := int64(math.Floor(l.X)), int64(math.Floor(l.Y))+4, int64(math.Floor(l.Z))
	readBlock := fmt.Sprintf("window.citydrive.solo.block(%d, %d, %d)", bx, by, bz)
	was, err := eval[any](ctx, readBlock)
	require.NoError(t, err)
	require.Nil(t, was, "the block above the car was not edited before (a fresh browser profile)")
	why, err := eval[any](ctx, fmt.Sprintf("window.citydrive.edit(%d, %d, %d, %d)", bx, by, bz, voxel.Stone))
	require.NoError(t, err)
	require.Nil(t, why, "the page refused the edit")
	waitFor(t, 60*time.Second, "the solo server saved and acknowledged the edit", func() (bool, error) {
		l, err = eval[pageLink](ctx, readLink)
		return l.EditsApplied+l.EditsRefd >= 1, err
	})
	require.Equal(t, 1, l.EditsApplied, "refused: %+v", l)
	got, err := eval[int](ctx, readBlock)
	require.NoError(t, err)
	assert.Equal(t, int(voxel.Stone), got)

	// Reloaded without ?name=: the stored edits and the stored player.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?seed=412")))
	waitPlaying(t, ctx, "solo after the reload", 0)
	got, err = eval[int](ctx, readBlock)
	require.NoError(t, err, "the block after the reload")
	assert.Equal(t, int(voxel.Stone), got, "the edit survived the reload")
	edited, err := eval[int](ctx, "window.citydrive.solo.edited")
	require.NoError(t, err)
	assert.Equal(t, 1, edited)
	assert.Equal(t, first, identityOf(t, ctx), "the same player key and name after the reload")
	assert.Empty(t, errs(), "the page logged errors")
	t.Logf("whole test: %.1f s", time.Since(t0).Seconds())
}

// Joined, a reload is the same player to the server: the same player key
// (its bans, allow-lists, edit dedup), and the name from ?name= kept.
func TestBrowserIsTheSamePlayerAfterAReload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and builds the game's WebAssembly module")
	}
	chromium(t)
	t0 := time.Now()
	h := joinRig(t, page(t), true)
	ctx, errs := browser(t, 480, 270)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	code := fmt.Sprintf("citydrive://%s/%d/%s", h.Addr(), joinSeed, h.Fingerprint())
	base := "http://" + h.web + "/play/"
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"?name=reloader#"+code)))
	l1 := waitPlaying(t, ctx, "joined", 0)
	p1 := serverPlayer(t, h.Server(), l1.Player)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"?seed=412#"+code)))
	l2 := waitPlaying(t, ctx, "joined after the reload", l1.Player)
	p2 := serverPlayer(t, h.Server(), l2.Player)
	t.Logf("before the reload: player %d key %016x %q; after: player %d key %016x %q", p1.ID, p1.Key, p1.Name, p2.ID, p2.Key, p2.Name)
	assert.Equal(t, "reloader", p1.Name)
	assert.Equal(t, p1.Key, p2.Key, "the server sees the same player key")
	assert.Equal(t, "reloader", p2.Name, "the name was kept")
	assert.Equal(t, fmt.Sprintf("%016x", p2.Key), identityOf(t, ctx).Key)
	assert.Empty(t, errs(), "the page logged errors")
	t.Logf("whole test: %.1f s", time.Since(t0).Seconds())
}

// serverPlayer is the server's record of player id.
func serverPlayer(t *testing.T, s *netsync.Server, id uint32) netsync.PlayerInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, err := s.Snapshot(ctx, 0)
	require.NoError(t, err)
	for _, p := range snap.Players {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("the server has no player %d: %+v", id, snap.Players)
	return netsync.PlayerInfo{}
}
