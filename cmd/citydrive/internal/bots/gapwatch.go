package bots

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"citydrive/cmd/citydrive/internal/quantile"
	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// How a bot times the cars it sees across a handover. The cars it saw
// within gapRecent before the switch that are this process's bots (the
// fleet: their place and send times are known) well inside its area
// (gapMargin chunks in from its edge) are watched until a newer snapshot
// of each is shown. A car's gap is from the later of its last sighting
// and the moment its bot sent the snapshot after that one, to the tick
// the bot is shown a newer one: a car whose own bot was late to send
// (the bots share the machine) is not the handover's gap. A watched car
// whose bot drives out of that inner area before it is shown has left
// the view and is not counted; one still inside and not shown within
// gapWatchFor is lost: a hole in what the player sees.
//
// The baseline is the same watch started where there is no handover:
// every gapBaseEvery, at a tick gapQuiet or more after the watcher's
// connections last changed (a switch, a spare opened, dropped or lost),
// and given up if they change before its cars are shown. A switch's
// watch lands in a long interval between two of a car's updates more
// often than a short one (the longer, the likelier): the baseline's
// instants sample the intervals the same way, and what the handover adds
// is the difference between the two distributions, not the handover's
// gap itself (the path bot → server → NATS → server → bot, each hop ticked,
// leaves a car without a new snapshot for a tick or more now and then,
// handover or not).
//
// The old measure is kept beside it, for comparison with earlier runs:
// every car seen within gapRecent, its gap from its last sighting, and
// those not seen again within gapWatchFor, wherever they drove.
const (
	gapRecent   = 250 * time.Millisecond
	gapWatchFor = 2 * time.Second
	// gapMargin keeps the watch off the area's edge, where a car is
	// legitimately shown or not depending on which tick's position each
	// server judged (a chunk is 32 m: half a second for two cars closing
	// at 30 m/s each): the servers relay every car whose chunk the area
	// covers.
	gapMargin = 1
	// fleetSends is how many of its latest snapshots' send times the
	// fleet keeps per car: over 3 s at 30 Hz, longer than a watch.
	fleetSends = 100
	// gapBaseEvery is how often a baseline watch starts; gapQuiet how
	// long the watcher's connections must have stayed as they are: the
	// longest a switch's watch lasts, so the two never overlap.
	gapBaseEvery = time.Second
	gapQuiet     = gapWatchFor
)

// fleet is where each bot of this process drives, by the id the world
// shows its car under: its car's chunk and when it sent its latest
// snapshots. Only these cars can be known to be in a watcher's view
// while it does not see them; another process's cars are not judged.
// Safe from every bot's goroutine.
type fleet struct {
	mu   sync.Mutex
	cars map[uint32]*fleetCar
}

type fleetCar struct {
	chunk voxel.ChunkPos
	sends [fleetSends]carSeen // a ring, next at n % fleetSends
	n     int
	// switches are its own handovers' latest (a ring, next at ns %
	// fleetSwitches), for the gap trace.
	switches [fleetSwitches]time.Time
	ns       int
}

// fleetSwitches is how many of a car's own switches the fleet keeps: a
// car switches a few times a minute.
const fleetSwitches = 4

// switched says car id (its bot) switched server at at.
func (f *fleet) switched(id uint32, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fc := f.cars[id]; fc != nil {
		fc.switches[fc.ns%fleetSwitches] = at
		fc.ns++
	}
}

// switchesIn appends car id's own switches from from to until.
func (f *fleet) switchesIn(id uint32, from, until time.Time, dst []time.Time) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.cars[id]
	if fc == nil {
		return dst
	}
	for i := max(0, fc.ns-fleetSwitches); i < fc.ns; i++ {
		if at := fc.switches[i%fleetSwitches]; !at.Before(from) && !at.After(until) {
			dst = append(dst, at)
		}
	}
	return dst
}

func newFleet() *fleet { return &fleet{cars: map[uint32]*fleetCar{}} }

// put says car id is in chunk c, having sent snapshot seq at; was (if
// not zero and not id) is the id the car was shown under before (a
// failover gives it another).
func (f *fleet) put(id, was uint32, c voxel.ChunkPos, seq uint32, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if was != 0 && was != id {
		delete(f.cars, was)
	}
	fc := f.cars[id]
	if fc == nil {
		fc = &fleetCar{}
		f.cars[id] = fc
	}
	fc.chunk = c
	fc.sends[fc.n%fleetSends] = carSeen{seq: seq, at: at}
	fc.n++
}

// drop forgets car id (its bot ended).
func (f *fleet) drop(id uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.cars, id)
}

// where is car id's chunk, if it is one of this process's bots.
func (f *fleet) where(id uint32) (voxel.ChunkPos, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fc := f.cars[id]; fc != nil {
		return fc.chunk, true
	}
	return voxel.ChunkPos{}, false
}

// sentAfter is when car id sent its first snapshot newer than seq, if
// the fleet still holds it.
func (f *fleet) sentAfter(id, seq uint32) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.cars[id]
	if fc == nil {
		return time.Time{}, false
	}
	var first carSeen
	found := false
	for i := max(0, fc.n-fleetSends); i < fc.n; i++ {
		s := fc.sends[i%fleetSends]
		if wire.SeqNewer(s.seq, seq) && (!found || wire.SeqNewer(first.seq, s.seq)) {
			first, found = s, true
		}
	}
	return first.at, found
}

// sendsFrom appends to dst the sends of car id the fleet holds from seq
// on (seq itself and those newer) made by until, oldest first.
func (f *fleet) sendsFrom(id, seq uint32, until time.Time, dst []carSeen) []carSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.cars[id]
	if fc == nil {
		return dst
	}
	for i := max(0, fc.n-fleetSends); i < fc.n; i++ {
		if s := fc.sends[i%fleetSends]; !wire.SeqNewer(seq, s.seq) && !s.at.After(until) {
			dst = append(dst, s)
		}
	}
	return dst
}

// carSeen is a car's snapshot seq seen (or sent) at at.
type carSeen struct {
	seq uint32
	at  time.Time
}

// gapWatch times one bot's view of the other cars across its handovers,
// and at the baseline's instants, into the bot's figures.
type gapWatch struct {
	fleet    *fleet
	lastSeen map[uint32]carSeen // each car's newest snapshot seen, for gapWatchFor
	watch    map[uint32]watched // judged, watched since a switch or a baseline instant
	any      map[uint32]carSeen // the old measure: every car seen before the last switch
	anyUntil time.Time
	// changed is when the watcher's connections last changed (zero:
	// not since the handover began); nextBase the baseline's next instant.
	changed, nextBase time.Time
	trace             *gapTracer // nil: no trace (Options.GapTrace)
	// period is the watcher's tick period (0: ticks not judged); ticks
	// its latest ticks, a ring, next at nTicks % gapTicks.
	period time.Duration
	ticks  [gapTicks]time.Time
	nTicks int
}

// gapTicks holds the watcher's ticks over the longest watch (gapWatchFor
// at up to 60 Hz).
const gapTicks = 128

// watcherLate reports whether, between from and now, two of the
// watcher's ticks came more than lateTick periods apart: the watcher (the
// load generator) fell behind and sees every car late, so that gap is
// its own, not the servers'.
func (g *gapWatch) watcherLate(from, now time.Time) bool {
	if g.period <= 0 {
		return false
	}
	var prev time.Time
	for i := max(0, g.nTicks-gapTicks); i < g.nTicks; i++ {
		t := g.ticks[i%gapTicks]
		if !prev.IsZero() && t.After(from) && !t.After(now) && t.Sub(prev) > lateTick*g.period {
			return true
		}
		prev = t
	}
	return false
}

// watched is a car watched across a switch (or a baseline instant) at at:
// last seen before it, and lost if not shown again by until.
type watched struct {
	last      carSeen
	at, until time.Time
	baseline  bool
}

// gapFigures is one kind of watch's counts, in the bot's figures.
type gapFigures struct {
	watched, lost, left, late *int
	gaps                      *[]float64
}

func (g *gapWatch) figures(baseline bool, res *Bot) gapFigures {
	if baseline {
		return gapFigures{&res.BaselineWatched, &res.BaselineCarsLost, &res.BaselineLeftView, &res.BaselineWatcherLate, &res.BaselineGaps}
	}
	return gapFigures{&res.HandoverWatched, &res.HandoverCarsLost, &res.HandoverLeftView, &res.HandoverWatcherLate, &res.HandoverGaps}
}

func newGapWatch(f *fleet, now time.Time) *gapWatch {
	return &gapWatch{fleet: f, lastSeen: map[uint32]carSeen{}, watch: map[uint32]watched{}, any: map[uint32]carSeen{},
		changed: now, nextBase: now.Add(gapQuiet)}
}

// inView reports whether chunk c is inside ar by gapMargin.
func inView(ar *area, c voxel.ChunkPos) bool {
	return plan.InCylinder(ar.centre, ar.radius-gapMargin, c)
}

// switched starts the watch at a switch at now, the bot's area being ar
// (a car still watched from a switch before is watched on).
func (g *gapWatch) switched(now time.Time, ar *area, res *Bot) {
	g.connsChanged(now, res)
	clear(g.any) // the old measure forgot them
	for id, s := range g.lastSeen {
		if now.Sub(s.at) > gapRecent {
			continue
		}
		g.any[id] = s
	}
	g.start(now, ar, false, res)
	g.anyUntil = now.Add(gapWatchFor)
}

// connsChanged is the watcher's connections changing at now (a switch, a
// spare opened, dropped or lost): a baseline watch under way is given up,
// and the next one waits gapQuiet.
func (g *gapWatch) connsChanged(now time.Time, res *Bot) {
	for id, w := range g.watch {
		if w.baseline {
			delete(g.watch, id)
			res.BaselineWatched--
		}
	}
	g.changed = now
}

// start watches, from now, the cars seen within gapRecent that are this
// process's and in the inner area (the others are counted as not judged
// at a switch); a car watched already is watched on.
func (g *gapWatch) start(now time.Time, ar *area, baseline bool, res *Bot) {
	fig := g.figures(baseline, res)
	for id, s := range g.lastSeen {
		if now.Sub(s.at) > gapRecent {
			continue
		}
		c, ok := g.fleet.where(id)
		switch {
		case !ok:
			if !baseline {
				res.HandoverUnjudged++
			}
		case inView(ar, c):
			if _, ok := g.watch[id]; !ok {
				g.watch[id] = watched{last: s, at: now, until: now.Add(gapWatchFor), baseline: baseline}
				*fig.watched++
			}
		}
	}
}

// seen takes the cars shown at now (the bot's area being ar): a baseline
// watch due starts first (a switch's starts before the tick's cars too),
// then each newer snapshot, and for a watched car its gap; then the
// watched cars that left the view, and once the watch is over those never
// shown.
func (g *gapWatch) seen(now time.Time, cars []wire.CarSnapshot, ar *area, res *Bot) {
	g.ticks[g.nTicks%gapTicks] = now
	g.nTicks++
	if !now.Before(g.nextBase) && now.Sub(g.changed) >= gapQuiet {
		g.start(now, ar, true, res)
		g.nextBase = now.Add(gapBaseEvery)
	}
	for _, s := range cars {
		// Only a newer snapshot is the car seen again: the handover's
		// merged view steps back one when the connection that had the
		// newest is closed.
		if old, ok := g.lastSeen[s.Player]; ok && !wire.SeqNewer(s.Seq, old.seq) {
			continue
		}
		g.lastSeen[s.Player] = carSeen{seq: s.Seq, at: now}
		if w, ok := g.any[s.Player]; ok {
			res.HandoverAnyGap = max(res.HandoverAnyGap, now.Sub(w.at))
			delete(g.any, s.Player)
		}
		if w, ok := g.watch[s.Player]; ok {
			from := w.last.at
			if sent, ok := g.fleet.sentAfter(s.Player, w.last.seq); ok && sent.After(from) {
				from = sent
			}
			fig := g.figures(w.baseline, res)
			gap := max(0, now.Sub(from))
			if g.watcherLate(from, now) {
				*fig.late++
			} else {
				*fig.gaps = append(*fig.gaps, gap.Seconds())
			}
			if g.trace != nil && gap >= gapTraceMin {
				res.GapTraces = append(res.GapTraces, g.trace.explain(w, s, from, now, g.fleet))
			}
			delete(g.watch, s.Player)
		}
	}
	for id, w := range g.watch {
		fig := g.figures(w.baseline, res)
		switch c, ok := g.fleet.where(id); {
		case !ok || !inView(ar, c):
			*fig.left++
			delete(g.watch, id)
		case now.After(w.until):
			*fig.lost++
			delete(g.watch, id)
		}
	}
	if now.After(g.anyUntil) {
		res.HandoverAnyLost += len(g.any)
		clear(g.any)
	}
	for id, s := range g.lastSeen { // bounded: cars not seen for a while are forgotten
		if now.Sub(s.at) > gapWatchFor {
			delete(g.lastSeen, id)
		}
	}
}

// handoverGaps adds up the bots' gap figures for the report.
type handoverGaps struct {
	gaps, base                    []float64 // seconds
	lost, left, unjudged, anyLost int
	baseLost, baseLeft            int
	late, baseLate                int
	anyGap                        time.Duration
}

func (h *handoverGaps) add(b Bot) {
	h.gaps, h.base = append(h.gaps, b.HandoverGaps...), append(h.base, b.BaselineGaps...)
	h.lost, h.left, h.unjudged = h.lost+b.HandoverCarsLost, h.left+b.HandoverLeftView, h.unjudged+b.HandoverUnjudged
	h.baseLost, h.baseLeft = h.baseLost+b.BaselineCarsLost, h.baseLeft+b.BaselineLeftView
	h.late, h.baseLate = h.late+b.HandoverWatcherLate, h.baseLate+b.BaselineWatcherLate
	h.anyGap, h.anyLost = max(h.anyGap, b.HandoverAnyGap), h.anyLost+b.HandoverAnyLost
}

// String is the report's wording: what is counted, then the figures.
func (h handoverGaps) String() string {
	s := fmt.Sprintf("car gap at a handover (this process's cars in view throughout, n=%d)", len(h.gaps)) + gapQuantiles(h.gaps)
	s += fmt.Sprintf("; lost (in view, not shown within %v): %d; left the view first: %d; not judged (other processes' cars): %d; "+
		"the watcher's own tick late within the gap (not counted): %d; "+
		"the same at no handover (the baseline, n=%d)", gapWatchFor, h.lost, h.left, h.unjudged, h.late, len(h.base)) + gapQuantiles(h.base)
	return s + fmt.Sprintf(", lost %d, left %d, watcher late: %d; any car seen (the old measure): longest gap %.0f ms, not seen again: %d",
		h.baseLost, h.baseLeft, h.baseLate, float64(h.anyGap)/float64(time.Millisecond), h.anyLost)
}

// gapQuantiles is ": p50 …, p99 …, max …" of gaps (seconds), sorting
// them; "" for none.
func gapQuantiles(gaps []float64) string {
	if len(gaps) == 0 {
		return ""
	}
	slices.Sort(gaps)
	ms := func(q float64) float64 { return quantile.Sorted(gaps, q) * 1000 }
	return fmt.Sprintf(": p50 %.0f ms, p99 %.0f ms, max %.0f ms", ms(0.5), ms(0.99), gaps[len(gaps)-1]*1000)
}

// WriteGaps writes every judged handover gap of the run (HandoverGaps),
// in milliseconds, one a line: several bots processes' figures make one
// distribution (cmd/cluster-scale.sh).
func (r Report) WriteGaps(w io.Writer) error {
	return r.writeGaps(w, func(b Bot) []float64 { return b.HandoverGaps })
}

// WriteBaselineGaps writes the baseline's gaps (BaselineGaps) as
// WriteGaps writes the handovers'.
func (r Report) WriteBaselineGaps(w io.Writer) error {
	return r.writeGaps(w, func(b Bot) []float64 { return b.BaselineGaps })
}

func (r Report) writeGaps(w io.Writer, of func(Bot) []float64) error {
	bw := bufio.NewWriter(w)
	for _, b := range r.Bots {
		for _, g := range of(b) {
			fmt.Fprintf(bw, "%.0f\n", g*1000)
		}
	}
	return bw.Flush()
}
