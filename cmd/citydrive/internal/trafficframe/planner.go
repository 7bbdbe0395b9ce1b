package trafficframe

import (
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// The planner keeps the schedule's search for vehicles off the main
// goroutine: a goroutine with its own Schedule plans, for the next
// planSpan seconds of world time around where the car will be, every
// vehicle that can come within Radius (traffic.Plan), and the frame only
// places those at its exact world time. Two plans take turns: the frame
// reads one while the goroutine fills the other, and gets it back when
// the next arrives, so nothing is allocated and nothing shared at once.
// The first plan is made at once on the frame's goroutine; a frame no
// plan covers (a jump of the car or the clock, an answer later than the
// plan's span) computes its traffic itself, as before. Either way the
// vehicles are the same to the bit.
const (
	// planSpan is the world time one plan covers, and planRenew how far
	// into it the next is asked for: the goroutine has the difference to
	// answer, in world time. A player's frames give it over a second; a
	// soak's, 40 times faster than a player on a loaded machine, still
	// the tenths of a second its slowest answers take there.
	planSpan  = traffic.MaxPlanSpan
	planRenew = 0.5
	// planSlack is how far (metres) the car may be from the centre a
	// plan was made for. That centre is where the car will be planRenew
	// on at its speed, so the slack covers a car at up to planSpeed
	// from the request to the renewal (turning, it gets less far).
	planSlack = planSpeed * planRenew
	// planSpeed bounds the car's speed the centre is predicted from.
	planSpeed = 60.0
)

type planRequest struct {
	t0, t1 float64
	centre world.Vec2
}

type planner struct {
	sched   *traffic.Schedule // the goroutine's (the frame's is the flow's)
	sync    bool              // plan on the caller's goroutine (tests)
	req     chan planRequest  // at most one outstanding
	ready   chan *traffic.Plan
	free    chan *traffic.Plan
	done    chan struct{}
	cur     *traffic.Plan // the one the flow reads
	pending bool          // a request is out
	last    world.Vec2    // the car at the last step
	hasLast bool
	plans   int // plans received
}

func newPlanner(w world.World, hour float64, sync bool) *planner {
	p := &planner{sched: traffic.NewSchedule(w, hour), sync: sync,
		req: make(chan planRequest, 1), ready: make(chan *traffic.Plan, 1),
		free: make(chan *traffic.Plan, 2), done: make(chan struct{})}
	p.free <- traffic.NewPlan()
	p.free <- traffic.NewPlan()
	if sync {
		close(p.done)
	} else {
		go p.run()
	}
	return p
}

func (p *planner) run() {
	defer close(p.done)
	for r := range p.req {
		pl := <-p.free
		p.sched.PlanInto(pl, r.t0, r.t1, r.centre, DrawRadius, Radius, planSlack)
		p.ready <- pl
	}
}

// step takes a plan that arrived, hands it to flow, and asks for the next
// one planRenew into the current one, or when that does not cover the
// frame at world time t, dt seconds after the last, with the car at pos.
func (p *planner) step(t, dt float64, pos world.Vec2, flow *traffic.Flow) {
	p.receive(flow)
	vel := world.Vec2{}
	if p.hasLast && dt > 0 {
		vel = pos.Sub(p.last).Scale(1 / dt)
		if l := vel.Len(); l > planSpeed {
			vel = vel.Scale(planSpeed / l)
		}
	}
	p.last, p.hasLast = pos, true
	if p.pending {
		return
	}
	if p.cur != nil {
		t0, t1 := p.cur.Window()
		if t < min(t0+planRenew, t1) && p.cur.Covers(t, pos, DrawRadius) {
			return
		}
	}
	p.pending = true
	r := planRequest{t0: t, t1: t + planSpan, centre: pos.Add(vel.Scale(planRenew))}
	// The first plan is made here, at once (the goroutine is idle: the
	// schedule is this goroutine's until the next request): the frames
	// before it would otherwise search the schedule themselves, and a
	// soak's are many.
	if p.sync || p.plans == 0 {
		pl := <-p.free
		p.sched.PlanInto(pl, r.t0, r.t1, r.centre, DrawRadius, Radius, planSlack)
		p.ready <- pl
		p.receive(flow)
		return
	}
	p.req <- r // never blocks: at most one is out
}

// receive hands a plan that arrived to flow and gives the old one back.
func (p *planner) receive(flow *traffic.Flow) {
	select {
	case pl := <-p.ready:
		flow.UsePlan(pl)
		if p.cur != nil {
			p.free <- p.cur // the flow no longer reads it
		}
		p.cur, p.pending = pl, false
		p.plans++
	default:
	}
}

// await blocks until the outstanding plan arrives and hands it to flow
// (tests).
func (p *planner) await(flow *traffic.Flow) {
	if !p.pending {
		return
	}
	pl := <-p.ready
	p.ready <- pl
	p.receive(flow)
}

// close stops the goroutine and waits for it.
func (p *planner) close() {
	if !p.sync {
		close(p.req)
	}
	<-p.done
}
