package netsync

import (
	"math"
	"time"
)

// carRule is the server's rule for car snapshots: a car moves no faster
// than maxSpeed (m/s), plus slack metres for quantisation and datagram
// jitter (time is measured by the server, on arrival). Moves are measured
// from an anchor, an accepted position renewed at most every anchorEvery,
// so the slack cannot be collected snapshot by snapshot: it buys at most
// slack metres per anchorEvery. A snapshot breaking the rule is
// dropped (not relayed, not used for edit reach). A car that really was
// moved (a respawn) is accepted at its new place once its snapshots there
// have been plausible among themselves for reanchor.
type carRule struct {
	maxSpeed float64 // m/s; 0: every finite position is accepted
	slack    float64 // metres
	reanchor time.Duration
}

// anchorEvery is how often the anchor moves up to the accepted position.
const anchorEvery = time.Second

// carTrack is one player's accepted car position and, while its snapshots
// are rejected, the candidate track they form.
type carTrack struct {
	x, y, z float64 // the anchor
	at      time.Time
	have    bool

	cx, cy, cz float64
	cat, since time.Time
	cand       bool
}

// reach reports whether (x, y, z) at t is within reach of (x0, y0, z0) at
// t0 for a car.
func (r carRule) reach(x0, y0, z0 float64, t0 time.Time, x, y, z float64, t time.Time) bool {
	dt := max(0, t.Sub(t0).Seconds())
	dx, dy, dz := x-x0, y-y0, z-z0
	return math.Sqrt(dx*dx+dy*dy+dz*dz) <= r.maxSpeed*dt+r.slack
}

// judge decides a snapshot at (x, y, z) metres arriving at now, updating
// the track; it reports whether the position is accepted.
func (r carRule) judge(t *carTrack, x, y, z float64, now time.Time) bool {
	if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
		return false
	}
	if r.maxSpeed == 0 || !t.have {
		t.x, t.y, t.z, t.at, t.have, t.cand = x, y, z, now, true, false
		return true
	}
	if r.reach(t.x, t.y, t.z, t.at, x, y, z, now) {
		if now.Sub(t.at) >= anchorEvery {
			t.x, t.y, t.z, t.at = x, y, z, now
		}
		t.cand = false
		return true
	}
	if t.cand && r.reach(t.cx, t.cy, t.cz, t.cat, x, y, z, now) {
		t.cx, t.cy, t.cz, t.cat = x, y, z, now
		if now.Sub(t.since) >= r.reanchor {
			t.x, t.y, t.z, t.at, t.cand = x, y, z, now, false
			return true
		}
		return false
	}
	t.cx, t.cy, t.cz, t.cat, t.since, t.cand = x, y, z, now, now, true
	return false
}
