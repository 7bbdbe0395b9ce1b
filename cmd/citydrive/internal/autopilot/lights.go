package autopilot

import (
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
)

// Choosing with the lights, as a driver who knows the city's signals
// would: at a junction the route prefers an arm whose own signal, at the
// far junction, will be green when the car gets there. The arrival is
// predicted from the car's distance to the junction, its recent speed
// and, where the car will stand at this junction's red, the green it
// waits for. A choice is made once, the first time any look ahead reaches
// the junction, and kept (choices): the prediction moves with the clock,
// and a line that changed its turn as the car came nearer would swerve.
const (
	redWeight   = 1.0 / 3 // an arm whose light will be red is this much as likely
	lightStep   = 0.5     // seconds between the times a red's end is looked for at
	minPredict  = 5.0     // m/s: the slowest speed an arrival is predicted at
	speedMemory = 20.0    // seconds the car's recent speed is averaged over
	choiceSlots = 8       // junction choices held ahead of the car
)

// Lights is what the route asks of the signals: the light on edge at its
// junction B (atB) or A, after seconds from now.
type Lights interface {
	LightAfter(edge uint64, atB bool, after float64) traffic.Light
}

// routeLights is shared by a route and its copies (the looks ahead).
type routeLights struct {
	src   Lights  // nil: no signals known (every arm weighs the same)
	odo   float64 // the route's own odometer where the car is
	speed float64 // the car's recent speed, m/s (predictions floor it at minPredict)
	// the choices made at the junctions ahead, by the route's turn count
	choices [choiceSlots]choice
}

type choice struct {
	turns          int
	junction, from uint64 // the junction and the edge arriving at it
	to             uint64 // the edge chosen
	set            bool
}

// signalled reports whether the route drives by signals (with traffic).
func (l *routeLights) signalled() bool { return l != nil && l.src != nil }

// observe notes where the car is on its route and how fast it goes.
func (l *routeLights) observe(src Lights, odo, v, dt float64) {
	l.src, l.odo = src, odo
	a := min(dt/speedMemory, 1)
	l.speed += (math.Abs(v) - l.speed) * a
}

// chosen is the choice made at junction j arriving on from as the
// route's turn number turns, if one was.
func (l *routeLights) chosen(turns int, j *roadgraph.Junction, from *roadgraph.Edge) (uint64, bool) {
	if l == nil {
		return 0, false
	}
	c := l.choices[turns%choiceSlots]
	if !c.set || c.turns != turns || c.junction != j.ID || c.from != from.ID {
		return 0, false
	}
	return c.to, true
}

// choose records the choice at junction j.
func (l *routeLights) choose(turns int, j *roadgraph.Junction, from, to *roadgraph.Edge) {
	if l == nil {
		return
	}
	l.choices[turns%choiceSlots] = choice{turns: turns, junction: j.ID, from: from.ID, to: to.ID, set: true}
}

// weigher gives each arm leaving junction j its light weight, for a
// route (on edge from, forward) whose odometer at j reads odo.
func (l *routeLights) weigher(j *roadgraph.Junction, from *roadgraph.Edge, forward bool, odo float64) func(a *roadgraph.Edge) float64 {
	if l == nil || l.src == nil {
		return func(*roadgraph.Edge) float64 { return 1 }
	}
	v := max(l.speed, minPredict)
	depart := max(odo-l.odo, 0) / v
	// At a red here the car leaves at the green.
	for k := 0; k < int(traffic.SignalPeriod/lightStep) && l.src.LightAfter(from.ID, forward, depart) != traffic.Green; k++ {
		depart += lightStep
	}
	return func(a *roadgraph.Edge) float64 {
		if l.src.LightAfter(a.ID, a.A == j, depart+edgeLength(a)/v) == traffic.Green {
			return 1
		}
		return redWeight
	}
}

// edgeLength is e's centre-line length.
func edgeLength(e *roadgraph.Edge) float64 {
	l := 0.0
	for i := 1; i < len(e.Nodes); i++ {
		l += e.Nodes[i].Sub(e.Nodes[i-1]).Len()
	}
	return l
}
