package autopilot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

func start(t *testing.T, seed uint64) (*roadgraph.Graph, *Route) {
	g := roadgraph.New(world.New(seed))
	j := g.JunctionNear(world.Vec2{})
	require.NotNil(t, j)
	g.EnsureJunctionArms(j)
	e := j.Arms[0]
	r, ok := New(g, e.Nodes[1], e.Tangent(1), seed)
	require.True(t, ok)
	return g, r
}

func TestRouteStaysOnTheRoadsAndTurns(t *testing.T) {
	g, r := start(t, 412)
	for i := 0; i < 3000; i++ { // 3 km in 1 m steps
		r.Advance(1)
		p, dir := r.Pose()
		h, ok := g.Nearest(p)
		require.True(t, ok)
		require.Less(t, h.Dist, laneOffset+0.5, "in its lane at step %d", i)
		require.InDelta(t, 1, dir.Len(), 1e-9)
	}
	assert.Positive(t, r.Turns, "it passed junctions")
}

func TestRouteIsRepeatableAndAheadTakesTheSameTurns(t *testing.T) {
	_, a := start(t, 7)
	_, b := start(t, 7)
	for i := 0; i < 200; i++ {
		ahead := a.Ahead(40)
		a.Advance(40)
		b.Advance(40)
		pa, _ := a.Pose()
		pb, _ := b.Pose()
		require.Equal(t, pa, pb, "same seed, same route")
		require.InDelta(t, 0, ahead.Sub(pa).Len(), 1e-6, "looking ahead foresaw the turn taken")
	}
}

// The route drives with the signals' green wave (east and south) more
// often than against it, on any seed, and still turns every way.
func TestRouteMostlyDrivesWithTheGreenWave(t *testing.T) {
	blindWith, blindAgainst := 0, 0
	for _, seed := range []uint64{412, 7, 35, 940} {
		for _, signals := range []bool{true, false} {
			_, r := start(t, seed)
			if signals {
				r.lights = &routeLights{src: allGreen{}, speed: 10}
			}
			with, against := 0, 0
			for range 20000 { // 20 km in 1 m steps
				r.Advance(1)
				_, dir := r.Pose()
				switch {
				case dir.X+dir.Z > withWave:
					with++
				case dir.X+dir.Z < -withWave:
					against++
				}
			}
			if signals {
				assert.Greater(t, with, 2*against, "seed %d: with the wave %d m, against it %d m", seed, with, against)
				assert.Positive(t, against, "seed %d: it still goes every way", seed)
			} else {
				blindWith += with
				blindAgainst += against
			}
		}
	}
	// On empty roads no signal stops the car, and no way is preferred
	// (over all seeds: one route may wander one way).
	t.Logf("no signals: with the wave %d m, against it %d m", blindWith, blindAgainst)
	assert.Less(t, blindWith, blindAgainst*3/2)
}

// allGreen is signals that are always green.
type allGreen struct{}

func (allGreen) LightAfter(uint64, bool, float64) traffic.Light { return traffic.Green }
