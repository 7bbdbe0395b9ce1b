//go:build cgo

package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/settings"
)

// playFlags is play's view flags, -mute and -settings, parsed from args.
func playFlags(t *testing.T, args ...string) (*cmdFlags, *viewFlags, *bool, *string) {
	fs := newFlags("play", io.Discard, "play", "test")
	vf := addViewFlags(fs.FlagSet, true)
	mute := fs.Bool("mute", false, "")
	path := addSettingsFlag(fs)
	require.NoError(t, fs.parse(args))
	return fs, vf, mute, path
}

// The settings file fills in the flags the user did not type; the ones
// typed win, for this run only: saving the options screen's changes
// writes the file's values for them, not the flags'.
func TestSettingsFileAndFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "citydrive", settings.FileName)
	st := settings.Defaults()
	st.Width, st.Height, st.Weather, st.Time, st.Mute, st.Units = 1600, 900, "wet", 6, true, settings.MPH
	require.NoError(t, settings.Save(path, st))

	fs, vf, mute, p := playFlags(t, "-settings", path, "-weather", "dry", "-height", "1000")
	files, err := loadPlayerFiles(fs, *p)
	require.NoError(t, err)
	assert.Equal(t, 1600, *vf.width, "from the file")
	assert.Equal(t, 1000, *vf.height, "typed: the flag wins")
	assert.Equal(t, "dry", *vf.weather, "typed: the flag wins")
	assert.Equal(t, 6.0, *vf.timeOfDay)
	assert.True(t, *mute)
	eff := files.effective(vf, *mute)
	assert.Equal(t, settings.MPH, eff.Units, "settings without a flag come from the file")
	assert.Equal(t, "dry", eff.Weather)

	files.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	eff.Volume = 0.4
	require.NoError(t, files.save(eff, []settings.Field{settings.FieldVolume}))
	got, err := settings.Load(path)
	require.NoError(t, err)
	assert.Equal(t, 0.4, got.Volume, "what the screen changed is saved")
	assert.Equal(t, "wet", got.Weather, "this run's -weather is not")
	assert.Equal(t, 900, got.Height)

	_, vf, _, _ = playFlags(t, "-settings", "")
	assert.Equal(t, 1280, *vf.width, `-settings "": the defaults`)
}

// A settings file with a bad value stops the game before anything
// starts, naming the file, the setting and the value, and leaves the file
// as it was.
func TestBadSettingsFileStopsPlay(t *testing.T) {
	dryRun(t)
	path := filepath.Join(t.TempDir(), settings.FileName)
	bad := `{"volume": 2, "keys": {"dig": ["Shift"]}}`
	require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
	code, _, stderr := runCmd("play", "-settings", path)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "citydrive play: settings "+path+": ")
	assert.Contains(t, stderr, `"volume": 2 is out of range (0 to 1)`)
	assert.Contains(t, stderr, `"keys.dig": "Shift" is not a key name`)
	assert.Contains(t, stderr, `run with -settings ""`)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, bad, string(data))
	code, _, stderr = runCmd("play", "-settings", "")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, errDryRun.Error(), "without the file it starts")
}

// The resume file keeps a place per server and seed; a bad one is not
// used and not written over.
func TestPlayerFilesResume(t *testing.T) {
	dir := t.TempDir()
	files := &playerFiles{path: filepath.Join(dir, settings.FileName), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	files.loadResume()
	_, ok := files.place(settings.Solo, 412)
	assert.False(t, ok)
	files.savePlace(settings.Solo, 412, settings.Place{X: 12.345, Z: -6.789, Heading: 1, Camera: settings.Top})
	files.savePlace("192.0.2.10:4242", 412, settings.Place{X: 1, Z: 2, Camera: settings.Chase})

	again := &playerFiles{path: files.path, log: files.log}
	again.loadResume()
	p, ok := again.place(settings.Solo, 412)
	require.True(t, ok)
	assert.Equal(t, 12.345, p.X)
	assert.Equal(t, settings.Top, p.Camera)
	p, ok = again.place("192.0.2.10:4242", 412)
	require.True(t, ok)
	assert.Equal(t, 1.0, p.X)

	resume := filepath.Join(dir, settings.ResumeFileName)
	require.NoError(t, os.WriteFile(resume, []byte("{oops"), 0o644))
	broken := &playerFiles{path: files.path, log: files.log}
	broken.loadResume()
	_, ok = broken.place(settings.Solo, 412)
	assert.False(t, ok)
	broken.savePlace(settings.Solo, 412, settings.Place{Camera: settings.Chase})
	data, _ := os.ReadFile(resume)
	assert.Equal(t, "{oops", string(data), "not written over")
}

// shot's -pause-menu takes the menu's pages; -paused is its old name.
func TestShotPauseMenuFlag(t *testing.T) {
	dryRun(t)
	_, _, stderr := runCmd("shot", "-pause-menu", "options")
	assert.Contains(t, stderr, errDryRun.Error())
	_, _, stderr = runCmd("shot", "-paused")
	assert.Contains(t, stderr, errDryRun.Error())
	code, _, stderr := runCmd("shot", "-pause-menu", "credits")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, `-pause-menu must be one of main, options, keys, gamepad, quit, got "credits"`)
}
