// Package trafficframe is one frame of the client's traffic on the main
// goroutine: the flow (roadgraph/traffic) within Radius of the car at the
// world time, the vehicles near the car reacting to it, the road height
// under each vehicle and the instances the renderer draws
// (render.Frame.Vehicles), plus the signal clock the drawn traffic lights
// read. The game runs it once a frame; the bench measures it. A goroutine
// finds the vehicles ahead of the frames (planner.go).
package trafficframe

import (
	"math"

	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// Radius is how far from the car traffic is simulated and drawn (metres).
const Radius = 400.0

// Frame is the traffic of one client. Not safe for concurrent use.
type Frame struct {
	flow     *traffic.Flow
	plans    *planner // nil once closed
	vehicles []traffic.Vehicle
	draw     []scene.Vehicle
	hashes   []uint64 // scratch of Update: each vehicle's vehicleHash
	now      float64
	planned  bool // the last Update's vehicles came from a plan
}

// New returns the traffic of world w at hour of day hour, with its
// planning goroutine running; Close stops it.
func New(w world.World, hour float64) *Frame { return newFrame(w, hour, false) }

// newFrame is New; sync plans on the caller's goroutine instead (tests).
func newFrame(w world.World, hour float64, sync bool) *Frame {
	return &Frame{flow: traffic.NewFlow(traffic.NewSchedule(w, hour)), plans: newPlanner(w, hour, sync),
		draw: make([]scene.Vehicle, 0, scene.MaxVehicles), hashes: make([]uint64, 0, scene.MaxVehicles)}
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
	// The instances grouped by model, each group in the order of the
	// vehicles, so the renderer culls and packs them in one pass.
	n := min(len(f.vehicles), cap(f.draw))
	f.hashes = f.hashes[:0]
	var start [scene.VehicleModels]int
	for i := range n {
		h := vehicleHash(f.vehicles[i].Key)
		f.hashes = append(f.hashes, h)
		for j := int(h%scene.VehicleModels) + 1; j < scene.VehicleModels; j++ {
			start[j]++
		}
	}
	f.draw = f.draw[:n]
	for i := range n {
		v := &f.vehicles[i]
		h := f.hashes[i]
		m := uint8(h % scene.VehicleModels)
		f.draw[start[m]] = scene.Vehicle{X: v.Pos.X, Y: v.Y, Z: v.Pos.Z,
			Dir: [2]float32{float32(v.Dir.X), float32(v.Dir.Z)}, Model: m, Colour: colours[(h>>8)%uint64(len(colours))]}
		start[m]++
	}
}

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

// Vehicles is the last Update's traffic. Do not modify.
func (f *Frame) Vehicles() []traffic.Vehicle { return f.vehicles }

// Draw is the last Update's instances (the renderer culls them): grouped
// by model, each group in the order of Vehicles. Do not modify.
func (f *Frame) Draw() []scene.Vehicle { return f.draw }

// Planned reports whether the last Update found its vehicles in a plan
// (else it searched the schedule itself).
func (f *Frame) Planned() bool { return f.planned }

// Now is the last Update's world time.
func (f *Frame) Now() float64 { return f.now }

// Flow is the traffic flow.
func (f *Frame) Flow() *traffic.Flow { return f.flow }

// Light is the signal on edge at its junction B (atB) or A at the last
// Update's world time (autopilot.Traffic).
func (f *Frame) Light(edge uint64, atB bool) traffic.Light {
	return f.flow.Schedule().Light(edge, atB, f.now)
}

// WaitsForCar reports whether vehicle k is braking for the car
// (autopilot.Traffic).
func (f *Frame) WaitsForCar(k traffic.Key) bool { return f.flow.WaitsForCar(k) }

// Ahead is vehicle k s metres further along its path (autopilot.Traffic).
func (f *Frame) Ahead(k traffic.Key, s float64) (traffic.Vehicle, bool) {
	return f.flow.Ahead(k, f.now, s)
}

// Signals is the signal clock at the last Update's world time.
func (f *Frame) Signals() scene.SignalClock {
	return scene.SignalClock{Time: float32(math.Mod(f.now, traffic.SignalPeriod)),
		Period: traffic.SignalPeriod, Green: traffic.GreenLength}
}
