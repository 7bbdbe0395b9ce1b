// Package game is the client's frame loop: input, car physics, camera, road
// streaming, drawing and the HUD, on the main goroutine. The renderer is
// the only thing here that touches GL.
package game

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/netsync"
	"citydrive/render"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/voxel/ground"
)

// Options configure a game session.
type Options struct {
	Streaming buildworkers.Config
	World     world.World
	Seed      uint64
	Render    render.Options
	Start     world.Vec2
	Autopilot bool
	// Duration > 0 ends the session after that much driving time.
	Duration  time.Duration
	ShotsDir  string        // write a screenshot here every ShotEvery
	ShotEvery time.Duration // of driving time
	Weather   render.Weather
	TimeOfDay float64
	FixedStep bool // step the simulation 1/60 s per frame regardless of wall time
	// Net is the connection to the server (solo: the in-process one). Nil
	// runs offline: the ground is generated locally and edits are off.
	Net           *netsync.Client // New takes ownership: the session closes it
	Redial        Dialer          // reconnects after a lost connection; nil: the loss ends the session
	TerrainRadius int32           // voxel chunks around the car (0: ground.DefaultRadius)
	Log           *slog.Logger
	Out           io.Writer // summary
}

// autopilotSpeed is the autopilot's cruising speed, as in the bench.
const autopilotSpeed = 30.0

// chase camera placement, metres
const (
	chaseDistance = 9.0
	chaseHeight   = 3.6
)

// Session is one running game.
type Session struct {
	opt      Options
	r        *render.Renderer
	stream   *buildworkers.Streamer
	ground3  *ground.Client
	link     *link
	car      *car.Car
	route    *autopilot.Route
	frame    render.Frame
	groups   [render.MaxGroups]render.Group
	target   mgl64.Vec3
	dynamic  []float32
	trees    [][]slots.Tree
	builtAt  []float64
	lastSeq  []uint32
	hud      []string
	showHUD  bool
	debug    render.DebugFlags
	clock    float64 // simulated seconds since the world was ready
	frameMS  float64 // smoothed
	times    []float64
	roadUS   []float64 // main-goroutine road streaming per frame, µs
	voxelUS  []float64 // main-goroutine voxel + network work per frame, µs
	shotNext float64
	shots    []string
	topView  bool
}

// New opens the window and starts streaming.
func New(opt Options) (*Session, error) {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Out == nil {
		opt.Out = os.Stdout
	}
	cfg := opt.Streaming
	if cfg.Log == nil {
		cfg.Log = opt.Log
	}
	opt.Render.Slots, opt.Render.VertsPerSlot = cfg.Slots.Slots, cfg.Slots.VertsPerSlot
	opt.Render.DynamicVerts = cfg.Slots.DynamicVerts
	r, err := render.Open(opt.Render)
	if err != nil {
		if opt.Net != nil {
			_ = opt.Net.Close()
		}
		return nil, err
	}
	s := &Session{opt: opt, r: r, showHUD: true}
	s.stream, err = buildworkers.NewStreamer(cfg, opt.World, r, time.Now())
	if err != nil {
		r.Close()
		if opt.Net != nil {
			_ = opt.Net.Close()
		}
		return nil, err
	}
	topt := ground.Options{Seed: opt.Seed, Radius: opt.TerrainRadius, Workers: 1, Sink: r.Terrain()}
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
	s.route, _ = autopilot.New(g, pos, dir, opt.Seed)
	pos, dir = s.route.Pose()
	s.car = car.New(pos, dir, s.ground)
	n := cfg.Slots.Slots
	s.trees = make([][]slots.Tree, n)
	s.builtAt = make([]float64, n)
	s.lastSeq = make([]uint32, n)
	s.dynamic = make([]float32, 0, (CarVerts*(1+maxRemoteCars)+LakeVerts)*slots.FloatsPerVertex)
	s.frame.Camera.Target = &s.target
	s.frame.Weather = opt.Weather
	s.frame.TimeOfDay = opt.TimeOfDay
	return s, nil
}

// ground is the drivable height: roads drape on the terrain, and over the
// lake the car rides the bridge deck.
func (s *Session) ground(x, z float64) float64 {
	return math.Max(s.opt.World.Height(x, z), world.WaterLevel+bridgeDeck)
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

// bridgeDeck is how far above the water bridges carry the road; the city
// generator uses the same rule.
const bridgeDeck = 2.0

// Close releases everything, the network connection included.
func (s *Session) Close() {
	if s.link != nil {
		s.link.close()
	}
	s.ground3.Close()
	s.stream.Close()
	s.r.Close()
}

// Run loops until the window closes or the duration is over.
func (s *Session) Run() error {
	if err := s.load(); err != nil {
		return err
	}
	last := time.Now()
	for !s.r.ShouldClose() && !s.r.Pressed(render.KeyEscape) {
		now := time.Now()
		dt := now.Sub(last).Seconds()
		last = now
		if s.opt.FixedStep || dt > 0.1 {
			dt = 1.0 / 60
		}
		if err := s.Step(dt, now); err != nil {
			return err
		}
		if s.link != nil {
			if err := s.link.check(); err != nil {
				s.summary()
				return fmt.Errorf("lost the server: %w", err)
			}
		}
		if s.opt.Duration > 0 && s.clock >= s.opt.Duration.Seconds() {
			break
		}
	}
	s.summary()
	return nil
}

// load streams the initial world with a progress bar; nothing of the world
// is drawn until it is complete.
func (s *Session) load() error {
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
		s.frame.HUD = append(s.hud[:0], fmt.Sprintf("LOADING CITY  SEED %d", s.opt.Seed))
		if err := s.r.Draw(&s.frame); err != nil {
			return err
		}
		s.r.Present()
	}
	s.frame.Loading = false
	s.opt.Log.Info("initial world built", "ms", time.Since(t0).Milliseconds(), "slots", s.stream.Table().Used())
	return nil
}

// Step runs one frame: input, physics, camera, streaming, drawing.
func (s *Session) Step(dt float64, now time.Time) error {
	t0 := time.Now()
	s.handleKeys()
	s.Simulate(dt, now)
	s.setCamera()
	s.buildFrame()
	if err := s.r.Draw(&s.frame); err != nil {
		return err
	}
	if s.r.Pressed(render.KeyF12) {
		s.screenshot(fmt.Sprintf("citydrive-%s.png", time.Now().Format("20060102-150405")))
	}
	if s.opt.ShotsDir != "" && s.clock >= s.shotNext {
		s.shotNext += s.opt.ShotEvery.Seconds()
		s.screenshot(filepath.Join(s.opt.ShotsDir, fmt.Sprintf("shot-%03.0fs.png", s.clock)))
	}
	ms := float64(time.Since(t0).Microseconds()) / 1000
	s.times = append(s.times, ms)
	s.frameMS = s.frameMS*0.9 + ms*0.1
	s.r.Present()
	return nil
}

// Simulate advances the car and the streaming by dt without drawing.
func (s *Session) Simulate(dt float64, now time.Time) {
	s.clock += dt
	in := s.input()
	table := s.stream.Table()
	s.car.Step(dt, in, s.ground, func(yield func(slots.Bounds) bool) {
		for sl := int32(0); sl < int32(table.Config().Slots); sl++ {
			for _, b := range table.Obstacles(sl) {
				if !yield(b) {
					return
				}
			}
		}
	})
	if s.opt.Autopilot {
		s.route.Advance(math.Max(0, s.car.Speed()) * dt)
		if p, _ := s.route.Pose(); p.Sub(s.car.Pos).Len() > 25 {
			// Knocked off course: pick up the road where the car is.
			if r, ok := autopilot.New(s.stream.Graph(), s.car.Pos, s.car.Forward(), s.opt.Seed+uint64(s.clock)); ok {
				s.route = r
			}
		}
	}
	t0 := time.Now()
	s.stream.Update(dt, s.car.Pos, s.car.Forward(), now)
	t1 := time.Now()
	if s.link != nil {
		s.link.update(s.clock, dt, s.car.Pos.X, s.car.Y, s.car.Pos.Z, s.car.Heading, s.car.Speed())
	}
	s.ground3.Update(s.car.Pos, s.car.Y)
	t2 := time.Now()
	s.roadUS = append(s.roadUS, float64(t1.Sub(t0).Nanoseconds())/1000)
	s.voxelUS = append(s.voxelUS, float64(t2.Sub(t1).Nanoseconds())/1000)
}

func (s *Session) screenshot(path string) {
	if err := s.r.SaveScreenshot(path); err != nil {
		s.opt.Log.Error("screenshot failed", "path", path, "err", err)
		return
	}
	s.shots = append(s.shots, path)
	s.opt.Log.Info("screenshot", "path", path)
}

// SaveScreenshot draws the current frame again and writes it to path.
func (s *Session) SaveScreenshot(path string) error {
	s.setCamera()
	s.buildFrame()
	if err := s.r.Draw(&s.frame); err != nil {
		return err
	}
	return s.r.SaveScreenshot(path)
}

// SetHUD shows or hides the HUD.
func (s *Session) SetHUD(on bool) { s.showHUD = on }

// SetTopView switches to a high camera looking straight down.
func (s *Session) SetTopView(top bool) { s.topView = top }

func (s *Session) handleKeys() {
	r := s.r
	if r.Pressed(render.KeyH) {
		s.showHUD = !s.showHUD
	}
	if r.Pressed(render.KeyP) {
		s.opt.Autopilot = !s.opt.Autopilot
	}
	if r.Pressed(render.KeyR) {
		if s.frame.Weather == render.Dry {
			s.frame.Weather = render.Wet
		} else {
			s.frame.Weather = render.Dry
		}
	}
	if r.Pressed(render.KeyC) {
		s.topView = !s.topView
	}
	if r.Down(render.KeyLeftCtrl) || r.Down(render.KeyLeftShift) {
		if r.Pressed(render.Key1) {
			s.debug ^= render.DebugWireframe
		}
		if r.Pressed(render.Key2) {
			s.debug ^= render.DebugBoxes
		}
		if r.Pressed(render.Key3) {
			s.debug ^= render.DebugBuildAge
		}
	}
	if s.link != nil && (r.Pressed(render.KeyE) || r.Pressed(render.KeyQ)) {
		f := s.car.Forward()
		s.link.edit(s.car.Pos.X, s.car.Pos.Z, s.car.Y, [2]float64{f.X, f.Z}, r.Pressed(render.KeyQ))
	}
	if r.Pressed(render.KeyF1) {
		s.frame.TimeOfDay = math.Mod(s.frame.TimeOfDay+1.5, 24)
	}
	s.frame.Debug = s.debug
}

func (s *Session) input() car.Input {
	if s.opt.Autopilot {
		look := 10 + math.Max(0, s.car.Speed())*0.6
		return s.car.SteerTowards(s.route.Ahead(look), autopilotSpeed)
	}
	var in car.Input
	r := s.r
	if r.Down(render.KeyW) || r.Down(render.KeyUp) {
		in.Throttle = 1
	}
	if r.Down(render.KeyS) || r.Down(render.KeyDown) || r.Down(render.KeySpace) {
		in.Brake = 1
	}
	if r.Down(render.KeyA) || r.Down(render.KeyLeft) {
		in.Steer += 1
	}
	if r.Down(render.KeyD) || r.Down(render.KeyRight) {
		in.Steer -= 1
	}
	return in
}

func (s *Session) setCamera() {
	cam := &s.frame.Camera
	if s.topView {
		f := s.car.Forward()
		cam.Position = mgl64.Vec3{s.car.Pos.X - f.X*1, s.car.Y + 470, s.car.Pos.Z - f.Z*1}
		s.target = mgl64.Vec3{s.car.Pos.X, s.car.Y, s.car.Pos.Z}
		cam.Far = 1200
		return
	}
	eye, target := s.car.ChaseCamera(chaseDistance, chaseHeight)
	cam.Position = mgl64.Vec3(eye)
	s.target = mgl64.Vec3(target)
	cam.Far = 0
}

// buildFrame fills the frame's slot groups (nearest first, split by the
// origin their vertices are relative to), the car and the HUD.
func (s *Session) buildFrame() {
	table := s.stream.Table()
	cam := s.frame.Camera.Position
	order := table.DrawOrder([3]float64(cam))
	for i := range s.groups {
		s.groups[i].Slots = s.groups[i].Slots[:0]
	}
	ngroups := 0
	for _, sl := range order {
		origin := mgl64.Vec3(s.stream.SlotOrigin(sl))
		gi := -1
		for i := 0; i < ngroups; i++ {
			if s.groups[i].Origin == origin {
				gi = i
			}
		}
		if gi < 0 {
			if ngroups == len(s.groups) {
				continue // a third origin: skip until its rebuild lands
			}
			gi = ngroups
			s.groups[gi].Origin = origin
			ngroups++
		}
		if seq := table.UploadSeq(sl); s.lastSeq[sl] != seq {
			// New geometry: note when, and take its trees once.
			s.lastSeq[sl], s.builtAt[sl] = seq, s.clock
			s.trees[sl] = append(s.trees[sl][:0], s.stream.Trees(sl)...)
		}
		b := table.Bounds(sl)
		o := [3]float64(origin)
		s.groups[gi].Slots = append(s.groups[gi].Slots, render.SlotDraw{
			Slot:  int(sl),
			Count: int(table.Count(sl)),
			Min:   mgl32.Vec3{float32(b.Min[0] - o[0]), float32(b.Min[1] - o[1]), float32(b.Min[2] - o[2])},
			Max:   mgl32.Vec3{float32(b.Max[0] - o[0]), float32(b.Max[1] - o[1]), float32(b.Max[2] - o[2])},
			Trees: s.trees[sl],
			Age:   float32(s.clock - s.builtAt[sl]),
		})
	}
	s.frame.Groups = s.groups[:ngroups]
	// The car, relative to itself: the dynamic origin follows it.
	s.frame.DynamicOrigin = mgl64.Vec3{s.car.Pos.X, s.car.Y, s.car.Pos.Z}
	s.dynamic = appendCar(s.dynamic[:0], 0, 0, 0, s.car.Heading)
	s.dynamic = appendLake(s.dynamic, s.car.Pos.X, s.car.Pos.Z, s.car.Pos.X, s.car.Y, s.car.Pos.Z, world.WaterLevel)
	var others []remote.Pose
	if s.link != nil {
		others = s.link.cars.Poses(s.clock)
		drawn := 0
		for _, p := range others {
			if drawn == maxRemoteCars {
				break
			}
			s.dynamic = appendCar(s.dynamic, float32(p.X-s.car.Pos.X), float32(p.Y-s.car.Y), float32(p.Z-s.car.Pos.Z), p.Heading)
			drawn++
		}
	}
	s.frame.Dynamic = s.dynamic
	s.frame.HUD = s.hud[:0]
	if s.showHUD {
		st := s.stream.Stats()
		fallback := "workers ok"
		if st.Fallback != "" {
			fallback = "MAIN BUILDS: " + st.Fallback
		}
		fps := 0.0
		if s.frameMS > 0 {
			fps = 1000 / math.Max(s.frameMS, 1000.0/240)
		}
		s.frame.HUD = append(s.frame.HUD,
			fmt.Sprintf("FPS %.0f  FRAME %.1f MS  SCALE %.2f", fps, s.frameMS, s.r.RenderScale()),
			fmt.Sprintf("SLOTS %d/%d  PENDING %d  IN FLIGHT %d", st.Used, st.Total, st.Pending, st.InFlight),
			fmt.Sprintf("STALE %d  OVERFLOWS %d  BUILDS %d", st.StaleDropped, st.Overflows, st.Builds),
			fmt.Sprintf("%s  SPEED %.0f KM/H", fallback, s.car.Speed()*3.6),
		)
		ts := s.ground3.Stats()
		s.frame.HUD = append(s.frame.HUD, fmt.Sprintf("TERRAIN %d CHUNKS  GEN %d  MESH %d", ts.Meshed, ts.Generating, ts.MeshPending))
		if s.link != nil {
			s.frame.HUD = append(s.frame.HUD, fmt.Sprintf("PLAYER %d  CARS %d  EDITS %d  %s", s.link.player, len(others), s.link.edits, s.link.status))
		}
		s.hud = s.frame.HUD
	}
}

// Summary is what a finished session reports.
type Summary struct {
	Frames        int
	FrameMSMedian float64
	FrameMSP99    float64
	RoadUSP99     float64 // road streaming on the main goroutine, per frame
	VoxelUSP99    float64 // voxel ground + network on the main goroutine
	VoxelUSMax    float64
	Distance      float64
	Stats         buildworkers.Stats
	Shots         []string
}

// Summarise returns the session's numbers so far.
func (s *Session) Summarise() Summary {
	q := func(v []float64, f float64) float64 {
		if len(v) == 0 {
			return 0
		}
		v = slices.Clone(v)
		slices.Sort(v)
		return v[min(len(v)-1, int(f*float64(len(v))))]
	}
	return Summary{
		Frames: len(s.times), FrameMSMedian: q(s.times, 0.5), FrameMSP99: q(s.times, 0.99),
		RoadUSP99: q(s.roadUS, 0.99), VoxelUSP99: q(s.voxelUS, 0.99), VoxelUSMax: q(s.voxelUS, 1),
		Stats: s.stream.Stats(), Shots: s.shots,
	}
}

func (s *Session) summary() {
	sum := s.Summarise()
	fmt.Fprintf(s.opt.Out, "drove %.0f s: %d frames, frame time median %.1f ms, p99 %.1f ms; %d builds, %d stale dropped, %d overflows; fallback: %q\n",
		s.clock, sum.Frames, sum.FrameMSMedian, sum.FrameMSP99, sum.Stats.Builds, sum.Stats.StaleDropped, sum.Stats.Overflows, sum.Stats.Fallback)
	fmt.Fprintf(s.opt.Out, "main-goroutine work per frame: road streaming p99 %.0f µs; voxel ground + network p99 %.0f µs, max %.0f µs\n",
		sum.RoadUSP99, sum.VoxelUSP99, sum.VoxelUSMax)
	for _, p := range sum.Shots {
		fmt.Fprintf(s.opt.Out, "screenshot: %s\n", p)
	}
}

// Renderer exposes the renderer (for the shot command).
func (s *Session) Renderer() *render.Renderer { return s.r }

// Streamer exposes the streamer.
func (s *Session) Streamer() *buildworkers.Streamer { return s.stream }

// Load runs the loading screen until the initial world is built.
func (s *Session) Load() error { return s.load() }
