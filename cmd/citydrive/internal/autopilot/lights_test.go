package autopilot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// greenOnly shows green to one edge at its far junction and red to every
// other, at any time; asked records the times it was asked about.
type greenOnly struct {
	edge  uint64
	asked []float64
}

func (g *greenOnly) LightAfter(edge uint64, _ bool, after float64) traffic.Light {
	g.asked = append(g.asked, after)
	if edge == g.edge {
		return traffic.Green
	}
	return traffic.Red
}

// A route takes an arm far more often when its light will be green and
// the others' red: at one junction, over 400 routes with their own
// random turns, the least likely arm of a route that knows no lights
// becomes at least twice as likely.
func TestTheRouteTakesTheArmWhoseLightWillBeGreen(t *testing.T) {
	for _, seed := range []uint64{412, 7, 35} {
		_, r0 := start(t, seed)
		// the first junction of three arms or more ahead
		var j *roadgraph.Junction
		var pos, dir world.Vec2
		for range 5000 {
			jj, _, _ := r0.NextJunction()
			r0.g.EnsureJunctionArms(jj)
			if len(jj.Arms) >= 3 {
				j = jj
				pos, dir = r0.centre()
				break
			}
			r0.Advance(1)
		}
		require.NotNil(t, j, "seed %d", seed)
		const routes = 400
		takes := func(l Lights) map[uint64]int {
			n := map[uint64]int{}
			for k := range uint64(routes) {
				r, ok := New(r0.g, pos, dir, k)
				require.True(t, ok)
				r.lights = &routeLights{src: l, speed: 10}
				_, _, d := r.NextJunction()
				r.Advance(d + 1e-6)
				n[r.Edge().ID]++
			}
			return n
		}
		blind := takes(allGreen{}) // every light green: the lights choose nothing
		rare, least := uint64(0), routes+1
		for id, c := range blind {
			if c < least {
				rare, least = id, c
			}
		}
		lit := takes(&greenOnly{edge: rare})[rare]
		t.Logf("seed %d: the rarest arm taken %d of %d times blind, %d when only its light will be green", seed, least, routes, lit)
		assert.GreaterOrEqual(t, lit, 2*least, "seed %d", seed)
	}
}

// The prediction counts the wait at this junction's own red: the far
// light is asked about after that red has ended.
func TestTheArrivalCountsTheWaitAtThisRed(t *testing.T) {
	_, r := start(t, 412)
	j, from, _ := r.NextJunction()
	r.g.EnsureJunctionArms(j)
	l := &greenOnly{edge: 1<<63 - 1} // red everywhere, for ever
	rl := &routeLights{src: l, speed: 10}
	w := rl.weigher(j, from, r.forward, r.odo)
	require.NotEmpty(t, l.asked)
	assert.InDelta(t, traffic.SignalPeriod, l.asked[len(l.asked)-1], lightStep, "waited at most one whole cycle")
	for _, a := range j.Arms {
		assert.Equal(t, redWeight, w(a), "a red far light weighs less")
	}
}

// A choice is made once: a look ahead chose, the lights then changed,
// and the route itself still turns the way the look ahead showed (a line
// that changed its turn as the car came nearer would swerve).
func TestAChoiceIsKeptWhenTheLightsChange(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		_, r := start(t, seed)
		l := &greenOnly{}
		r.lights = &routeLights{src: l, speed: 10}
		j, _, d := r.NextJunction()
		r.g.EnsureJunctionArms(j)
		// green to the first arm, then to another once the look ahead chose
		l.edge = j.Arms[0].ID
		ahead := r.peek(d + 5)
		seen := ahead.Edge()
		for _, a := range j.Arms {
			if a != seen {
				l.edge = a.ID
			}
		}
		r.Advance(d + 5)
		require.Equal(t, seen.ID, r.Edge().ID, "seed %d: the turn the look ahead saw", seed)
	}
}
