//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/gpubench"
	"citydrive/render"
	"citydrive/render/scene"
)

const gpubenchAbout = `Measures the GPU time of the game's frames with the GPU kept busy.
Drives the autopilot for -after (fixed 60 Hz steps, as shot does), then
for each of -frames more steps of the drive draws that frame -rounds
times with each -variants entry, and as many floor frames (clear of the
off-screen target, one full-screen triangle, blit: what any frame of
the size costs at least), all between two swaps, in an order that turns
round each time so every variant meets the same clocks. Timer queries
are read a ring of frames later, never stalling. Prints per variant
and pass the median GPU ms, the total, and its ratio to the floor
measured in the same run (-json: the same as JSON). A frame's first
draw times the shadow map (the others keep it), whose mean per frame
is in every total. Under llvmpipe it runs, but measures the CPU.`

// defaultVariants is every pass option alone, and the likely best mix.
const defaultVariants = "base;prepass=off;farprepass=off,farsort;prepass=off,farsort;direct;lean;vfog;shadow1;prepass=off,farsort,direct,lean,vfog,shadow1"

func runGPUBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gpubench", stdout, "gpubench [flags]", gpubenchAbout)
	sf := addStreamFlags(fs.FlagSet)
	vf := addViewFlags(fs.FlagSet, false)
	after := fs.Duration("after", 20*time.Second, "drive this long with the autopilot (simulated, 60 Hz) before the measured frames")
	frames := fs.Int("frames", 120, "measured frames of the drive (60 Hz steps after -after)")
	rounds := fs.Int("rounds", 2, "draws of each variant (and floor frames) per measured frame, between one swap and the next")
	warmup := fs.Duration("warmup", 3*time.Second, "wall time of unmeasured drawing first, so the GPU's clock rises")
	variants := fs.String("variants", defaultVariants, "`list` of pass variants, separated by ';', each "+scene.PassWords)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	jsonOut := fs.String("json-out", "", "also write the report as JSON to this `file`")
	hud := fs.Bool("hud", true, "the player's HUD, as in a drive")
	wall := fs.Bool("wall", false, "also time each draw by the wall clock between two finishes (on by itself under a software rasteriser, whose timer queries measure little)")
	fs.hidden["passes"] = true
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.isSet("passes") {
		return usageError{errors.New("-passes: gpubench draws each of -variants instead")}
	}
	if *frames < 1 || *frames > 100000 {
		return fmt.Errorf("-frames must be in 1..100000, got %d", *frames)
	}
	if *rounds < 1 || *rounds > 64 {
		return fmt.Errorf("-rounds must be in 1..64, got %d", *rounds)
	}
	if *warmup < 0 || *warmup > 10*time.Minute {
		return fmt.Errorf("-warmup must be in [0, 10m], got %v", *warmup)
	}
	if *after < 0 || *after > time.Hour {
		return fmt.Errorf("-after must be in [0, 1h], got %v", *after)
	}
	if *jsonOut != "" {
		if err := checkOutputFile("json-out", *jsonOut); err != nil {
			return err
		}
	}
	passes, names, err := parseVariants(*variants)
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
	// Visible: an unmapped window's framebuffer may not be drawn at all.
	ropt.Hidden = false
	s, win, err := startFixedDrive(vf, ropt, weather, cfg, w, stdout, stderr, *after)
	if err != nil {
		return err
	}
	defer s.Close()
	s.SetHUD(*hud)
	m := gpuMeasure{s: s, r: win, passes: passes, rounds: *rounds, wall: *wall || strings.Contains(win.GLInfo(), "llvmpipe")}
	c, err := m.run(*frames, *warmup, names)
	if err != nil {
		return err
	}
	st := win.Stats()
	rep := c.Report(gpubench.Setup{
		Renderer: win.GLInfo(), Width: *vf.width, Height: *vf.height, TargetW: st.TargetW, TargetH: st.TargetH,
		Seed: *sf.seed, After: after.String(), Frames: *frames, Rounds: *rounds, DrawsPerSwap: m.perSwap(), Warmup: warmup.String(),
	})
	rep.Notes = m.notes
	if strings.Contains(rep.Setup.Renderer, "llvmpipe") {
		rep.Notes = append(rep.Notes, "software rasteriser (llvmpipe): the times are the CPU's, not a GPU's")
	}
	if *jsonOut != "" {
		if err := writeReport(*jsonOut, rep); err != nil {
			return err
		}
	}
	if *asJSON {
		return rep.JSON(stdout)
	}
	return rep.Table(stdout)
}

func writeReport(path string, rep gpubench.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-json-out: %w", err)
	}
	if err := rep.JSON(f); err != nil {
		f.Close()
		return fmt.Errorf("-json-out: %w", err)
	}
	return f.Close()
}

// parseVariants reads -variants: entries separated by ';', each named by
// its canonical form (scene.Passes.String), none twice.
func parseVariants(s string) ([]render.Passes, []string, error) {
	var ps []render.Passes
	var names []string
	for _, v := range strings.Split(s, ";") {
		if strings.TrimSpace(v) == "" {
			continue
		}
		p, err := scene.ParsePasses(v)
		if err != nil {
			return nil, nil, fmt.Errorf("-variants: %w", err)
		}
		name := p.String()
		for _, n := range names {
			if n == name {
				return nil, nil, fmt.Errorf("-variants: %s given twice", name)
			}
		}
		ps, names = append(ps, p), append(names, name)
	}
	if len(ps) == 0 {
		return nil, nil, errors.New("-variants: none given")
	}
	if len(ps) > 32 {
		return nil, nil, fmt.Errorf("-variants: at most 32, got %d", len(ps))
	}
	return ps, names, nil
}

// gpuMeasure is gpubench's drawing loop.
type gpuMeasure struct {
	s      *game.Session
	r      *render.Renderer
	passes []render.Passes
	rounds int
	roles  map[uint64]int // timed frame -> variant index; len(passes): floor; -1: the frame's first draw
	notes  []string
	wall   bool      // time each variant's draws by the wall clock too
	walls  []float64 // this frame's, per variant (summed over rounds)
	c      *gpubench.Collector
}

const rolePrime = -1

// perSwap is the number of draws between two swaps.
func (m *gpuMeasure) perSwap() int { return 1 + m.rounds*(len(m.passes)+1) }

// run warms up on the current frame, then measures frames steps of the
// drive, and sorts the log into a collector.
func (m *gpuMeasure) run(frames int, warmup time.Duration, names []string) (*gpubench.Collector, error) {
	if !m.r.StartGPULog(3*m.perSwap() + 8) {
		return nil, errors.New("this OpenGL has no timer queries: nothing to measure")
	}
	defer m.r.StopGPULog()
	for t0, i := time.Now(), 0; time.Since(t0) < warmup; i++ {
		if err := m.frame(i, false); err != nil {
			return nil, err
		}
	}
	m.r.TakeGPULog() // the warm-up's: dropped
	m.roles = map[uint64]int{}
	m.c = gpubench.NewCollector(names)
	t0 := time.Now()
	for i := 0; i < frames; i++ {
		m.s.Update(1.0 / 60)
		if err := m.frame(i, true); err != nil {
			return nil, err
		}
	}
	log := m.r.TakeGPULog() // finishes the GPU's work first
	c := m.c
	c.Wall(time.Since(t0))
	for _, e := range log {
		v, ok := m.roles[e.Frame]
		switch {
		case !ok:
		case v == rolePrime:
			c.Prime(e.GPU)
		case v == len(m.passes):
			c.Floor(e.FloorTime)
		default:
			c.Draw(v, e.GPU)
		}
	}
	return c, nil
}

// frame draws the session's current frame: once as the game would (the
// shadow map refreshed if due), then rounds × (every variant and a floor
// frame), starting one further along at each round and frame, then swaps.
func (m *gpuMeasure) frame(i int, measured bool) error {
	f := m.s.FrameDesc()
	r := m.r
	note := func(role int) {
		if measured {
			m.roles[r.TimedFrames()] = role
		}
	}
	r.HoldShadow(false)
	r.SetPasses(render.Passes{})
	if err := r.Draw(f); err != nil {
		return err
	}
	note(rolePrime)
	r.HoldShadow(true)
	defer func() { r.HoldShadow(false); r.SetPasses(render.Passes{}) }()
	n := len(m.passes) + 1
	if m.wall {
		m.walls = make([]float64, len(m.passes))
	}
	for k := 0; k < m.rounds; k++ {
		for j := 0; j < n; j++ {
			v := (i + k + j) % n
			var err error
			if v == len(m.passes) {
				err = r.DrawFloor()
			} else {
				r.SetPasses(m.passes[v])
				var t0 time.Time
				if m.wall {
					r.Finish()
					t0 = time.Now()
				}
				err = r.Draw(f)
				if m.wall {
					r.Finish()
					m.walls[v] += float64(time.Since(t0).Nanoseconds()) / 1e6
				}
				if measured && i == 0 && k == 0 && m.passes[v].Direct && !r.Stats().Direct {
					m.notes = append(m.notes, fmt.Sprintf("%s: drawn through the target (the render scale is not 1, or the window has no depth buffer)", m.passes[v]))
				}
			}
			if err != nil {
				return err
			}
			note(v)
		}
	}
	if measured && m.wall {
		for v := range m.walls {
			m.walls[v] /= float64(m.rounds)
		}
		m.c.WallFrame(m.walls)
	}
	r.Present()
	return nil
}
