// Package bench is the headless streaming benchmark: a seeded autopilot
// drives the roads at a fixed speed and a fixed 60 Hz step through the real
// walker, slot table, build workers and a CPU slot buffer, and reports what
// the main goroutine paid per frame.
package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"citydrive/buildworkers"
	"citydrive/cmd/citydrive/internal/autopilot"
	"citydrive/cmd/citydrive/internal/quantile"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// FrameRate is the fixed simulation step.
const FrameRate = 60

// Options configure one run.
type Options struct {
	Seed      uint64
	Duration  time.Duration // simulated driving time after the initial world
	Speed     float64       // metres per second
	Streaming buildworkers.Config
	// Realtime paces frames at 60 Hz of wall time, as a game would; without
	// it frames run back to back (workers then see a faster car).
	Realtime bool
	// SampleEvery: one frame in this many is measured for allocations with
	// the workers held still; those frames are left out of the timings.
	SampleEvery int
	Start       world.Vec2
	// Traffic adds the client's traffic work to every frame (the flow
	// around the car at Hour, its instances, their culling for a chase
	// camera), measured on its own.
	Traffic bool
	Hour    float64
	// NoTrafficPlan does without the traffic's planning goroutine: every
	// frame searches the schedule on the main goroutine (for comparison).
	NoTrafficPlan bool
}

// Report is what the bench prints; the JSON names are a public interface.
type Report struct {
	InitialWorldMS     float64 `json:"initial_world_ms"`
	FrameStreamUSP50   float64 `json:"frame_stream_us_p50"`
	FrameStreamUSP99   float64 `json:"frame_stream_us_p99"`
	FrameStreamUSMax   float64 `json:"frame_stream_us_max"`
	MainAllocsPerFrame float64 `json:"main_allocs_per_frame"`
	MainAllocFrames    int     `json:"main_alloc_frames_sampled"`
	MainAllocFramesHit int     `json:"main_alloc_frames_nonzero"`
	AllocBytesPerS     float64 `json:"alloc_bytes_per_s"`
	// Traffic (Options.Traffic): main-goroutine traffic work per frame
	// (update and instance fill, culling included), the vehicles simulated
	// and in view, and allocations in the sampled frames.
	TrafficUSP50 float64 `json:"traffic_us_p50"`
	TrafficUSP99 float64 `json:"traffic_us_p99"`
	// the same frames' CPU time on the main goroutine's thread: the work
	// without the time other processes held the core
	TrafficCPUUSP50 float64 `json:"traffic_cpu_us_p50"`
	TrafficCPUUSP99 float64 `json:"traffic_cpu_us_p99"`
	// the traffic goroutine's step a frame ahead (trafficframe.Pipeline)
	// on its thread's CPU clock (the frames that computed their traffic
	// themselves, TrafficStolen, are in the figures above)
	TrafficWorkerCPUUSP50 float64 `json:"traffic_worker_cpu_us_p50"`
	TrafficWorkerCPUUSP99 float64 `json:"traffic_worker_cpu_us_p99"`
	// frames that waited for the traffic goroutine to finish their traffic
	TrafficWaits int `json:"traffic_main_waits"`
	// frames that computed the traffic the goroutine had not begun
	TrafficStolen int `json:"traffic_main_stolen"`
	// share of frames whose vehicles came from the planning goroutine
	TrafficPlanned        float64 `json:"traffic_planned_share"`
	TrafficVehiclesMean   float64 `json:"traffic_vehicles_mean"`
	TrafficVehiclesMax    int     `json:"traffic_vehicles_max"`
	TrafficInViewMean     float64 `json:"traffic_in_view_mean"`
	TrafficFarMean        float64 `json:"traffic_far_mean"` // far vehicles drawn per frame (beyond the simulated ones, in view)
	TrafficAllocsPerFrame float64 `json:"traffic_allocs_per_frame"`
	Builds                int     `json:"builds"`
	BuildsPerS            float64 `json:"builds_per_s"`
	AvgVertsPerItem       float64 `json:"avg_vertices_per_item"`
	MaxVertsPerItem       int     `json:"max_vertices_per_item"`
	SlotOverflows         int     `json:"slot_overflows"`
	StaleDropped          int     `json:"stale_results_dropped"`
	FallbackBuilds        int     `json:"fallback_builds"`
	Fallback              string  `json:"fallback"`
	GCPauseP99US          float64 `json:"gc_pause_p99_us"`
	GCCycles              int     `json:"gc_cycles"`
	Slots                 int     `json:"slots"`
	VertsPerSlot          int     `json:"verts_per_slot"`
	Workers               int     `json:"workers"`
	InFlight              int     `json:"inflight"`
	ViewCost              float64 `json:"view_cost"`
	BuildsPerFrame        int     `json:"builds_per_frame"`
	Seed                  uint64  `json:"seed"`
	DurationS             float64 `json:"duration_s"`
	DistanceM             float64 `json:"distance_m"`
	Turns                 int     `json:"junction_turns"`
	Requeued              int     `json:"requeued"`
	WallS                 float64 `json:"wall_s"`
	Frames                int     `json:"frames"`
	BytesPerVertex        int     `json:"bytes_per_vertex"`
	BufferBytes           int     `json:"buffer_bytes"` // the whole vertex buffer: slot tiers + dynamic region
	BufferMB              float64 `json:"buffer_mb"`    // BufferBytes / 10^6 (the reference: 78.7)
	FarSlots              int     `json:"far_slots"`
	FarVertsPerSlot       int     `json:"far_verts_per_slot"`
	FarCost               float64 `json:"far_cost"`
	FarItems              int     `json:"far_items"`          // items of the last far walk
	FarBuilds             int     `json:"far_builds"`         // far results uploaded over the run
	FarBuilt              int     `json:"far_built"`          // far slots holding geometry at the end
	FarWalks              int     `json:"far_walks"`          // far walks applied
	FarAvgVerts           float64 `json:"far_avg_vertices"`   // per far item
	FarReadyMS            float64 `json:"far_ready_ms"`       // from the start until every far item of a walk was built (0: never)
	FarReachAheadM        float64 `json:"far_reach_ahead_m"`  // of the last far walk
	FarReachBehindM       float64 `json:"far_reach_behind_m"` //
	FarReachSideM         float64 `json:"far_reach_side_m"`   //
}

// startupLimit bounds the wait for the initial world.
const startupLimit = 60 * time.Second

// Run drives and measures.
func Run(o Options) (Report, error) {
	if o.SampleEvery < 2 {
		o.SampleEvery = 8
	}
	cfg := o.Streaming
	gate := &sync.RWMutex{}
	cfg.Gate = gate
	w := world.New(o.Seed)
	layout := cfg.Layout()
	buf, err := slots.NewCPUBuffer(layout.Near)
	if err != nil {
		return Report{}, err
	}
	if layout.Far.Slots > 0 {
		fb, err := slots.NewCPUBuffer(layout.Far)
		if err != nil {
			return Report{}, err
		}
		cfg.Far.Sink = fb
	}
	wallStart := time.Now()
	s, err := buildworkers.NewStreamer(cfg, w, buf, wallStart)
	if err != nil {
		return Report{}, err
	}
	defer s.Close()
	g := s.Graph()
	j := g.JunctionNear(o.Start)
	if j == nil {
		return Report{}, fmt.Errorf("no road near the start %v", o.Start)
	}
	g.EnsureJunctionArms(j)
	if len(j.Arms) == 0 {
		return Report{}, fmt.Errorf("start junction has no roads")
	}
	e := j.Arms[0]
	mid := e.Segments() / 2
	route, ok := autopilot.New(g, e.Nodes[mid], e.Tangent(mid), o.Seed)
	if !ok {
		return Report{}, fmt.Errorf("no road to drive on")
	}
	dt := 1.0 / FrameRate
	pos, heading := route.Pose()

	// Initial world: the same machinery, frames as fast as they come.
	t0 := time.Now()
	for !s.Ready() {
		s.Update(dt, pos, heading, time.Now())
		if time.Since(t0) > startupLimit {
			return Report{}, fmt.Errorf("initial world not built after %v: %+v", startupLimit, s.Stats())
		}
		runtime.Gosched()
	}
	rep := Report{InitialWorldMS: float64(time.Since(t0).Microseconds()) / 1000}
	startStats := s.Stats()
	farDone := func() bool {
		st := s.FarStats()
		return st.Walks > 0 && st.Pending == 0 && st.Built == st.Used
	}

	var ms0, ms1, a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	frames := int(o.Duration.Seconds() * FrameRate)
	times := make([]float64, 0, frames)
	var mallocs uint64
	tw := newTrafficWork(o, w, frames)
	defer tw.close()
	driveStart := time.Now()
	next := driveStart
	for f := 0; f < frames; f++ {
		route.Advance(o.Speed * dt)
		pos, heading = route.Pose()
		now := time.Now()
		if f%o.SampleEvery == o.SampleEvery-1 {
			gate.Lock() // workers finish their job and wait: only main allocates
			runtime.ReadMemStats(&a)
			s.Update(dt, pos, heading, now)
			runtime.ReadMemStats(&b)
			tw.frame(f, pos, heading, false)
			gate.Unlock()
			d := b.Mallocs - a.Mallocs
			mallocs += d
			rep.MainAllocFrames++
			if d > 0 {
				rep.MainAllocFramesHit++
			}
		} else {
			t := time.Now()
			s.Update(dt, pos, heading, now)
			times = append(times, float64(time.Since(t).Nanoseconds())/1000)
			tw.frame(f, pos, heading, true)
		}
		if rep.FarReadyMS == 0 && cfg.Far.On() && farDone() {
			rep.FarReadyMS = float64(time.Since(t0).Microseconds()) / 1000
		}
		if o.Realtime {
			// Wait out the frame busy, as a game's main thread is busy
			// drawing between streaming steps: sleeping would let the core
			// go cold and charge cache and TLB misses to the next frame.
			next = next.Add(time.Second / FrameRate)
			for time.Now().Before(next) {
				runtime.Gosched()
			}
		}
	}
	wall := time.Since(driveStart).Seconds()
	runtime.ReadMemStats(&ms1)
	st := s.Stats()

	rep.FrameStreamUSP50, rep.FrameStreamUSP99 = p50p99(times)
	rep.FrameStreamUSMax = quantile.Sorted(times, 1)
	if rep.MainAllocFrames > 0 {
		rep.MainAllocsPerFrame = float64(mallocs) / float64(rep.MainAllocFrames)
	}
	rep.AllocBytesPerS = float64(ms1.TotalAlloc-ms0.TotalAlloc) / wall
	rep.Builds = st.Builds
	rep.BuildsPerS = float64(st.Builds-startStats.Builds) / o.Duration.Seconds()
	if st.Builds > 0 {
		rep.AvgVertsPerItem = float64(st.VertsBuilt) / float64(st.Builds)
	}
	rep.MaxVertsPerItem = st.MaxVertsInItem
	rep.SlotOverflows = st.Overflows
	rep.StaleDropped = st.StaleDropped
	rep.FallbackBuilds = st.MainBuilds
	rep.Fallback = st.Fallback
	rep.GCCycles = int(ms1.NumGC - ms0.NumGC)
	rep.GCPauseP99US = gcPauseP99(&ms1, ms0.NumGC)
	rep.Slots, rep.VertsPerSlot = cfg.Slots.Slots, cfg.Slots.VertsPerSlot
	rep.Workers, rep.InFlight = cfg.Workers, cfg.MaxInFlight
	rep.ViewCost, rep.BuildsPerFrame = cfg.Walk.ViewCost, cfg.MainBuildsPerFrame
	rep.Seed, rep.DurationS = o.Seed, o.Duration.Seconds()
	rep.DistanceM = o.Speed * float64(frames) * dt
	rep.Turns = route.Turns
	rep.Requeued = st.Requeued
	rep.WallS = time.Since(wallStart).Seconds()
	rep.Frames = frames
	rep.BytesPerVertex = slots.BytesPerVertex
	rep.BufferBytes = layout.Bytes()
	fst := s.FarStats()
	rep.FarSlots, rep.FarVertsPerSlot, rep.FarCost = cfg.Far.Slots, cfg.Far.VertsPerSlot, cfg.Far.Walk.Cost
	rep.FarItems, rep.FarBuilds, rep.FarBuilt, rep.FarWalks = fst.Items, fst.Builds, fst.Built, fst.Walks
	rep.FarReachAheadM, rep.FarReachBehindM, rep.FarReachSideM = fst.Reach.Ahead, fst.Reach.Behind, fst.Reach.Side
	if fst.Builds > 0 {
		rep.FarAvgVerts = float64(fst.VertsBuilt) / float64(fst.Builds)
	}
	rep.BufferMB = float64(rep.BufferBytes) / 1e6
	tw.report(&rep)
	return rep, nil
}

// p50p99 sorts v and returns its median and 99th percentile (quantile's
// rank rule, the soak's too).
func p50p99(v []float64) (p50, p99 float64) {
	slices.Sort(v)
	return quantile.Sorted(v, 0.5), quantile.Sorted(v, 0.99)
}

// gcPauseP99 is the 99th percentile of the GC pauses since cycle `since`
// (the runtime keeps the last 256).
func gcPauseP99(ms *runtime.MemStats, since uint32) float64 {
	n := int(ms.NumGC - since)
	n = min(n, len(ms.PauseNs))
	if n <= 0 {
		return 0
	}
	p := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		idx := (int(ms.NumGC) - 1 - i + len(ms.PauseNs)) % len(ms.PauseNs)
		p = append(p, float64(ms.PauseNs[idx])/1000)
	}
	return quantile.Of(p, 0.99)
}

// WriteTable prints the report for people.
func (r Report) WriteTable(w io.Writer) {
	rows := []struct {
		k string
		v string
	}{
		{"seed / duration", fmt.Sprintf("%d / %.0f s simulated (%d frames, %.0f m, %d junctions)", r.Seed, r.DurationS, r.Frames, r.DistanceM, r.Turns)},
		{"slots × verts", fmt.Sprintf("%d × %d", r.Slots, r.VertsPerSlot)},
		{"vertex buffer", fmt.Sprintf("%.1f MB, near + far + dynamic (%d bytes per vertex; the reference: 78.7 MB at 60)", r.BufferMB, r.BytesPerVertex)},
		{"far tier", fmt.Sprintf("%d × %d, cost %.0f: %d items, %d builds (avg %.0f verts), complete %.0f ms after start; reach %.0f m ahead, %.0f behind, %.0f to the side", r.FarSlots, r.FarVertsPerSlot, r.FarCost, r.FarItems, r.FarBuilds, r.FarAvgVerts, r.FarReadyMS, r.FarReachAheadM, r.FarReachBehindM, r.FarReachSideM)},
		{"workers × in flight", fmt.Sprintf("%d × %d (main fallback %d/frame)", r.Workers, r.InFlight, r.BuildsPerFrame)},
		{"initial world", fmt.Sprintf("%.1f ms", r.InitialWorldMS)},
		{"main stream work p50/p99/max", fmt.Sprintf("%.1f / %.1f / %.1f µs per frame", r.FrameStreamUSP50, r.FrameStreamUSP99, r.FrameStreamUSMax)},
		{"main allocations", fmt.Sprintf("%.3f per frame (%d of %d sampled frames allocated)", r.MainAllocsPerFrame, r.MainAllocFramesHit, r.MainAllocFrames)},
		{"process allocation", fmt.Sprintf("%.0f bytes/s", r.AllocBytesPerS)},
		{"builds", fmt.Sprintf("%d (%.1f/s while driving), %d requeued", r.Builds, r.BuildsPerS, r.Requeued)},
		{"vertices per item", fmt.Sprintf("avg %.0f, max %d", r.AvgVertsPerItem, r.MaxVertsPerItem)},
		{"overflows / stale / fallback", fmt.Sprintf("%d / %d / %d %s", r.SlotOverflows, r.StaleDropped, r.FallbackBuilds, r.Fallback)},
		{"GC", fmt.Sprintf("%d cycles, pause p99 %.0f µs", r.GCCycles, r.GCPauseP99US)},
	}
	if r.TrafficVehiclesMax > 0 {
		rows = append(rows, struct{ k, v string }{"main traffic work p50/p99", fmt.Sprintf("%.1f / %.1f µs per frame (thread CPU %.1f / %.1f; the traffic goroutine's step a frame ahead %.1f / %.1f; waited for it %d times, did its work %d times), %.3f allocations; %.0f vehicles simulated (max %d) and %.0f far ones drawn, %.0f in view; %.0f %% of frames planned ahead",
			r.TrafficUSP50, r.TrafficUSP99, r.TrafficCPUUSP50, r.TrafficCPUUSP99, r.TrafficWorkerCPUUSP50, r.TrafficWorkerCPUUSP99, r.TrafficWaits, r.TrafficStolen, r.TrafficAllocsPerFrame, r.TrafficVehiclesMean, r.TrafficVehiclesMax, r.TrafficFarMean, r.TrafficInViewMean, 100*r.TrafficPlanned)})
	}
	for _, row := range rows {
		fmt.Fprintf(w, "%-30s %s\n", row.k, row.v)
	}
}
