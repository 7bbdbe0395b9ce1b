// Package game is the client's frame loop on the main goroutine: input,
// fixed-step car physics and autopilot, road streaming, network, voxel
// ground, and the frame description the display draws. It talks to the
// renderer only through Display, in render/scene's and render/input's
// GL-free vocabulary, so the whole loop runs headless too and links no GL
// (the static server binary has the soak).
package game

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/quantile"
	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/cmd/citydrive/internal/replay"
	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/netsync"
	"citydrive/render/hud"
	"citydrive/render/scene"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel/ground"
)

// Options configure a game session.
type Options struct {
	Streaming buildworkers.Config
	World     world.World
	Start     world.Vec2
	Autopilot bool
	// Display draws the frames (required; New takes ownership): the
	// caller opens the window (render.Open, its buffer sized for
	// Streaming's slots), so the game links no GL, or passes a Headless.
	Display Display
	// Duration > 0 ends the session after that much driving time.
	Duration  time.Duration
	ShotsDir  string        // write a screenshot here every ShotEvery
	ShotEvery time.Duration // of driving time
	Weather   scene.Weather
	TimeOfDay float64
	// Traffic puts the city's traffic on the roads (traffic.go), on the
	// world clock; the commands turn it on by default.
	Traffic bool
	// FixedStep makes every frame 1/60 s of game time whatever the wall
	// time (pictures, tests); the soak runs this way, paced.
	FixedStep bool
	// Paced hands build results over in game time as a 60 fps player would
	// get them (buildworkers.Streamer.Pace); the caller then calls
	// Streamer().AwaitWorkers() between frames.
	Paced bool
	// Undrawn builds no frame description (slot groups, far tier, the
	// car's and the lake's vertices, HUD): for a display that draws
	// nothing, where only the drive counts (the sweep). The drive is the
	// same without it.
	Undrawn bool
	// Net is the connection to the server (solo: the in-process one). Nil
	// runs offline: the ground is generated locally and edits are off.
	Net           *netsync.Client // New takes ownership: the session closes it
	Redial        Dialer          // reconnects after a lost connection; nil: the loss ends the session
	TerrainRadius int32           // voxel chunks around the car (0: ground.DefaultRadius)
	Log           *slog.Logger
	Out           io.Writer // summary
	// Sound gets the car's state once a frame (nil: silent).
	Sound CarSound
	// Settings are the player's settings in effect (the file's, flags
	// applied; nil: settings.Defaults()): HUD, camera, units, volume,
	// bindings. Weather and TimeOfDay above start the session.
	Settings *settings.Settings
	// SaveSettings is called when the player leaves the options screen,
	// with the settings and the fields changed there (nil: not saved).
	SaveSettings func(s settings.Settings, changed []settings.Field) error
	// Resume puts the car where a drive was left and sets its camera
	// (resume.go; nil: on the road nearest Start).
	Resume *settings.Place
	// Record records the drive (Recording); RecordIncidents also cuts a
	// replay of its own for each contact and stuck episode (the soak's).
	Record, RecordIncidents bool
	// Replay plays a recorded drive back instead of driving (replayplay.go):
	// it sets the start, time of day, weather and traffic; Net must be nil.
	Replay *replay.Replay
}

// autopilotSpeed is the autopilot's cruising speed, as in the bench.
const autopilotSpeed = 30.0

// chase camera placement, metres
const (
	chaseDistance = 9.0
	chaseHeight   = 3.6
)

var errNoPicture = errors.New("game: a headless display takes no screenshots")

// Session is one running game.
type Session struct {
	opt       Options
	r         Display
	stream    *buildworkers.Streamer
	ground3   *ground.Client
	link      *link
	queued    chan queuedEdit // QueueEdit's, taken by the next frame
	car       *car.Car
	driver    *autopilot.Driver
	steps     stepClock
	prev      pose // the car at the previous physics step (drawing interpolates)
	drive     driveLog
	epoch     time.Time // wall time when the world was ready: game time 0
	env       *carEnv   // what the car collides with and stands on (env.go)
	frame     scene.Frame
	groups    originGroups // near slots by origin (groups.go)
	target    mgl64.Vec3
	dynamic   []float32
	trees     [][]slots.Tree
	builtAt   []float64
	lastSeq   []uint32
	hud       []string
	showHUD   bool
	devHUD    bool       // F3: the developer's figures too (hud.go)
	player    playerHUD  // the player's HUD (hud.go)
	photo     photoMode  // photo.go
	photoView hud.Player // photo mode's HUD: the notice line only
	debug     scene.DebugFlags
	clock     float64    // game seconds since the world was ready
	world     *worldTime // the server's world clock (worldtime.go)
	wall      float64    // wall seconds of those frames
	slowdown  float64    // smoothed game time per wall time (1: real time)
	frameMS   float64    // smoothed
	times     []float64
	scales    []float64 // the render scale of each frame in times

	gpu gpuSamples // GPU time per pass (gputime.go)
	far farView    // far tier groups and the near mask (far.go)

	workUS   []float64 // main-goroutine work per frame (all but drawing), µs
	roadUS   []float64 // main-goroutine road streaming per frame, µs
	voxelUS  []float64 // main-goroutine voxel + network work per frame, µs
	shotNext float64
	shots    []string
	topView  bool
	quit     bool
	shootNow bool // F12 this frame
	pngs     *pngWriter

	input controlReader // keyboard + gamepad (controls.go)
	hands car.Input     // what drove the car in the last physics step
	pause pauseMenu     // pause.go
	menu  hud.Menu
	mini  minimap // minimap.go

	settings  settings.Settings // in effect (options.go)
	started   settings.Settings // at New: the window and profile apply at the next start
	notices   notices           // notice.go
	newsSeen  uint64            // the link's news the notice area took (notice.go)
	resumeAsk bool              // the resumed place is to be asked of the server (resume.go)
	rp        simState          // the step count, the world clock, the recording or the replay (sim.go)
	startedAt time.Time         // when New began
}

// New starts streaming into Options.Display.
func New(opt Options) (*Session, error) {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Out == nil {
		opt.Out = os.Stdout
	}
	if err := replayOptions(&opt); err != nil {
		if opt.Net != nil {
			_ = opt.Net.Close()
		}
		if opt.Display != nil {
			opt.Display.Close()
		}
		return nil, err
	}
	startedAt := time.Now()
	cfg := opt.Streaming
	if cfg.Log == nil {
		cfg.Log = opt.Log
	}
	r := opt.Display
	if r == nil {
		if opt.Net != nil {
			_ = opt.Net.Close()
		}
		return nil, errors.New("game: no display (Options.Display)")
	}
	s := &Session{opt: opt, r: r, showHUD: true, player: newPlayerHUD(), slowdown: 1, pngs: newPNGWriter(opt.Log), mini: newMinimap(opt.World),
		world: newWorldTime(opt.FixedStep), startedAt: startedAt, queued: make(chan queuedEdit, maxQueuedEdits)}
	cfg.Far.Sink = farSinkOf(r, cfg.Far)
	s.far.on = cfg.Far.On()
	var err error
	s.stream, err = buildworkers.NewStreamer(cfg, opt.World, r, time.Now())
	if err != nil {
		r.Close()
		if opt.Net != nil {
			_ = opt.Net.Close()
		}
		return nil, err
	}
	topt := ground.Options{Seed: opt.World.Seed, Radius: opt.TerrainRadius, Workers: 1, Sink: r.MeshSink()}
	if opt.Net != nil {
		s.link = newLink(opt.Net, nil, opt.Redial)
		topt.Subscribe = s.link.subscribe
	}
	s.ground3 = ground.New(topt)
	if s.link != nil {
		s.link.world = s.ground3
	}
	g := s.stream.Graph()
	j := g.JunctionNear(opt.Start)
	if j == nil {
		s.Close()
		return nil, fmt.Errorf("no road near the start (%.0f, %.0f): try another -start or -seed", opt.Start.X, opt.Start.Z)
	}
	g.EnsureJunctionArms(j)
	h, _ := g.Nearest(opt.Start)
	e, seg := h.Edge, h.Seg
	if opt.Start == (world.Vec2{}) {
		e = j.Arms[0]
		seg = e.Segments() / 2
	}
	pos, dir := e.Nodes[seg].Lerp(e.Nodes[seg+1], 0.5), e.Tangent(seg)
	s.driver, _ = autopilot.NewDriver(g, pos, dir, opt.World.Seed, autopilotSpeed)
	pos, dir = s.driver.Route().Pose()
	if opt.Replay != nil {
		pos, dir = s.startReplay()
	} else if opt.Record {
		s.startRecording(pos, dir)
	}
	s.car = car.New(pos, dir, s.carEnv())
	s.prev = poseOf(s.car)
	s.drive.onStuck = func(at world.Vec2, secs float64) {
		s.opt.Log.Warn("car stuck", "x", math.Round(at.X), "z", math.Round(at.Z), "after_s", math.Round(s.clock),
			"reproduce", fmt.Sprintf("-start %.0f,%.0f", at.X, at.Z))
	}
	lastLog := math.Inf(-1)
	s.drive.onContact = func(at world.Vec2, parkedCar bool) {
		if s.clock-lastLog < contactLogEvery { // a scrape is one line, not one per step
			return
		}
		lastLog = s.clock
		attrs := []any{"what", s.car.Contacts.String(), "x", math.Round(at.X), "z", math.Round(at.Z),
			"after_s", math.Round(s.clock), "autopilot", s.opt.Autopilot}
		if s.car.Contacts.Has(car.TouchTraffic) {
			attrs = append(attrs, s.trafficContact()...)
		}
		s.opt.Log.Warn("car touched an obstacle", attrs...)
	}
	n := cfg.Slots.Slots
	s.trees = make([][]slots.Tree, n)
	s.builtAt = make([]float64, n)
	s.lastSeq = make([]uint32, n)
	s.dynamic = make([]float32, 0, (CarVerts*(1+maxRemoteCars)+LakeVerts)*slots.FloatsPerVertex)
	s.frame.Camera.Target = &s.target
	s.frame.Weather = opt.Weather
	s.frame.TimeOfDay = opt.TimeOfDay
	s.initSettings()
	s.startResume()
	return s, nil
}

// terrainLoadLimit bounds how long loading waits for the voxel ground (the
// roads are always waited for).
const terrainLoadLimit = 10 * time.Second

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// loadingSlice is how long loading streams between progress-bar draws.
const loadingSlice = 30 * time.Millisecond

// Close releases everything, the network connection included.
func (s *Session) Close() {
	if s.link != nil {
		s.link.close()
	}
	if s.env != nil && s.env.traffic != nil {
		s.env.traffic.Close()
	}
	s.ground3.Close()
	s.stream.Close()
	s.pngs.close()
	s.r.Close()
}

// Run loads the world, then runs frames until the window closes, Quit in
// the pause menu, or the duration is over. Each frame's game time is its
// wall time (see stepClock for frames slower than 5 fps), or 1/60 s with
// FixedStep.
func (s *Session) Run() error {
	if err := s.Load(); err != nil {
		return err
	}
	last := time.Now()
	for !s.r.ShouldClose() && !s.quit {
		now := time.Now()
		dt := now.Sub(last).Seconds()
		last = now
		if s.opt.FixedStep {
			dt = 1.0 / 60
		}
		if err := s.Frame(dt); err != nil {
			return err
		}
		if s.opt.Paced {
			s.stream.AwaitWorkers()
		}
		if s.link != nil {
			if err := s.link.check(); err != nil {
				s.summary()
				return fmt.Errorf("lost the server: %w", err)
			}
		}
		if s.Done() {
			break
		}
	}
	s.summary()
	return nil
}

// Done reports whether the session's duration is over.
func (s *Session) Done() bool {
	return s.opt.Duration > 0 && s.clock >= s.opt.Duration.Seconds()-1e-9
}

// Load streams the initial world with a progress bar; nothing of the world
// is drawn until it is complete. Game time starts when it is.
func (s *Session) Load() error {
	t0 := time.Now()
	for !s.stream.Ready() || (!s.ground3.Ready() && time.Since(t0) < terrainLoadLimit) {
		if s.r.ShouldClose() {
			return fmt.Errorf("window closed while loading")
		}
		// Stream for a frame's worth of time between loading-screen draws:
		// drawing is slow on software GL and must not pace the loading.
		pos, dir := s.car.Pos, s.car.Forward()
		for t := time.Now(); time.Since(t) < loadingSlice; {
			s.stream.Update(0, pos, dir, time.Now())
			if s.link != nil {
				s.link.update(0, 0, pos.X, s.car.Y, pos.Z, s.car.Heading, 0)
			}
			s.ground3.Update(pos, s.car.Y)
			runtime.Gosched()
		}
		if s.link != nil {
			if err := s.link.check(); err != nil {
				return fmt.Errorf("lost the server while loading: %w", err)
			}
		}
		s.frame.Loading, s.frame.Progress = true, s.stream.Progress()*0.8+boolf(s.ground3.Ready())*0.2
		s.setCamera()
		s.frame.HUD = append(s.hud[:0], fmt.Sprintf("LOADING CITY  SEED %d", s.opt.World.Seed))
		if err := s.r.Draw(&s.frame); err != nil {
			return err
		}
		s.r.Present()
	}
	s.frame.Loading = false
	s.epoch = time.Now()
	if s.opt.Paced {
		s.stream.Pace()
	}
	s.opt.Log.Info("initial world built", "ms", time.Since(t0).Milliseconds(), "slots", s.stream.Table().Used())
	s.askResume()
	return nil
}

// Frame runs one frame of dt wall seconds: everything Update does, then
// the frame is drawn.
func (s *Session) Frame(dt float64) error {
	t0 := time.Now()
	s.Update(dt)
	s.wall += dt
	if err := s.draw(); err != nil {
		return err
	}
	ms := float64(time.Since(t0).Microseconds()) / 1000
	s.times = append(s.times, ms)
	s.scales = append(s.scales, s.r.RenderScale())
	s.frameMS = s.frameMS*0.9 + ms*0.1
	s.r.Present()
	s.sampleGPU()
	return nil
}

// Update is one frame's work before drawing, in this order:
//
//  1. input, read once into Controls;
//  2. fixed-step simulation: car physics and the autopilot at PhysicsHz;
//  3. road streaming (walk / eviction on their clocks, results, builds);
//  4. network: server messages drained, the car sent;
//  5. voxel ground: chunk arrivals, mesh jobs, finished meshes;
//  6. the frame description (camera, slot groups, dynamic region, HUD).
//
// Nothing here blocks on a worker, a socket or the disk.
func (s *Session) Update(dt float64) {
	t0 := time.Now()
	in := s.input.read(s.r)
	if in.TogglePhoto && !s.pause.open && !s.photo.on {
		s.SetPhotoMode(true)
		in.TogglePhoto = false // taken
	}
	if s.photo.on {
		s.photoFrame(in, dt)
		return
	}
	if s.pausedFrame(in, dt) {
		return
	}
	in, dt = s.replayFrame(in, dt)
	s.handle(in)
	steps, game := s.steps.frame(dt)
	if dt > 0 {
		s.slowdown = s.slowdown*0.9 + game/dt*0.1
	}
	s.followServer()
	if s.link != nil && s.link.c != nil {
		s.world.observe(s.link.c)
	}
	s.syncWorldClock(steps, game)
	s.simulate(steps, in.Drive)
	s.clock += game
	now := s.epoch.Add(time.Duration(s.clock * float64(time.Second)))

	t1 := time.Now()
	s.stream.Update(game, s.car.Pos, s.car.Forward(), now)
	t2 := time.Now()
	if s.link != nil {
		s.link.update(s.clock, game, s.car.Pos.X, s.car.Y, s.car.Pos.Z, s.car.Heading, s.car.Speed())
		s.placeFromServer()
	}
	s.ground3.Update(s.car.Pos, s.car.Y)
	t3 := time.Now()
	s.setCamera()
	if !s.opt.Undrawn {
		s.buildFrame()
	}
	s.feedSound(false)
	t4 := time.Now()
	s.roadUS = append(s.roadUS, us(t2.Sub(t1)))
	s.voxelUS = append(s.voxelUS, us(t3.Sub(t2)))
	s.workUS = append(s.workUS, us(t4.Sub(t0)))
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// draw draws the frame description Update made, and takes the screenshots
// that are due.
func (s *Session) draw() error {
	if err := s.r.Draw(&s.frame); err != nil {
		return err
	}
	if s.shootNow {
		s.shootNow = false
		what := "SCREENSHOT"
		if s.photo.shoot {
			what, s.photo.shoot = "PHOTO", false
		}
		path, err := s.picturePath()
		switch {
		case err != nil:
			s.opt.Log.Error("no folder for the screenshot", "err", err)
			s.notices.say(what + " NOT SAVED: " + err.Error())
		case s.screenshot(path):
			s.notices.say(what + " SAVED: " + path)
		default:
			s.notices.say(what + " FAILED (THE LOG SAYS WHY)")
		}
	}
	if s.opt.ShotsDir != "" && s.clock >= s.shotNext {
		s.shotNext += s.opt.ShotEvery.Seconds()
		s.screenshot(filepath.Join(s.opt.ShotsDir, fmt.Sprintf("shot-%03.0fs.png", s.clock)))
	}
	return nil
}

// picturePath is a new picture's file in the user's pictures folder
// (PicturesDir), which it makes if need be.
func (s *Session) picturePath() (string, error) {
	dir, err := PicturesDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base := "citydrive-" + time.Now().Format("20060102-150405")
	path := filepath.Join(dir, base+".png")
	for i := 2; ; i++ { // two in one second
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return path, nil
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d.png", base, i))
	}
}

// screenshot reads the frame back and has it written off the frame loop;
// it reports whether the picture is on its way.
func (s *Session) screenshot(path string) bool {
	img, err := s.r.Screenshot()
	if err != nil {
		s.opt.Log.Error("screenshot failed", "path", path, "err", err)
		return false
	}
	if !s.pngs.write(path, img) {
		s.opt.Log.Warn("screenshot dropped: earlier ones are still being written", "path", path)
		return false
	}
	s.shots = append(s.shots, path)
	s.opt.Log.Info("screenshot", "path", path)
	return true
}

// SaveScreenshot draws the current frame again and writes it to path
// before it returns.
func (s *Session) SaveScreenshot(path string) error {
	s.setCamera()
	s.buildFrame()
	if err := s.r.Draw(&s.frame); err != nil {
		return err
	}
	img, err := s.r.Screenshot()
	if err != nil {
		return err
	}
	return writePNG(path, img)
}

// DrawStats is what the last drawn frame held (the renderer's figures),
// and false for a display without them (headless).
func (s *Session) DrawStats() (scene.Stats, bool) {
	if r, ok := s.r.(StatsReporter); ok {
		return r.Stats(), true
	}
	return scene.Stats{}, false
}

// SetHUD shows or hides the HUD.
func (s *Session) SetHUD(on bool) { s.showHUD = on }

// SetTopView switches to a high camera looking straight down.
func (s *Session) SetTopView(top bool) { s.topView = top }

// handle acts on the frame's key presses.
func (s *Session) handle(in Controls) {
	s.shootNow = s.shootNow || in.Screenshot
	if in.ToggleHUD {
		s.showHUD = !s.showHUD
	}
	if in.ToggleDevOverlay {
		s.devHUD = !s.devHUD
	}
	if in.ToggleAutopilot {
		s.opt.Autopilot = !s.opt.Autopilot
		if s.opt.Autopilot {
			s.driver.Reroute(s.car.Pos, s.car.Forward())
		}
	}
	if in.ToggleWeather {
		if s.frame.Weather == scene.Dry {
			s.frame.Weather = scene.Wet
		} else {
			s.frame.Weather = scene.Dry
		}
	}
	if in.ToggleTopView {
		s.topView = !s.topView
	}
	if in.ToggleMinimap {
		s.mini.headingUp = !s.mini.headingUp
	}
	s.debug ^= in.Debug
	s.frame.Debug = s.debug
	if in.Reset {
		s.ResetCar()
	}
	if s.link != nil && (in.Dig || in.Build) {
		f := s.car.Forward()
		s.link.edit(s.car.Pos.X, s.car.Pos.Z, s.car.Y, [2]float64{f.X, f.Z}, in.Build)
	}
	for s.link != nil && len(s.queued) > 0 {
		e := <-s.queued
		s.link.editAt(e.x, e.y, e.z, e.b)
	}
	if in.NextTimeOfDay {
		s.frame.TimeOfDay = math.Mod(s.frame.TimeOfDay+1.5, 24)
	}
}

// ResetCar puts the car back on the lane of the loaded roads nearest it,
// at rest, facing along the lane in the direction closest to where it
// faced, clear of obstacles, built blocks and the water: where the nearest
// spot is not clear, the nearest one along the lane that is
// (autopilot.ResetPose). The autopilot picks up the route from there.
// Connected, the car goes there only when the server grants it: the
// place is asked for (a Reset) and the server's Pose moves the car
// (placeFromServer).
func (s *Session) ResetCar() {
	env := s.carEnv()
	pos, dir, ok := autopilot.ResetPose(s.stream.Graph(), env, s.car.Pos, s.car.Forward())
	if !ok { // no road loaded: stay, at rest
		pos, dir = s.car.Pos, s.car.Forward()
	}
	if s.link != nil && s.link.reset(pos.X, env.Surface(pos.X, pos.Z).Y, pos.Z, car.HeadingOf(dir)) {
		return
	}
	s.placeCar(pos, dir)
	s.recordPlace(pos, dir, true)
	s.drive.Resets++
}

// placeCar puts the car at pos facing dir, at rest, with the autopilot's
// route from there.
func (s *Session) placeCar(pos, dir world.Vec2) {
	s.driver.Reroute(pos, dir)
	s.car = car.New(pos, dir, s.carEnv())
	s.prev = poseOf(s.car)
}

// placeFromServer moves the car where the server's latest Pose says: a
// granted or refused reset, or where the server holds a car whose moves
// it refused (a reconnect puts it at the new connection's spawn).
func (s *Session) placeFromServer() {
	p, reset, ok := s.link.takePose()
	if !ok {
		return
	}
	x, _, z := p.Position()
	h := p.Radians()
	pos, dir := world.Vec2{X: x, Z: z}, world.Vec2{X: math.Cos(h), Z: -math.Sin(h)} // car.Forward's convention
	s.placeCar(pos, dir)
	s.recordPlace(pos, dir, reset)
	if reset {
		s.drive.Resets++
	}
}

// view is the car as drawn: between the last two physics states.
func (s *Session) view() car.Car {
	v := *s.car
	p := lerpPose(s.prev, poseOf(s.car), s.steps.alpha())
	v.Pos, v.Y, v.Heading = p.pos, p.y, p.heading
	return v
}

// chaseView reports whether the frame's camera is the chase camera
// behind the car (setCamera): neither the top view nor photo mode.
func (s *Session) chaseView() bool { return !s.photo.on && !s.topView }

func (s *Session) setCamera() {
	cam := &s.frame.Camera
	if s.photo.on {
		s.photoCamera(cam)
		return
	}
	cam.Target, cam.FovY = &s.target, 0
	v := s.view()
	if s.topView {
		f := v.Forward()
		cam.Position = mgl64.Vec3{v.Pos.X - f.X*1, v.Y + 470, v.Pos.Z - f.Z*1}
		s.target = mgl64.Vec3{v.Pos.X, v.Y, v.Pos.Z}
		cam.Far, cam.Near = 1200, 0
		if s.far.on { // high enough to see the far tier: 2.4 km ahead
			cam.Position = mgl64.Vec3{v.Pos.X + f.X*899, v.Y + 2600, v.Pos.Z + f.Z*899}
			s.target = mgl64.Vec3{v.Pos.X + f.X*900, v.Y, v.Pos.Z + f.Z*900}
			cam.Far, cam.Near = 9000, 50 // fog from 3.1 km: the city reads from above
		}
		return
	}
	eye, target := v.ChaseCamera(chaseDistance, chaseHeight)
	cam.Position = mgl64.Vec3(eye)
	s.target = mgl64.Vec3(target)
	cam.Far, cam.Near = 0, 0
	if s.far.on {
		cam.Far = scene.FarTierPlane
	}
}

// buildFrame fills the frame's slot groups (nearest first, split by the
// origin their vertices are relative to), the car and the HUD.
func (s *Session) buildFrame() {
	table := s.stream.Table()
	cam := s.frame.Camera.Position
	order := table.DrawOrder([3]float64(cam))
	s.groups.reset()
	for _, sl := range order {
		d := s.groups.add(s.stream.SlotOrigin(sl), sl, table.Count(sl), table.Bounds(sl))
		if d == nil {
			continue // a third origin: skip until its rebuild lands
		}
		if seq := table.UploadSeq(sl); s.lastSeq[sl] != seq {
			// New geometry: note when, and take its trees once.
			s.lastSeq[sl], s.builtAt[sl] = seq, s.clock
			s.trees[sl] = append(s.trees[sl][:0], s.stream.Trees(sl)...)
		}
		d.Trees, d.Age = s.trees[sl], float32(s.clock-s.builtAt[sl])
	}
	s.frame.Groups = s.groups.groups()
	s.buildFar()
	// The car, relative to itself: the dynamic origin follows it.
	v := s.view()
	s.frame.DynamicOrigin = mgl64.Vec3{v.Pos.X, v.Y, v.Pos.Z}
	eye, foot := s.frame.Camera.Position, s.frame.DynamicOrigin
	s.drawTraffic(eye, foot)
	s.dynamic = appendCar(s.dynamic[:0], 0, 0, 0, v.Heading)
	s.dynamic = appendLake(s.dynamic, v.Pos.X, v.Pos.Z, v.Pos.X, v.Y, v.Pos.Z, world.WaterLevel)
	var others []remote.Pose
	if p := s.rp.play; p != nil {
		others = p.cars.Poses(float64(s.rp.n) * physicsStep)
	} else if s.link != nil {
		others = s.link.cars.Poses(s.clock)
	}
	for i, p := range others {
		if i == maxRemoteCars {
			break
		}
		if s.chaseView() && scene.BlocksChaseView(eye, foot, mgl64.Vec3{p.X, p.Y, p.Z}) {
			continue // as traffic there is (drawTraffic)
		}
		s.dynamic = appendCar(s.dynamic, float32(p.X-v.Pos.X), float32(p.Y-v.Y), float32(p.Z-v.Pos.Z), p.Heading)
	}
	s.frame.Dynamic = s.dynamic
	s.buildHUD(&v, others)
}

// contactLogEvery: seconds of game time between contact log lines.
const contactLogEvery = 1.0

// slowNotice: the HUD says the game runs slow below this game/wall ratio.
const slowNotice = 0.97

// Summary is what a finished session reports.
type Summary struct {
	Frames        int
	GameSeconds   float64 // game time driven
	WallSeconds   float64 // wall time of the frames that drove it
	FrameMSMedian float64
	FrameMSP99    float64
	ScaleMedian   float64 // render scale over the frames
	ScaleMin      float64
	WorkUSMedian  float64 // main-goroutine work per frame, all but drawing
	WorkUSP99     float64
	RoadUSP99     float64 // road streaming on the main goroutine, per frame
	VoxelUSP99    float64 // voxel ground + network on the main goroutine
	VoxelUSMax    float64
	Drive         DriveStats
	Stats         buildworkers.Stats
	Shots         []string
}

// Summarise returns the session's numbers so far.
func (s *Session) Summarise() Summary {
	q := quantile.Of
	return Summary{
		Frames: len(s.times), GameSeconds: s.clock, WallSeconds: s.wall,
		FrameMSMedian: q(s.times, 0.5), FrameMSP99: q(s.times, 0.99),
		ScaleMedian: q(s.scales, 0.5), ScaleMin: q(s.scales, 0),
		WorkUSMedian: q(s.workUS, 0.5), WorkUSP99: q(s.workUS, 0.99),
		RoadUSP99: q(s.roadUS, 0.99), VoxelUSP99: q(s.voxelUS, 0.99), VoxelUSMax: q(s.voxelUS, 1),
		Drive: s.drive.DriveStats, Stats: s.stream.Stats(), Shots: s.shots,
	}
}

func (s *Session) summary() {
	sum := s.Summarise()
	fmt.Fprintf(s.opt.Out, "drove %.1f s of game time in %.1f s of wall time (%.2f km, average %.0f km/h): %d frames, CPU frame time (update + draw calls, before the swap) median %.1f ms, p99 %.1f ms; %d builds, %d stale dropped, %d overflows; fallback: %q\n",
		sum.GameSeconds, sum.WallSeconds, sum.Drive.Distance/1000, sum.Drive.AverageSpeed()*3.6, sum.Frames, sum.FrameMSMedian, sum.FrameMSP99,
		sum.Stats.Builds, sum.Stats.StaleDropped, sum.Stats.Overflows, sum.Stats.Fallback)
	fmt.Fprintf(s.opt.Out, "render scale: median %.2f, min %.2f\n", sum.ScaleMedian, sum.ScaleMin)
	fmt.Fprintf(s.opt.Out, "main-goroutine work per frame: road streaming p99 %.0f µs; voxel ground + network p99 %.0f µs, max %.0f µs\n",
		sum.RoadUSP99, sum.VoxelUSP99, sum.VoxelUSMax)
	fmt.Fprintln(s.opt.Out, s.GPU())
	for _, p := range sum.Shots {
		fmt.Fprintf(s.opt.Out, "screenshot: %s\n", p)
	}
}

// Streamer exposes the streamer.
func (s *Session) Streamer() *buildworkers.Streamer { return s.stream }

// Recoveries is how often the autopilot backed out after making no
// progress.
func (s *Session) Recoveries() int { return s.driver.Recoveries }
