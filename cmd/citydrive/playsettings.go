//go:build cgo

package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"citydrive/cmd/citydrive/internal/settings"
)

// The player's settings and resume file for play, client and join: the
// file gives every setting the command line leaves out (only the flags
// the user typed win: cmdFlags.isSet, which is flag.Visit), the options
// screen saves what the player changes there, and the place a drive was
// left is saved when the game ends and taken at the next start, per
// server and seed (-start wins).

// playerFiles is a session's settings and resume files.
type playerFiles struct {
	path string            // the settings file; "": none (-settings "")
	base settings.Settings // what the file says: saved with the screen's changes
	log  *slog.Logger

	resumePath string
	resume     settings.Resume
	resumeBad  bool // the resume file could not be read: it is not written over
}

// addSettingsFlag is -settings, with the config directory's file as its
// default.
func addSettingsFlag(fs *cmdFlags) *string {
	def, _ := settings.DefaultPath()
	return fs.String("settings", def, "the settings `file` (JSON), written by the options screen; \"\": the defaults, nothing saved, no resume")
}

// loadPlayerFiles reads the settings at path and sets every flag of
// flagSettings the user did not give from them. A bad settings file is an
// error (named field and value): the game does not start over it.
func loadPlayerFiles(fs *cmdFlags, path string) (*playerFiles, error) {
	p := &playerFiles{path: path, base: settings.Defaults()}
	if path == "" {
		return p, nil
	}
	var err error
	if p.base, err = settings.Load(path); err != nil {
		return nil, fmt.Errorf("%w\n(fix the file, delete it for the defaults, or run with -settings \"\")", err)
	}
	for _, f := range flagSettings {
		if fs.Lookup(f.flag) == nil || fs.isSet(f.flag) {
			continue
		}
		if err := fs.Set(f.flag, f.get(&p.base)); err != nil {
			return nil, fmt.Errorf("settings %s: %q: %w", path, f.flag, err) // Load checked it: not expected
		}
	}
	return p, nil
}

// flagSettings are the settings that are flags too.
var flagSettings = []struct {
	flag string
	get  func(*settings.Settings) string
}{
	{"width", func(s *settings.Settings) string { return strconv.Itoa(s.Width) }},
	{"height", func(s *settings.Settings) string { return strconv.Itoa(s.Height) }},
	{"fullscreen", func(s *settings.Settings) string { return strconv.FormatBool(s.Fullscreen) }},
	{"profile", func(s *settings.Settings) string { return s.Profile }},
	{"weather", func(s *settings.Settings) string { return s.Weather }},
	{"time", func(s *settings.Settings) string { return strconv.FormatFloat(s.Time, 'g', -1, 64) }},
	{"mute", func(s *settings.Settings) string { return strconv.FormatBool(s.Mute) }},
}

// effective are the settings in effect: the file's with the flags' values
// (after loadPlayerFiles the flags hold both).
func (p *playerFiles) effective(vf *viewFlags, mute bool) settings.Settings {
	s := p.base.Clone()
	s.Width, s.Height, s.Profile, s.Weather, s.Time, s.Mute = *vf.width, *vf.height, *vf.profile, *vf.weather, *vf.timeOfDay, mute
	if vf.fullscreen != nil {
		s.Fullscreen = *vf.fullscreen
	}
	return s
}

// save is the options screen's Options.SaveSettings: the fields the
// player changed go into the file's settings, which are written.
func (p *playerFiles) save(cur settings.Settings, changed []settings.Field) error {
	if p.path == "" {
		return nil
	}
	next := p.base.Clone()
	for _, f := range changed {
		next.Take(&cur, f)
	}
	if err := settings.Save(p.path, next); err != nil {
		return err
	}
	p.base = next
	p.log.Info("settings saved", "file", p.path)
	return nil
}

// loadResume reads the resume file beside the settings. A bad one is
// logged and left alone: the drive starts as without it.
func (p *playerFiles) loadResume() {
	if p.path == "" {
		return
	}
	p.resumePath = settings.ResumePath(p.path)
	r, err := settings.LoadResume(p.resumePath)
	if err != nil {
		p.resumeBad = true
		p.log.Warn("the last places are not used, and not saved over: fix or delete the file", "err", err)
		return
	}
	p.resume = r
}

// place is where the last drive on server in world seed was left.
func (p *playerFiles) place(server string, seed uint64) (settings.Place, bool) {
	if p.resumePath == "" || p.resumeBad {
		return settings.Place{}, false
	}
	return p.resume.Find(server, seed)
}

// savePlace records where this drive was left.
func (p *playerFiles) savePlace(server string, seed uint64, pl settings.Place) {
	if p.resumePath == "" || p.resumeBad {
		return
	}
	pl.Server, pl.Seed, pl.Saved = server, seed, time.Now().UTC().Truncate(time.Second)
	p.resume.Put(pl)
	if err := settings.SaveResume(p.resumePath, p.resume); err != nil {
		p.log.Error("the place was not saved", "err", err)
	}
}
