package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/netsync/cluster/natstest"
	"citydrive/voxel"
	"citydrive/voxel/backup"
	"citydrive/voxel/gen"
	"citydrive/voxel/store"
)

const backupSeed = 31

// worldWith makes seed's world in a new data directory with n edits by
// 40 players (their stamps come along), and returns the directory.
func worldWith(t *testing.T, n int) string {
	t.Helper()
	data := t.TempDir()
	s, err := store.Open(host.WorldDir(data, backupSeed), backupSeed, gen.Version)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < n; k += 500 {
		var batch []store.Edit
		for j := k; j < min(k+500, n); j++ {
			batch = append(batch, store.Edit{
				BlockEdit: voxel.BlockEdit{
					Pos:   voxel.ChunkPos{X: int32(rng.IntN(50)) - 25, Y: int32(rng.IntN(3)) - 1, Z: int32(rng.IntN(50)) - 25},
					Index: uint16(rng.IntN(voxel.ChunkVolume)), Block: voxel.Block(rng.IntN(int(voxel.NumBlocks))),
				},
				Player: uint64(1 + j%40), Seq: uint32(1 + j),
			})
		}
		_, err := s.ApplyEdits(batch)
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	return data
}

// startServer runs a server on data, as citydrive server does.
func startServer(t *testing.T, data string) *host.Host {
	t.Helper()
	h, err := host.Start(context.Background(), host.Options{Addr: "127.0.0.1:0", DataDir: data, Seed: backupSeed,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	return h
}

// contents is a world as the store's own read path shows it.
func contents(t *testing.T, data string) map[voxel.ChunkPos]voxel.Overlay {
	t.Helper()
	s, err := store.Open(host.WorldDir(data, backupSeed), backupSeed, gen.Version)
	require.NoError(t, err)
	defer s.Close()
	out := map[voxel.ChunkPos]voxel.Overlay{}
	require.NoError(t, s.EditedChunks(func(p voxel.ChunkPos) { out[p] = nil }))
	for p := range out {
		o, err := s.Overlay(p)
		require.NoError(t, err)
		out[p] = o
	}
	return out
}

var seedFlag = strconv.Itoa(backupSeed)

// 10,000 edits exported from a running server, imported into a new data
// directory: the same world through the store's own reads, and the same
// file when exported again (now without a server: read directly).
func TestExportFromARunningServerImportRoundTrip(t *testing.T) {
	src := worldWith(t, 10_000)
	h := startServer(t, src)
	file := filepath.Join(t.TempDir(), "world.cde")
	code, stdout, stderr := runCmd("export", "-data", src, "-seed", seedFlag, "-o", file)
	require.Equal(t, exitOK, code, stderr)
	t.Log(stdout)
	assert.Contains(t, stdout, "exported from the server running on "+host.WorldDir(src, backupSeed))
	assert.Regexp(t, `seed 31, generator \d+, \d+ chunks, \d+ edits, \d+ bytes`, stdout)
	require.NoError(t, h.Close())

	dst := filepath.Join(t.TempDir(), "restored")
	code, stdout, stderr = runCmd("import", "-data", dst, "-seed", seedFlag, "-i", file)
	require.Equal(t, exitOK, code, stderr)
	t.Log(stdout)
	assert.Contains(t, stdout, "into "+host.WorldDir(dst, backupSeed))
	want := contents(t, src)
	assert.Len(t, want, numberIn(t, stdout, `(\d+) chunks`))
	assert.Equal(t, want, contents(t, dst))

	again := filepath.Join(t.TempDir(), "again.cde")
	code, stdout, stderr = runCmd("export", "-data", dst, "-seed", seedFlag, "-o", again)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "(no server running)")
	a, err := os.ReadFile(file)
	require.NoError(t, err)
	b, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, a, b, "stamps and all")
}

func numberIn(t *testing.T, s, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	require.Len(t, m, 2, "%q in %q", re, s)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

// exportOf is a backup of a small world, and that world's directory.
func exportOf(t *testing.T) (file, data string) {
	t.Helper()
	data = worldWith(t, 300)
	file = filepath.Join(t.TempDir(), "world.cde")
	code, _, stderr := runCmd("export", "-data", data, "-seed", seedFlag, "-o", file)
	require.Equal(t, exitOK, code, stderr)
	return file, data
}

// Every refusal says what is wrong and what to do, and a refused import
// leaves the target as it was: no data directory appears.
func TestImportRefusals(t *testing.T) {
	file, src := exportOf(t)
	good, err := os.ReadFile(file)
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)-3] ^= 1
	var otherGen bytes.Buffer
	_, err = backup.Encode(&otherGen, backupSeed, 99, func(func(backup.Chunk) error) error { return nil })
	require.NoError(t, err)
	target := filepath.Join(dir, "target")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"seed", []string{"-seed", "32", "-i", file}, "holds the world of seed 31, not -seed 32: give -seed 31 to restore it as that world"},
		{"generator", []string{"-i", write("gen.cde", otherGen.Bytes())}, "holds edits of generator version 99; this citydrive runs version " + strconv.Itoa(gen.Version)},
		{"damaged", []string{"-i", write("flipped.cde", flipped)}, "backup damaged: the body's checksum does not match the header's; nothing was restored: use another copy"},
		{"truncated", []string{"-i", write("cut.cde", good[:len(good)-100])}, "file ends early (truncated)"},
		{"short", []string{"-i", write("short.cde", good[:40])}, "shorter than the header"},
		{"text", []string{"-i", write("notes.txt", []byte("my world, backed up\n"))}, "not a citydrive edits backup (.cde)"},
		{"empty", []string{"-i", write("empty.cde", nil)}, "the file is empty"},
		{"missing", []string{"-i", filepath.Join(dir, "nope.cde")}, "no such file"},
	} {
		args := append([]string{"import", "-data", target}, tc.args...)
		if !slices.Contains(tc.args, "-seed") {
			args = append(args, "-seed", seedFlag)
		}
		code, _, stderr := runCmd(args...)
		assert.Equal(t, exitError, code, tc.name)
		assert.Contains(t, stderr, tc.want, tc.name)
		_, err := os.Stat(target)
		assert.ErrorIs(t, err, os.ErrNotExist, "%s: nothing made", tc.name)
	}
	code, _, stderr := runCmd("import", "-data", src, "-seed", seedFlag, "-i", file)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "the world already has edits")
	assert.Contains(t, stderr, "import restores only into an empty world: move "+host.WorldDir(src, backupSeed)+" away")

	code, _, stderr = runCmd("import", "-data", target)
	assert.Equal(t, exitError, code)
	assert.Equal(t, "citydrive import: -i is required: the backup file to restore\nsee citydrive import -h\n", stderr)
}

// A world directory holding someone else's files is refused, and left as
// it was; so is a data directory a server runs on.
func TestImportIntoAForeignOrBusyDirectory(t *testing.T) {
	file, _ := exportOf(t)
	data := t.TempDir()
	world := host.WorldDir(data, backupSeed)
	require.NoError(t, os.MkdirAll(world, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(world, "notes"), nil, 0o644))
	code, _, stderr := runCmd("import", "-data", data, "-seed", seedFlag, "-i", file)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "not a citydrive edit directory")
	entries, err := os.ReadDir(world)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "left as it was")
}

func TestImportIntoARunningServerIsAlreadyRunning(t *testing.T) {
	file, _ := exportOf(t)
	data := t.TempDir()
	startServer(t, data)
	code, _, stderr := runCmd("import", "-data", data, "-seed", seedFlag, "-i", file)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "already running")
}

func TestExportRefusals(t *testing.T) {
	data := t.TempDir()
	out := filepath.Join(t.TempDir(), "w.cde")
	code, _, stderr := runCmd("export", "-data", data, "-seed", seedFlag, "-o", out)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "no world of seed 31 in "+data)

	// A citydrive holding the store without serving exports (one from
	// before export): stop it, it says.
	s, err := store.Open(host.WorldDir(data, backupSeed), backupSeed, gen.Version)
	require.NoError(t, err)
	code, _, stderr = runCmd("export", "-data", data, "-seed", seedFlag, "-o", out)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "a citydrive is running on "+data+" but serves no exports")
	require.NoError(t, s.Close())

	code, _, stderr = runCmd("export", "-data", data, "-cluster", "nats://127.0.0.1:1", "-o", out)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "give -data or -cluster, not both")
	code, _, stderr = runCmd("export", "-data", data)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "-o must not be empty")
	code, _, stderr = runCmd("export", "-data", data, "-o", filepath.Join(data, "no", "w.cde"))
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "does not exist")
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Empty(t, entries, "a failed export leaves no file, not even its temporary one")
}

// A world moves from a data directory into a cluster's bucket and back
// out to the very same file.
func TestExportImportThroughACluster(t *testing.T) {
	file, _ := exportOf(t)
	nc := natstest.Start(t, 1)
	code, stdout, stderr := runCmd("import", "-cluster", nc.URL(0), "-replicas", "1", "-seed", seedFlag, "-i", file)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "into the cluster's bucket citydrive-31")

	again := filepath.Join(t.TempDir(), "again.cde")
	code, stdout, stderr = runCmd("export", "-cluster", nc.URL(0), "-seed", seedFlag, "-o", again)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "exported from the cluster's bucket citydrive-31 at revision")
	a, err := os.ReadFile(file)
	require.NoError(t, err)
	b, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, a, b)

	code, _, stderr = runCmd("import", "-cluster", nc.URL(0), "-seed", seedFlag, "-i", file)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "holds chunk")
	assert.Contains(t, stderr, "import restores only into an empty world")
	code, _, stderr = runCmd("export", "-cluster", nc.URL(0), "-seed", "5", "-o", again)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "the cluster has no bucket citydrive-5")
}
