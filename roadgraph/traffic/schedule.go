// Package traffic is the city's traffic as a pure function of the seed,
// the road lattice and the world clock: every vehicle's position at world
// time t follows from (seed, its lane schedule, t) alone, so every player
// with the same seed and clock sees the same cars at the same places, for
// zero bytes on the wire. Flow adds the one stateful part, local to one
// client: vehicles near that client's car brake for it and then rejoin
// their schedule. Pure policy: no goroutines, no GL, no sockets.
//
// The model: each edge of the lattice has two lanes, LaneOffset right of
// its centre line. Every SignalPeriod each lane sends a platoon of up to
// maxPlatoon vehicles, timed so that they cross the stop line at the lane's
// far junction during that junction's green (junctions with SignalArms or
// more arms have signals; their phase is a green wave, a function of the
// junction's lattice point and t); at a signal the platoon queues at the red and moves off at the green
// (queue.go). After the stop line a vehicle turns through the junction onto an exit
// lane chosen from (edge, lane, cycle, vehicle) and leaves the schedule at
// that lane's entry, where the exit lane's own platoons run.
package traffic

import (
	"math"

	"citydrive/roadgraph/world"
)

// The road rule, named once.
const (
	// LaneOffset is the middle of the right-hand lane from the centre line:
	// the autopilot drives on the same line.
	LaneOffset = 2.1
	// SignalPeriod is one full cycle of a junction's signals (seconds): the
	// X-axis arms are green for the first half, the Z-axis arms for the
	// second, each ending in Amber seconds in which no vehicle enters.
	SignalPeriod = 32.0
	Amber        = 3.0
	// SignalArms: junctions with at least this many arms have signals (the
	// city builder draws traffic lights at the same junctions).
	SignalArms = 3
	// VehicleLength and VehicleWidth are a traffic vehicle's box: the
	// player's car's size.
	VehicleLength = 4.2
	VehicleWidth  = 1.8
	// VehicleHeight is the obstacle's height above the road.
	VehicleHeight = 1.5
)

// Platoon timing.
const (
	headway    = 1.6 // seconds between vehicles of a platoon at the stop line (saturation flow, ~2,200 an hour)
	greenLead  = 0.5 // seconds after green the first vehicle crosses
	maxPlatoon = 7   // vehicles per platoon at most: (green-lead)/headway
	// Lane speeds, m/s: each lane gets one seeded speed in its range.
	streetSpeedMin, streetSpeedMax = 8.0, 11.0
	avenueSpeedMin, avenueSpeedMax = 11.0, 14.0
)

// Hash salts (world.Hash01), distinct from the city builder's.
const (
	_ = 7100 + iota // retired: signal offsets were hashed per junction
	saltSpeed
	saltCount
	saltTurn
	saltArrive
)

// Light is a signal's state for one approach.
type Light uint8

const (
	Green Light = iota
	AmberLight
	Red
)

func (l Light) String() string { return [...]string{"green", "amber", "red"}[l] }

// waveSpeed is the green wave's speed (m/s): each junction's X green
// starts (i+j)·CellSize/waveSpeed seconds after the origin's, so a car
// going east or south at about this speed meets green after green. A
// little above the autopilot's cruise, so a car that slows for a turn or a
// vehicle catches the next green rather than arriving just before it (a
// 20 m/s wave did worse than hashed offsets).
const waveSpeed = 36.0

// signalOffset is where junction's signal cycle stands at t = 0, in [0,
// SignalPeriod): the green wave. It is a function of the lattice point
// alone, so every player and every renderer sees the same lights.
func signalOffset(junction uint64) float64 {
	c := world.JunctionCell(junction)
	return floorMod(-float64(int64(c.I)+int64(c.J))*world.CellSize/waveSpeed, SignalPeriod)
}

// signalPhase is where junction's signal cycle stands at t, in [0,
// SignalPeriod).
func signalPhase(junction uint64, t float64) float64 {
	return floorMod(t+signalOffset(junction), SignalPeriod)
}

// greenStart is the phase at which axis d turns green.
func greenStart(d world.Dir) float64 {
	if d == world.DirX {
		return 0
	}
	return SignalPeriod / 2
}

// greenLength is how long an axis stays green (then amber).
const greenLength = SignalPeriod/2 - Amber

// SignalLight is the light shown at t to traffic arriving at junction
// (whose lattice arms number arms) along an edge of axis d. A junction with
// fewer than SignalArms arms has no signal: always green.
func SignalLight(junction uint64, arms int, d world.Dir, t float64) Light {
	if arms < SignalArms {
		return Green
	}
	return ShowLight(signalPhase(junction, t) - greenStart(d))
}

func floorMod(a, m float64) float64 {
	r := math.Mod(a, m)
	if r < 0 {
		r += m
	}
	return r
}

// Hours of the day: traffic peaks in the rush hours and thins at night.
func timeFactor(hour float64) float64 {
	h := floorMod(hour, 24)
	peak := func(at, width float64) float64 {
		d := math.Abs(h - at)
		d = min(d, 24-d)
		return math.Exp(-d * d / (2 * width * width))
	}
	night := 0.15
	day := 0.55 * smooth(6, 8, h) * (1 - smooth(20, 23, h))
	return min(1, night+day+0.35*peak(8, 1.2)+0.35*peak(17.5, 1.5))
}

func smooth(a, b, x float64) float64 {
	t := max(0, min(1, (x-a)/(b-a)))
	return t * t * (3 - 2*t)
}

// districtFactor is the share of a platoon's places filled in a district.
func districtFactor(d world.District) float64 {
	return [...]float64{0.2, 0.45, 0.75, 1}[d]
}

// Light is the signal shown at world time t to traffic on edge (by id)
// arriving at its junction B (atB) or A: the junctions and phases the
// schedule's own lanes obey. An edge the lattice lacks shows green.
func (s *Schedule) Light(edge uint64, atB bool, t float64) Light {
	g := s.geomByID(edge)
	if g == nil {
		return Green
	}
	end, c := 0, g.spec.A
	if atB {
		end, c = 1, g.spec.B
	}
	return SignalLight(world.JunctionID(c), g.arms[end], g.spec.Dir, t)
}

// StopLine is how far from a junction's centre its stop lines lie, given
// the half width of its widest arm: where the lanes of the schedule begin
// and end.
func StopLine(maxHalfWidth float64) float64 {
	return max(maxHalfWidth, world.StreetHalfWidth) + world.WalkWidth + 1
}
