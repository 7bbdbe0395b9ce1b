package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/input"
)

// Defaults → file → load gives the defaults back, and so does a changed
// set of settings; the file reads as a list of what can be set.
func TestSettingsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "citydrive", FileName)
	s, err := Load(path)
	require.NoError(t, err, "no file yet: the defaults")
	assert.Equal(t, Defaults(), s)

	require.NoError(t, Save(path, s))
	got, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, Defaults(), got)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	for _, want := range []string{`"volume": 1,`, `"units": "km/h",`, `"throttle": ["W", "Up"]`, `"brake": ["S", "Down", "Space"]`,
		`"menu-select": ["Enter", "KPEnter"]`, `"dig": ["LeftBumper"]`, `"throttle": []`} {
		assert.Contains(t, text, want)
	}
	assert.Less(t, strings.Index(text, `"throttle"`), strings.Index(text, `"brake"`), "actions in their order, not sorted")

	c := Defaults()
	c.Width, c.Height, c.Fullscreen, c.Profile = 1920, 1080, true, "cool"
	c.Volume, c.Mute, c.Units, c.HUD, c.Camera = 0.3, true, MPH, false, Top
	c.Weather, c.Time = "wet", 6.25
	c.Bindings.Keys[Throttle] = []input.Key{input.KeyF12}
	c.Bindings.Keys[Dig] = nil
	c.Bindings.Pad[Build] = []int{input.PadA, input.PadB}
	require.NoError(t, Save(path, c))
	got, err = Load(path)
	require.NoError(t, err)
	assert.Equal(t, c, got)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")
}

// A file that sets a few things keeps the defaults for the rest, the
// bindings of the actions it leaves out too.
func TestPartialFileKeepsTheDefaults(t *testing.T) {
	s, err := Parse([]byte(`{"units": "mph", "keys": {"dig": ["X", "kp0"]}}`))
	require.NoError(t, err)
	want := Defaults()
	want.Units = MPH
	want.Bindings.Keys[Dig] = []input.Key{input.KeyX, input.KeyKP0}
	assert.Equal(t, want, s)
}

// Every bad value is named with the setting and what is allowed, all of
// them at once.
func TestBadSettingsAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"ranges", `{"width": 20, "volume": 1.5, "time": 24, "units": "knots", "profile": "turbo", "camera": "side", "weather": "snow"}`,
			[]string{`"width": 20 is out of range (64 to 16384 pixels)`, `"volume": 1.5 is out of range (0 to 1)`,
				`"time": 24 is out of range`, `"units": "knots" is not one of "km/h", "mph"`,
				`"profile": "turbo" is not a profile (want "full", "cool", "battery")`, `"camera": "side" is not one of "chase", "top"`,
				`"weather": "snow" is not one of "dry", "wet"`}},
		{"unknown setting", `{"volme": 0.5}`, []string{`"volme" is not a setting (the settings are version, width,`}},
		{"a number as a string", "{\n  \"volume\": \"loud\"\n}", []string{`line 2: "volume": want a number, got a string`}},
		{"not JSON", "{\n  \"hud\": tru\n}", []string{"line 2: not JSON"}},
		{"empty", ``, []string{"empty: want a JSON object"}},
		{"two objects", `{} {}`, []string{"more after the settings"}},
		{"a newer format", `{"version": 2}`, []string{`"version": 2 is not a settings format this citydrive reads (it reads 1)`}},
		{"bindings", `{"keys": {"throttle": ["W", "Wq", "W"], "fly": ["F"]}, "gamepad": {"dig": ["Z"]}}`,
			[]string{`"keys.throttle": "Wq" is not a key name`, `"keys.throttle": "W" is listed twice`,
				`"keys": "fly" is not an action (the actions are throttle, brake,`, `"gamepad.dig": "Z" is not a gamepad button (the buttons are A, B, X, Y,`}},
		{"too many keys", `{"keys": {"dig": ["A", "B", "C", "D", "E"]}}`, []string{`"keys.dig": 5 keys, at most 4`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	path := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, os.WriteFile(path, []byte(`{"volume": -1}`), 0o644))
	_, err := Load(path)
	require.Error(t, err)
	assert.Equal(t, "settings "+path+`: "volume": -1 is out of range (0 to 1)`, err.Error(), "the file is named")
	data, _ := os.ReadFile(path)
	assert.Equal(t, `{"volume": -1}`, string(data), "a file that could not be read is left as it was")
	assert.Error(t, Save(path, Settings{}), "bad settings are not written")

	require.NoError(t, os.WriteFile(path, []byte(`{"volume": 3, "units": "knots"}`), 0o644))
	_, err = Load(path)
	require.Error(t, err)
	assert.Equal(t, "settings "+path+": 2 problems:\n  \"volume\": 3 is out of range (0 to 1)\n  \"units\": \"knots\" is not one of \"km/h\", \"mph\"", err.Error(),
		"several problems one to a line")
}

// Every key of render/input has one name, and the name reads back as
// the key; buttons too.
func TestEveryKeyHasAName(t *testing.T) {
	seen := map[string]bool{}
	for k := input.KeyNone + 1; k < input.NumKeys; k++ {
		name := KeyName(k)
		got, ok := ParseKey(name)
		assert.True(t, ok, "key %d has no name", k)
		assert.Equal(t, k, got, name)
		assert.False(t, seen[strings.ToLower(name)], "%s twice", name)
		seen[strings.ToLower(name)] = true
	}
	assert.Len(t, keyNames, int(input.NumKeys)-1, "no name without a key")
	for name, k := range map[string]input.Key{"W": input.KeyW, "Up": input.KeyUp, "Escape": input.KeyEscape, "F12": input.KeyF12, "1": input.Key1, "KPEnter": input.KeyKPEnter} {
		got, _ := ParseKey(name)
		assert.Equal(t, k, got, name)
	}
	got, ok := ParseKey("leftctrl")
	assert.True(t, ok && got == input.KeyLeftCtrl, "names are case-insensitive")
	for b := range numPadButtons {
		got, ok := ParseButton(ButtonName(b))
		assert.True(t, ok)
		assert.Equal(t, b, got)
	}
	assert.Equal(t, input.PadDpadLeft, func() int { b, _ := ParseButton("dpadleft"); return b }())
}

// The options screen saves the fields the player changed there and only
// those.
func TestChangedAndTake(t *testing.T) {
	a, b := Defaults(), Defaults()
	assert.Empty(t, Changed(&a, &b))
	b.Volume, b.Width = 0.5, 1920
	b.Bindings.Pad[Dig] = []int{input.PadA}
	assert.Equal(t, []Field{FieldResolution, FieldVolume, FieldGamepad}, Changed(&a, &b))

	base := Defaults()
	base.Weather = "wet" // what the file says; this run's -weather dry is not saved
	for _, f := range Changed(&a, &b) {
		base.Take(&b, f)
	}
	assert.Equal(t, "wet", base.Weather)
	assert.Equal(t, 0.5, base.Volume)
	assert.Equal(t, 1920, base.Width)
	assert.Equal(t, []int{input.PadA}, base.Bindings.Pad[Dig])
	b.Bindings.Pad[Dig][0] = input.PadB
	assert.Equal(t, []int{input.PadA}, base.Bindings.Pad[Dig], "taken as a copy")
}

func TestSpeedUnits(t *testing.T) {
	s := Defaults()
	assert.InDelta(t, 36, s.SpeedIn(10), 1e-9)
	s.Units = MPH
	assert.InDelta(t, 22.369, s.SpeedIn(10), 1e-3)
	assert.Equal(t, "MPH", s.UnitLabel())
}

func TestResumeRoundTripAndChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResumeFileName)
	r, err := LoadResume(path)
	require.NoError(t, err)
	assert.Empty(t, r.Places)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r.Put(Place{Server: Solo, Seed: 412, X: 1234.5678, Z: -987.654321, Heading: 2.75, Camera: Top, Saved: at})
	r.Put(Place{Server: "192.0.2.10:4242", Seed: 412, X: 1, Z: 2, Heading: 0, Camera: Chase, Saved: at})
	r.Put(Place{Server: Solo, Seed: 412, X: 10.001, Z: 20.002, Heading: -1, Camera: Chase, Saved: at.Add(time.Hour)})
	require.NoError(t, SaveResume(path, r))
	got, err := LoadResume(path)
	require.NoError(t, err)
	require.Len(t, got.Places, 2, "one place per server and seed")
	p, ok := got.Find(Solo, 412)
	require.True(t, ok)
	assert.Equal(t, Place{Server: Solo, Seed: 412, X: 10.001, Z: 20.002, Heading: -1, Camera: Chase, Saved: at.Add(time.Hour)}, p)
	_, ok = got.Find(Solo, 7)
	assert.False(t, ok)

	for i := range maxPlaces + 5 {
		r.Put(Place{Server: Solo, Seed: uint64(1000 + i), Camera: Chase})
	}
	assert.Len(t, r.Places, maxPlaces)
	assert.Equal(t, uint64(1000+maxPlaces+4), r.Places[0].Seed, "the newest first")

	for _, tc := range []struct{ file, want string }{
		{`{"version": 1, "places": [{"server": "solo", "seed": 1, "x": 1e12, "z": 0, "heading": 0, "camera": "chase"}]}`, `place 1 (solo, seed 1): "x", "z": 1e+12, 0 out of range`},
		{`{"version": 1, "places": [{"server": "solo", "seed": 1, "camera": "side"}]}`, `"camera": "side" is not one of "chase", "top"`},
		{`{"version": 1, "places": [{"server": "", "seed": 1, "camera": "chase"}]}`, `"server" is empty`},
		{`{"version": 3}`, "format 3, this citydrive reads 1"},
		{`{"version": 1, "places": [{"seed": -1}]}`, `"places.seed": want a number, got a number -1`},
	} {
		require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o644))
		_, err := LoadResume(path)
		require.Error(t, err, tc.file)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), path)
	}
}
