package netsync

import (
	"fmt"
	"math"

	"citydrive/voxel"
)

// rejection is why an edit request was refused. Each carries its metric
// label (citydrive_edits_rejected_total{reason}) and the sentence the
// player is shown.
type rejection uint8

const (
	admitted   rejection = iota
	notInArea            // the chunk was not delivered to this client
	noCar                // no car snapshot yet, so reach cannot be checked
	outOfReach           // the block is farther from the car than the reach
	tooFast              // the player's edit bucket is empty
	worldError           // the world refused or failed to commit it
	numRejections
)

// rejectionLabels are the metric labels, one per rejection; reach covers
// both reasons a reach check fails.
var rejectionLabels = [numRejections]string{
	admitted: "", notInArea: "area", noCar: "reach", outOfReach: "reach", tooFast: "rate", worldError: "world",
}

func (r rejection) label() string { return rejectionLabels[r] }

// verdict is the outcome of admitting one edit: the rejection (admitted
// when none) and, for outOfReach, how far the block is.
type verdict struct {
	why      rejection
	distance float64 // metres from the car, for outOfReach
}

// admission is the server's edit rule: an edit must be of a chunk this
// client holds, within reach (metres) of its latest car snapshot (0: any
// distance), and within its rate (edits per second, also the burst).
type admission struct {
	reach float64
	rate  float64
}

// check decides one edit. holds is whether the client holds the chunk;
// car is its latest car position (have: it sent one); bucket is its token
// bucket, which an admitted edit takes a token from.
func (a admission) check(e voxel.BlockEdit, holds bool, carX, carY, carZ float64, have bool, bucket *tokens) verdict {
	if !holds {
		return verdict{why: notInArea}
	}
	if a.reach > 0 {
		if !have {
			return verdict{why: noCar}
		}
		bx, by, bz := blockCentre(e.Pos, e.Index)
		if d := math.Sqrt((bx-carX)*(bx-carX) + (by-carY)*(by-carY) + (bz-carZ)*(bz-carZ)); d > a.reach {
			return verdict{why: outOfReach, distance: d}
		}
	}
	if !bucket.take() {
		return verdict{why: tooFast}
	}
	return verdict{why: admitted}
}

// sentence is what the player is told about v.
func (a admission) sentence(v verdict) string {
	switch v.why {
	case notInArea:
		return "that chunk is not loaded in your area"
	case noCar:
		return "no car position yet: the server has accepted none of your car (a new car starts near the spawn), so it cannot check your reach"
	case outOfReach:
		return fmt.Sprintf("out of reach: that block is %.0f m from your car; you can edit within %g m", v.distance, a.reach)
	case tooFast:
		return fmt.Sprintf("too many edits: at most %g per second", a.rate)
	}
	return ""
}

// blockCentre is the world position (metres) of the centre of block index
// of chunk pos.
func blockCentre(pos voxel.ChunkPos, index uint16) (x, y, z float64) {
	ox, oy, oz := pos.Origin()
	lx, ly, lz := voxel.Coords(int(index))
	return float64(ox+int64(lx)) + 0.5, float64(oy+int64(ly)) + 0.5, float64(oz+int64(lz)) + 0.5
}

// tokens is a token bucket holding at most burst tokens, refilled at rate
// per second: the per-player edit rate limit, and the other budgets.
type tokens struct {
	n, rate, burst float64
}

// newTokens is a full bucket whose burst is its rate.
func newTokens(rate float64) tokens { return newBucket(rate, rate) }

// newBucket is a full bucket of burst tokens refilled at rate.
func newBucket(rate, burst float64) tokens { return tokens{n: burst, rate: rate, burst: burst} }

// refill adds dt seconds' worth of tokens.
func (t *tokens) refill(dt float64) { t.n = min(t.burst, t.n+dt*t.rate) }

// take spends one token if there is one.
func (t *tokens) take() bool {
	if t.n < 1 {
		return false
	}
	t.n--
	return true
}
