package tile

import (
	"math"

	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// Traffic is the city's traffic around a point at a world time, from the
// same schedule every client computes (roadgraph/traffic): the map shows
// the cars players see without a byte on the wire.
type Traffic struct {
	s   *traffic.Schedule
	p   *traffic.Plan
	out []traffic.Vehicle
}

// MaxTrafficRadius bounds the area traffic is computed for (metres).
const MaxTrafficRadius = 1200

// planAhead is the world time a plan covers (seconds); planning costs
// more than reading, so one plan serves many frames.
const planAhead = 20

// NewTraffic returns the traffic of seed's world at hour of day hour.
func NewTraffic(seed uint64, hour float64) *Traffic {
	return &Traffic{s: traffic.NewSchedule(world.New(seed), hour), p: traffic.NewPlan()}
}

// At returns the vehicles within radius of centre at world time t
// (seconds); the slice is reused by the next call.
func (tr *Traffic) At(t float64, centre world.Vec2, radius float64) []traffic.Vehicle {
	radius = math.Min(math.Max(radius, 10), MaxTrafficRadius)
	if !tr.p.Covers(t, centre, radius) {
		tr.s.PlanInto(tr.p, t, t+planAhead, centre, radius, radius, radius/4)
	}
	vs, ok := tr.p.Vehicles(tr.s, t, centre, radius, tr.out[:0])
	if !ok {
		tr.s.PlanInto(tr.p, t, t+planAhead, centre, radius, radius, radius/4)
		vs, _ = tr.p.Vehicles(tr.s, t, centre, radius, tr.out[:0])
	}
	tr.out = vs
	return vs
}
