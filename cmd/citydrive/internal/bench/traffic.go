package bench

import (
	"runtime"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/trafficframe"
	"citydrive/netsync/threadcpu"
	"citydrive/render/frustum"
	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// trafficWork is the client's traffic work in the bench: what the game's
// main goroutine does for traffic each frame (trafficframe.Pipeline.Update:
// taking the traffic its goroutine computed a frame ahead and asking for
// the next) plus the renderer's CPU share (culling and packing the instances for a
// chase camera, scene.AppendVehicles). Nil when the bench runs without.
type trafficWork struct {
	f       *trafficframe.Pipeline
	w       world.World
	us      []float64
	cpu     []float64 // the thread's CPU time of the same frames (no preemption)
	work    []float64 // the traffic goroutine's step CPU time for each timed frame's traffic it computed (Pipeline.WorkCPU)
	planned int
	n, most int
	sum     int
	far     int // far vehicles drawn, summed
	inView  int
	farOn   bool         // the far tier is on: the camera sees out to its far plane
	cam     scene.Camera // the last frame's chase camera (valid once hasCam)
	target  mgl64.Vec3
	hasCam  bool
	allocs  uint64
	sampled int
	data    []float32
	counts  [scene.VehicleModels]int32
	a, b    runtime.MemStats
}

// trafficStart is the bench's world time at its first frame: any will do
// (the schedule is periodic in nothing but the signal cycle).
const trafficStart = 100000.0

func newTrafficWork(o Options, w world.World, frames int) *trafficWork {
	if !o.Traffic {
		return nil
	}
	f := trafficframe.New(w, o.Hour)
	if o.NoTrafficPlan {
		f.Close() // it then computes every frame itself
	}
	return &trafficWork{f: trafficframe.NewPipeline(f), w: w, farOn: o.Streaming.Far.Slots > 0,
		us: make([]float64, 0, frames), cpu: make([]float64, 0, frames), work: make([]float64, 0, frames),
		data: make([]float32, 0, scene.MaxVehicles*scene.VehicleFloats)}
}

// frame does frame f's traffic work around the car at pos heading along
// fwd: timed, or counted for allocations (the caller holds the workers).
func (t *trafficWork) frame(f int, pos, fwd world.Vec2, timed bool) {
	if t == nil {
		return
	}
	var t0 time.Time
	var c0 time.Duration
	if timed {
		runtime.LockOSThread() // the thread's CPU clock must be this goroutine's
		defer runtime.UnlockOSThread()
		t0 = time.Now()
		c0, _ = threadcpu.Now()
	} else {
		// the frame's whole traffic work in one window: the last frame's
		// request answered before it (nothing to wait for), and the one
		// this frame sends computed here, at once
		t.f.Settle()
		t.f.ComputeHere()
		runtime.ReadMemStats(&t.a)
	}
	dt := 1.0 / FrameRate
	if t.hasCam {
		t.f.SetCamera(t.cam) // as the game: the far traffic the last frame's camera saw
	}
	t.f.Update(trafficStart+float64(f)*dt, dt, traffic.Blocker{Pos: pos, Dir: fwd, Length: car.Length, Width: car.Width})
	// the game's chase camera
	y := t.w.Height(pos.X, pos.Z)
	eye := mgl64.Vec3{pos.X - fwd.X*9, y + 3.6, pos.Z - fwd.Z*9}
	t.target = mgl64.Vec3{pos.X + fwd.X*6, y + 1, pos.Z + fwd.Z*6}
	t.cam = scene.Camera{Position: eye, Target: &t.target}
	if t.farOn {
		t.cam.Far = scene.FarTierPlane
	}
	t.hasCam = true
	fr := frustum.FromViewProj(t.cam.ViewProj(16.0 / 9))
	t.data, _ = scene.AppendVehicles(t.data[:0], &t.counts, t.f.Draw(), eye, &fr, scene.MaxVehicles)
	if timed {
		t.us = append(t.us, float64(time.Since(t0).Nanoseconds())/1000)
		if c1, ok := threadcpu.Now(); ok {
			t.cpu = append(t.cpu, float64((c1-c0).Nanoseconds())/1000)
			if w, ok := t.f.WorkCPU(); ok {
				t.work = append(t.work, float64(w.Nanoseconds())/1000)
			}
		}
	} else {
		runtime.ReadMemStats(&t.b)
		t.allocs += t.b.Mallocs - t.a.Mallocs
		t.sampled++
	}
	n := len(t.f.Vehicles())
	if t.f.Planned() {
		t.planned++
	}
	t.n++
	t.sum += n
	t.far += t.f.Far()
	t.most = max(t.most, n)
	t.inView += len(t.data) / scene.VehicleFloats
}

// close stops the traffic's planning goroutine.
func (t *trafficWork) close() {
	if t != nil {
		t.f.Close()
	}
}

func (t *trafficWork) report(r *Report) {
	if t == nil || t.n == 0 {
		return
	}
	r.TrafficUSP50, r.TrafficUSP99 = p50p99(t.us)
	r.TrafficCPUUSP50, r.TrafficCPUUSP99 = p50p99(t.cpu)
	r.TrafficWorkerCPUUSP50, r.TrafficWorkerCPUUSP99 = p50p99(t.work)
	r.TrafficWaits, r.TrafficStolen = t.f.Waits(), t.f.Stolen()
	r.TrafficPlanned = float64(t.planned) / float64(t.n)
	r.TrafficVehiclesMean = float64(t.sum) / float64(t.n)
	r.TrafficVehiclesMax = t.most
	r.TrafficInViewMean = float64(t.inView) / float64(t.n)
	r.TrafficFarMean = float64(t.far) / float64(t.n)
	if t.sampled > 0 {
		r.TrafficAllocsPerFrame = float64(t.allocs) / float64(t.sampled)
	}
}
