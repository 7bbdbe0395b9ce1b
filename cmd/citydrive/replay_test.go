package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/cmd/citydrive/internal/soak"
	"citydrive/roadgraph/world"
)

// soakReplay is the replay of a short soak of seed 412 (its drive's).
func soakReplay(t *testing.T) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: a soak")
	}
	w := world.New(412)
	cfg := buildworkers.DefaultConfig()
	cfg.Workers = 1
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	dir := t.TempDir()
	r, err := soak.Run(t.Context(), soak.Options{Seed: 412, Duration: 8 * time.Second, Streaming: cfg, World: w, Traffic: true,
		Hour: 17.5, Replays: dir, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.NotEmpty(t, r.Replays)
	b, err := os.ReadFile(r.Replays[0])
	require.NoError(t, err)
	return b
}

// replay -check plays a file headless and says it is identical; a bare
// name is found in the data directory, which replay with no file lists;
// a damaged file is one clear error.
func TestReplayCommandChecksListsAndRefuses(t *testing.T) {
	file := soakReplay(t)
	data := t.TempDir()
	name := replay.Name(time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC), 412)
	path, err := replay.Save(replay.DirIn(data), name, file, replay.Keep)
	require.NoError(t, err)

	code, stdout, stderr := runCmd("replay", "-check", path)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "replay "+path+": seed 412, 0:08.000 (960 steps), the autopilot driving, traffic at 17.5 h")
	assert.Contains(t, stdout, "identical: 8 checksums of the car and the traffic")

	code, stdout, stderr = runCmd("replay", "-check", "-data", data, name)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "identical", "a bare name is the data directory's")

	code, stdout, _ = runCmd("replay", "-data", data)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "replays in "+replay.DirIn(data)+", newest first")
	assert.Contains(t, stdout, "  "+name+"  seed 412, 0:08.000")

	damaged := filepath.Join(t.TempDir(), "damaged.replay")
	require.NoError(t, os.WriteFile(damaged, file[:len(file)-10], 0o644))
	code, _, stderr = runCmd("replay", "-check", damaged)
	assert.Equal(t, exitError, code)
	assert.Equal(t, "citydrive replay: "+damaged+": replay damaged: its checksum does not match (cut short or changed)\n", stderr)

	code, _, stderr = runCmd("replay", "-check", "-seed", "7", path)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "-seed 7 disagrees with the replay's seed 412")

	code, _, stderr = runCmd("replay", "-check", filepath.Join(data, "none.replay"))
	assert.Equal(t, exitError, code)
	assert.True(t, strings.Contains(stderr, "no such file"), stderr)
}

// A drive's replay goes to the data directory's replays/, which keeps
// the newest replay.Keep; the player is told where.
func TestPlayKeepsTheDriveInTheDataDirectory(t *testing.T) {
	w := world.New(412)
	cfg := buildworkers.DefaultConfig()
	cfg.Slots.Slots, cfg.Workers = 48, 1
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := game.New(game.Options{Streaming: cfg, World: w, Display: game.NewHeadless(), TerrainRadius: 1, Autopilot: true,
		FixedStep: true, Record: true, Log: log, Out: io.Discard})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Load())
	for range 120 {
		require.NoError(t, s.Frame(1.0/60))
	}
	data := t.TempDir()
	var out strings.Builder
	saveDrive(&out, log, data, s)
	names, err := replay.List(replay.DirIn(data))
	require.NoError(t, err)
	require.Len(t, names, 1)
	path := filepath.Join(replay.DirIn(data), names[0])
	assert.Equal(t, "replay of the drive: citydrive replay "+path+"\n", out.String())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	rp, err := replay.Parse(b)
	require.NoError(t, err)
	assert.Equal(t, uint64(240), rp.Steps)
	assert.True(t, strings.HasSuffix(names[0], "-seed-412.replay"))
}
