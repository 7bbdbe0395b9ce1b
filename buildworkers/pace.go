package buildworkers

import "time"

// Pacing lets a headless run go faster than real time without changing
// what the player meets: a result is handed over no sooner, in game time,
// than a player's worker would have finished it, and (because the caller
// waits for the workers with Await between frames) no later either.
//
// Each worker is modelled as a queue in game time: a request sent at game
// time t starts when the worker's previous request is done (or at t), takes
// the wall time the real build took, and is due when it ends. Until then
// the result stays in the pool and still counts as in flight, so the
// in-flight cap and Ready behave as for the player.
type pace struct {
	on   bool
	now  time.Time   // game time of the current frame
	busy []time.Time // per worker: game time its queue is busy until
	held []heldResult
}

type heldResult struct {
	res Result
	due time.Time
}

// Pace switches the pool to paced hand-over (see pace). It cannot be
// switched off again.
func (p *Pool) Pace() {
	p.pace.on = true
	if p.pace.busy == nil {
		p.pace.busy = make([]time.Time, len(p.workers))
		p.pace.held = make([]heldResult, 0, len(p.workers)*p.cfg.MaxInFlight)
	}
}

// setNow is the game time of the frame: dispatches are stamped with it and,
// paced, results due by then are handed over.
func (p *Pool) setNow(now time.Time) { p.pace.now = now }

// Await blocks until every request in flight has been answered. Paced, the
// answers then wait in the pool until they are due; the caller uses it
// between frames so that no result arrives later than it would for a
// player. Unpaced it returns at once.
func (p *Pool) Await() {
	for p.pace.on && p.failed == "" && len(p.pace.held) < p.InFlight() {
		p.hold(<-p.out)
	}
}

// hold takes one worker message into the paced queue.
func (p *Pool) hold(m message) {
	r, ok := p.take(m)
	if !ok {
		return
	}
	start := r.Sent
	if b := p.pace.busy[r.Worker]; b.After(start) {
		start = b
	}
	due := start.Add(r.Took)
	p.pace.busy[r.Worker] = due
	p.pace.held = append(p.pace.held, heldResult{res: r, due: due})
}

func (p *Pool) pollPaced() (Result, bool) {
	for p.failed == "" {
		select {
		case m := <-p.out:
			p.hold(m)
			continue
		default:
		}
		break
	}
	if p.failed != "" {
		return Result{}, false
	}
	for i, h := range p.pace.held {
		if !h.due.After(p.pace.now) {
			p.pace.held = append(p.pace.held[:i], p.pace.held[i+1:]...)
			p.finish(h.res)
			return h.res, true
		}
	}
	return Result{}, false
}
