package game

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"citydrive/render/input"
	"citydrive/render/scene"
)

// Photo mode (F2, or the left stick's click): the world stops as in the
// pause menu, the HUD goes, and a free camera flies within photoRange of
// the car. Keys: W/A/S/D or the arrows move, E/Q up and down, Shift
// faster, I/J/K/L or dragging the mouse look, Z/X zoom in and out (the
// field of view), T/G the time of day later and earlier. Gamepad: left
// stick move, right stick look, right/left trigger up/down, bumpers zoom,
// d-pad left/right the time. F12, Enter or A saves the picture, without
// the overlay, to the user's pictures folder and says where in the
// notice line; F2, Esc, Backspace, B or Start go back to the drive.

// Photo camera limits and rates.
const (
	photoRange  = 80.0 // metres from the car, on the ground
	photoHeight = 60.0 // metres above the car at most
	photoSpeed  = 6.0  // m/s; Shift ×4
	photoLook   = 1.6  // rad/s with the keys or a full stick
	photoMouse  = 0.004
	photoZoom   = 1.2 // the field of view's log per second
	photoHours  = 2.0 // hours of the day per second
	minPhotoFov = 15 * math.Pi / 180
	maxPhotoFov = 100 * math.Pi / 180
)

// photoHint is the notice line on entering photo mode.
const photoHint = "PHOTO MODE: WASD MOVE  E/Q UP/DOWN  DRAG OR IJKL LOOK  Z/X ZOOM  T/G TIME  H HUD  F12 SAVE  F2 BACK"

// photoInput is one frame of photo mode's controls, each in [-1, 1].
type photoInput struct {
	Forward, Right, Up float64
	Yaw, Pitch         float64 // look: right, up
	Zoom               float64 // +1 narrows the field of view
	Time               float64 // +1 later
	Fast               bool
}

func key(k Keys, plus, minus input.Key) float64 {
	v := 0.0
	if k.Down(plus) {
		v++
	}
	if k.Down(minus) {
		v--
	}
	return v
}

// readPhotoKeys reads photo mode's keys (fixed, not the bindings: they
// are not the drive's actions).
func readPhotoKeys(k Keys) photoInput {
	p := photoInput{
		Forward: key(k, input.KeyW, input.KeyS) + key(k, input.KeyUp, input.KeyDown),
		Right:   key(k, input.KeyD, input.KeyA) + key(k, input.KeyRight, input.KeyLeft),
		Up:      key(k, input.KeyE, input.KeyQ),
		Yaw:     key(k, input.KeyL, input.KeyJ),
		Pitch:   key(k, input.KeyI, input.KeyK),
		Zoom:    key(k, input.KeyZ, input.KeyX),
		Time:    key(k, input.KeyT, input.KeyG),
		Fast:    k.Down(input.KeyLeftShift) || k.Down(input.KeyRightShift),
	}
	return p
}

// addPad adds the gamepad's sticks, triggers, bumpers and d-pad.
func (p *photoInput) addPad(g input.Gamepad) {
	p.Right += padStick(g.Axes[input.PadLeftX])
	p.Forward -= padStick(g.Axes[input.PadLeftY]) // stick up is -y
	p.Yaw += padStick(g.Axes[input.PadRightX])
	p.Pitch -= padStick(g.Axes[input.PadRightY])
	p.Up += padTrigger(g.Axes[input.PadRightTrigger]) - padTrigger(g.Axes[input.PadLeftTrigger])
	btn := func(b int) float64 { return boolf(g.Buttons[b]) }
	p.Zoom += btn(input.PadRightBumper) - btn(input.PadLeftBumper)
	p.Time += btn(input.PadDpadRight) - btn(input.PadDpadLeft)
}

// photoMode is the free camera.
type photoMode struct {
	on         bool
	pos        mgl64.Vec3
	yaw, pitch float64 // scene.Camera's convention
	fov        float64
	mx, my     float64 // the cursor last frame
	dragging   bool
	shoot      bool // the picture is taken this frame: no overlay
	// overlay: the drive's HUD is shown, and is in the picture (H)
	overlay bool
}

// SetPhotoMode enters or leaves photo mode; entering puts the free
// camera where the drive's camera is, looking the same way.
func (s *Session) SetPhotoMode(on bool) {
	if on == s.photo.on {
		return
	}
	s.photo.on = on
	s.input.photo = on
	if !on {
		s.setCamera()
		return
	}
	s.setCamera()
	cam := s.frame.Camera
	f := cam.Forward()
	s.photo.pos = cam.Position
	s.photo.yaw = math.Atan2(f.X(), -f.Z())
	s.photo.pitch = math.Asin(math.Max(-1, math.Min(1, f.Y())))
	s.photo.fov = scene.DefaultFovY
	s.photo.dragging, s.photo.overlay = false, false
	s.notices.sayFor(photoHint, 2*noticeSeconds)
}

// PhotoMode reports whether photo mode is on.
func (s *Session) PhotoMode() bool { return s.photo.on }

// PhotoOrbit puts the free camera dist metres from the car (drawn) at
// bearing deg degrees from its heading (0: ahead, 90: its left), height
// metres above it, looking at it, with a field of view of fov degrees
// (pictures; photo mode must be on).
func (s *Session) PhotoOrbit(deg, dist, height, fov float64) {
	v := s.view()
	a := v.Heading + deg*math.Pi/180
	eye := mgl64.Vec3{v.Pos.X + math.Cos(a)*dist, v.Y + height, v.Pos.Z - math.Sin(a)*dist}
	d := mgl64.Vec3{v.Pos.X, v.Y + 0.8, v.Pos.Z}.Sub(eye).Normalize()
	s.photo.pos = eye
	s.photo.yaw = math.Atan2(d.X(), -d.Z())
	s.photo.pitch = math.Asin(d.Y())
	s.photo.fov = math.Max(minPhotoFov, math.Min(maxPhotoFov, fov*math.Pi/180))
	s.setCamera()
}

// photoFrame is one frame of photo mode: the camera moves, the world
// stands still (streamed, the server kept informed, as paused).
func (s *Session) photoFrame(in Controls, dt float64) {
	s.notices.tick(dt)
	s.takeNews()
	if in.Pause || in.Back || in.TogglePhoto {
		s.SetPhotoMode(false)
		s.buildFrame()
		return
	}
	p := &s.photo
	if in.ToggleHUD {
		p.overlay = !p.overlay
	}
	c := in.Photo
	p.yaw += c.Yaw * photoLook * dt
	p.pitch += c.Pitch * photoLook * dt
	if m, ok := s.r.(Mouser); ok {
		x, y, left := m.Mouse()
		if left && p.dragging {
			p.yaw += (x - p.mx) * photoMouse
			p.pitch -= (y - p.my) * photoMouse
		}
		p.mx, p.my, p.dragging = x, y, left
	}
	p.pitch = math.Max(-1.5, math.Min(1.5, p.pitch))
	speed := photoSpeed
	if c.Fast {
		speed *= 4
	}
	fwd := mgl64.Vec3{math.Sin(p.yaw), 0, -math.Cos(p.yaw)}
	right := mgl64.Vec3{math.Cos(p.yaw), 0, math.Sin(p.yaw)}
	p.pos = p.pos.Add(fwd.Mul(clamp1(c.Forward) * speed * dt)).Add(right.Mul(clamp1(c.Right) * speed * dt))
	p.pos[1] += clamp1(c.Up) * speed * dt
	s.keepPhotoNearCar()
	p.fov = math.Max(minPhotoFov, math.Min(maxPhotoFov, p.fov*math.Exp(-clamp1(c.Zoom)*photoZoom*dt)))
	if c.Time != 0 {
		s.frame.TimeOfDay = math.Mod(s.frame.TimeOfDay+clamp1(c.Time)*photoHours*dt+24, 24)
	}
	if in.Screenshot || in.Confirm {
		s.shootNow, p.shoot = true, true
	}

	car := s.car
	now := s.epoch.Add(time.Duration(s.clock * float64(time.Second)))
	s.stream.Update(0, car.Pos, car.Forward(), now)
	if s.link != nil {
		s.link.update(s.clock, dt, car.Pos.X, car.Y, car.Pos.Z, car.Heading, 0)
	}
	s.ground3.Update(car.Pos, car.Y)
	s.setCamera()
	s.buildFrame()
	s.feedSound(true)
}

func clamp1(v float64) float64 { return math.Max(-1, math.Min(1, v)) }

// keepPhotoNearCar holds the free camera within photoRange of the car on
// the ground, under photoHeight above it, and above the ground.
func (s *Session) keepPhotoNearCar() {
	p := &s.photo
	c := s.car
	dx, dz := p.pos.X()-c.Pos.X, p.pos.Z()-c.Pos.Z
	if d := math.Hypot(dx, dz); d > photoRange {
		p.pos[0], p.pos[2] = c.Pos.X+dx*photoRange/d, c.Pos.Z+dz*photoRange/d
	}
	floor := s.carEnv().Surface(p.pos.X(), p.pos.Z()).Y + 0.3
	p.pos[1] = math.Max(floor, math.Min(c.Y+photoHeight, p.pos.Y()))
}

// photoCamera sets the frame's camera to the free camera.
func (s *Session) photoCamera(cam *scene.Camera) {
	cam.Position = s.photo.pos
	cam.Target = nil
	cam.Yaw, cam.Pitch, cam.FovY = s.photo.yaw, s.photo.pitch, s.photo.fov
	cam.Near, cam.Far = 0, 0
	if s.far.on {
		cam.Far = scene.FarTierPlane
	}
}

// PicturesDir is the user's pictures folder: $XDG_PICTURES_DIR, else
// the XDG user-dirs file's (user-dirs.dirs in $XDG_CONFIG_HOME, or
// ~/.config), else ~/Pictures.
func PicturesDir() (string, error) {
	if d := os.Getenv("XDG_PICTURES_DIR"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no home directory for the pictures folder")
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfg) {
		cfg = filepath.Join(home, ".config")
	}
	if d, ok := userDirsPictures(filepath.Join(cfg, "user-dirs.dirs"), home); ok {
		return d, nil
	}
	return filepath.Join(home, "Pictures"), nil
}

// userDirsPictures reads XDG_PICTURES_DIR from a user-dirs.dirs file:
// XDG_PICTURES_DIR="$HOME/Pictures" or an absolute path, quoted.
func userDirsPictures(path, home string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		v, ok := strings.CutPrefix(l, "XDG_PICTURES_DIR=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		if rest, ok := strings.CutPrefix(v, "$HOME"); ok {
			v = home + rest
		}
		if filepath.IsAbs(v) {
			return filepath.Clean(v), true
		}
	}
	return "", false
}
