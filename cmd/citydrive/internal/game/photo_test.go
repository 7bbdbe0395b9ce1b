package game

import (
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/hud"
	"citydrive/render/input"
	"citydrive/render/scene"
)

// shotDisplay takes screenshots and keeps what the frame drawn before
// each held on its HUD.
type shotDisplay struct {
	*scriptedDisplay
	last  *scene.Frame
	shots []*hud.Player // the player's HUD in each picture
}

func (d *shotDisplay) Draw(f *scene.Frame) error { d.last = f; return nil }

func (d *shotDisplay) Screenshot() (*image.RGBA, error) {
	p := d.last.Player
	if p != nil {
		c := *p
		p = &c
	}
	d.shots = append(d.shots, p)
	return image.NewRGBA(image.Rect(0, 0, 4, 4)), nil
}

// Photo mode: F2 stops the world and hides the HUD but for the notice
// line, which says how; the free camera flies, zooms and changes the
// time of day, but not past photoRange; F12 saves a picture without the
// notice to the pictures folder and says where; Esc goes back to the
// drive and its HUD.
func TestPhotoMode(t *testing.T) {
	s, sd := smallSession(t, Options{TimeOfDay: 12})
	d := &shotDisplay{scriptedDisplay: sd}
	s.r = d
	dir := filepath.Join(t.TempDir(), "pics")
	t.Setenv("XDG_PICTURES_DIR", dir)
	frame := func(keys ...input.Key) {
		t.Helper()
		for _, k := range keys {
			d.press(k)
		}
		require.NoError(t, s.Frame(1.0/60))
	}
	sd.keys.down[input.KeyW] = true
	for range 60 {
		frame()
	}
	frame(input.KeyF2)
	require.True(t, s.PhotoMode())
	assert.Empty(t, s.frame.HUD)
	assert.Nil(t, s.frame.Minimap)
	require.NotNil(t, s.frame.Player)
	assert.Empty(t, s.frame.Player.Speed, "no speed, no clock")
	assert.Equal(t, photoHint, s.frame.Player.Notice)
	assert.Nil(t, s.frame.Camera.Target, "a free camera")

	car, clock, cam := s.car.Pos, s.clock, s.frame.Camera.Position
	for range 60 { // W held: a second forward
		frame()
	}
	assert.Equal(t, car, s.car.Pos, "the car stands still")
	assert.Equal(t, clock, s.clock, "so does the game clock")
	moved := s.frame.Camera.Position.Sub(cam)
	assert.InDelta(t, photoSpeed, moved.Len(), 0.5, "the camera flew a second: %v", moved)

	sd.keys.down[input.KeyW] = false
	sd.keys.down[input.KeyZ], sd.keys.down[input.KeyT] = true, true
	for range 30 {
		frame()
	}
	assert.Less(t, s.frame.Camera.FovY, scene.DefaultFovY*0.7, "zoomed in")
	assert.InDelta(t, 12+photoHours/2, s.frame.TimeOfDay, 0.05, "half a second of T")
	sd.keys.down[input.KeyZ], sd.keys.down[input.KeyT] = false, false

	sd.keys.down[input.KeyLeftShift], sd.keys.down[input.KeyS] = true, true
	for range 300 {
		frame()
	}
	sd.keys.down[input.KeyLeftShift], sd.keys.down[input.KeyS] = false, false
	p := s.frame.Camera.Position
	assert.LessOrEqual(t, (p.X()-car.X)*(p.X()-car.X)+(p.Z()-car.Z)*(p.Z()-car.Z), photoRange*photoRange+1e-6, "held near the car")

	frame(input.KeyF12)
	frame()
	require.Len(t, d.shots, 1)
	assert.Nil(t, d.shots[0], "no overlay in the picture")
	require.NotNil(t, s.frame.Player)
	assert.Contains(t, s.frame.Player.Notice, "PHOTO SAVED: "+filepath.Join(dir, "citydrive-"))
	s.pngs.close()
	s.pngs = newPNGWriter(s.opt.Log)
	files, _ := filepath.Glob(filepath.Join(dir, "citydrive-*.png"))
	assert.Len(t, files, 1)

	// H turns the overlay on: the drive's HUD shows, and is in the picture.
	frame(input.KeyH)
	require.NotNil(t, s.frame.Player)
	assert.NotEmpty(t, s.frame.Player.Speed, "the HUD shows in photo mode")
	frame(input.KeyF12)
	frame()
	require.Len(t, d.shots, 2)
	require.NotNil(t, d.shots[1], "the overlay is in the picture")
	assert.NotEmpty(t, d.shots[1].Speed)
	frame(input.KeyH)
	assert.Empty(t, s.frame.Player.Speed, "H again: the notice line alone")

	frame(input.KeyEscape)
	assert.False(t, s.PhotoMode())
	assert.False(t, s.Paused(), "Esc leaves photo mode; it does not pause")
	assert.NotNil(t, s.frame.Camera.Target, "the chase camera again")
	assert.Zero(t, s.frame.Camera.FovY)
	require.NotNil(t, s.frame.Player)
	assert.NotEmpty(t, s.frame.Player.Speed, "the HUD is back")
	assert.NotNil(t, s.frame.Minimap)
}

// The gamepad's left stick click enters photo mode, its sticks fly.
func TestPhotoModeGamepad(t *testing.T) {
	var g input.Gamepad
	for i := range g.Axes {
		g.Axes[i] = 0
	}
	g.Axes[input.PadLeftTrigger], g.Axes[input.PadRightTrigger] = -1, 1
	g.Axes[input.PadLeftY] = -1
	g.Buttons[input.PadRightBumper] = true
	var p photoInput
	p.addPad(g)
	assert.Equal(t, photoInput{Forward: 1, Up: 1, Zoom: 1}, p)
	c := Controls{}
	mergePad(&c, input.Gamepad{Buttons: [15]bool{input.PadLeftThumb: true}}, input.Gamepad{})
	assert.True(t, c.TogglePhoto)
}

func TestPicturesDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_PICTURES_DIR", "")
	d, err := PicturesDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "Pictures"), d, "the default")

	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".config", "user-dirs.dirs"),
		[]byte("# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n"), 0o644))
	d, err = PicturesDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "Bilder"), d, "the user-dirs file's")

	t.Setenv("XDG_PICTURES_DIR", "/srv/pics")
	d, err = PicturesDir()
	require.NoError(t, err)
	assert.Equal(t, "/srv/pics", d, "the environment's")
}
