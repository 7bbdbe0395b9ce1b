package game

import (
	"math"
	"runtime"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/cmd/citydrive/internal/quantile"
	"citydrive/cmd/citydrive/internal/trafficframe"
	"citydrive/netsync/threadcpu"
	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Traffic: the scheduled city traffic within trafficframe.Radius of the
// car, at the world clock, and the far traffic in view out to
// trafficframe.DrawRadius (trafficframe). It is computed a frame ahead on
// a goroutine (trafficframe.Pipeline) and taken once a frame, before the
// physics steps; the car and the autopilot meet it as obstacles
// through carEnv.AppendObstacles, the autopilot yields to it
// (autopilot.Traffic) and the renderer draws it instanced.

// vehicleSource is the traffic the car meets.
type vehicleSource interface {
	Vehicles() []traffic.Vehicle
}

// trafficState is the session's traffic and its figures.
type trafficState struct {
	*trafficframe.Pipeline
	frames  int
	sum     int
	most    int
	far     int       // far vehicles drawn, summed over the frames
	lagging int       // most vehicles held up at once
	us      []float64 // main-goroutine traffic work per frame, µs
	cpu     []float64 // the same on the thread's CPU clock (without the time others held the core)
	work    []float64 // the traffic goroutine's step per frame on its thread's CPU, µs (Pipeline.WorkCPU)
	planned int       // frames whose vehicles the planning goroutine had found
	others  []traffic.Blocker
	at      float64         // the world time the traffic was last moved to
	inView  []scene.Vehicle // Draw less what blocks the chase camera (drawTraffic)
}

// otherCars appends the other players' cars within the simulated traffic
// (and a reaction's reach beyond it) to dst, as the traffic brakes for
// them: as last sampled (sim.go), carried on along their heading to now,
// so that a replay's traffic brakes for them alike.
func (s *Session) otherCars(dst []traffic.Blocker) []traffic.Blocker {
	st := &s.rp
	reach := trafficframe.Radius + otherReach
	ahead := math.Min(float64(st.n-st.remoteN)*physicsStep, maxCarry)
	for _, c := range st.remote {
		x, _, z := c.Position()
		h := c.HeadingRad()
		dir := world.Vec2{X: math.Cos(h), Z: -math.Sin(h)}
		p := world.Vec2{X: x, Z: z}.Add(dir.Scale(c.SpeedMS() * ahead))
		if d := p.Sub(s.car.Pos); d.Dot(d) > reach*reach {
			continue
		}
		dst = append(dst, traffic.Blocker{Pos: p, Dir: dir, Length: car.Length, Width: car.Width})
	}
	return dst
}

// maxCarry bounds how far (seconds) a sampled car is carried on.
const maxCarry = 0.25

// otherReach: metres beyond the simulated traffic an other player's car
// still matters (a vehicle at its edge brakes for one just outside).
const otherReach = 20.0

// TrafficStats is what the traffic was like over the session.
type TrafficStats struct {
	MeanVehicles float64 // simulated within trafficframe.Radius per frame
	MaxVehicles  int
	MeanFar      float64 // far vehicles drawn per frame (in view, out to trafficframe.DrawRadius)
	MaxLagging   int     // most vehicles held up by the car at once
	USP50, USP99 float64 // main-goroutine traffic work per frame
	// the same on the thread's CPU clock: the work alone, without the time
	// other goroutines and processes held the core (0 where unavailable)
	CPUUSP50, CPUUSP99 float64
	// the traffic goroutine's step per frame on its thread's CPU clock
	// (trafficframe.Pipeline.WorkCPU; the frames that computed their
	// traffic themselves are in CPUUSP*)
	WorkCPUUSP50, WorkCPUUSP99 float64
	// Waits: frames that waited for the goroutine to finish their
	// traffic; Stolen: frames that computed it themselves, the goroutine
	// not having begun it; Own: frames that computed their own inputs'
	// traffic (the first, a reset of the car, a jump of the clock)
	Waits, Stolen, Own int
	Planned            float64 // share of frames whose vehicles were found ahead (trafficframe)
}

// worldTime is the world clock traffic runs on (worldtime.go) at game
// time game.
func (s *Session) worldTime(game float64) float64 { return s.world.now(game) }

// updateTraffic moves the traffic to the world time at the end of the
// next game seconds of steps (beforeStep).
func (s *Session) updateTraffic(game float64) {
	if !s.opt.Traffic {
		return
	}
	runtime.LockOSThread() // the thread's CPU clock must be this goroutine's
	defer runtime.UnlockOSThread()
	t0 := time.Now()
	c0, _ := threadcpu.Now()
	e := s.carEnv()
	if e.traffic == nil {
		e.traffic = &trafficState{Pipeline: trafficframe.NewPipeline(trafficframe.New(s.opt.World, s.opt.TimeOfDay))}
		e.vehicles = e.traffic
		s.driver.Traffic = e.traffic
	}
	tr := e.traffic
	if s.frame.Camera.Target != nil {
		tr.SetCamera(s.frame.Camera) // the last frame's: the far traffic it sees
	}
	c := s.car
	tr.others = s.otherCars(tr.others[:0])
	tr.SetOthers(tr.others)
	tr.at = s.rp.worldAt(s.rp.n + trafficEvery)
	tr.Update(tr.at, game, traffic.Blocker{Pos: c.Pos, Dir: c.Forward(), Length: car.Length, Width: car.Width})
	s.frame.Vehicles = tr.Draw()
	s.frame.Signals = tr.Signals()
	tr.frames++
	tr.sum += len(tr.Vehicles())
	tr.most = max(tr.most, len(tr.Vehicles()))
	tr.far += tr.Far()
	tr.lagging = max(tr.lagging, tr.Lagging())
	if tr.Planned() {
		tr.planned++
	}
	tr.us = append(tr.us, us(time.Since(t0)))
	if c1, ok := threadcpu.Now(); ok {
		tr.cpu = append(tr.cpu, us(c1-c0))
		if w, ok := tr.WorkCPU(); ok {
			tr.work = append(tr.work, us(w))
		}
	}
}

// drawTraffic sets the frame's vehicles from the traffic in hand: with
// the chase camera (at eye), less any vehicle between it and the car
// drawn at foot (scene.VehiclesClearOfChaseView); the top view and photo
// mode see them all.
func (s *Session) drawTraffic(eye, foot mgl64.Vec3) {
	if s.env == nil || s.env.traffic == nil {
		return
	}
	tr := s.env.traffic
	s.frame.Vehicles = tr.Draw()
	if s.chaseView() {
		tr.inView = scene.VehiclesClearOfChaseView(tr.inView[:0], s.frame.Vehicles, eye, foot)
		s.frame.Vehicles = tr.inView
	}
}

// TrafficTime is the world time (seconds) the traffic was last moved to
// (0 before the first frame with traffic).
func (s *Session) TrafficTime() float64 {
	if tr := s.carEnv().traffic; tr != nil {
		return tr.at
	}
	return 0
}

// TrafficStats returns the traffic figures so far.
func (s *Session) TrafficStats() TrafficStats {
	tr := s.carEnv().traffic
	if tr == nil || tr.frames == 0 {
		return TrafficStats{}
	}
	q := quantile.Of
	return TrafficStats{CPUUSP50: q(tr.cpu, 0.5), CPUUSP99: q(tr.cpu, 0.99), WorkCPUUSP50: q(tr.work, 0.5), WorkCPUUSP99: q(tr.work, 0.99),
		MeanVehicles: float64(tr.sum) / float64(tr.frames), MaxVehicles: tr.most,
		MeanFar: float64(tr.far) / float64(tr.frames), MaxLagging: tr.lagging, Waits: tr.Waits(), Stolen: tr.Stolen(), Own: tr.Own(),
		USP50: q(tr.us, 0.5), USP99: q(tr.us, 0.99), Planned: float64(tr.planned) / float64(tr.frames)}
}

// appendTraffic appends the traffic vehicles within r of (x, z) as
// oriented boxes standing on the road surface.
func (e *carEnv) appendTraffic(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle {
	if e.vehicles == nil {
		return dst
	}
	reach := r + traffic.VehicleLength
	vs := e.vehicles.Vehicles()
	for i := range vs {
		v := &vs[i]
		dx, dz := v.Pos.X-x, v.Pos.Z-z
		if dx*dx+dz*dz > reach*reach {
			continue
		}
		y := v.Y
		dst = append(dst, slots.BoxObstacle([2]float64{v.Pos.X, v.Pos.Z}, v.Heading(),
			traffic.VehicleLength/2, traffic.VehicleWidth/2, y, y+traffic.VehicleHeight, slots.ObstacleTraffic))
	}
	return dst
}
