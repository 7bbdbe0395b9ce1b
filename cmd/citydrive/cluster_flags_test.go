package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
	"citydrive/netsync/cluster/natssec"
)

func TestClusterFlagTakesNATSURLs(t *testing.T) {
	urls, err := parseNATS("nats://127.0.0.1:4222, nats://10.0.0.2:4223")
	require.NoError(t, err)
	assert.Equal(t, []string{"nats://127.0.0.1:4222", "nats://10.0.0.2:4223"}, urls)
	none, err := parseNATS("")
	require.NoError(t, err)
	assert.Empty(t, none, "no -cluster: a single server")
	for _, bad := range []string{"127.0.0.1:4222", "nats://host", "http://h:1", "nats://a:1,,"} {
		_, err := parseNATS(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, []string{"a:1", "b:2"}, splitList(" a:1 ,b:2,"))
}

// -cluster-creds and -cluster-ca need -cluster, and a file that cannot be
// used is named by its flag before anything starts.
func TestClusterCredentialFlags(t *testing.T) {
	dir := t.TempDir()
	seedFile := filepath.Join(dir, "server.nk")
	_, err := natssec.WriteUser(seedFile)
	require.NoError(t, err)
	files, err := natssec.WriteTLS(filepath.Join(dir, "tls"), []string{"127.0.0.1"})
	require.NoError(t, err)
	garbage := filepath.Join(dir, "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("hello\n"), 0o600))
	urls := []string{"nats://127.0.0.1:4222"}
	flags := func(creds, ca string) natsAuthFlags { return natsAuthFlags{creds: &creds, ca: &ca} }

	require.NoError(t, flags("", "").check(nil), "a single server")
	require.NoError(t, flags("", "").check(urls), "a NATS without authentication")
	require.NoError(t, flags(seedFile, files.CA).check(urls))
	for _, tc := range []struct {
		creds, ca string
		urls      []string
		want      []string
	}{
		{seedFile, "", nil, []string{"-cluster-creds and -cluster-ca need -cluster"}},
		{"", files.CA, nil, []string{"need -cluster"}},
		{garbage, "", urls, []string{"-cluster-creds", garbage, "no nkey user seed"}},
		{filepath.Join(dir, "none"), "", urls, []string{"-cluster-creds", "no such file"}},
		{"", garbage, urls, []string{"-cluster-ca", garbage, "no PEM certificate"}},
		{"", files.Key, urls, []string{"-cluster-ca", "no PEM certificate"}}, // a key is no certificate
	} {
		err := flags(tc.creds, tc.ca).check(tc.urls)
		require.Error(t, err, "%+v", tc)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w, "%+v", tc)
		}
	}
	// Through the command line, before anything starts.
	code, _, stderr := runCmd("server", "-cluster-creds", seedFile)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "need -cluster")
	code, _, stderr = runCmd("export", "-cluster", urls[0], "-cluster-creds", garbage, "-o", filepath.Join(dir, "b.cde"))
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "-cluster-creds")

	// NATS refusing the server names the flag to look at.
	refused := fmt.Errorf("cluster: %w: none given", cluster.ErrNotAuthorized)
	assert.Contains(t, clusterHint(refused).Error(), "-cluster-creds")
	assert.ErrorIs(t, clusterHint(refused), cluster.ErrNotAuthorized)
	assert.Contains(t, clusterHint(fmt.Errorf("x: %w", cluster.ErrTLS)).Error(), "-cluster-ca")
	other := errors.New("other")
	assert.Equal(t, other, clusterHint(other))
}

// cluster-keys writes configurations nats-server takes, keeps its keys
// on a second run, and names what the servers need.
func TestClusterKeysWritesWhatNATSRuns(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd("cluster-keys", "-dir", dir, "-seed", "5")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "ca: "+filepath.Join(dir, "keys", natssec.CAFile)+"\n")
	assert.Contains(t, stdout, "creds: "+filepath.Join(dir, "keys", "server.nk")+"\n")
	for i := 1; i <= 3; i++ {
		conf := filepath.Join(dir, fmt.Sprintf("nats%d.conf", i))
		o, err := server.ProcessConfigFile(conf)
		require.NoError(t, err, conf)
		assert.Equal(t, 4221+i, o.Port)
		assert.Equal(t, 6221+i, o.Cluster.Port)
		assert.Equal(t, 8221+i, o.HTTPPort)
		assert.Len(t, o.Routes, 3)
		assert.NotNil(t, o.TLSConfig, "clients on TLS")
		assert.NotNil(t, o.Cluster.TLSConfig, "routes on TLS")
		require.Len(t, o.Nkeys, 1, "one user, the servers'")
		assert.Contains(t, o.Nkeys[0].Permissions.Publish.Allow, "citydrive.5.>")
		assert.Contains(t, o.Nkeys[0].Permissions.Publish.Allow, "$KV.citydrive-5.>")
	}
	seed1, err := os.ReadFile(filepath.Join(dir, "keys", "server.nk"))
	require.NoError(t, err)
	code, stdout2, _ := runCmd("cluster-keys", "-dir", dir, "-seed", "5")
	require.Equal(t, exitOK, code)
	seed2, err := os.ReadFile(filepath.Join(dir, "keys", "server.nk"))
	require.NoError(t, err)
	assert.Equal(t, seed1, seed2, "the key is kept")
	assert.Equal(t, stdout, stdout2)

	code, _, stderr = runCmd("cluster-keys", "-dir", dir, "-host", "localhost")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "want an IP address")
}
