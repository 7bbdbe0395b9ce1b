// Package gpubench turns the GPU time log of citydrive gpubench into its
// report: per pass and variant the median over the draws, the floor
// measured in the same run, and their ratio. It is pure: the GL loop that
// fills a Collector is cmd/citydrive's gpubench.go.
package gpubench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"citydrive/cmd/citydrive/internal/quantile"
	"citydrive/render/scene"
)

// Passes, in the report's order: what each column of a variant's row is
// (parts are taken out of the pass they are counted in, so the columns
// add up to the frame).
var Passes = []string{"clear", "depth", "depth far", "main", "main far", "trees+traffic", "sky", "ground", "blit+HUD"}

// passMS splits one draw's times into Passes' columns, in ms.
func passMS(g scene.GPUTimes) []float64 {
	return []float64{
		ms(g.Clear),
		ms(g.Depth - g.Clear - g.DepthFar),
		ms(g.DepthFar),
		ms(g.Main - g.MainFar - g.Rest - g.Sky),
		ms(g.MainFar),
		ms(g.Rest),
		ms(g.Sky),
		ms(g.Terrain), // voxel ground, its pre-pass and main draws
		ms(g.HUD),
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Collector gathers the log's draws by role.
type Collector struct {
	busy    time.Duration // every timed section of every measured frame
	wall    time.Duration // the measured frames' wall time (Wall)
	names   []string
	draws   [][]scene.GPUTimes // per variant
	floors  []scene.FloorTimes
	shadows []float64   // the shadow map's time on each measured frame's first draw (0: not refreshed)
	walls   [][]float64 // per measured frame, each variant's wall ms (WallFrame)
}

// WallFrame adds one measured frame's wall-clock times, in ms, one per
// variant in names' order: each draw timed from an idle pipeline to its
// end (a finish on both sides), the mean of its rounds. A software
// rasteriser's timer queries say little (it defers work from one pass
// into the next); this is what its frame costs.
func (c *Collector) WallFrame(ms []float64) {
	if len(ms) == len(c.names) {
		c.walls = append(c.walls, ms)
	}
}

// NewCollector is a collector for these variant names.
func NewCollector(names []string) *Collector {
	return &Collector{names: names, draws: make([][]scene.GPUTimes, len(names))}
}

// Draw adds one draw of variant v (its shadow map is not refreshed).
func (c *Collector) Draw(v int, g scene.GPUTimes) {
	c.draws[v] = append(c.draws[v], g)
	c.busy += g.Total
}

// Floor adds one floor frame.
func (c *Collector) Floor(f scene.FloorTimes) {
	c.floors = append(c.floors, f)
	c.busy += f.Total
}

// Wall sets the wall time the measured frames took, swaps included.
func (c *Collector) Wall(d time.Duration) { c.wall = d }

// Prime adds a measured frame's first draw: only its shadow map counts
// (the slots', trees' and traffic's; the voxel ground's share is small and
// in its Terrain, left out).
func (c *Collector) Prime(g scene.GPUTimes) {
	c.shadows = append(c.shadows, ms(g.Shadow))
	c.busy += g.Total
}

// Floor is the floor's medians in ms.
type Floor struct {
	Clear    float64 `json:"clear_ms"`
	Triangle float64 `json:"triangle_ms"`
	Blit     float64 `json:"blit_ms"`
	Total    float64 `json:"total_ms"` // median of the frames' sums
	Frames   int     `json:"frames"`
}

// Row is one variant's medians.
type Row struct {
	Name   string             `json:"name"`
	Draws  int                `json:"draws"`
	Passes map[string]float64 `json:"passes_ms"` // median per pass (Passes)
	// Total is the median of the draws' sums plus the shadow map per frame.
	Total float64 `json:"total_ms"`
	Ratio float64 `json:"ratio"` // Total / the floor's
	// WallMS is the median over frames of the draw's wall-clock time
	// (WallFrame), WallRatio the median over frames of that ÷ the first
	// variant's in the same frame; both 0 without wall times.
	WallMS    float64 `json:"wall_ms,omitempty"`
	WallRatio float64 `json:"wall_ratio,omitempty"`
}

// Report is what gpubench prints.
type Report struct {
	Setup    Setup    `json:"setup"`
	Floor    Floor    `json:"floor"`
	Shadow   Shadow   `json:"shadow"`
	Variants []Row    `json:"variants"`
	Notes    []string `json:"notes,omitempty"`
}

// Setup says what was measured.
type Setup struct {
	Renderer     string `json:"renderer"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	TargetW      int    `json:"target_w"`
	TargetH      int    `json:"target_h"`
	Seed         uint64 `json:"seed"`
	After        string `json:"after"`  // autopilot drive before the measured frames
	Frames       int    `json:"frames"` // measured frames of the drive
	Rounds       int    `json:"rounds"` // draws of each variant (and floor frames) per frame, all between two swaps
	DrawsPerSwap int    `json:"draws_per_swap"`
	Warmup       string `json:"warmup"`
	// Busy is the timed GPU work over the measured frames' wall time:
	// near 1, the GPU was kept fed (uploads and swaps are not timed).
	Busy float64 `json:"busy"`
}

// Shadow is the sun's shadow map: its median when refreshed, and its mean
// per frame over the measured frames (added to every variant's total).
type Shadow struct {
	Refreshed   int     `json:"refreshed"` // frames of Frames that refreshed it
	WhenDrawnMS float64 `json:"when_drawn_ms"`
	PerFrameMS  float64 `json:"per_frame_ms"`
}

// Report computes the report; setup is copied in.
func (c *Collector) Report(setup Setup) Report {
	rep := Report{Setup: setup}
	if c.wall > 0 {
		rep.Setup.Busy = float64(c.busy) / float64(c.wall)
	}
	var fc, ft, fb, fs []float64
	for _, f := range c.floors {
		fc, ft, fb, fs = append(fc, ms(f.Clear)), append(ft, ms(f.Triangle)), append(fb, ms(f.Blit)), append(fs, ms(f.Total))
	}
	q := func(v []float64) float64 { return quantile.Of(v, 0.5) }
	rep.Floor = Floor{Clear: q(fc), Triangle: q(ft), Blit: q(fb), Total: q(fs), Frames: len(c.floors)}
	var drawn []float64
	sum := 0.0
	for _, s := range c.shadows {
		sum += s
		if s > 0 {
			drawn = append(drawn, s)
		}
	}
	rep.Shadow.Refreshed = len(drawn)
	rep.Shadow.WhenDrawnMS = q(drawn)
	if len(c.shadows) > 0 {
		rep.Shadow.PerFrameMS = sum / float64(len(c.shadows))
	}
	for v, name := range c.names {
		row := Row{Name: name, Draws: len(c.draws[v]), Passes: map[string]float64{}}
		cols := make([][]float64, len(Passes))
		var totals []float64
		for _, g := range c.draws[v] {
			t := 0.0
			for i, x := range passMS(g) {
				cols[i] = append(cols[i], x)
				t += x
			}
			totals = append(totals, t)
		}
		for i, p := range Passes {
			row.Passes[p] = q(cols[i])
		}
		row.Total = q(totals) + rep.Shadow.PerFrameMS
		if len(c.walls) > 0 {
			var wall, ratio []float64
			for _, f := range c.walls {
				wall = append(wall, f[v])
				if f[0] > 0 {
					ratio = append(ratio, f[v]/f[0])
				}
			}
			row.WallMS, row.WallRatio = q(wall), q(ratio)
		}
		if rep.Floor.Total > 0 {
			row.Ratio = row.Total / rep.Floor.Total
		}
		rep.Variants = append(rep.Variants, row)
	}
	return rep
}

// JSON writes the report as indented JSON.
func (r Report) JSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// Table writes the report as a table, one row a variant, in ms.
func (r Report) Table(w io.Writer) error {
	s := r.Setup
	var b strings.Builder
	fmt.Fprintf(&b, "gpubench: %s\n", s.Renderer)
	fmt.Fprintf(&b, "%dx%d (target %dx%d), seed %d, %d frames after %s of autopilot, %d rounds a frame (%d draws between swaps), warm-up %s; medians in ms\n",
		s.Width, s.Height, s.TargetW, s.TargetH, s.Seed, s.Frames, s.After, s.Rounds, s.DrawsPerSwap, s.Warmup)
	fmt.Fprintf(&b, "GPU busy %.0f%% of the measured wall time (timed work / wall: near 100%%, the GPU was fed)\n", s.Busy*100)
	f := r.Floor
	fmt.Fprintf(&b, "floor (%d frames): clear %.3f + triangle %.3f + blit %.3f = %.3f\n", f.Frames, f.Clear, f.Triangle, f.Blit, f.Total)
	fmt.Fprintf(&b, "shadow map: %.3f when refreshed (%d of %d frames), %.3f a frame (in every total)\n",
		r.Shadow.WhenDrawnMS, r.Shadow.Refreshed, s.Frames, r.Shadow.PerFrameMS)
	width := len("variant")
	for _, v := range r.Variants {
		width = max(width, len(v.Name))
	}
	fmt.Fprintf(&b, "%-*s", width, "variant")
	for _, p := range Passes {
		fmt.Fprintf(&b, " %*s", max(len(p), 6), p)
	}
	fmt.Fprintf(&b, " %7s %7s %6s\n", "total", "ratio", "draws")
	for _, v := range r.Variants {
		fmt.Fprintf(&b, "%-*s", width, v.Name)
		for _, p := range Passes {
			fmt.Fprintf(&b, " %*.3f", max(len(p), 6), v.Passes[p])
		}
		fmt.Fprintf(&b, " %7.3f %7.2f %6d\n", v.Total, v.Ratio, v.Draws)
	}
	if len(r.Variants) > 0 && r.Variants[0].WallMS > 0 {
		fmt.Fprintf(&b, "wall clock, each draw between two finishes (medians over frames; ratio: ÷ %s in the same frame)\n", r.Variants[0].Name)
		for _, v := range r.Variants {
			fmt.Fprintf(&b, "%-*s %8.3f ms %6.3f\n", width, v.Name, v.WallMS, v.WallRatio)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
