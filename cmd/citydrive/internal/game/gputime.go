package game

import (
	"fmt"
	"time"

	"citydrive/cmd/citydrive/internal/quantile"
	"citydrive/render/scene"
)

// gpuSamples keeps one value per pass per measured frame, in ms.
type gpuSamples struct {
	last                                     uint64 // render frame of the last sample
	total, shadow, depth, main, terrain, hud []float64
	work                                     gpuWork
}

// gpuWork sums what the GPU was given over the measured frames, to read
// the timer figures against (vertices per pass, tree instances, quads).
type gpuWork struct {
	frames                                        int
	depthVerts, mainVerts, farVerts, trees, quads int
}

// sampleGPU records the newest GPU times once per rendered frame they
// belong to (they arrive a few frames late).
func (s *Session) sampleGPU() {
	t, ok := s.r.(GPUTimer)
	if !ok {
		return
	}
	g := t.GPUTimes()
	if !g.Valid || g.Frame == s.gpu.last {
		return
	}
	s.gpu.last = g.Frame
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	p := &s.gpu
	p.total = append(p.total, ms(g.Total))
	p.shadow = append(p.shadow, ms(g.Shadow))
	p.depth = append(p.depth, ms(g.Depth))
	p.main = append(p.main, ms(g.Main))
	p.terrain = append(p.terrain, ms(g.Terrain))
	p.hud = append(p.hud, ms(g.HUD))
	if rs, ok := s.DrawStats(); ok {
		w := &p.work
		w.frames++
		w.depthVerts += rs.Depth.Vertices + rs.FarDepth.Vertices
		w.mainVerts += rs.Main.Vertices
		w.farVerts += rs.Far.Vertices
		w.trees += rs.Trees
		w.quads += rs.Main.TerrainQuads
	}
}

func (w gpuWork) String() string {
	if w.frames == 0 {
		return ""
	}
	n := float64(w.frames)
	return fmt.Sprintf("; per frame (means): depth pre-pass %.0fk vertices, main %.0fk near + %.0fk far vertices, %.0f tree instances, %.0fk terrain quads",
		float64(w.depthVerts)/n/1e3, float64(w.mainVerts)/n/1e3, float64(w.farVerts)/n/1e3, float64(w.trees)/n, float64(w.quads)/n/1e3)
}

// gpuHUD is the HUD line: the last frame's GPU time per pass.
func (s *Session) gpuHUD() string {
	if t, ok := s.r.(GPUTimer); ok {
		return t.GPUTimes().String()
	}
	return "GPU n/a"
}

// GPUSummary is the GPU time per frame by pass over the session (medians,
// and the total's p99), in ms; N is the frames measured.
type GPUSummary struct {
	N                                                  int
	Total, TotalP99, Shadow, Depth, Main, Terrain, HUD float64
	work                                               gpuWork
}

// GPU summarises the GPU times sampled so far.
func (s *Session) GPU() GPUSummary {
	q := quantile.Of
	p := &s.gpu
	return GPUSummary{N: len(p.total), Total: q(p.total, 0.5), TotalP99: q(p.total, 0.99),
		Shadow: q(p.shadow, 0.5), Depth: q(p.depth, 0.5), Main: q(p.main, 0.5), Terrain: q(p.terrain, 0.5), HUD: q(p.hud, 0.5), work: p.work}
}

func (g GPUSummary) String() string {
	if g.N == 0 {
		return "GPU time: not measured (no timer queries)"
	}
	return fmt.Sprintf("GPU time per frame (timer queries, %d frames): median %.2f ms, p99 %.2f ms; medians by pass: shadow %.2f, depth %.2f, main %.2f, voxel ground %.2f, blit+HUD %.2f ms%s",
		g.N, g.Total, g.TotalP99, g.Shadow, g.Depth, g.Main, g.Terrain, g.HUD, g.work)
}

// MeasureGPU draws frames more frames of the current view (nothing moves)
// and returns the GPU time of the last, waiting for the GPU to finish.
func (s *Session) MeasureGPU(frames int) (scene.GPUTimes, error) {
	t, ok := s.r.(GPUTimer)
	if !ok {
		return scene.GPUTimes{}, nil
	}
	s.setCamera()
	s.buildFrame()
	for i := 0; i < frames; i++ {
		if err := s.r.Draw(&s.frame); err != nil {
			return scene.GPUTimes{}, err
		}
		s.r.Present()
	}
	return t.AwaitGPUTimes(), nil
}

// FrameDesc is the frame description Update last built (citydrive
// gpubench draws it itself, many times over).
func (s *Session) FrameDesc() *scene.Frame { return &s.frame }
