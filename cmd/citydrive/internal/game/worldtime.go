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
type worldTime struct {
	est   worldclock.Clock
	epoch time.Time // local time zero
	buf   []netsync.ClockSample
	fixed bool
	base  float64 // fixed: world time at game time 0
	based bool
}

func newWorldTime(fixed bool) *worldTime {
	return &worldTime{epoch: time.Now(), fixed: fixed, buf: make([]netsync.ClockSample, 0, 16)}
}

func (w *worldTime) local(t time.Time) float64 { return t.Sub(w.epoch).Seconds() }

// observe takes the samples c received since the last call.
func (w *worldTime) observe(c *netsync.Client) {
	w.buf = c.ClockSamples(w.buf[:0])
	for _, s := range w.buf {
		w.est.Add(w.local(s.Sent), s.World.Seconds(), w.local(s.Received))
	}
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
		return w.est.Now(w.local(t))
	}
	if !w.based {
		// to the second: a server whose clock starts at a round time (a
		// soak's) gives the same traffic every run
		w.base, w.based = math.Round(w.est.Now(w.local(t))-game), true
	}
	return w.base + game
}
