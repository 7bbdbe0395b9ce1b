package game

import (
	"math"
	"slices"
	"time"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/render"
	"citydrive/roadgraph/traffic"
	"citydrive/slots"
)

// Traffic: the scheduled city traffic (roadgraph/traffic) within
// trafficRadius of the car, at the world clock, with the vehicles near the
// car reacting to it. It is computed once a frame, before the physics
// steps, and the car and the autopilot meet it as obstacles through
// carEnv.AppendObstacles; the same pass fills the vehicles the renderer
// draws instanced (render.Frame.Vehicles) and the signal clock the drawn
// traffic lights read.
const trafficRadius = 300.0

// trafficState is the session's traffic and its figures.
type trafficState struct {
	flow     *traffic.Flow
	vehicles []traffic.Vehicle // this frame's
	now      float64           // their world time
	draw     []render.Vehicle  // their instances, reused (same order)
	heights  *laneHeights      // the road under them
	frames   int
	sum      int
	most     int
	lagging  int       // most vehicles held up at once
	us       []float64 // main-goroutine traffic work per frame, µs
}

// TrafficStats is what the traffic was like over the session.
type TrafficStats struct {
	MeanVehicles float64 // simulated within trafficRadius per frame
	MaxVehicles  int
	MaxLagging   int     // most vehicles held up by the car at once
	USP50, USP99 float64 // main-goroutine traffic work per frame
}

// worldTime is the world clock traffic runs on (worldtime.go) at game
// time game.
func (s *Session) worldTime(game float64) float64 { return s.world.now(game) }

// updateTraffic moves the traffic to the world time at the end of this
// frame's game time.
func (s *Session) updateTraffic(game float64) {
	if !s.opt.Traffic {
		return
	}
	t0 := time.Now()
	e := s.carEnv()
	if e.traffic == nil {
		e.traffic = &trafficState{flow: traffic.NewFlow(traffic.NewSchedule(s.opt.World, s.opt.TimeOfDay)),
			draw: make([]render.Vehicle, 0, render.MaxVehicles), heights: newLaneHeights(s.opt.World)}
		s.driver.Traffic = e.traffic
	}
	tr := e.traffic
	c := s.car
	me := traffic.Blocker{Pos: c.Pos, Dir: c.Forward(), Length: car.Length, Width: car.Width}
	tr.now = s.worldTime(s.clock + game)
	tr.vehicles = tr.flow.Update(tr.now, game, c.Pos, trafficRadius, me)
	tr.draw = tr.fillVehicles(tr.draw[:0], tr.vehicles)
	s.frame.Vehicles = tr.draw
	s.frame.Signals = render.SignalClock{Time: float32(math.Mod(tr.now, traffic.SignalPeriod)),
		Period: traffic.SignalPeriod, Green: traffic.GreenLength}
	tr.frames++
	tr.sum += len(tr.vehicles)
	tr.most = max(tr.most, len(tr.vehicles))
	tr.lagging = max(tr.lagging, tr.flow.Lagging())
	tr.us = append(tr.us, us(time.Since(t0)))
}

// TrafficStats returns the traffic figures so far.
func (s *Session) TrafficStats() TrafficStats {
	tr := s.carEnv().traffic
	if tr == nil || tr.frames == 0 {
		return TrafficStats{}
	}
	v := slices.Clone(tr.us)
	slices.Sort(v)
	return TrafficStats{MeanVehicles: float64(tr.sum) / float64(tr.frames), MaxVehicles: tr.most, MaxLagging: tr.lagging,
		USP50: v[len(v)/2], USP99: v[min(len(v)-1, int(0.99*float64(len(v))))]}
}

// appendTraffic appends the traffic vehicles within r of (x, z) as
// oriented boxes standing on the road surface.
func (e *carEnv) appendTraffic(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle {
	if e.traffic == nil {
		return dst
	}
	reach := r + traffic.VehicleLength
	tr := e.traffic
	for i := range tr.vehicles {
		v := &tr.vehicles[i]
		dx, dz := v.Pos.X-x, v.Pos.Z-z
		if dx*dx+dz*dz > reach*reach {
			continue
		}
		y := e.surface.Surface(v.Pos.X, v.Pos.Z).Y
		if i < len(tr.draw) {
			y = tr.draw[i].Y
		}
		dst = append(dst, slots.BoxObstacle([2]float64{v.Pos.X, v.Pos.Z}, v.Heading(),
			traffic.VehicleLength/2, traffic.VehicleWidth/2, y, y+traffic.VehicleHeight, slots.ObstacleTraffic))
	}
	return dst
}

// vehicleColours are the traffic's body colours.
var vehicleColours = [...][3]float32{
	{0.62, 0.06, 0.05}, {0.08, 0.16, 0.42}, {0.85, 0.85, 0.82}, {0.1, 0.1, 0.11},
	{0.45, 0.46, 0.48}, {0.9, 0.62, 0.08}, {0.1, 0.32, 0.18}, {0.55, 0.33, 0.18},
}

// fillVehicles appends the instances of vs standing on the road surface:
// model and colour are a function of the vehicle's key, so every player
// sees the same car.
func (tr *trafficState) fillVehicles(dst []render.Vehicle, vs []traffic.Vehicle) []render.Vehicle {
	for i := range vs {
		v := &vs[i]
		if len(dst) == cap(dst) {
			break
		}
		h := v.Key.Edge*0x9e3779b97f4a7c15 ^ uint64(v.Key.Cycle)*0xbf58476d1ce4e5b9 ^ uint64(v.Key.Lane)<<8 ^ uint64(v.Key.K)
		h ^= h >> 29
		h *= 0x94d049bb133111eb
		h ^= h >> 32
		dst = append(dst, render.Vehicle{X: v.Pos.X, Y: tr.heights.at(v), Z: v.Pos.Z,
			Heading: float32(v.Heading()), Model: uint8(h % 3), Colour: vehicleColours[(h>>8)%uint64(len(vehicleColours))]})
	}
	return dst
}

// Vehicles is this frame's traffic (autopilot.Traffic).
func (tr *trafficState) Vehicles() []traffic.Vehicle { return tr.vehicles }

// Light is the signal on edge at its junction B (atB) or A at this
// frame's world time (autopilot.Traffic).
func (tr *trafficState) Light(edge uint64, atB bool) traffic.Light {
	return tr.flow.Schedule().Light(edge, atB, tr.now)
}
