//go:build cgo

// The commands that open a window and play sound (play, join, client,
// shot) link GL, GLFW and the audio device through cgo; without cgo
// play_nocgo.go stands in for them, and the binary is the static server.

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/host"
	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/cmd/citydrive/internal/sound/speaker"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/render"
	"citydrive/render/glprofile"
	"citydrive/render/scale"
	"citydrive/render/scene"
	"citydrive/roadgraph/world"
	"citydrive/voxel/gen"
	"citydrive/voxel/ground"
	"citydrive/voxel/store"
)

// haveDisplay: this build opens windows and plays sound.
const haveDisplay = true

// viewFlags are the window and look options shared by play and shot.
type viewFlags struct {
	width, height *int
	fullscreen    *bool // nil in shot: its window is hidden
	weather       *string
	timeOfDay     *float64
	profile       *string
	renderScale   *float64
	traffic       *bool
	passes        *string
	glProfile     *string
	start         pointFlag
}

// addViewFlags adds them; a visible window (play, client) gets
// -fullscreen and an adaptive render scale, shot a fixed one.
func addViewFlags(fs *flag.FlagSet, window bool) *viewFlags {
	v := &viewFlags{
		width:     fs.Int("width", 1280, "window width in pixels"),
		height:    fs.Int("height", 720, "window height in pixels"),
		weather:   fs.String("weather", "dry", "weather: dry or wet (key R toggles)"),
		timeOfDay: addTimeFlag(fs, 17.5, "time of day in hours, 0..24 (key F1 advances)"),
		profile:   fs.String("profile", "full", "performance profile: full (60 fps), cool (30 fps, lighter shadows) or battery (45 fps cap)"),
		traffic:   fs.Bool("traffic", true, "the city's traffic on the roads (-traffic=false: empty roads)"),
		passes:    fs.String("passes", "base", "how frames are drawn, a `variant`: "+scene.PassWords+" (the same picture but for vfog's fog; citydrive gpubench measures them; other than base it replaces the GL profile's)"),
		glProfile: fs.String("gl-profile", "auto", "GL `profile`: "+glprofile.Words+" (auto: software when the GL renderer is a CPU rasteriser such as llvmpipe; docs/rendering.md)"),
	}
	if window {
		v.fullscreen = fs.Bool("fullscreen", false, "fullscreen on the primary monitor")
		v.renderScale = fs.Float64("render-scale", 0, "fixed render scale in (0, 1] (0: adaptive; for comparing frame times)")
	} else {
		v.renderScale = fs.Float64("render-scale", 1, "render scale in (0, 1]: the picture is drawn at this fraction of -width × -height and scaled up, as play draws it under load")
	}
	fs.Var(&v.start, "start", "start the car on the road nearest `x,z` metres (far values test the floating origin)")
	return v
}

func (v *viewFlags) options() (render.Options, render.Weather, error) {
	var o render.Options
	if *v.width < 64 || *v.width > 16384 || *v.height < 64 || *v.height > 16384 {
		return o, 0, fmt.Errorf("window size %dx%d out of range (64..16384)", *v.width, *v.height)
	}
	if err := checkTime(*v.timeOfDay); err != nil {
		return o, 0, err
	}
	p, err := scale.ParseProfile(*v.profile)
	if err != nil {
		return o, 0, err
	}
	var w render.Weather
	switch *v.weather {
	case "dry":
		w = render.Dry
	case "wet":
		w = render.Wet
	default:
		return o, 0, fmt.Errorf("-weather must be dry or wet, got %q", *v.weather)
	}
	if !(*v.renderScale >= 0 && *v.renderScale <= 1) || (v.fullscreen == nil && *v.renderScale == 0) {
		return o, 0, fmt.Errorf("-render-scale must be in (0, 1] (0 too in a window: adaptive), got %g", *v.renderScale)
	}
	var passes render.Passes
	if v.passes != nil { // nil: a replay's window, which has no such flag
		if passes, err = scene.ParsePasses(*v.passes); err != nil {
			return o, 0, fmt.Errorf("-passes: %w", err)
		}
	}
	glp := glprofile.Auto
	if v.glProfile != nil {
		if glp, err = glprofile.ParseMode(*v.glProfile); err != nil {
			return o, 0, fmt.Errorf("-gl-profile: %w", err)
		}
	}
	o = render.Options{Width: *v.width, Height: *v.height, Profile: p, Title: "citydrive", FixedScale: *v.renderScale, Passes: passes, GLProfile: glp}
	if v.fullscreen != nil {
		o.Fullscreen = *v.fullscreen
	} else {
		o.Hidden = true
	}
	return o, w, nil
}

// gameMode is how runGame finds its server.
type gameMode int

const (
	solo   gameMode = iota // a server goroutine on loopback
	client                 // -addr and -server-fingerprint
	join                   // a join code
)

func runPlay(args []string, stdout, stderr io.Writer) error {
	return runGame(solo, args, stdout, stderr)
}

func runClient(args []string, stdout, stderr io.Writer) error {
	return runGame(client, args, stdout, stderr)
}

func runJoin(args []string, stdout, stderr io.Writer) error {
	return runGame(join, args, stdout, stderr)
}

const (
	playAbout = `Drives solo: a server goroutine on loopback, joined over QUIC like any
other server, keeps your edits in -data. This is what citydrive does with
no command.`
	clientAbout = `Joins a citydrive server by its address and certificate fingerprint (the
server prints both, and a join code: citydrive join CODE is simpler). Use
the server's -seed.`
	joinAbout = `Joins a citydrive server with the join code it prints at start:
  citydrive join citydrive://HOST:PORT/SEED/FINGERPRINT
The code names the server, pins its certificate and sets the seed. Flags
may come before or after the code.`
)

// runGame is solo play (a server goroutine on loopback, joined over QUIC
// like any other) or a client of someone else's server. Both take the
// same network path.
func runGame(mode gameMode, args []string, stdout, stderr io.Writer) error {
	var fs *cmdFlags
	switch mode {
	case solo:
		fs = newFlags("play", stdout, "[play] [flags]", playAbout)
	case client:
		fs = newFlags("client", stdout, "client -addr HOST:PORT -server-fingerprint FP [-seed N] [flags]", clientAbout)
	case join:
		fs = newFlags("join", stdout, "join CODE [flags]", joinAbout)
	}
	fs.after = keyHelp
	sf := addStreamFlags(fs.FlagSet)
	vf := addViewFlags(fs.FlagSet, true)
	auto := fs.Bool("autopilot", false, "the car drives itself (key P toggles)")
	duration := fs.Duration("duration", 0, "quit after this much driving (0: play until the window closes)")
	shots := fs.String("shots", "", "write a screenshot into this `directory` every -shot-every")
	shotEvery := fs.Duration("shot-every", 10*time.Second, "interval between -shots screenshots (driving time)")
	radius := fs.Int("terrain-radius", ground.DefaultRadius, "voxel chunks (32 m) streamed around the car")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the session to this `file`")
	mute := fs.Bool("mute", false, "no engine sound (without an audio device the game is silent anyway)")
	settingsPath := addSettingsFlag(fs)
	addr, fingerprint, data := new(string), new(string), new(string)
	name, password := new(string), new(string)
	if mode != solo {
		defDir, _ := store.DefaultDir()
		data = fs.String("data", defDir, "data `directory`: your player key (player-key), which servers' bans and allow-lists name")
		name = fs.String("name", "", "your name on the server's map (at most 32 bytes)")
		password = fs.String("password", "", "the server's join `password`, if it has one (default $CITYDRIVE_PASSWORD; read after parsing, so -h never shows it)")
	}
	switch mode {
	case client:
		addr = fs.String("addr", "", "server `host:port` (required); several servers of one cluster: a:p,b:p,c:p (the client moves to the next when its server is lost)")
		fingerprint = fs.String("server-fingerprint", "", "the server's certificate fingerprint, as its log shows it (required); with several -addr, one per server (comma-separated) or one for all")
	case solo:
		defDir, _ := store.DefaultDir()
		data = fs.String("data", defDir, "data `directory` of the solo server: its identity and your edits (worlds/<seed>/)")
	}
	var code joinCode
	if mode == join {
		// The code may come first (citydrive join CODE -width 800): the
		// flag package stops at the first argument that is not a flag.
		var pos []string
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			pos, args = []string{args[0]}, args[1:]
		}
		rest, err := fs.parseArgs(args, 1-len(pos))
		if err != nil {
			return err
		}
		if pos = append(pos, rest...); len(pos) != 1 {
			return usageError{fmt.Errorf("want one join code, as the server prints it")}
		}
		if code, err = parseJoinCode(pos[0]); err != nil {
			return err
		}
		if fs.isSet("seed") && *sf.seed != code.seed {
			return fmt.Errorf("-seed %d disagrees with the join code's seed %d (leave -seed out)", *sf.seed, code.seed)
		}
		*sf.seed, *addr, *fingerprint = code.seed, code.addr(), code.fingerprint
	} else if err := fs.parse(args); err != nil {
		return err
	}
	files, err := loadPlayerFiles(fs, *settingsPath) // before the checks: the file fills in flags
	if err != nil {
		return err
	}
	cfg, w, err := sf.config()
	if err != nil {
		return err
	}
	ropt, weather, err := vf.options()
	if err != nil {
		return err
	}
	if *duration < 0 {
		return fmt.Errorf("-duration must be ≥ 0")
	}
	if *radius < 1 || *radius > int(wire.AbsMaxRadius) {
		return fmt.Errorf("-terrain-radius must be in 1..%d chunks, got %d", wire.AbsMaxRadius, *radius)
	}
	remote := mode != solo
	if remote && (*addr == "" || *fingerprint == "") {
		return fmt.Errorf("-addr and -server-fingerprint are required (the server prints both when it starts)")
	}
	if mode == client {
		if err := checkServers(*addr, *fingerprint); err != nil {
			return err
		}
	}
	if !remote && *data == "" {
		return fmt.Errorf("-data is required: no default data directory could be found (set $HOME or $XDG_DATA_HOME)")
	}
	if *shots != "" {
		if err := checkOutputDir("shots", *shots); err != nil {
			return err
		}
		if *shotEvery <= 0 {
			return fmt.Errorf("-shot-every must be positive")
		}
	}
	if err := checkOptionalFile("cpuprofile", *cpuprofile); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	if *shots != "" {
		if err := os.MkdirAll(*shots, 0o755); err != nil {
			return fmt.Errorf("-shots: %w", err)
		}
	}
	stop, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	files.log = log
	files.loadResume()
	eff := files.effective(vf, *mute)
	server := settings.Solo
	if remote {
		server = *addr
	}
	start := vf.start.p
	resume, resumed := files.place(server, *sf.seed)
	if resumed {
		eff.Camera = resume.Camera
		if !vf.start.set && !remote { // -start wins; a server says where cars start
			start = world.Vec2{X: resume.X, Z: resume.Z}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialAddr, pin := "", ""
	if remote {
		dialAddr, pin = *addr, *fingerprint
	} else {
		tuning := netsync.DefaultServerConfig().Tuning // the solo server spawns the car where -start (or the last drive) says
		tuning.SpawnX, tuning.SpawnZ = start.X, start.Z
		h, err := host.Start(ctx, host.Options{Addr: "127.0.0.1:0", DataDir: *data, Seed: *sf.seed, Logger: log, Tuning: tuning})
		if err != nil {
			return alreadyRunning(fmt.Errorf("starting the solo server: %w", err), *data)
		}
		defer h.Close()
		dialAddr, pin = h.DialAddr(), h.Fingerprint()
		log.Info("solo server on loopback", "addr", dialAddr, "data", *data)
	}
	*password = joinPassword(*password)
	identity := netsync.NewIdentity() // solo: the local server knows no bans
	if remote && *data != "" {
		if identity, err = loadPlayerIdentity(*data); err != nil {
			return err
		}
	}
	ccfg := netsync.ClientConfig{
		Addr: dialAddr, Fingerprint: pin, Seed: *sf.seed, Generator: gen.Version,
		Radius: uint32(*radius), Logger: log, Identity: identity, Name: *name, Password: *password,
	}
	dial := func(ctx context.Context) (*netsync.Client, error) {
		dctx, dcancel := context.WithTimeout(ctx, dialTimeout)
		defer dcancel()
		return netsync.Dial(dctx, ccfg)
	}
	if addrs := splitList(dialAddr); len(addrs) > 1 {
		f, err := netsync.NewFailover(ccfg, addrs, splitList(pin), 0)
		if err != nil {
			return fmt.Errorf("-addr, -server-fingerprint: %w", err)
		}
		dial = f.Dial
	}
	c, err := dial(ctx)
	if err != nil {
		return fmt.Errorf("joining %s: %w", dialAddr, err)
	}
	var redial game.Dialer
	if remote {
		redial = dial // a remote server may restart: keep driving and rejoin
		// The server places the car: it is held at the spawn until it is there.
		x, _, z := c.Spawn().Position()
		if vf.start.set && (x != start.X || z != start.Z) {
			log.Warn("the server chooses where cars start: -start is not used", "spawn_x", x, "spawn_z", z)
		}
		start = world.Vec2{X: x, Z: z}
	}
	sp := speaker.Open(nil, *mute, log)
	defer sp.Close()
	var at *settings.Place
	if resumed && !vf.start.set {
		at = &resume
		log.Info("starting where the last drive was left", "x", resume.X, "z", resume.Z, "saved", resume.Saved, "file", files.resumePath)
	}
	win, err := openWindow(ropt, cfg, log)
	if err != nil {
		_ = c.Close()
		return withDisplayHint(err)
	}
	s, err := game.New(game.Options{
		Streaming: cfg, World: w, Display: win, Start: start,
		Autopilot: *auto, Duration: *duration, ShotsDir: *shots, ShotEvery: *shotEvery,
		Weather: weather, TimeOfDay: *vf.timeOfDay, Traffic: *vf.traffic, Out: stdout, Log: log,
		Net: c, Redial: redial, TerrainRadius: int32(*radius), Sound: sp, Record: true,
		Settings: &eff, SaveSettings: files.save, Resume: at,
	})
	if err != nil {
		return err // New closed the connection and the window
	}
	defer s.Close()
	err = s.Run()
	files.savePlace(server, *sf.seed, s.Place())
	replays := *data
	if remote {
		replays, _ = store.DefaultDir()
	}
	saveDrive(stdout, log, replays, s) // a drive that ended badly is worth seeing too
	return err
}

// keyHelp is the key list of -h (the README has the same): the default
// bindings (settings.DefaultBindings).
const keyHelp = `
Keys (the defaults: Options in the pause menu rebinds them; the settings
file, -settings, keeps them):
  W/S or arrows   throttle / brake (hold brake to reverse)    A/D   steer
  Backspace       back on the road       P  autopilot          R  dry / wet weather
  C               top view               H  HUD and minimap    M  minimap north-up / heading-up
  E / Q           dig / build a block ahead                    F1 time of day
  F2              photo mode             F3 developer overlay  F12 screenshot (to ~/Pictures)
  Ctrl+1/2/3      wireframe / slot boxes / build-age tint
  Esc             pause menu: Esc resumes, Up/Down + Enter picks, Left/Right change
                  an option, Backspace goes back, Q asks to quit
Gamepad: right trigger throttle, left trigger brake, left stick steer, Y back on the road,
  X autopilot, Back minimap, Start pause (A picks, B goes back, d-pad selects),
  bumpers dig / build, right stick click top view, left stick click photo mode;
  d-pad while driving: up HUD, down screenshot, left weather, right time of day.
Settings (window, profile, volume, units, HUD, camera, weather, time, bindings)
are kept in -settings; a flag given on the command line wins for that run. The
place and camera of the last drive on each seed and server come back at the
next start (-start wins).
`

// dialTimeout bounds connecting and the handshake.
const dialTimeout = 10 * time.Second

const shotAbout = `Drives with the autopilot for -after of simulated time (60 Hz fixed steps,
as fast as the machine allows), waits for the world to catch up, and
writes one frame as PNG, then prints that view's GPU time per pass. The
window is hidden; it needs a display (xvfb-run will do).`

func runShot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("shot", stdout, "shot [flags]", shotAbout)
	sf := addStreamFlags(fs.FlagSet)
	vf := addViewFlags(fs.FlagSet, false)
	after := fs.Duration("after", 20*time.Second, "drive this long with the autopilot (simulated, 60 Hz) before the picture")
	out := fs.String("o", "shot.png", "output PNG `file`")
	view := fs.String("view", "chase", "camera: chase or top")
	hud := fs.Bool("hud", false, "draw the player's HUD into the picture: speed, time of day, minimap, notice line (key H)")
	headingUp := fs.Bool("map-heading-up", false, "with -hud: the minimap turns with the car (key M)")
	devOverlay := fs.Bool("dev-overlay", false, "with -hud: the developer's figures too (key F3)")
	notice := fs.String("notice", "", "with -hud: show this `text` in the notice area")
	photo := fs.Bool("photo", false, "photo mode's free camera (key F2), no HUD: -photo-orbit from the car, -fov")
	photoOrbit := fs.String("photo-orbit", "30,10,2.2", "with -photo: the camera's `bearing,distance,height` from the car (degrees from its heading, left positive; metres)")
	fov := fs.Float64("fov", 45, "with -photo: the field of view in `degrees` (15 to 100; keys Z/X)")
	pauseMenu := fs.String("pause-menu", "", "draw the pause menu over the picture, on this `page`: "+strings.Join(game.MenuPages, ", ")+" (key Esc; the settings are the defaults, not the player's file)")
	paused := fs.Bool("paused", false, "old name of -pause-menu main")
	fs.hidden["paused"] = true
	if err := fs.parse(args); err != nil {
		return err
	}
	if *paused && *pauseMenu == "" {
		*pauseMenu = "main"
	}
	if *pauseMenu != "" && !slices.Contains(game.MenuPages, *pauseMenu) {
		return fmt.Errorf("-pause-menu must be one of %s, got %q", strings.Join(game.MenuPages, ", "), *pauseMenu)
	}
	var orbit [3]float64
	if _, err := fmt.Sscanf(*photoOrbit, "%g,%g,%g", &orbit[0], &orbit[1], &orbit[2]); err != nil {
		return fmt.Errorf("-photo-orbit must be bearing,distance,height, got %q", *photoOrbit)
	}
	if *fov < 15 || *fov > 100 {
		return fmt.Errorf("-fov must be in [15, 100] degrees, got %g", *fov)
	}
	if *view != "chase" && *view != "top" {
		return fmt.Errorf("-view must be chase or top, got %q", *view)
	}
	if *after < 0 || *after > time.Hour {
		return fmt.Errorf("-after must be in [0, 1h], got %v", *after)
	}
	cfg, w, err := sf.config()
	if err != nil {
		return err
	}
	ropt, weather, err := vf.options()
	if err != nil {
		return err
	}
	// Checked now: the drive before the picture takes a while.
	if err := checkOutputFile("o", *out); err != nil {
		return err
	}
	s, _, err := startFixedDrive(vf, ropt, weather, cfg, w, stdout, stderr, *after)
	if err != nil {
		return err
	}
	defer s.Close()
	s.SetTopView(*view == "top")
	s.SetHUD(*hud)
	s.SetMinimapHeadingUp(*headingUp)
	s.SetDevOverlay(*devOverlay)
	if *notice != "" {
		s.Notify(*notice)
	}
	if *photo {
		s.SetPhotoMode(true)
		s.Notify(*notice) // the hint is not in the picture
		s.PhotoOrbit(orbit[0], orbit[1], orbit[2], *fov)
	}
	if *pauseMenu != "" {
		if err := s.OpenMenu(*pauseMenu); err != nil {
			return err
		}
	}
	if err := s.SaveScreenshot(*out); err != nil {
		return err
	}
	st := s.Streamer().Stats()
	drawn, _ := s.DrawStats()
	fmt.Fprintf(stdout, "wrote %s (%s view, seed %d, %v of autopilot): %d slots, %d builds, %d traffic vehicles drawn\n",
		*out, *view, *sf.seed, *after, st.Used, st.Builds, drawn.Vehicles)
	// GPU time of the same view, from timer queries: a few more frames so
	// the shadow map and caches are as in play, then the last frame's.
	if g, err := s.MeasureGPU(8); err == nil {
		w, h := *vf.width, *vf.height
		fmt.Fprintf(stdout, "%s (frame %d at %dx%d)\n", g, g.Frame, w, h)
	}
	return nil
}

// startFixedDrive opens the window and an autopilot session on it
// (fixed steps, no log) and drives it for after (driveFixed): how shot
// and gpubench begin. The caller closes the session.
func startFixedDrive(vf *viewFlags, ropt render.Options, weather render.Weather, cfg buildworkers.Config, w world.World,
	stdout, stderr io.Writer, after time.Duration) (*game.Session, *render.Renderer, error) {
	if err := ready(); err != nil {
		return nil, nil, err
	}
	win, err := openWindow(ropt, cfg, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return nil, nil, withDisplayHint(err)
	}
	s, err := game.New(game.Options{
		Streaming: cfg, World: w, Display: win, Start: vf.start.p,
		Autopilot: true, Weather: weather, TimeOfDay: *vf.timeOfDay, Traffic: *vf.traffic, FixedStep: true, Out: stdout,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, nil, err
	}
	if err := driveFixed(s, after); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, win, nil
}

// driveFixed loads the world and drives the autopilot for after of
// simulated time (fixed 60 Hz steps, no frames drawn), then lets the world
// catch up with the car: it stands still while the workers finish (bounded
// in wall time).
func driveFixed(s *game.Session, after time.Duration) error {
	if err := s.Load(); err != nil {
		return err
	}
	for f := 0; f < int(after.Seconds()*60); f++ {
		s.Update(1.0 / 60)
	}
	for deadline := time.Now().Add(20 * time.Second); !(s.Streamer().Ready() && s.Streamer().FarReady()) && time.Now().Before(deadline); {
		s.Update(0)
		time.Sleep(time.Millisecond)
	}
	return nil
}

// openWindow opens the game's window with its vertex buffer sized for
// the streamer's near and far slot tables.
func openWindow(o render.Options, cfg buildworkers.Config, log *slog.Logger) (*render.Renderer, error) {
	o.Layout = cfg.Layout()
	r, err := render.Open(o)
	if err != nil {
		return nil, err
	}
	c, set := r.GLProfile()
	if log == nil {
		log = slog.Default()
	}
	log.Info("GL profile "+c.Name(), "why", c.Reason, "changes", set.String(), "passes", r.Passes().String())
	return r, nil
}

// withDisplayHint adds what to do when no window could be opened.
func withDisplayHint(err error) error {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return fmt.Errorf("%w\n(no display: run under xvfb-run, or use 'sh cmd/play.sh', which does that for you)", err)
	}
	return err
}
