package render

import (
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// GPU time per pass, from GL_TIME_ELAPSED queries. Each frame's queries are
// read timerLag frames later, and only when GL says they are available, so
// reading them never stalls the pipeline; until a frame's results arrive
// the previous figures stand.
//
// Sections (queries cannot nest, so the voxel ground, drawn inside the
// shadow, depth and main passes, has its own queries that are summed):
const (
	gpuShadow        = iota // sun shadow map (slots, dynamic, trees), when refreshed
	gpuShadowTerrain        // voxel ground into the shadow map
	gpuDepth                // target clear + depth pre-pass of slots and dynamic region
	gpuDepthTerrain         // voxel ground, depth pre-pass
	gpuMain                 // main pass: slots, dynamic region, trees, sky, debug overlays
	gpuMainTerrain          // voxel ground, main pass
	gpuSky                  // sky and debug overlays (counted in Main)
	gpuHUD                  // blit to the window + HUD
	gpuSections
)

const timerLag = 3 // frames of queries in flight

type gpuTimer struct {
	ok     bool
	q      [timerLag][gpuSections]uint32
	used   [timerLag][gpuSections]bool
	frame  [timerLag]uint64
	draws  uint64 // frames begun
	cur    int    // ring index of the frame being recorded
	open   int    // section being timed, -1 none
	latest GPUTimes
}

func (t *gpuTimer) init() {
	t.open = -1
	// GL_TIME_ELAPSED is core since 3.3: always there on a 4.1 context.
	gl.GenQueries(int32(timerLag*gpuSections), &t.q[0][0])
	t.ok = glError("timer queries") == nil
}

// beginFrame reads whatever finished frames are available, then starts
// recording into the oldest ring entry.
func (t *gpuTimer) beginFrame() {
	if !t.ok {
		return
	}
	t.draws++
	t.cur = int(t.draws % timerLag)
	t.collect(t.cur) // the entry about to be reused: timerLag frames old
	t.frame[t.cur] = t.draws
	t.used[t.cur] = [gpuSections]bool{}
}

// collect reads ring entry i if all its queries are done (never waits).
func (t *gpuTimer) collect(i int) {
	if t.frame[i] == 0 {
		return
	}
	var ns [gpuSections]uint64
	for s := 0; s < gpuSections; s++ {
		if !t.used[i][s] {
			continue
		}
		var avail int32
		gl.GetQueryObjectiv(t.q[i][s], gl.QUERY_RESULT_AVAILABLE, &avail)
		if avail == 0 {
			return // not yet: keep the previous figures
		}
		gl.GetQueryObjectui64v(t.q[i][s], gl.QUERY_RESULT, &ns[s])
	}
	d := func(v uint64) time.Duration { return time.Duration(v) }
	g := GPUTimes{Valid: true, Frame: t.frame[i],
		Shadow: d(ns[gpuShadow]), Depth: d(ns[gpuDepth]), Main: d(ns[gpuMain] + ns[gpuSky]),
		Terrain: d(ns[gpuShadowTerrain] + ns[gpuDepthTerrain] + ns[gpuMainTerrain]), HUD: d(ns[gpuHUD])}
	g.Total = g.Shadow + g.Depth + g.Main + g.Terrain + g.HUD
	t.latest = g
	t.frame[i] = 0
}

// begin starts timing section s (ending any open one).
func (t *gpuTimer) begin(s int) {
	if !t.ok {
		return
	}
	t.end()
	if t.used[t.cur][s] {
		return // a section is timed once per frame
	}
	gl.BeginQuery(gl.TIME_ELAPSED, t.q[t.cur][s])
	t.used[t.cur][s] = true
	t.open = s
}

// end stops the open section, if any.
func (t *gpuTimer) end() {
	if !t.ok || t.open < 0 {
		return
	}
	gl.EndQuery(gl.TIME_ELAPSED)
	t.open = -1
}

// GPUTimes returns the latest per-pass GPU times (read timerLag frames
// after they were recorded). Valid is false until the first arrive.
func (r *Renderer) GPUTimes() GPUTimes { return r.timer.latest }

// AwaitGPUTimes finishes the GPU's work and reads the newest frame's
// queries (for a one-off picture such as citydrive shot; it stalls).
func (r *Renderer) AwaitGPUTimes() GPUTimes {
	if !r.timer.ok {
		return r.timer.latest
	}
	r.makeCurrent()
	gl.Finish()
	for k := 1; k <= timerLag; k++ { // oldest first, newest last
		r.timer.collect(int((r.timer.draws + uint64(k)) % timerLag))
	}
	return r.timer.latest
}
