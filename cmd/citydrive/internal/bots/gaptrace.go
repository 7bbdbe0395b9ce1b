package bots

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"citydrive/netsync"
	"citydrive/netsync/wire"
)

// The gap trace (Options.GapTrace, `bots -gaps-trace`): a diagnostic, off
// by default, that explains each long gap the watch judges (gapwatch.go),
// at a handover or at the baseline's instants. The watcher keeps its last
// traceTicks ticks with its connections then (each one's server and role),
// each connection keeps its last carLogLen relays of every car
// (netsync.ClientConfig.CarLog), and the fleet its cars' send times: a gap
// of gapTraceMin or more writes what the watcher's ticks, each connection
// and the car's own bot did from gapTraceBefore before the car's last
// sighting to the tick it was shown again.
const (
	// gapTraceMin is what the gap files print as 100 ms or more (they
	// round to the millisecond; the ticks' own jitter puts three 30 Hz
	// ticks either side of 100 ms).
	gapTraceMin    = 99500 * time.Microsecond
	gapTraceBefore = 300 * time.Millisecond
	// traceTicks is over 4 s at 30 Hz: longer than gapTraceBefore +
	// gapRecent + gapWatchFor, a traced gap's longest window.
	traceTicks = 128
	// carLogLen is over 2 s of a car's relays at 30 Hz: a gap of up to
	// about 1.7 s is traced whole (longer ones say their log was cut).
	carLogLen = 64
)

// heardLogger is a connection's log of the cars it heard
// (netsync.Client.HeardLog).
type heardLogger interface {
	HeardLog(player uint32, dst []netsync.HeardAt) ([]netsync.HeardAt, bool)
}

// connRole is what a connection was to the watcher at a tick.
type connRole uint8

const (
	rolePrimary connRole = iota + 1
	roleSpare
	roleSpareReady // its server has heard the car: the handover can switch to it
	roleLingered   // kept past the rules' drop: the old primary still shows cars the new one does not
)

// tickConn is one of the watcher's connections at a tick (c nil: none).
type tickConn struct {
	c    heardLogger
	addr string
	role connRole
}

// tickRec is one of the watcher's ticks: when, and its connections after
// the handover's Step.
type tickRec struct {
	at    time.Time
	conns [2]tickConn
}

// gapTracer is one watcher's trace: its ticks in a ring, next at n %
// traceTicks, and the traces of its long gaps.
type gapTracer struct {
	bot      int
	ticks    [traceTicks]tickRec
	n        int
	heard    []netsync.HeardAt // scratch
	sent     []carSeen         // scratch
	switches []time.Time       // scratch
	// clock is when the watcher reads its cars (time.Now): a tick's
	// time is when its ticker fired, and a loaded process takes it later.
	clock func() time.Time
}

func newGapTracer(bot int) *gapTracer { return &gapTracer{bot: bot, clock: time.Now} }

// tick records a tick of the watcher's at now, with its connections.
func (t *gapTracer) tick(now time.Time, conns [2]tickConn) {
	t.ticks[t.n%traceTicks] = tickRec{at: now, conns: conns}
	t.n++
}

// GapTrace is one long gap explained: every time is in milliseconds from
// the car's last sighting before the switch (or the baseline's instant).
type GapTrace struct {
	Kind     string  `json:"kind"` // "handover" or "baseline"
	GapMs    float64 `json:"gap_ms"`
	Car      uint32  `json:"car"`
	Bot      int     `json:"bot"` // the watcher
	LastSeq  uint32  `json:"last_seq"`
	ShownSeq uint32  `json:"shown_seq"`
	// AtMs is the switch (or the baseline's instant); ShownMs the tick
	// the newer snapshot was shown, AtToShownMs the one from the other;
	// FromMs where the gap is timed from (the last sighting, or the car's
	// send of the snapshot after it where that came later).
	AtMs        float64 `json:"at_ms"`
	ShownMs     float64 `json:"shown_ms"`
	AtToShownMs float64 `json:"at_to_shown_ms"`
	FromMs      float64 `json:"from_ms"`
	// ReadMs is when the show tick actually ran (read the cars): its
	// ticker fired at ShownMs. The relays and sends are those until then.
	ReadMs float64 `json:"read_ms"`
	// TicksMs are the watcher's ticks from gapTraceBefore before the last
	// sighting to the show; LongestTickMs the longest between two of
	// them, from LongestTickFromMs.
	TicksMs           []float64   `json:"ticks_ms"`
	LongestTickMs     float64     `json:"longest_tick_ms"`
	LongestTickFromMs float64     `json:"longest_tick_from_ms"`
	Conns             []TraceConn `json:"conns"`
	// Sent is the car's own bot's sends, from the last seq seen on, until
	// the show.
	Sent []TraceSeq `json:"sent"`
	// CarSwitchesMs are the car's own bot's switches in the window: its
	// snapshots then go to a new server.
	CarSwitchesMs []float64    `json:"car_switches_ms,omitempty"`
	Switch        *TraceSwitch `json:"switch,omitempty"` // a handover's
}

// TraceConn is one of the watcher's connections over the window: its
// server, its roles tick by tick, and every relay of the car it heard.
type TraceConn struct {
	Addr  string      `json:"addr"`
	Roles []TraceRole `json:"roles"`
	Heard []TraceSeq  `json:"heard"` // the same seq again: relayed again, nothing newer
	// LogCut: the connection's log had forgotten relays from the window's
	// start.
	LogCut bool `json:"log_cut,omitempty"`
	// GoneMs is the first tick it was no longer one of the watcher's
	// connections (closed or lost), if before the show.
	GoneMs *float64 `json:"gone_ms,omitempty"`
}

// TraceRole is a run of the watcher's ticks at which a connection had one
// role: "primary", "spare", "spare ready", "old primary" (the spare that
// was the primary before), "old primary lingering" (kept past the rules'
// drop only because it still showed cars the new one did not).
type TraceRole struct {
	Role   string  `json:"role"`
	FromMs float64 `json:"from_ms"` // its first tick
	ToMs   float64 `json:"to_ms"`   // its last
}

// TraceSeq is a car's snapshot seq at a time.
type TraceSeq struct {
	Seq uint32  `json:"seq"`
	Ms  float64 `json:"ms"`
}

// TraceSwitch is the handover at a switch: the servers it went from and
// to, whether the old primary was kept past the switch's tick (as the
// spare), whether lingering kept it at some tick of the window, and when
// it was gone, in ms from the switch (nil: still held at the show).
type TraceSwitch struct {
	From         string   `json:"from"`
	To           string   `json:"to"`
	OldKept      bool     `json:"old_kept"`
	OldLingered  bool     `json:"old_lingered"`
	OldDroppedMs *float64 `json:"old_dropped_ms"`
}

// explain is the trace of car s's gap, watched as w and timed from from,
// shown at now.
func (t *gapTracer) explain(w watched, s wire.CarSnapshot, from, now time.Time, f *fleet) GapTrace {
	t0 := w.last.at
	ms := func(at time.Time) float64 { return float64(at.Sub(t0)) / float64(time.Millisecond) }
	start, read := t0.Add(-gapTraceBefore), t.clock()
	tr := GapTrace{Kind: "handover", GapMs: float64(now.Sub(from)) / float64(time.Millisecond), Car: s.Player, Bot: t.bot,
		LastSeq: w.last.seq, ShownSeq: s.Seq, AtMs: ms(w.at), ShownMs: ms(now), AtToShownMs: float64(now.Sub(w.at)) / float64(time.Millisecond),
		FromMs: ms(from), ReadMs: ms(read)}
	if w.baseline {
		tr.Kind = "baseline"
	}
	var win []tickRec // the window's ticks, oldest first
	for i := max(0, t.n-traceTicks); i < t.n; i++ {
		if r := t.ticks[i%traceTicks]; !r.at.Before(start) && !r.at.After(now) {
			win = append(win, r)
		}
	}
	for i, r := range win {
		tr.TicksMs = append(tr.TicksMs, ms(r.at))
		if i > 0 {
			if d := float64(r.at.Sub(win[i-1].at)) / float64(time.Millisecond); d > tr.LongestTickMs {
				tr.LongestTickMs, tr.LongestTickFromMs = d, ms(win[i-1].at)
			}
		}
	}
	for _, c := range t.connsOf(win) {
		tc := TraceConn{Addr: t.addrOf(c, win)}
		for i, r := range win {
			role, ok := t.roleAt(c, r)
			switch {
			case !ok:
				if tc.GoneMs == nil && t.heldBefore(c, win[:i]) {
					g := ms(r.at)
					tc.GoneMs = &g
				}
				continue
			case len(tc.Roles) > 0 && tc.Roles[len(tc.Roles)-1].Role == role && tc.GoneMs == nil:
				tc.Roles[len(tc.Roles)-1].ToMs = ms(r.at)
				continue
			}
			tc.Roles = append(tc.Roles, TraceRole{Role: role, FromMs: ms(r.at), ToMs: ms(r.at)})
		}
		var cut bool
		t.heard, cut = c.HeardLog(s.Player, t.heard[:0])
		tc.LogCut = cut && len(t.heard) > 0 && t.heard[0].At.After(start)
		for _, h := range t.heard {
			if !h.At.Before(start) && !h.At.After(read) {
				tc.Heard = append(tc.Heard, TraceSeq{Seq: h.Seq, Ms: ms(h.At)})
			}
		}
		tr.Conns = append(tr.Conns, tc)
	}
	t.sent = f.sendsFrom(s.Player, w.last.seq, read, t.sent[:0])
	for _, c := range t.sent {
		tr.Sent = append(tr.Sent, TraceSeq{Seq: c.seq, Ms: ms(c.at)})
	}
	t.switches = f.switchesIn(s.Player, start, read, t.switches[:0])
	for _, at := range t.switches {
		tr.CarSwitchesMs = append(tr.CarSwitchesMs, ms(at))
	}
	if !w.baseline {
		tr.Switch = t.switchAt(w.at, now)
	}
	return tr
}

// connsOf is every connection of the window's ticks, in the order they
// first appear.
func (t *gapTracer) connsOf(win []tickRec) []heardLogger {
	var cs []heardLogger
	for _, r := range win {
		for _, c := range r.conns {
			if c.c != nil && !containsConn(cs, c.c) {
				cs = append(cs, c.c)
			}
		}
	}
	return cs
}

func containsConn(cs []heardLogger, c heardLogger) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

func (t *gapTracer) addrOf(c heardLogger, win []tickRec) string {
	for _, r := range win {
		for _, rc := range r.conns {
			if rc.c == c {
				return rc.addr
			}
		}
	}
	return ""
}

// heldBefore reports whether c was one of the connections at any of ticks.
func (t *gapTracer) heldBefore(c heardLogger, ticks []tickRec) bool {
	for _, r := range ticks {
		if _, ok := t.roleAt(c, r); ok {
			return true
		}
	}
	return false
}

// roleAt is c's role at tick r, named (a spare that was the primary at an
// earlier tick the ring holds is the old primary).
func (t *gapTracer) roleAt(c heardLogger, r tickRec) (string, bool) {
	for _, rc := range r.conns {
		if rc.c != c {
			continue
		}
		switch {
		case rc.role == rolePrimary:
			return "primary", true
		case rc.role == roleLingered:
			return "old primary lingering", true
		case t.wasPrimary(c, r.at):
			return "old primary", true
		case rc.role == roleSpareReady:
			return "spare ready", true
		}
		return "spare", true
	}
	return "", false
}

// wasPrimary reports whether c was the primary at a tick before at.
func (t *gapTracer) wasPrimary(c heardLogger, at time.Time) bool {
	for i := max(0, t.n-traceTicks); i < t.n; i++ {
		r := t.ticks[i%traceTicks]
		if r.at.Before(at) && r.conns[0].c == c && r.conns[0].role == rolePrimary {
			return true
		}
	}
	return false
}

// switchAt is the handover at the switch at at: the primary of the last
// tick before it (the old) and of the first at or after it (the new), and
// what became of the old one by now.
func (t *gapTracer) switchAt(at, now time.Time) *TraceSwitch {
	var old, nw *tickConn
	sw := &TraceSwitch{}
	for i := max(0, t.n-traceTicks); i < t.n && !t.ticks[i%traceTicks].at.After(now); i++ {
		r := &t.ticks[i%traceTicks]
		if r.at.Before(at) {
			old = &r.conns[0]
			continue
		}
		if old == nil {
			break
		}
		if nw == nil {
			nw = &r.conns[0]
			sw.OldKept = r.conns[1].c == old.c
		}
		switch {
		case r.conns[1].c == old.c:
			sw.OldLingered = sw.OldLingered || r.conns[1].role == roleLingered
		case r.conns[0].c != old.c && sw.OldDroppedMs == nil:
			d := float64(r.at.Sub(at)) / float64(time.Millisecond)
			sw.OldDroppedMs = &d
		}
	}
	if old != nil {
		sw.From = old.addr
	}
	if nw != nil {
		sw.To = nw.addr
	}
	return sw
}

// WriteGapTrace writes every bot's gap traces (Options.GapTrace), one
// JSON object a line.
func (r Report) WriteGapTrace(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, b := range r.Bots {
		for _, tr := range b.GapTraces {
			if err := enc.Encode(tr); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
