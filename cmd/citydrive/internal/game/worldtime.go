package game

import (
	"math"
	"time"

	"citydrive/cmd/citydrive/internal/worldclock"
	"citydrive/netsync"
)

// worldTime is the session's reading of the server's world clock, the
// clock traffic and the drawn signals run on: the samples the connection
// brings (the Welcome's, then a ping every few seconds) feed a
// worldclock.Clock. Solo play reads it the same way, from the in-process
// server. Offline the game clock stands in.
//
// A FixedStep session (soak, pictures) runs faster or slower than real
// time, so it takes the world time once, at its first sample, and from
// then on advances it with the game clock: traffic then moves at the
// car's pace, not the wall clock's.
//
// A slowed server's world clock runs at its rate's share of real time
// (netsync's slowClock; the link tracks the rate). The estimator is fed,
// and read, in local time warped by the same rate (warp), so its offset
// stays put and its slewing stays for real errors: the world clock, and
// the traffic, follow the server at once when it slows or recovers. A
// FixedStep session does not: its traffic runs on the game clock, which
// owes nothing to the server's wall-clock pace (a soak's traffic must not
// depend on how loaded the machine was).
type worldTime struct {
	est   worldclock.Clock
	epoch time.Time // local time zero
	buf   []netsync.ClockSample
	fixed bool
	base  float64 // fixed: world time at game time 0
	based bool
	rate  float64 // the server's rate followed (1: full speed)
	local warp    // local seconds at the server's rate
}

func newWorldTime(fixed bool) *worldTime {
	return &worldTime{epoch: time.Now(), fixed: fixed, buf: make([]netsync.ClockSample, 0, 16), rate: 1}
}

func (w *worldTime) localSecs(t time.Time) float64 { return t.Sub(w.epoch).Seconds() }

// warped is local time t at the server's rate.
func (w *worldTime) warped(t time.Time) float64 { return w.local.at(w.localSecs(t)) }

// observe takes the samples c received since the last call.
func (w *worldTime) observe(c *netsync.Client) {
	w.buf = c.ClockSamples(w.buf[:0])
	for _, s := range w.buf {
		w.est.Add(w.warped(s.Sent), s.World.Seconds(), w.warped(s.Received))
	}
}

// follow makes the clock run at rate (the server's time per real time)
// from local time t on; a FixedStep clock stays on the game clock.
func (w *worldTime) follow(rate float64, t time.Time) {
	if w.fixed || rate == w.rate || !(rate > 0 && rate <= 1) {
		return
	}
	w.rate = rate
	w.local.set(w.localSecs(t), rate)
}

// now is the world time (seconds) at game time game.
func (w *worldTime) now(game float64) float64 { return w.at(game, time.Now()) }

// at is the world time at game time game, which is local time t.
func (w *worldTime) at(game float64, t time.Time) float64 {
	_, _, ok := w.est.Estimate()
	if !ok {
		return game
	}
	if !w.fixed {
		return w.est.Now(w.warped(t))
	}
	if !w.based {
		// to the second: a server whose clock starts at a round time (a
		// soak's) gives the same traffic every run
		w.base, w.based = math.Round(w.est.Now(w.warped(t))-game), true
	}
	return w.base + game
}

// followServer has the world clock follow the server's rate (Update).
func (s *Session) followServer() {
	if s.link != nil {
		s.world.follow(s.link.rate(), time.Now())
	}
}

// warp is a clock that runs at changing rates, piecewise: from the time
// t of a piece on, it reads v + rate·(t' − t). Before any piece it is the
// time itself. The last few pieces are kept, so that a clock sample taken
// before a change converts too.
type warp struct {
	pieces  [8]warpPiece
	n       int
	dropped bool // older pieces were let go
}

type warpPiece struct{ t, v, rate float64 }

// at is the warped reading of time t.
func (w *warp) at(t float64) float64 {
	for i := w.n - 1; i >= 0; i-- {
		if p := w.pieces[i]; t >= p.t {
			return p.v + p.rate*(t-p.t)
		}
	}
	if w.dropped { // before the oldest piece kept: extrapolated
		p := w.pieces[0]
		return p.v + p.rate*(t-p.t)
	}
	return t // before the first change: the time itself
}

// set changes the rate from time t on.
func (w *warp) set(t, rate float64) {
	v := w.at(t)
	if w.n == len(w.pieces) { // the oldest goes; times before the next extrapolate it
		copy(w.pieces[:], w.pieces[1:])
		w.n, w.dropped = w.n-1, true
	}
	w.pieces[w.n] = warpPiece{t: t, v: v, rate: rate}
	w.n++
}
