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
// shadow, depth and main passes, has its own queries that are summed, and
// so have the parts gpubench reports):
const (
	gpuShadow        = iota // sun shadow map (slots, dynamic, trees), when refreshed
	gpuShadowTerrain        // voxel ground into the shadow map
	gpuClear                // target clear (counted in Depth)
	gpuDepth                // depth pre-pass of slots and dynamic region
	gpuDepthFar             // far tier, depth pre-pass (counted in Depth)
	gpuDepthTerrain         // voxel ground, depth pre-pass
	gpuMain                 // main pass: slots, dynamic region
	gpuMainFar              // far tier, main pass (counted in Main)
	gpuMainRest             // trees and traffic (counted in Main)
	gpuMainTerrain          // voxel ground, main pass
	gpuSky                  // sky and debug overlays (counted in Main)
	gpuHUD                  // blit to the window + HUD
	gpuFloorClear           // floor frame (DrawFloor): the clear
	gpuFloorTriangle        // floor frame: one full-screen triangle
	gpuFloorBlit            // floor frame: the blit
	gpuSections
)

const timerLag = 3 // frames of queries in flight

type gpuTimer struct {
	ok     bool
	q      [][gpuSections]uint32 // the ring: timerLag entries, more when logging
	used   [][gpuSections]bool
	frame  []uint64
	floor  []bool
	draws  uint64 // frames begun
	cur    int    // ring index of the frame being recorded
	open   int    // section being timed, -1 none
	latest GPUTimes
	// logging: every frame's result is kept in log, none dropped (an entry
	// not read when the ring comes round to it is waited for).
	logging bool
	log     []TimedFrame
}

func (t *gpuTimer) init() { t.alloc(timerLag) }

// alloc makes a ring of n frames of queries.
func (t *gpuTimer) alloc(n int) {
	t.open = -1
	t.q = make([][gpuSections]uint32, n)
	t.used = make([][gpuSections]bool, n)
	t.frame = make([]uint64, n)
	t.floor = make([]bool, n)
	// GL_TIME_ELAPSED is core since 3.3: always there on a 4.1 context.
	gl.GenQueries(int32(n*gpuSections), &t.q[0][0])
	t.ok = glError("timer queries") == nil
}

func (t *gpuTimer) delete() {
	if t.ok && len(t.q) > 0 {
		gl.DeleteQueries(int32(len(t.q)*gpuSections), &t.q[0][0])
	}
	t.q = nil
	t.ok = false
}

// beginFrame reads whatever finished frames are available, then starts
// recording into the oldest ring entry.
func (t *gpuTimer) beginFrame(floor bool) {
	if !t.ok {
		return
	}
	t.draws++
	t.cur = int(t.draws % uint64(len(t.q)))
	t.collect(t.cur, t.logging) // the entry about to be reused: a ring's length old
	t.frame[t.cur] = t.draws
	t.floor[t.cur] = floor
	t.used[t.cur] = [gpuSections]bool{}
}

// collect reads ring entry i if all its queries are done; it waits for
// them only if wait.
func (t *gpuTimer) collect(i int, wait bool) {
	if t.frame[i] == 0 {
		return
	}
	var ns [gpuSections]uint64
	for s := 0; s < gpuSections; s++ {
		if !t.used[i][s] {
			continue
		}
		if !wait {
			var avail int32
			gl.GetQueryObjectiv(t.q[i][s], gl.QUERY_RESULT_AVAILABLE, &avail)
			if avail == 0 {
				return // not yet: keep the previous figures
			}
		}
		gl.GetQueryObjectui64v(t.q[i][s], gl.QUERY_RESULT, &ns[s])
	}
	d := func(v uint64) time.Duration { return time.Duration(v) }
	rec := TimedFrame{Frame: t.frame[i], Floor: t.floor[i]}
	if t.floor[i] {
		f := &rec.FloorTime
		f.Clear, f.Triangle, f.Blit = d(ns[gpuFloorClear]), d(ns[gpuFloorTriangle]), d(ns[gpuFloorBlit])
		f.Total = f.Clear + f.Triangle + f.Blit
	} else {
		g := GPUTimes{Valid: true, Frame: t.frame[i],
			Shadow:   d(ns[gpuShadow]),
			Depth:    d(ns[gpuClear] + ns[gpuDepth] + ns[gpuDepthFar]),
			Main:     d(ns[gpuMain] + ns[gpuMainFar] + ns[gpuMainRest] + ns[gpuSky]),
			Terrain:  d(ns[gpuShadowTerrain] + ns[gpuDepthTerrain] + ns[gpuMainTerrain]),
			HUD:      d(ns[gpuHUD]),
			Clear:    d(ns[gpuClear]),
			DepthFar: d(ns[gpuDepthFar]),
			MainFar:  d(ns[gpuMainFar]),
			Rest:     d(ns[gpuMainRest]),
			Sky:      d(ns[gpuSky]),
		}
		g.Total = g.Shadow + g.Depth + g.Main + g.Terrain + g.HUD
		t.latest = g
		rec.GPU = g
	}
	if t.logging {
		t.log = append(t.log, rec)
	}
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

// collectAll finishes the GPU and reads every recorded frame, oldest first.
func (t *gpuTimer) collectAll() {
	gl.Finish()
	n := uint64(len(t.q))
	for k := uint64(1); k <= n; k++ {
		t.collect(int((t.draws+k)%n), true)
	}
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
	r.timer.collectAll()
	return r.timer.latest
}

// StartGPULog keeps every frame's GPU times from now on (TakeGPULog reads
// them), with queries for ring frames in flight: at least the frames
// drawn between two swaps, times three, so that reading never waits on a
// frame the GPU has not been given. It reports false without timer queries.
func (r *Renderer) StartGPULog(ring int) bool {
	r.makeCurrent()
	t := &r.timer
	if !t.ok {
		return false
	}
	t.collectAll()
	t.delete()
	t.alloc(max(ring, timerLag))
	t.logging = true
	t.log = t.log[:0]
	return t.ok
}

// TakeGPULog finishes the GPU, and returns and forgets the frames logged
// since StartGPULog or the last TakeGPULog, oldest first.
func (r *Renderer) TakeGPULog() []TimedFrame {
	r.makeCurrent()
	if !r.timer.ok || !r.timer.logging {
		return nil
	}
	r.timer.collectAll()
	l := r.timer.log
	r.timer.log = nil
	return l
}

// TimedFrames is the number of frames (Draw and DrawFloor) timed so far:
// the Frame of the last one's TimedFrame.
func (r *Renderer) TimedFrames() uint64 { return r.timer.draws }

// StopGPULog ends the log (the frames not taken are dropped) and goes back
// to timerLag frames in flight.
func (r *Renderer) StopGPULog() {
	r.makeCurrent()
	t := &r.timer
	if !t.ok || !t.logging {
		return
	}
	t.collectAll()
	t.logging, t.log = false, nil
	t.delete()
	t.alloc(timerLag)
}

// Finish waits until the GL has done every command given so far
// (gpubench's wall-clock timing of a software rasteriser's draws).
func (r *Renderer) Finish() {
	r.makeCurrent()
	gl.Finish()
}
