// Package settings is what a player sets once and expects the game to
// remember: the window, the render profile, sound, units, HUD, camera,
// weather, time of day and the key and gamepad bindings, in a JSON file in
// the user's config directory; and where each world was left (resume.go).
// A file is checked as strictly as a flag: an error names the setting,
// the bad value and what is allowed, and a file that could not be read is
// never written over.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"citydrive/render/input"
	"citydrive/render/scale"
)

// FileName is the settings file's name in the config directory.
const FileName = "settings.json"

// formatVersion is the settings file's format; a newer one is refused
// rather than half read.
const formatVersion = 1

// Units of speed.
const (
	KMH = "km/h"
	MPH = "mph"
)

// Cameras.
const (
	Chase = "chase"
	Top   = "top"
)

// Settings are the player's settings.
type Settings struct {
	Width, Height int  // window size in pixels
	Fullscreen    bool // on the primary monitor
	Profile       string
	Volume        float64 // master volume, 0..1
	Mute          bool
	Units         string // KMH or MPH
	HUD           bool
	Camera        string  // Chase or Top
	Weather       string  // dry or wet
	Time          float64 // time of day, hours in [0, 24)
	Bindings      Bindings
}

// Defaults are the settings of a first start: the flags' defaults.
func Defaults() Settings {
	return Settings{
		Width: 1280, Height: 720, Profile: "full", Volume: 1, Units: KMH, HUD: true,
		Camera: Chase, Weather: "dry", Time: 17.5, Bindings: DefaultBindings(),
	}
}

// Clone is a deep copy (the bindings' slices too).
func (s Settings) Clone() Settings {
	s.Bindings = s.Bindings.Clone()
	return s
}

// DefaultPath is the settings file in the user's config directory
// ($XDG_CONFIG_HOME/citydrive/settings.json on Linux).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the settings: %w", err)
	}
	return filepath.Join(dir, "citydrive", FileName), nil
}

// Size limits, as the -width and -height flags.
const minSize, maxSize = 64, 16384

// Check reports every setting out of range, each named with its value
// and what is allowed.
func (s *Settings) Check() error {
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%q: %s", field, fmt.Sprintf(format, args...)))
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"width", s.Width}, {"height", s.Height}} {
		if d.v < minSize || d.v > maxSize {
			bad(d.name, "%d is out of range (%d to %d pixels)", d.v, minSize, maxSize)
		}
	}
	if _, err := scale.ParseProfile(s.Profile); err != nil {
		bad("profile", "%q is not a profile (want %s)", s.Profile, profileNames())
	}
	if !(s.Volume >= 0 && s.Volume <= 1) {
		bad("volume", "%g is out of range (0 to 1)", s.Volume)
	}
	oneOf := func(field, v string, want ...string) {
		if !slices.Contains(want, v) {
			bad(field, "%q is not one of %s", v, quoteList(want))
		}
	}
	oneOf("units", s.Units, KMH, MPH)
	oneOf("camera", s.Camera, Chase, Top)
	oneOf("weather", s.Weather, "dry", "wet")
	if !(s.Time >= 0 && s.Time < 24) {
		bad("time", "%g is out of range (0 to 24 hours, 24 excluded)", s.Time)
	}
	for a := range NumActions {
		if n := len(s.Bindings.Keys[a]); n > maxPerAction {
			bad("keys."+a.Name(), "%d keys, at most %d", n, maxPerAction)
		}
		if n := len(s.Bindings.Pad[a]); n > maxPerAction {
			bad("gamepad."+a.Name(), "%d buttons, at most %d", n, maxPerAction)
		}
	}
	return errors.Join(errs...)
}

func profileNames() string {
	var names []string
	for _, p := range scale.Profiles {
		names = append(names, p.Name)
	}
	return quoteList(names)
}

func quoteList(v []string) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// file is the settings file's layout. Bindings are objects from action
// name to a list of key (or button) names.
type file struct {
	Version    int                 `json:"version"`
	Width      int                 `json:"width"`
	Height     int                 `json:"height"`
	Fullscreen bool                `json:"fullscreen"`
	Profile    string              `json:"profile"`
	Volume     float64             `json:"volume"`
	Mute       bool                `json:"mute"`
	Units      string              `json:"units"`
	HUD        bool                `json:"hud"`
	Camera     string              `json:"camera"`
	Weather    string              `json:"weather"`
	Time       float64             `json:"time"`
	Keys       map[string][]string `json:"keys"`
	Gamepad    map[string][]string `json:"gamepad"`
}

// Load reads the settings at path. A missing file is the defaults (a
// first start); a setting the file leaves out keeps its default, and so
// does an action it does not bind. Anything else wrong is an error that
// names the file, the setting and the value; the caller should then not
// save over the file.
func Load(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults(), nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return Settings{}, fileError(path, err)
	}
	return s, nil
}

// fileError names the file: one problem on the same line, several one
// to a line under it.
func fileError(path string, err error) error {
	var all []error
	var flatten func(error)
	flatten = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				flatten(x)
			}
			return
		}
		all = append(all, e)
	}
	flatten(err)
	if len(all) == 1 {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "settings %s: %d problems:", path, len(all))
	for _, e := range all {
		b.WriteString("\n  " + e.Error())
	}
	return fileErrors{msg: b.String(), err: err}
}

type fileErrors struct {
	msg string
	err error
}

func (e fileErrors) Error() string { return e.msg }
func (e fileErrors) Unwrap() error { return e.err }

// Parse reads a settings file's contents (see Load).
func Parse(data []byte) (Settings, error) {
	def := Defaults()
	f := file{Version: formatVersion}
	f.set(&def)
	f.Keys, f.Gamepad = map[string][]string{}, map[string][]string{} // the file's own entries only
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Settings{}, jsonError(data, err)
	}
	if _, err := dec.Token(); err == nil {
		return Settings{}, fmt.Errorf("line %d: more after the settings' closing }", lineOf(data, dec.InputOffset()))
	}
	if f.Version < 1 || f.Version > formatVersion {
		return Settings{}, fmt.Errorf("%q: %d is not a settings format this citydrive reads (it reads %d): a newer citydrive wrote it", "version", f.Version, formatVersion)
	}
	s := Settings{Width: f.Width, Height: f.Height, Fullscreen: f.Fullscreen, Profile: f.Profile,
		Volume: f.Volume, Mute: f.Mute, Units: f.Units, HUD: f.HUD, Camera: f.Camera,
		Weather: f.Weather, Time: f.Time, Bindings: def.Bindings}
	var errs []error
	errs = append(errs, bindingsFrom("keys", f.Keys, func(a Action, v []input.Key) { s.Bindings.Keys[a] = v }, parseKeyName)...)
	errs = append(errs, bindingsFrom("gamepad", f.Gamepad, func(a Action, v []int) { s.Bindings.Pad[a] = v }, parseButtonName)...)
	if err := s.Check(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// set fills the file's fields from s.
func (f *file) set(s *Settings) {
	f.Width, f.Height, f.Fullscreen, f.Profile = s.Width, s.Height, s.Fullscreen, s.Profile
	f.Volume, f.Mute, f.Units, f.HUD = s.Volume, s.Mute, s.Units, s.HUD
	f.Camera, f.Weather, f.Time = s.Camera, s.Weather, s.Time
}

func parseKeyName(n string) (input.Key, bool) { return ParseKey(n) }
func parseButtonName(n string) (int, bool)    { return ParseButton(n) }

// bindingsFrom converts one bindings object of the file, an error for
// each unknown action or name and each name given twice.
func bindingsFrom[T comparable](section string, m map[string][]string, set func(Action, []T), parse func(string) (T, bool)) []error {
	var errs []error
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names) // errors in a stable order
	for _, name := range names {
		a, ok := ParseAction(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%q: %q is not an action (the actions are %s)", section, name, actionList()))
			continue
		}
		field := section + "." + name
		vals := make([]T, 0, len(m[name]))
		for _, n := range m[name] {
			v, ok := parse(n)
			switch {
			case !ok && section == "keys":
				errs = append(errs, fmt.Errorf("%q: %q is not a key name (keys are named like W, 7, Up, Space, Enter, F1, KP0, LeftCtrl)", field, n))
			case !ok:
				errs = append(errs, fmt.Errorf("%q: %q is not a gamepad button (the buttons are %s)", field, n, strings.Join(padNames[:], ", ")))
			case slices.Contains(vals, v):
				errs = append(errs, fmt.Errorf("%q: %q is listed twice", field, n))
			default:
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			vals = nil // unbound is nil, however the file wrote it
		}
		set(a, vals)
	}
	return errs
}

// ParseAction finds an action by its file name.
func ParseAction(name string) (Action, bool) {
	for a := range NumActions {
		if a.Name() == name {
			return a, true
		}
	}
	return 0, false
}

func actionList() string {
	names := make([]string, NumActions)
	for a := range NumActions {
		names[a] = a.Name()
	}
	return strings.Join(names, ", ")
}

// jsonError says where and what in the words of the file.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("line %d: not JSON: %v", lineOf(data, syn.Offset-1), syn) // Offset is past the bad byte
	case errors.As(err, &typ):
		return fmt.Errorf("line %d: %q: want %s, got a %s", lineOf(data, typ.Offset), typ.Field, kindOf(typ.Type), typ.Value)
	case errors.Is(err, io.EOF):
		return errors.New("empty: want a JSON object { … } (delete the file for the defaults)")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("%s is not a setting (the settings are %s)", name, settingNames())
	}
	return err
}

func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string in quotes"
	case reflect.Slice:
		return "a list [ … ]"
	case reflect.Map, reflect.Struct:
		return "an object { … }"
	}
	return t.String()
}

func settingNames() string {
	t := reflect.TypeFor[file]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		names = append(names, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
	}
	return strings.Join(names, ", ")
}

func lineOf(data []byte, offset int64) int {
	offset = max(0, min(offset, int64(len(data))))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}

// Marshal is the file for s: every setting, the bindings in the actions'
// order, indented, so that the file reads as a list of what can be set.
func Marshal(s Settings) ([]byte, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	var f file
	f.Version = formatVersion
	f.set(&s)
	head, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	// The bindings are written by hand to keep the actions' order (a map
	// would come out sorted by name); the head's two empty objects are
	// cut off and the ordered ones put in their place.
	cut := bytes.LastIndex(head, []byte(`,`+"\n"+`  "keys"`))
	if cut < 0 {
		return nil, errors.New("settings: unexpected layout")
	}
	var b bytes.Buffer
	b.Write(head[:cut])
	writeBindings(&b, "keys", func(a Action) []string { return names(s.Bindings.Keys[a], KeyName) })
	writeBindings(&b, "gamepad", func(a Action) []string { return names(s.Bindings.Pad[a], ButtonName) })
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

func names[T any](v []T, name func(T) string) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = name(x)
	}
	return out
}

func writeBindings(b *bytes.Buffer, section string, list func(Action) []string) {
	fmt.Fprintf(b, ",\n  %q: {", section)
	for a := range NumActions {
		v, _ := json.Marshal(list(a))
		if a > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, "\n    %q: %s", a.Name(), bytes.ReplaceAll(v, []byte(`","`), []byte(`", "`)))
	}
	b.WriteString("\n  }")
}

// Save writes s to path, making its directory; it replaces the file in
// one rename, so a crash leaves the old file or the new one, never half.
func Save(path string, s Settings) error {
	data, err := Marshal(s)
	if err != nil {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	return writeAtomic(path, data)
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Field is one setting as the options screen changes it: what is saved
// when the player leaves the screen is the fields they changed there, so
// a flag given for one run (-weather wet) does not end up in the file.
type Field int

// The fields.
const (
	FieldResolution Field = iota // width and height
	FieldFullscreen
	FieldProfile
	FieldVolume
	FieldMute
	FieldUnits
	FieldHUD
	FieldCamera
	FieldWeather
	FieldTime
	FieldKeys
	FieldGamepad
	NumFields
)

// Take copies field f of from into s.
func (s *Settings) Take(from *Settings, f Field) {
	switch f {
	case FieldResolution:
		s.Width, s.Height = from.Width, from.Height
	case FieldFullscreen:
		s.Fullscreen = from.Fullscreen
	case FieldProfile:
		s.Profile = from.Profile
	case FieldVolume:
		s.Volume = from.Volume
	case FieldMute:
		s.Mute = from.Mute
	case FieldUnits:
		s.Units = from.Units
	case FieldHUD:
		s.HUD = from.HUD
	case FieldCamera:
		s.Camera = from.Camera
	case FieldWeather:
		s.Weather = from.Weather
	case FieldTime:
		s.Time = from.Time
	case FieldKeys:
		for a := range NumActions {
			s.Bindings.Keys[a] = slices.Clone(from.Bindings.Keys[a])
		}
	case FieldGamepad:
		for a := range NumActions {
			s.Bindings.Pad[a] = slices.Clone(from.Bindings.Pad[a])
		}
	}
}

// Changed lists the fields in which a and b differ.
func Changed(a, b *Settings) []Field {
	var out []Field
	for f := range NumFields {
		x := a.Clone()
		x.Take(b, f)
		if !x.equal(a) {
			out = append(out, f)
		}
	}
	return out
}

func (s *Settings) equal(o *Settings) bool {
	var f, g file
	f.set(s)
	g.set(o)
	return reflect.DeepEqual(f, g) && s.Bindings.Equal(&o.Bindings)
}

// SpeedIn converts a speed in m/s into the settings' units.
func (s *Settings) SpeedIn(ms float64) float64 {
	if s.Units == MPH {
		return ms / 0.44704
	}
	return ms * 3.6
}

// UnitLabel is the units as the HUD writes them.
func (s *Settings) UnitLabel() string {
	if s.Units == MPH {
		return "MPH"
	}
	return "KM/H"
}
