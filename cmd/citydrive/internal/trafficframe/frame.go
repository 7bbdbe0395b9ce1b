// Package trafficframe is one frame of the client's traffic: the flow
// (roadgraph/traffic) within Radius of the car at the world time, the
// vehicles near the car reacting to it, the road height under each
// vehicle, the far traffic the camera sees out to DrawRadius, and the
// instances the renderer draws (render.Frame.Vehicles), plus the signal
// clock the drawn traffic lights read. A Frame computes it; the Pipeline
// (pipeline.go), which the game runs once a frame and the bench measures,
// computes it a frame ahead on a goroutine and answers the autopilot. A
// goroutine finds the vehicles ahead of the frames (planner.go).
package trafficframe

import (
	"math"

	"citydrive/render/frustum"
	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

const (
	// Radius is how far from the car traffic is simulated (metres): every
	// vehicle there is placed exactly, reacts to the car and is met as an
	// obstacle. It holds the reaction's radius (80 m) and the autopilot's
	// look ahead (90 m along its line) with room to spare.
	Radius = 120.0
	// DrawRadius is how far traffic is drawn: beyond Radius only the
	// vehicles in the camera's view, interpolated (traffic.AppendFar).
	DrawRadius = 1000.0
	// viewHeight bounds the road's height within DrawRadius relative to
	// the camera's target (metres, either way) for culling far traffic
	// from above.
	viewHeight = 150.0
	// viewAspect is the widest screen (21:9) the far traffic is culled for.
	viewAspect = 21.0 / 9
)

// Frame is the traffic of one client. Not safe for concurrent use.
type Frame struct {
	w        world.World
	hour     float64
	flow     *traffic.Flow
	plans    *planner // nil once closed
	vehicles []traffic.Vehicle
	far      []traffic.FarVehicle
	view     traffic.View
	hasView  bool
	draw     []scene.Vehicle
	looks    []uint8 // scratch of Update: each vehicle's model and colour (look)
	now      float64
	planned  bool // the last Update's vehicles came from a plan
}

// New returns the traffic of world w at hour of day hour, with its
// planning goroutine running; Close stops it.
func New(w world.World, hour float64) *Frame { return newFrame(w, hour, false) }

// newFrame is New; sync plans on the caller's goroutine instead (tests).
func newFrame(w world.World, hour float64, sync bool) *Frame {
	return &Frame{w: w, hour: hour, flow: traffic.NewFlow(traffic.NewSchedule(w, hour)), plans: newPlanner(w, hour, sync),
		far:  make([]traffic.FarVehicle, 0, scene.MaxVehicles),
		draw: make([]scene.Vehicle, 0, scene.MaxVehicles), looks: make([]uint8, 0, scene.MaxVehicles)}
}

// SetCamera is the camera the far traffic is culled for: the game passes
// the last frame's. Its view is taken as wide as the widest screens
// (viewAspect); the renderer culls again for the screen it has. Without a
// camera every far vehicle is drawn.
func (f *Frame) SetCamera(cam scene.Camera) {
	fr := frustum.FromViewProj(cam.ViewProj(viewAspect))
	f.view = traffic.View{Eye: world.Vec2{X: cam.Position[0], Z: cam.Position[2]}}
	// the road's height relative to the eye: about the target's (the car,
	// for the chase and the top view), within viewHeight either way
	ground := 0.0
	if cam.Target != nil {
		ground = cam.Target[1] - cam.Position[1]
	}
	for _, p := range fr.Planes {
		f.view.AddPlane(p.N[0], p.N[1], p.N[2], p.D, ground-viewHeight, ground+viewHeight)
	}
	f.hasView = true
}

// Close stops the planning goroutine and waits for it; Update then
// computes every frame itself. Closing twice is harmless.
func (f *Frame) Close() {
	if f.plans != nil {
		f.plans.close()
		f.plans = nil
	}
}

// Update moves the traffic to world time t, dt seconds after the last
// Update, around car (which the vehicles near it brake for). It
// allocates nothing in steady state.
func (f *Frame) Update(t, dt float64, car traffic.Blocker) {
	f.now = t
	f.planned = false
	if f.plans != nil {
		f.plans.step(t, dt, car.Pos, f.flow)
		f.planned = f.plans.cur != nil && f.plans.cur.Covers(t, car.Pos, Radius)
	}
	f.vehicles = f.flow.Update(t, dt, car.Pos, Radius, car)
	var view *traffic.View
	if f.hasView {
		view = &f.view
	}
	f.far = f.flow.AppendFar(t, car.Pos, Radius, DrawRadius, view, f.far[:0])
	// The instances grouped by model, each group in the order of the
	// vehicles (the simulated ones, then the far), so the renderer culls
	// and packs them in one pass.
	near := min(len(f.vehicles), cap(f.draw))
	n := min(near+len(f.far), cap(f.draw))
	f.looks = f.looks[:0]
	var start [scene.VehicleModels]int
	for i := range n {
		var k traffic.Key
		if i < near {
			k = f.vehicles[i].Key
		} else {
			k = f.far[i-near].Key
		}
		l := look(k)
		f.looks = append(f.looks, l)
		for j := int(l%scene.VehicleModels) + 1; j < scene.VehicleModels; j++ {
			start[j]++
		}
	}
	f.draw = f.draw[:n]
	for i := range n {
		l := f.looks[i]
		m := l % scene.VehicleModels
		d := &f.draw[start[m]]
		start[m]++
		if i < near {
			v := &f.vehicles[i]
			*d = scene.Vehicle{X: v.Pos.X, Y: v.Y, Z: v.Pos.Z, Dir: [2]float32{float32(v.Dir.X), float32(v.Dir.Z)}}
		} else {
			v := &f.far[i-near]
			*d = scene.Vehicle{X: v.Pos.X, Y: float64(v.Y), Z: v.Pos.Z, Dir: v.Dir}
		}
		d.Model, d.Colour = m, colours[l/scene.VehicleModels]
	}
}

// look is vehicle k's model (look % VehicleModels) and colour (look /
// VehicleModels, an index into colours), from its vehicleHash.
func look(k traffic.Key) uint8 {
	h := vehicleHash(k)
	return uint8(h%scene.VehicleModels) + scene.VehicleModels*uint8((h>>8)%uint64(len(colours)))
}

// Far is how many far vehicles the last Update drew (beyond Radius, in
// the view).
func (f *Frame) Far() int { return len(f.far) }

// vehicleHash mixes a vehicle's key into its model and colour: a function
// of the key, so every player sees the same car.
func vehicleHash(k traffic.Key) uint64 {
	h := k.Edge*0x9e3779b97f4a7c15 ^ uint64(k.Cycle)*0xbf58476d1ce4e5b9 ^ uint64(k.Lane)<<8 ^ uint64(k.K)
	h ^= h >> 29
	h *= 0x94d049bb133111eb
	h ^= h >> 32
	return h
}

// colours are the traffic's body colours; model and colour are a function
// of the vehicle's key, so every player sees the same car.
var colours = [...][3]float32{
	{0.62, 0.06, 0.05}, {0.08, 0.16, 0.42}, {0.85, 0.85, 0.82}, {0.1, 0.1, 0.11},
	{0.45, 0.46, 0.48}, {0.9, 0.62, 0.08}, {0.1, 0.32, 0.18}, {0.55, 0.33, 0.18},
}

// SetOthers is the other players' cars near this one for the next
// Updates: the vehicles near them brake for them too
// (traffic.Flow.SetOthers).
func (f *Frame) SetOthers(bs []traffic.Blocker) { f.flow.SetOthers(bs) }

// Vehicles is the last Update's traffic. Do not modify.
func (f *Frame) Vehicles() []traffic.Vehicle { return f.vehicles }

// Draw is the last Update's instances (the renderer culls them), of
// Vehicles and the far traffic: grouped by model, each group in that
// order. Do not modify.
func (f *Frame) Draw() []scene.Vehicle { return f.draw }

// Planned reports whether the last Update found its vehicles in a plan
// (else it searched the schedule itself).
func (f *Frame) Planned() bool { return f.planned }

// Now is the last Update's world time.
func (f *Frame) Now() float64 { return f.now }

// Flow is the traffic flow.
func (f *Frame) Flow() *traffic.Flow { return f.flow }

// signals is the signal clock at world time now.
func signals(now float64) scene.SignalClock {
	return scene.SignalClock{Time: float32(math.Mod(now, traffic.SignalPeriod)),
		Period: traffic.SignalPeriod, Green: traffic.GreenLength}
}
