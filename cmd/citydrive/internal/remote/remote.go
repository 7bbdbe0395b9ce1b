// Package remote interpolates other players' cars from the snapshots the
// server relays: each car is shown a short delay in the past, between the
// two snapshots around that moment, so 30 Hz updates look smooth and a
// lost datagram costs nothing. Pure: times are seconds on the caller's
// clock.
package remote

import (
	"math"

	"citydrive/netsync/wire"
)

// Delay is how far in the past cars are shown: a little over two server
// ticks at 30 Hz, so one lost snapshot still leaves a pair to blend.
const Delay = 0.1

// forget drops a car not heard from for this long.
const forget = 3.0

const history = 4

type sample struct {
	t    float64
	snap wire.CarSnapshot
}

type track struct {
	samples [history]sample
	n       int // valid samples, newest at index (head-1)
	head    int
	last    float64
}

// Pose is an interpolated car.
type Pose struct {
	Player  uint32
	X, Y, Z float64
	Heading float64 // radians, 0 = +X, left-positive
	Speed   float64
}

// Cars tracks every remote car.
type Cars struct {
	tracks map[uint32]*track
	poses  []Pose
}

// New returns an empty tracker.
func New() *Cars { return &Cars{tracks: map[uint32]*track{}} }

// Observe records snapshots received by time now. Older or repeated
// sequence numbers are ignored (latest wins).
func (c *Cars) Observe(now float64, snaps []wire.CarSnapshot) {
	for _, s := range snaps {
		tr := c.tracks[s.Player]
		if tr == nil {
			tr = &track{}
			c.tracks[s.Player] = tr
		}
		if tr.n > 0 {
			newest := tr.samples[(tr.head+history-1)%history].snap
			if !wire.SeqNewer(s.Seq, newest.Seq) {
				continue
			}
		}
		tr.samples[tr.head] = sample{t: now, snap: s}
		tr.head = (tr.head + 1) % history
		tr.n = min(tr.n+1, history)
		tr.last = now
	}
}

// Poses returns every car's pose at time now − Delay (valid until the next
// call), forgetting cars silent for a while.
func (c *Cars) Poses(now float64) []Pose {
	c.poses = c.poses[:0]
	at := now - Delay
	for id, tr := range c.tracks {
		if now-tr.last > forget {
			delete(c.tracks, id)
			continue
		}
		c.poses = append(c.poses, tr.pose(at))
	}
	return c.poses
}

// pose blends the two samples around time at; before the oldest it holds
// the oldest, after the newest it extrapolates briefly along the heading.
func (tr *track) pose(at float64) Pose {
	get := func(i int) sample { return tr.samples[(tr.head-tr.n+i+2*history)%history] }
	if oldest := get(0); at <= oldest.t {
		return toPose(oldest.snap)
	}
	for i := 1; i < tr.n; i++ {
		a, b := get(i-1), get(i)
		if at <= b.t {
			if b.t <= a.t { // two snapshots in one batch
				return toPose(b.snap)
			}
			return lerp(a.snap, b.snap, (at-a.t)/(b.t-a.t))
		}
	}
	newest := get(tr.n - 1)
	return extrapolate(newest, math.Min(at-newest.t, maxExtrapolate))
}

// maxExtrapolate caps how far a silent car is carried on (seconds).
const maxExtrapolate = 0.25

func toPose(s wire.CarSnapshot) Pose {
	x, y, z := s.Position()
	return Pose{Player: s.Player, X: x, Y: y, Z: z, Heading: s.HeadingRad(), Speed: s.SpeedMS()}
}

func extrapolate(s sample, dt float64) Pose {
	p := toPose(s.snap)
	p.X += math.Cos(p.Heading) * p.Speed * dt
	p.Z -= math.Sin(p.Heading) * p.Speed * dt
	return p
}

func lerp(a, b wire.CarSnapshot, f float64) Pose {
	pa, pb := toPose(a), toPose(b)
	d := math.Remainder(pb.Heading-pa.Heading, 2*math.Pi) // shortest turn
	return Pose{
		Player:  b.Player,
		X:       pa.X + (pb.X-pa.X)*f,
		Y:       pa.Y + (pb.Y-pa.Y)*f,
		Z:       pa.Z + (pb.Z-pa.Z)*f,
		Heading: pa.Heading + d*f,
		Speed:   pa.Speed + (pb.Speed-pa.Speed)*f,
	}
}
