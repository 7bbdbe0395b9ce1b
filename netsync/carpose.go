package netsync

import (
	"fmt"
	"math"
	"time"

	"citydrive/netsync/wire"
)

// holdCorrectEvery is how long a car's snapshots must have been refused
// before the server tells the client where its car is held (a Pose of
// Seq 0), and how often it says it again while they still are: long
// enough that one late datagram does not move an honest player's car.
const holdCorrectEvery = time.Second

// centimetres is metres as the wire's positions, saturated.
func centimetres(m float64) int32 {
	return int32(max(math.MinInt32, min(math.MaxInt32, math.Round(m*100))))
}

// heldPose is where the server has p's car: the placement waiting, else
// the last accepted snapshot.
func (s *Server) heldPose(p *serverPeer, seq uint32, reason string) *wire.Pose {
	if p.track.placed || !p.hasCar {
		x, z, _ := p.track.where()
		return &wire.Pose{Seq: seq, X: centimetres(x), Z: centimetres(z), Reason: reason}
	}
	c := p.lastCar
	return &wire.Pose{Seq: seq, X: c.X, Y: c.Y, Z: c.Z, Heading: c.Heading, Reason: reason}
}

// held is told that p's snapshot at now was refused: once its car has
// been held for holdCorrectEvery, the client is told where it is. A car
// never accepted (its first snapshot far from the spawn) is not moved:
// the client chose to start elsewhere (a soak's -start on its own
// server), and it is neither relayed nor given reach until it is there.
func (s *Server) held(p *serverPeer, now time.Time) {
	if p.heldSince.IsZero() {
		p.heldSince = now
	}
	if !p.hasCar || now.Sub(p.heldSince) < holdCorrectEvery || now.Sub(p.poseSent) < holdCorrectEvery {
		return
	}
	p.poseSent = now
	s.send(p, s.heldPose(p, 0, fmt.Sprintf("your car moved faster than %g m/s: it is held where the server last saw it", s.cfg.MaxCarSpeed)))
}

// reset answers a player's Reset: granted, within its budget
// (ResetEvery) and ResetReach of where the car is held, it places the car
// at the asked pose; refused, the Pose says where the car stays, and why.
func (s *Server) reset(p *serverPeer, m *wire.Reset, now time.Time) {
	if !p.resets.take() {
		s.metrics.overBudget[budgetReset].Inc()
		s.send(p, s.heldPose(p, m.Seq, fmt.Sprintf("too many resets: at most one every %v", s.cfg.ResetEvery)))
		return
	}
	x, z := float64(m.X)/100, float64(m.Z)/100
	if s.cars.MaxSpeed > 0 {
		hx, hz, ok := p.track.where()
		if d := math.Hypot(x-hx, z-hz); ok && d > s.cfg.ResetReach {
			s.send(p, s.heldPose(p, m.Seq, fmt.Sprintf("reset refused: that place is %.0f m from your car; a reset moves it at most %g m", d, s.cfg.ResetReach)))
			return
		}
		p.track.place(x, z, s.cars.Slack, now)
	}
	p.heldSince = time.Time{}
	s.send(p, &wire.Pose{Seq: m.Seq, X: m.X, Y: m.Y, Z: m.Z, Heading: m.Heading})
}
