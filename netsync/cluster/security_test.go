package cluster_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natssec"
	"citydrive/netsync/cluster/natstest"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// secureCluster is a 3-node NATS cluster as cmd/cluster.sh runs one
// (TLS for clients and routes, nkey users only) knowing one server user,
// whose seed file it returns.
func secureCluster(t *testing.T) (*natstest.Cluster, string) {
	t.Helper()
	creds := filepath.Join(t.TempDir(), "server.nk")
	pub, err := natssec.WriteUser(creds)
	require.NoError(t, err)
	return natstest.StartSecure(t, 3, natssec.User{NKey: pub, Permissions: cluster.ServerPermissions(seed)}), creds
}

func tryJoin(nc *natstest.Cluster, creds, ca string) (*cluster.Node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return cluster.Join(ctx, cluster.Options{URLs: nc.URLs(0), Seed: seed, Replicas: 3, Logger: quietLog(), Creds: creds, CA: ca})
}

// A server without valid credentials is refused at once, with an error
// that says so; with them it joins, over TLS, and the cluster works.
func TestJoinNeedsTheServersCredentialsOverTLS(t *testing.T) {
	nc, creds := secureCluster(t)
	dir := t.TempDir()
	stranger := filepath.Join(dir, "stranger.nk")
	_, err := natssec.WriteUser(stranger)
	require.NoError(t, err)
	garbage := filepath.Join(dir, "garbage.nk")
	require.NoError(t, os.WriteFile(garbage, []byte("not a key\n"), 0o600))
	otherCA, err := natssec.WriteTLS(filepath.Join(dir, "other-ca"), []string{"127.0.0.1"})
	require.NoError(t, err)

	start := time.Now()
	_, err = tryJoin(nc, "", nc.CAFile())
	require.ErrorIs(t, err, cluster.ErrNotAuthorized, "no credentials")
	assert.Contains(t, err.Error(), "none given")

	_, err = tryJoin(nc, stranger, nc.CAFile())
	require.ErrorIs(t, err, cluster.ErrNotAuthorized, "a user NATS does not know")
	assert.Contains(t, err.Error(), stranger)

	_, err = tryJoin(nc, garbage, nc.CAFile())
	require.Error(t, err)
	assert.Contains(t, err.Error(), garbage, "a bad file is named")
	assert.Contains(t, err.Error(), "no nkey user seed")

	_, err = tryJoin(nc, filepath.Join(dir, "missing.nk"), nc.CAFile())
	require.ErrorIs(t, err, os.ErrNotExist)

	_, err = tryJoin(nc, creds, otherCA.CA)
	require.ErrorIs(t, err, cluster.ErrTLS, "nodes not signed by the CA given")
	assert.Contains(t, err.Error(), "not signed by the CA in "+otherCA.CA)

	_, err = tryJoin(nc, creds, "")
	require.ErrorIs(t, err, cluster.ErrTLS, "no CA: the system's roots do not know the nodes")
	assert.Less(t, time.Since(start), 15*time.Second, "refusals end the join at once, not at its deadline")

	// The right credentials: two servers join over TLS and share cars
	// and edits (the user's permissions cover all the cluster uses).
	opt := func(via int) cluster.Options {
		return cluster.Options{URLs: nc.URLs(via), Seed: seed, Replicas: 3, Logger: quietLog(), Creds: creds, CA: nc.CAFile()}
	}
	a, b := startServerOpt(t, opt(0), nil), startServerOpt(t, opt(1), nil)
	assert.True(t, cluster.ConnTLS(a.node) && cluster.ConnTLS(b.node), "NATS connections are TLS")
	pa, pb := join(t, a.clientConfig()), join(t, b.clientConfig())
	pa.until("b's car on a", func() bool { return pa.seesCar(pb.c.Player()) })
	for _, p := range []*player{pa, pb} {
		p.until("home", func() bool { _, ok := p.held[home]; return ok })
	}
	seq, err := pa.c.RequestEdit(home, 3, voxel.Stone)
	require.NoError(t, err)
	pa.until("the ack", func() bool { return pa.acked[seq] })
	pb.until("a's edit on b", func() bool { blk, _ := pb.block(home, 3); return blk == voxel.Stone })
	require.Empty(t, pa.refused)
}

// Nothing but the servers' user may connect, and that user may use only
// the cluster's subjects.
func TestNATSRefusesAnonymousAndOtherSubjects(t *testing.T) {
	nc, creds := secureCluster(t)
	_, err := nats.Connect(nc.URL(0), nats.RootCAs(nc.CAFile()))
	require.ErrorIs(t, err, nats.ErrAuthorization, "an anonymous connection is refused")

	violations := make(chan error, 4)
	opt, err := nats.NkeyOptionFromSeed(creds)
	require.NoError(t, err)
	conn, err := nats.Connect(nc.URL(0), opt, nats.RootCAs(nc.CAFile()),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err }))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.Publish("citydrive.77.cars.0.0", []byte{}), "its own subjects")
	require.NoError(t, conn.Flush())
	refused := func(what, subj string) {
		t.Helper()
		select {
		case err := <-violations:
			assert.True(t, errors.Is(err, nats.ErrPermissionViolation), "%s %s: %v", what, subj, err)
			assert.Contains(t, err.Error(), `"`+subj+`"`, what)
		case <-time.After(deadline):
			t.Fatalf("%s %s was not refused", what, subj)
		}
	}
	for _, subj := range []string{"elsewhere", "citydrive.78.cars.0.0", "$KV.citydrive-78.x", "$JS.API.STREAM.CREATE.other"} {
		require.NoError(t, conn.Publish(subj, nil))
		refused("publishing on", subj)
	}
	for _, subj := range []string{"citydrive.78.>", ">"} {
		_, err := conn.SubscribeSync(subj)
		require.NoError(t, err)
		refused("subscribing to", subj)
	}
	assert.Empty(t, violations, "its own subjects were allowed")
}

// The node's car rule judges other servers' cars before its players are
// shown them: a car jumping within the player's sight is held where it
// was, not relayed.
func TestRemoteCarJumpNotShownToPlayers(t *testing.T) {
	nc := natstest.Start(t, 1)
	rule := netsync.DefaultServerConfig().CarRule()
	a := startServerOpt(t, cluster.Options{URLs: nc.URLs(0), Seed: seed, Replicas: 1, Logger: quietLog(), CarRule: rule}, nil)
	pa := join(t, a.clientConfig())
	pa.until("home", func() bool { _, ok := pa.held[home]; return ok })

	// A hostile (or broken) server publishes on the cars subject of the
	// player's region: a car parked beside the player, then the same car
	// 30 m on at once, and on from there.
	raw, err := nats.Connect(nc.URL(0))
	require.NoError(t, err)
	defer raw.Close()
	x, y := uint32(9<<cluster.PlayerBits|1), uint32(9<<cluster.PlayerBits|2)
	car := func(id, seq uint32, mx float64) wire.CarSnapshot { return wire.QuantiseCar(id, seq, mx, 40, 16, 0, 0) }
	subject := cluster.CarSubject(seed, cluster.RegionOf(voxel.ChunkAt(car(x, 1, 10).Position())))
	publish := func(cs ...wire.CarSnapshot) {
		b, err := wire.AppendCarDatagram(nil, cs)
		require.NoError(t, err)
		require.NoError(t, raw.Publish(subject, b))
	}
	carX := func(id uint32) (float64, bool) {
		for _, c := range pa.c.Cars(nil) {
			if c.Player == id {
				px, _, _ := c.Position()
				return px, true
			}
		}
		return 0, false
	}
	seq := uint32(1)
	pa.until("the car beside the player", func() bool {
		seq++
		publish(car(x, seq, 10)) // parked: seen again every poll
		_, ok := carX(x)
		return ok
	})
	publish(car(x, seq+1, 10), car(x, seq+2, 40), car(x, seq+3, 41))
	publish(car(y, 1, 12)) // after the jump on one subject: its marker
	pa.until("the marker", func() bool { _, ok := carX(y); return ok })
	assert.GreaterOrEqual(t, cluster.RemoteCarsRejected(a.node), 2.0, "the jump and the move on from it are dropped")
	if px, ok := carX(x); ok {
		assert.InDelta(t, 10, px, 0.5, "the car is held where it was last accepted")
	}
}
