package trafficframe

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"citydrive/netsync/threadcpu"
	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
)

// The pipeline keeps a Frame's work off the main goroutine: a goroutine
// computes the traffic one frame ahead, and the main goroutine only hands
// over its inputs and takes the result. At each Update the main goroutine
// takes the traffic the goroutine computed during the last frame, for this
// frame's world time as predicted then (the last frame's time plus its
// length), and sends this frame's car, camera and other players for the
// next. The vehicles near the car so react to it one frame late, as a
// driver's reaction time would have them do anyway, and the drawn traffic
// is at the predicted time: off by how much one frame's length differs
// from the last's. A frame whose car jumped (the start, a reset) or whose
// world time is more than maxSkew from the prediction waits for its own
// traffic instead. An answer the goroutine has not begun when the frame
// comes for it (no core was free) the main goroutine computes itself
// (take). The result depends only on the inputs, never on how the
// goroutines were scheduled or which computed it.
const (
	// maxSkew is how far (seconds of world time) the traffic in hand may
	// be from the frame's time before the frame computes its own: a
	// hitch of a few frames, or a jump of the clock.
	maxSkew = 0.1
	// maxSpin bounds how long the main goroutine spins for an answer the
	// goroutine is computing (await): longer than a step takes.
	maxSpin = 200 * time.Microsecond
)

// Pipeline is the traffic of one client, computed a frame ahead on a
// goroutine (see above); its methods are Frame's and are for one
// goroutine. Close stops it.
type Pipeline struct {
	sched   *traffic.Schedule // the main goroutine's: Light and Ahead
	work    *pipeWorker       // whichever goroutine claimed the request out
	req     chan request
	ready   chan *result
	done    chan struct{}
	cur     *result // the traffic in hand
	spare   *result // the buffer for the next answer
	arrived *result // the answer to the request out, once received (take, Settle)
	next    request // the inputs for the next request (SetCamera, SetOthers)
	sent    request // the last request sent
	pending bool    // a request is out
	started bool
	closed  bool
	seq     uint64        // of the last request sent
	claimed atomic.Uint64 // the last request whose computing began, on either goroutine
	waits   int           // Updates that waited for the goroutine to finish
	stolen  int           // Updates that computed the answer the goroutine had not begun
	own     int           // Updates that computed their own traffic
	here    bool          // the next request is computed at once (ComputeHere)
}

// request is one frame's inputs, by value: nothing is shared with the
// main goroutine once sent.
type request struct {
	seq       uint64
	t, dt     float64
	car       traffic.Blocker
	others    [traffic.MaxOthers]traffic.Blocker
	nOthers   int
	cam       scene.Camera // Target is nil: target, when hasTarget
	target    mgl64.Vec3
	hasCam    bool
	hasTarget bool
	into      *result // the buffer to fill
}

// result is one Update's traffic, copied out of the Frame.
type result struct {
	now      float64
	vehicles []traffic.Vehicle
	draw     []scene.Vehicle
	late     []lateVehicle // the vehicles off their schedule, by key
	far      int
	lagging  int
	planned  bool
	cpu      time.Duration // the step's thread CPU time, when clocked
	clocked  bool          // the goroutine computed it, and the clock was there
}

// lateVehicle is a vehicle of the result off its schedule.
type lateVehicle struct {
	key    traffic.Key
	lag    float64
	forCar bool
}

func newResult() *result {
	return &result{vehicles: make([]traffic.Vehicle, 0, scene.MaxVehicles),
		draw: make([]scene.Vehicle, 0, scene.MaxVehicles), late: make([]lateVehicle, 0, scene.MaxVehicles)}
}

// pipeWorker is what computes a step: the Frame and its camera's target.
// It belongs to whichever goroutine claimed the request (Pipeline.claimed).
type pipeWorker struct {
	f      *Frame
	target mgl64.Vec3
}

// NewPipeline runs f on a goroutine of its own; the Pipeline owns f from
// now on.
func NewPipeline(f *Frame) *Pipeline { return newPipeline(f, true) }

// newPipeline is NewPipeline; without its goroutine (run false) every
// Update computes the answer itself (tests).
func newPipeline(f *Frame, run bool) *Pipeline {
	p := &Pipeline{sched: traffic.NewSchedule(f.w, f.hour), work: &pipeWorker{f: f},
		req: make(chan request, 1), ready: make(chan *result, 1), done: make(chan struct{}),
		cur: newResult(), spare: newResult()}
	if run {
		go p.run()
	} else {
		close(p.done)
	}
	return p
}

func (p *Pipeline) run() {
	defer close(p.done)
	for r := range p.req {
		if !p.claimed.CompareAndSwap(r.seq-1, r.seq) {
			continue // the main goroutine took it on (take)
		}
		p.ready <- p.work.step(&r, true)
	}
}

// step computes the traffic of r into its buffer, timed on the thread's
// CPU clock when clocked (the goroutine's steps: a step on the main
// goroutine is its caller's to time, and a reading of that clock is a
// system call, microseconds on a busy host).
func (w *pipeWorker) step(r *request, clocked bool) *result {
	var c0 time.Duration
	if clocked {
		runtime.LockOSThread() // the thread's CPU clock must be this goroutine's
		defer runtime.UnlockOSThread()
		c0, _ = threadcpu.Now()
	}
	if r.hasCam {
		cam := r.cam
		if r.hasTarget {
			w.target = r.target
			cam.Target = &w.target
		}
		w.f.SetCamera(cam)
	}
	w.f.SetOthers(r.others[:r.nOthers])
	w.f.Update(r.t, r.dt, r.car)
	res := r.into
	res.now, res.far, res.planned = w.f.Now(), w.f.Far(), w.f.Planned()
	fl := w.f.Flow()
	res.lagging = fl.Lagging()
	res.vehicles = append(res.vehicles[:0], w.f.Vehicles()...)
	res.draw = append(res.draw[:0], w.f.Draw()...)
	res.late = res.late[:0]
	for i := range res.vehicles {
		k := res.vehicles[i].Key
		if lag, forCar := fl.Lag(k), fl.WaitsForCar(k); lag != 0 || forCar {
			res.late = append(res.late, lateVehicle{key: k, lag: lag, forCar: forCar})
		}
	}
	slices.SortFunc(res.late, func(a, b lateVehicle) int { return compareKeys(a.key, b.key) })
	res.cpu, res.clocked = 0, false
	if clocked {
		if c1, ok := threadcpu.Now(); ok {
			res.cpu, res.clocked = c1-c0, true
		}
	}
	return res
}

func compareKeys(a, b traffic.Key) int {
	return cmp.Or(cmp.Compare(a.Edge, b.Edge), cmp.Compare(a.Cycle, b.Cycle), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.K, b.K))
}

// SetCamera is the camera the far traffic is culled for (Frame.SetCamera),
// from the next request on.
func (p *Pipeline) SetCamera(cam scene.Camera) {
	p.next.cam, p.next.hasCam, p.next.hasTarget = cam, true, cam.Target != nil
	if cam.Target != nil {
		p.next.target = *cam.Target
	}
	p.next.cam.Target = nil
}

// SetOthers is the other players' cars near this one (Frame.SetOthers),
// from the next request on.
func (p *Pipeline) SetOthers(bs []traffic.Blocker) {
	p.next.nOthers = copy(p.next.others[:], bs)
}

// Update takes the traffic for world time t (this frame's, dt seconds
// after the last) that the goroutine computed during the last frame, and
// asks for the next frame's around car. It allocates nothing in steady
// state.
func (p *Pipeline) Update(t, dt float64, car traffic.Blocker) {
	if p.pending {
		p.take()
	}
	if !p.started || car.Pos.Dist2(p.sent.car.Pos) > traffic.CarJump*traffic.CarJump || math.Abs(p.cur.now-t) > maxSkew {
		// the traffic in hand is for another place or time: this
		// frame's own, at once
		p.own++
		p.send(t, dt, car)
		p.take()
	}
	p.started = true
	p.send(t+dt, dt, car) // the next frame, as long as this one
}

// send asks the goroutine for the traffic at world time t, dt after the
// last request.
func (p *Pipeline) send(t, dt float64, car traffic.Blocker) {
	p.seq++
	p.next.seq, p.next.t, p.next.dt, p.next.car, p.next.into = p.seq, t, dt, car, p.spare
	p.spare = nil
	p.sent = p.next
	p.pending = true
	if p.here {
		// claimed and computed at once: the goroutine never sees it
		p.here = false
		p.claimed.Store(p.seq)
		p.arrived = p.work.step(&p.sent, false)
		return
	}
	p.req <- p.next // never blocks: at most one is out
}

// take holds the answer to the request out, and the traffic held before
// becomes the spare buffer. An answer the goroutine has not begun (it
// waits for a core, as on a busy machine the build workers may hold the
// other one for milliseconds) is computed here instead: the frame pays
// what it paid before the pipeline, and never waits on the scheduler. One
// it has begun is waited for.
func (p *Pipeline) take() {
	if p.arrived == nil {
		select {
		case p.arrived = <-p.ready:
		default:
			if p.claimed.CompareAndSwap(p.seq-1, p.seq) {
				select {
				case <-p.req: // still queued: the goroutine would skip it
				default:
				}
				p.arrived = p.work.step(&p.sent, false)
				p.stolen++
			} else {
				p.waits++
				p.arrived = p.await()
			}
		}
	}
	p.cur, p.spare = p.arrived, p.cur
	p.arrived, p.pending = nil, false
}

// await waits for the answer the goroutine is computing: spinning, as it
// is running on another core and a blocked main goroutine, wired to its
// thread, costs a trip through the kernel to hand its core over and get
// it back (tens of µs on a busy machine, more than most of a step); past
// maxSpin, blocking.
func (p *Pipeline) await() *result {
	deadline := time.Now().Add(maxSpin)
	for time.Now().Before(deadline) {
		select {
		case res := <-p.ready:
			return res
		default:
		}
	}
	return <-p.ready
}

// Settle waits until the goroutine has answered the request out, if any,
// and keeps the answer for the next Update (tests that count allocations
// on both goroutines).
func (p *Pipeline) Settle() {
	if p.pending && p.arrived == nil {
		p.arrived = p.await()
	}
}

// ComputeHere has the next Update compute the traffic it asks for itself,
// at once, as the goroutine would have (the same result): a measurement
// that must hold all of a frame's traffic work in one window of the
// caller's goroutine (the bench's allocations, counted process-wide,
// which a window waiting for another goroutine would mix with whatever
// else ran, the runtime's own included).
func (p *Pipeline) ComputeHere() { p.here = true }

// Close stops the goroutine and the Frame's planning and waits for them.
// Closing twice is harmless.
func (p *Pipeline) Close() {
	if p.closed {
		return
	}
	p.closed = true
	close(p.req)
	<-p.done
	p.work.f.Close()
}

// Waits is how many Updates waited for the goroutine to finish an answer
// it had begun, and Stolen how many computed one it had not begun (a
// paced frame gives it the whole frame; a soak's back-to-back frames on a
// busy machine may not).
func (p *Pipeline) Waits() int { return p.waits }

// Stolen: see Waits.
func (p *Pipeline) Stolen() int { return p.stolen }

// Own is how many Updates computed their own traffic (the first, a jump
// of the car or the clock).
func (p *Pipeline) Own() int { return p.own }

// Vehicles is the traffic in hand within Radius (Frame.Vehicles). Do not
// modify.
func (p *Pipeline) Vehicles() []traffic.Vehicle { return p.cur.vehicles }

// Draw is the instances in hand (Frame.Draw). Do not modify.
func (p *Pipeline) Draw() []scene.Vehicle { return p.cur.draw }

// Far is how many far vehicles are drawn.
func (p *Pipeline) Far() int { return p.cur.far }

// Planned reports whether the traffic in hand came from a plan.
func (p *Pipeline) Planned() bool { return p.cur.planned }

// Lagging is how many vehicles run behind their schedule.
func (p *Pipeline) Lagging() int { return p.cur.lagging }

// Now is the world time of the traffic in hand.
func (p *Pipeline) Now() float64 { return p.cur.now }

// WorkCPU is the thread CPU time of the goroutine's step that computed
// the traffic in hand; false when the main goroutine computed it (its
// caller times that) or the clock is unavailable.
func (p *Pipeline) WorkCPU() (time.Duration, bool) { return p.cur.cpu, p.cur.clocked }

// late is vehicle k's entry in the traffic in hand, if off its schedule.
func (p *Pipeline) late(k traffic.Key) (lateVehicle, bool) {
	i, ok := slices.BinarySearchFunc(p.cur.late, k, func(l lateVehicle, k traffic.Key) int { return compareKeys(l.key, k) })
	if !ok {
		return lateVehicle{}, false
	}
	return p.cur.late[i], true
}

// Lag is how many metres vehicle k runs behind its schedule.
func (p *Pipeline) Lag(k traffic.Key) float64 {
	l, _ := p.late(k)
	return l.lag
}

// WaitsForCar reports whether vehicle k is braking for the car
// (autopilot.Traffic).
func (p *Pipeline) WaitsForCar(k traffic.Key) bool {
	l, _ := p.late(k)
	return l.forCar
}

// Ahead is vehicle k s metres further along its path (autopilot.Traffic).
func (p *Pipeline) Ahead(k traffic.Key, s float64) (traffic.Vehicle, bool) {
	return p.sched.At(k, p.cur.now, p.Lag(k)-s)
}

// Light is the signal on edge at its junction B (atB) or A
// (autopilot.Traffic).
func (p *Pipeline) Light(edge uint64, atB bool) traffic.Light {
	return p.sched.Light(edge, atB, p.cur.now)
}

// LightAfter is the same light after seconds from now (autopilot.Traffic).
func (p *Pipeline) LightAfter(edge uint64, atB bool, after float64) traffic.Light {
	return p.sched.Light(edge, atB, p.cur.now+after)
}

// Signals is the signal clock of the traffic in hand.
func (p *Pipeline) Signals() scene.SignalClock { return signals(p.cur.now) }
