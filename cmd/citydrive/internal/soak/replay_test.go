package soak

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/render/input"
	"citydrive/roadgraph/world"
)

// takeTheWheel is a headless display whose keys, by frame, take the car
// from the autopilot and drive it off the road into whatever stands there
// and against it, until Backspace puts it back and the autopilot goes on.
type takeTheWheel struct {
	*game.Headless
	frame int
}

func (d *takeTheWheel) Present() { d.frame++ }

func (d *takeTheWheel) Down(k input.Key) bool {
	at := d.frame
	switch k {
	case input.KeyW:
		return at >= 10*60 && at < 22*60
	case input.KeyA:
		return at >= 10*60 && at < 10*60+40
	}
	return false
}

func (d *takeTheWheel) Pressed(k input.Key) bool {
	switch k {
	case input.KeyP:
		return d.frame == 10*60 || d.frame == 23*60
	case input.KeyBackspace:
		return d.frame == 22*60
	}
	return false
}

// A soak's replays: the drive's and one of each incident, each a file
// that plays back headless exactly as recorded, the incident at the step
// it happened.
func TestTheSoaksReplayOfAContactReproducesItAtTheSameStep(t *testing.T) {
	if raceDetector {
		t.Skip("the soak runs without the race detector: cmd/test.sh runs it on its own")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	const seed = 412
	w := world.New(seed)
	cfg := buildworkers.DefaultConfig()
	cfg.Workers = 1
	cfg.NewBuilder = func() buildworkers.Builder { return buildworkers.NewCityBuilder(w, cfg.Slots.VertsPerSlot) }
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	r, err := Run(t.Context(), Options{Seed: seed, Duration: 35e9, Streaming: cfg, World: w, Traffic: true, Hour: 17.5,
		Replays: dir, display: &takeTheWheel{Headless: game.NewHeadless()}})
	require.NoError(t, err)
	t.Log("\n" + r.String())
	require.Positive(t, r.Contacts, "the drive into the city's things")
	require.NotEmpty(t, r.Replays)
	assert.Equal(t, filepath.Join(dir, DriveReplay), r.Replays[0])
	contacts := 0
	for _, path := range r.Replays {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		rp, err := replay.Parse(b)
		require.NoError(t, err, path)
		res, err := game.CheckReplay(rp, game.Options{Streaming: cfg, World: w, Log: quiet, Out: io.Discard})
		require.NoError(t, err)
		assert.Nil(t, res.Diverged, "%s: %v", path, res.Diverged)
		assert.Equal(t, rp.Steps, res.Steps)
		assert.Equal(t, rp.Incidents, res.Incidents, "%s: every incident at its step", path)
		if path == r.Replays[0] {
			assert.Equal(t, uint64(35*game.PhysicsHz), rp.Steps, "the whole drive")
			continue
		}
		// An incident's own replay ends 3 s after it, the incident in it.
		last := rp.Incidents[len(rp.Incidents)-1]
		assert.LessOrEqual(t, rp.Steps-last.Step, uint64(3*game.PhysicsHz))
		if last.Kind == replay.Contact {
			contacts++
		}
	}
	assert.Positive(t, contacts, "a contact's replay")
}
