package webmap_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/bots"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/webmap"
	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natstest"
)

// clusterRig is one server of a cluster on nc, with the cluster's shared
// access rules; Close it (or the test's end does).
func clusterRig(t *testing.T, nc *natstest.Cluster, mod func(*host.Options)) (*host.Host, *webmap.Access) {
	t.Helper()
	var access *webmap.Access
	opt := host.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Seed: testSeed, Logger: quiet(),
		Cluster: nc.URLs(0), Replicas: 1,
		OpenGate: func(shared *cluster.Rules) (netsync.Gate, error) {
			require.NotNil(t, shared, "a cluster's server has its shared rules")
			access = webmap.OpenSharedAccess(shared, quiet())
			return access, nil
		}}
	if mod != nil {
		mod(&opt)
	}
	h, err := host.Start(context.Background(), opt)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h, access
}

// In a cluster the bans and the allow-list are the cluster's: a key
// banned on server A (through A's admin API) is kicked off server B and
// refused joining it,
// and by a server started after both are gone; lifted on B, A lets it in.
func TestClusterBanHoldsOnEveryServer(t *testing.T) {
	nc := natstest.Start(t, 1)
	a, accessA := clusterRig(t, nc, nil)
	b, accessB := clusterRig(t, nc, nil)
	require.True(t, accessA.Shared())
	web := mapRig(t, a, accessA, func() {})
	defer web.Close()

	accessB.KickBanned(b.Server(), quiet())
	c, err := join(t, b, 42, "")
	require.NoError(t, err)
	code, body := post(t, web.URL()+"api/admin/ban", "test-token-0123456789", `{"key":"000000000000002a","reason":"griefing"}`)
	require.Equal(t, 200, code, body)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	require.NoError(t, accessB.Sync(ctx))
	assert.True(t, accessB.Banned(42))
	<-c.Done() // B kicked the key connected to it when A's ban reached it
	assert.ErrorIs(t, c.Err(), netsync.ErrKicked)
	assert.ErrorContains(t, c.Err(), "griefing")
	_, err = join(t, b, 42, "")
	assert.Equal(t, "you are banned from this server: griefing", refusal(t, err))

	// The allow-list too, set on B, holds on A.
	require.NoError(t, accessB.SetAllowOnly(true))
	require.NoError(t, accessB.Allow(7, true))
	require.NoError(t, accessA.Sync(ctx))
	_, err = join(t, a, 8, "")
	assert.Contains(t, refusal(t, err), "allow-list")
	c, err = join(t, a, 7, "")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, accessA.SetAllowOnly(false))

	// Both gone, a new server has the ban from the start.
	require.NoError(t, web.Close())
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	d, accessD := clusterRig(t, nc, nil)
	assert.True(t, accessD.Banned(42))
	assert.False(t, accessD.State().AllowOnly)
	_, err = join(t, d, 42, "")
	assert.Equal(t, "you are banned from this server: griefing", refusal(t, err))
	require.NoError(t, accessD.Unban(42))
	c, err = join(t, d, 42, "")
	require.NoError(t, err)
	require.NoError(t, c.Close())
}

// streamedPlayer is one entry of the stream's players event.
type streamedPlayer struct {
	ID     uint32 `json:"id"`
	Name   string `json:"name"`
	Server string `json:"server"`
	Remote bool   `json:"remote"`
}

// awaitPlayers reads url's stream until a players event satisfies ok, and
// returns it; it fails the test at ctx's end.
func awaitPlayers(t *testing.T, ctx context.Context, url string, ok func([]streamedPlayer) bool) []streamedPlayer {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	var last []streamedPlayer
	for event := ""; ; {
		line, err := r.ReadString('\n')
		require.NoError(t, err, "the stream ended; last players: %+v", last)
		if name, found := strings.CutPrefix(line, "event: "); found {
			event = strings.TrimSpace(name)
			continue
		}
		data, found := strings.CutPrefix(line, "data: ")
		if !found || event != "players" {
			continue
		}
		last = nil
		require.NoError(t, json.Unmarshal([]byte(data), &last))
		if ok(last) {
			return last
		}
	}
}

// In a cluster the map of server A shows every server's players, each
// with its server: a bot on A and one on B are both on A's stream and in
// A's /api/players, B's marked remote (its server, the name B's roster
// gives, no key); A's
// admin API sends a kick of B's player to B.
func TestClusterMapShowsEveryServersPlayers(t *testing.T) {
	nc := natstest.Start(t, 1)
	tuning := netsync.DefaultServerConfig().Tuning
	tuning.SpawnRadius = 0 // the bots start where bots.Run puts them
	tune := func(o *host.Options) { o.Tuning = tuning }
	a, accessA := clusterRig(t, nc, tune)
	b, _ := clusterRig(t, nc, tune)
	nameA, nameB := cluster.ServerName(a.Node().FirstPlayer()), cluster.ServerName(b.Node().FirstPlayer())
	require.NotEqual(t, nameA, nameB)
	fleet, err := a.Node().WatchFleet()
	require.NoError(t, err)
	web, err := webmap.Start(webmap.Options{Addr: "127.0.0.1:0", Seed: testSeed, Source: a.Server(), Access: accessA,
		Token: "test-token-0123456789", Ready: a.Ready, Interval: 100 * time.Millisecond,
		Assets: os.DirFS("static"), Logger: quiet(), Cluster: &webmap.Cluster{Fleet: fleet, Self: a.Node().Slot()}})
	require.NoError(t, err)
	defer web.Close()

	// Bot 0 joins A, bot 1 joins B (bot i: server i mod n).
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		_, err := bots.Run(ctx, bots.Options{Addr: a.DialAddr() + "," + b.DialAddr(),
			Fingerprint: a.Fingerprint() + "," + b.Fingerprint(), Seed: testSeed, N: 2, Duration: time.Minute,
			Radius: 1, Spread: 1, EditEvery: -1, Stay: true, Logger: quiet()})
		ran <- err
	}()
	defer func() { cancel(); require.NoError(t, <-ran) }()

	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	both := func(ps []streamedPlayer) bool {
		servers := map[string]bool{}
		for _, p := range ps {
			if p.Name == "" {
				return false // B's roster not in yet
			}
			servers[p.Server] = true
		}
		return servers[nameA] && servers[nameB]
	}
	ps := awaitPlayers(t, wctx, web.URL()+"api/stream", both)
	require.Len(t, ps, 2, "%+v", ps)
	for _, p := range ps {
		assert.Equal(t, p.Server != nameA, p.Remote, "%+v", p)
	}

	code, body := get(t, web.URL()+"api/players")
	require.Equal(t, 200, code, body)
	var listed []struct {
		ID     uint32 `json:"id"`
		Name   string `json:"name"`
		Server string `json:"server"`
		Remote bool   `json:"remote"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &listed))
	require.Len(t, listed, 2, body)
	byServer := map[string]uint32{}
	for _, p := range listed {
		byServer[p.Server] = p.ID
	}
	require.Contains(t, byServer, nameA, body)
	require.Contains(t, byServer, nameB, body)
	assert.Equal(t, a.Node().Slot(), cluster.ServerSlot(byServer[nameA]))
	assert.Equal(t, b.Node().Slot(), cluster.ServerSlot(byServer[nameB]))
	assert.Contains(t, body, `"name":"bot-0"`, "A's own player has its name")
	assert.Contains(t, body, `"name":"bot-1"`, "B's player has the name B's roster gives")

	// A kick by id of B's player is B's to do.
	code, body = post(t, web.URL()+"api/admin/kick", "test-token-0123456789", fmt.Sprintf(`{"id":%d}`, byServer[nameB]))
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, body, "is on server "+nameB)
}
