package netsync

import (
	"math"
	"time"
)

// CarRule is the server's rule for car snapshots: a car moves no faster
// than maxSpeed (m/s), plus slack metres in all for quantisation and
// datagram jitter (time is measured by the server, on arrival). The slack
// is a credit: a move longer than maxSpeed × elapsed spends it, a shorter
// one earns it back up to slack, so it cannot be collected over and over
// (a sustained speed above maxSpeed runs it out within slack metres). A
// snapshot breaking the rule is dropped (not relayed, not used for edit
// reach) and the car held at its last accepted position; a car is moved
// further only by a placement (the spawn, a granted Reset), which the
// next accepted snapshot must lie near.
//
// The same rule judges the cars other servers of a cluster relay
// (netsync/cluster), each against its own CarTrack, before this server's
// players are shown them.
type CarRule struct {
	MaxSpeed float64 // m/s; 0: every finite position is accepted
	Slack    float64 // metres
}

// CarRule is the car rule of these settings (MaxCarSpeed, CarSlack).
func (t Tuning) CarRule() CarRule { return CarRule{MaxSpeed: t.MaxCarSpeed, Slack: t.CarSlack} }

// CarTrack is one car's accepted position and any placement waiting for
// its first snapshot, as CarRule.Judge keeps it. The zero value is a car
// not seen yet: its first finite position is accepted.
type CarTrack struct {
	x, y, z float64 // the last accepted position
	at      time.Time
	have    bool
	credit  float64 // slack metres left

	px, pz, pr float64 // a placement: its centre and radius (horizontal)
	pat        time.Time
	placed     bool
}

// place makes the next accepted snapshot one within radius (plus what the
// car can drive since now) of (x, z), horizontally.
func (t *CarTrack) place(x, z, radius float64, now time.Time) {
	t.px, t.pz, t.pr, t.pat, t.placed = x, z, radius, now, true
}

// adopt accepts (x, y, z) as the car's position at now, with a full
// slack credit: a car handed over from another server of the cluster,
// which checked it there.
func (t *CarTrack) adopt(x, y, z, slack float64, now time.Time) {
	t.x, t.y, t.z, t.at, t.have, t.credit, t.placed = x, y, z, now, true, slack, false
}

// where is the place the car is held at (horizontal): the placement
// waiting, else the last accepted position; false if there is neither.
func (t *CarTrack) where() (x, z float64, ok bool) {
	if t.placed {
		return t.px, t.pz, true
	}
	return t.x, t.z, t.have
}

// Judge decides a snapshot at (x, y, z) metres arriving at now, updating
// the track; it reports whether the position is accepted.
func (r CarRule) Judge(t *CarTrack, x, y, z float64, now time.Time) bool {
	if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
		return false
	}
	if r.MaxSpeed == 0 {
		t.x, t.y, t.z, t.at, t.have = x, y, z, now, true
		return true
	}
	if t.placed {
		drive := r.MaxSpeed * max(0, now.Sub(t.pat).Seconds())
		if math.Hypot(x-t.px, z-t.pz) > t.pr+drive {
			return false
		}
		t.x, t.y, t.z, t.at, t.have, t.credit, t.placed = x, y, z, now, true, r.Slack, false
		return true
	}
	if !t.have { // no placement to check against (SpawnRadius 0)
		t.x, t.y, t.z, t.at, t.have, t.credit = x, y, z, now, true, r.Slack
		return true
	}
	drive := r.MaxSpeed * max(0, now.Sub(t.at).Seconds())
	d := math.Sqrt((x-t.x)*(x-t.x) + (y-t.y)*(y-t.y) + (z-t.z)*(z-t.z))
	if d > drive+t.credit {
		return false
	}
	t.credit = min(r.Slack, t.credit+drive-d)
	t.x, t.y, t.z, t.at = x, y, z, now
	return true
}
