package autopilot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// recoverSeeds are the cities the recovery tests drive in.
var recoverSeeds = []uint64{1, 7, 99, 412, 5015, 2718}

// blocked is the world's road surface with what a test puts on it:
// obstacle boxes (as the city's furniture and parked cars) and solid
// blocks (as a player builds).
type blocked struct {
	openRoads
	obst  []slots.Obstacle
	solid map[[3]int64]bool
}

func newBlocked(seed uint64) *blocked {
	return &blocked{openRoads: openRoads{world.NewSurfaceCache(world.New(seed))}, solid: map[[3]int64]bool{}}
}

func (b *blocked) AppendObstacles(dst []slots.Obstacle, x, z, r float64) []slots.Obstacle {
	for _, o := range b.obst {
		if math.Hypot(o.Centre[0]-x, o.Centre[1]-z) <= r+o.Radius() {
			dst = append(dst, o)
		}
	}
	return dst
}

func (b *blocked) Solid(x, y, z int64) bool { return b.solid[[3]int64{x, y, z}] }

// wall builds a wall of blocks three high and two thick across the road
// at p (travelled in direction dir), half metres either side of it.
func (b *blocked) wall(p, dir world.Vec2, half float64) {
	l := roadgraph.Left(dir)
	for s := -half; s <= half; s += 0.25 {
		for _, th := range []float64{0, 1} {
			q := p.Add(l.Scale(s)).Add(dir.Scale(th))
			y := int64(math.Floor(b.Surface(q.X, q.Z).Y))
			for dy := int64(-1); dy <= 3; dy++ {
				b.solid[[3]int64{int64(math.Floor(q.X)), y + dy, int64(math.Floor(q.Z))}] = true
			}
		}
	}
}

// box puts an obstacle of kind k, hu × hv half extents, at p facing dir.
func (b *blocked) box(p, dir world.Vec2, hu, hv float64, k slots.ObstacleKind) {
	y := b.Surface(p.X, p.Z).Y
	b.obst = append(b.obst, slots.BoxObstacle([2]float64{p.X, p.Z}, math.Atan2(dir.Z, dir.X), hu, hv, y-0.5, y+2, k))
}

// clearStretch is the first centre-line point at least dist metres along
// the route that is more than margin metres from both ends of its edge,
// with the direction of travel, the edge and the junction the route
// entered it from.
func clearStretch(t *testing.T, r *Route, dist, margin float64) (world.Vec2, world.Vec2, *roadgraph.Edge, *roadgraph.Junction) {
	t.Helper()
	saved := *r.pcg
	defer func() { *r.pcg = saved }()
	c := *r
	c.Advance(dist)
	for range 5000 {
		p, dir := c.centre()
		e := c.edge
		if p.Sub(e.Nodes[0]).Len() > margin && p.Sub(e.Nodes[len(e.Nodes)-1]).Len() > margin {
			return p, dir, e, e.JunctionAt(!c.forward)
		}
		c.Advance(1)
	}
	t.Fatal("no stretch clear of junctions ahead")
	return world.Vec2{}, world.Vec2{}, nil, nil
}

// drive is a test drive: the driver steering the car through env, with
// what the game's drive log counts (a contact is a new touch; stuck is
// slower than 1 m/s for over 2 s).
type drive struct {
	t        *testing.T
	d        *Driver
	c        *car.Car
	env      car.Env
	time     float64
	contacts int
	touching bool
	slow     float64
	stuck    int
	wet      bool
	offRoad  int // steps with the car's centre off the carriageway
}

func (r *drive) step() {
	in := r.d.Drive(r.c, r.env, step)
	r.c.Step(step, in, r.env)
	r.time += step
	touching := r.c.Contacts != 0
	if touching && !r.touching {
		r.contacts++
	}
	r.touching = touching
	if r.c.Contacts.Has(car.TouchShore) || r.c.Surface.Water {
		r.wet = true
	}
	if !r.c.Surface.Road {
		r.offRoad++
	}
	if math.Abs(r.c.Speed()) < 1 {
		r.slow += step
		if r.slow > 2 && r.slow-step <= 2 {
			r.stuck++
		}
	} else {
		r.slow = 0
	}
}

// until drives until done or for at most secs more, and reports whether
// done came true.
func (r *drive) until(secs float64, done func() bool) bool {
	for end := r.time + secs; r.time < end; {
		r.step()
		if done() {
			return true
		}
	}
	return false
}

func (r *drive) String() string {
	return fmt.Sprintf("t=%.1f s at (%.1f, %.1f) heading %.0f°, %.1f m/s, %d contacts, %d stuck, %d recoveries, %d turn-arounds (%d U, %d multi-point)",
		r.time, r.c.Pos.X, r.c.Pos.Z, r.c.Heading*180/math.Pi, r.c.Speed(), r.contacts, r.stuck, r.d.Recoveries,
		r.d.TurnArounds, r.d.UTurns, r.d.PointTurns)
}

// A player walled the road off with blocks, kerb to kerb and over the
// sidewalks (and cars are parked along both kerbs, as in a street of the
// city). The car stops short of the wall, turns round (a U-turn where the
// road is wide enough for its turning circle, else a three-point turn)
// and drives away along the road, without a wheel in the water, touching
// nothing; the arm is remembered as blocked.
func TestDriverTurnsRoundAtAWallOfBlocks(t *testing.T) {
	for _, parked := range []bool{false, true} {
		for _, seed := range recoverSeeds {
			t.Run(fmt.Sprintf("%d/parked=%v", seed, parked), func(t *testing.T) {
				_, d, c := newDriver(t, seed)
				env := newBlocked(seed)
				p, dir, e, from := clearStretch(t, d.Route(), 80, 35)
				env.wall(p, dir, e.HalfWidth+3)
				if parked {
					parkAlong(env, p, dir, 40)
				}
				r := &drive{t: t, d: d, c: c, env: env}
				away := func() bool {
					return c.Forward().Dot(dir) < -0.8 && p.Sub(c.Pos).Dot(dir) > 25 && c.Speed() > 5
				}
				ok := r.until(60, away)
				t.Logf("wall %.0f m wide at (%.0f, %.0f); %s", 2*e.HalfWidth+6, p.X, p.Z, r)
				require.True(t, ok, "turned round and driving away within 60 s")
				assert.False(t, r.wet, "never in the water")
				assert.Zero(t, r.offRoad, "never off the carriageway")
				assert.Zero(t, r.contacts, "touched nothing")
				assert.Zero(t, r.stuck, "never stuck")
				assert.Equal(t, 1, d.TurnArounds)
				if e.HalfWidth >= world.AvenueHalfWidth && !parked {
					assert.Equal(t, 1, d.UTurns, "an avenue is wide enough for a U-turn")
				} else if e.HalfWidth < world.AvenueHalfWidth {
					assert.Equal(t, 1, d.PointTurns, "a street is not")
				}
				assert.True(t, d.Avoided().Has(e, from), "the arm is remembered as blocked")
				// and it keeps driving
				r.until(8, func() bool { return false })
				assert.Zero(t, r.contacts, "touched nothing: %s", r)
				assert.Greater(t, c.Speed(), 3.0, "driving on: %s", r)
			})
		}
	}
}

// parkAlong parks cars along both kerbs (as the city does, 4.85 m out)
// for metres before p, every 6 m.
func parkAlong(env *blocked, p, dir world.Vec2, metres float64) {
	l := roadgraph.Left(dir)
	for s := 3.0; s <= metres; s += 6 {
		for _, side := range []float64{-1, 1} {
			env.box(p.Sub(dir.Scale(s)).Add(l.Scale(side*4.85)), dir, car.Length/2, car.Width/2, slots.ObstacleParkedCar)
		}
	}
}

// Something the car did not see in time (streamed in late: a skip, 2.4 m
// across, in its lane 6 m ahead of its bumper) at 15 m/s: it runs into it,
// backs out, passes it and drives on, stuck at most once.
func TestDriverGetsPastAnObstacleItRanInto(t *testing.T) {
	for _, seed := range recoverSeeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			_, d, c := newDriver(t, seed)
			env := newBlocked(seed)
			r := &drive{t: t, d: d, c: c, env: env}
			var p, dir world.Vec2
			ready := func() bool {
				if c.Speed() < 15 {
					return false
				}
				// the lane 6 m ahead of the bumper, on a stretch clear of junctions
				var e *roadgraph.Edge
				p, dir, e, _ = clearStretch(t, d.Route(), car.Length/2+6, 0)
				ends := []world.Vec2{e.Nodes[0], e.Nodes[len(e.Nodes)-1]}
				return p.Sub(ends[0]).Len() > 40 && p.Sub(ends[1]).Len() > 40
			}
			require.True(t, r.until(40, ready), "up to speed on a stretch clear of junctions: %s", r)
			at := LaneOf(p, dir)
			env.box(at, dir, 0.8, 1.2, slots.ObstacleFurniture)
			passed := func() bool { return c.Pos.Sub(at).Dot(dir) > 30 && c.Speed() > 5 }
			ok := r.until(30, passed)
			t.Logf("skip at (%.1f, %.1f): %s", at.X, at.Z, r)
			require.True(t, ok, "past it within 30 s")
			assert.Zero(t, r.stuck, "never stuck (backed out at once)")
			assert.LessOrEqual(t, r.contacts, 1, "only the crash it could not avoid: no scraping past")
			assert.False(t, r.wet)
		})
	}
}

// A wall across the arm the route takes beyond the next junction: the car
// sees it from the junction, the route avoids that arm there and takes
// another, and the car never stops.
func TestDriverTakesAnotherArmWhenTheOneAheadIsBlocked(t *testing.T) {
	for _, seed := range recoverSeeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			_, d, c := newDriver(t, seed)
			env := newBlocked(seed)
			r := &drive{t: t, d: d, c: c, env: env}
			// the first junction more than 100 m ahead with another way on
			rt := d.Route()
			var j *roadgraph.Junction
			var e *roadgraph.Edge
			var at float64
			saved := *rt.pcg
			cp := *rt
			for at < 1500 {
				jn, _, dist := cp.NextJunction()
				at += dist
				cp.Advance(dist + 1e-9)
				if d.g.EnsureJunctionArms(jn); at > 100 && len(jn.Arms) >= 3 {
					j, e = jn, cp.edge
					break
				}
			}
			*rt.pcg = saved
			require.NotNil(t, j, "a junction ahead")
			// the wall 25 m into the arm taken
			i := 0
			if e.B == j {
				i = len(e.Nodes) - 1
			}
			p, dir := wallAcross(e, i, 25)
			env.wall(p, dir, e.HalfWidth+3)
			reached := false
			ok := r.until(60, func() bool {
				reached = reached || c.Pos.Sub(j.Pos).Len() < 15
				return reached && c.Pos.Sub(j.Pos).Len() > 50 && c.Pos.Sub(p).Len() > 50
			})
			t.Logf("wall on edge %d at (%.0f, %.0f) past junction %d: %s", e.ID, p.X, p.Z, j.ID, r)
			require.True(t, ok, "drove on past the junction")
			assert.True(t, d.Avoided().Has(e, j), "the arm is avoided at the junction")
			assert.Zero(t, d.TurnArounds, "no need to turn round")
			assert.Zero(t, r.contacts)
			assert.Zero(t, r.stuck)
		})
	}
}

// wallAcross is the centre-line point metres into edge e from its node i
// (its first or last), and the direction into the edge there.
func wallAcross(e *roadgraph.Edge, i int, metres float64) (world.Vec2, world.Vec2) {
	step := 1
	if i > 0 {
		step = -1
	}
	for ; i+step >= 0 && i+step < len(e.Nodes); i += step {
		a, b := e.Nodes[i], e.Nodes[i+step]
		if l := b.Sub(a).Len(); metres > l {
			metres -= l
			continue
		}
		dir := b.Sub(a).Norm()
		return a.Add(dir.Scale(metres)), dir
	}
	a, b := e.Nodes[i-step], e.Nodes[i]
	return b, b.Sub(a).Norm()
}

// Where the route turns back (a dead end; here a junction whose every
// other arm was remembered as blocked) the car stops short of the junction
// centre, turns round in it and drives back, touching nothing.
func TestDriverTurnsRoundWhereTheRouteTurnsBack(t *testing.T) {
	for _, seed := range recoverSeeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			_, d, c := newDriver(t, seed)
			env := newBlocked(seed)
			r := &drive{t: t, d: d, c: c, env: env}
			j, e, dist := d.Route().NextJunction()
			require.NotNil(t, j)
			d.g.EnsureJunctionArms(j)
			for _, a := range j.Arms {
				if a != e {
					d.Avoided().Add(a, j, 0)
				}
			}
			require.InDelta(t, dist, d.Route().TurnsBack(dist+1), 1e-6, "the route turns back at the junction")
			_, in := d.Route().Pose()
			ok := r.until(60, func() bool {
				return c.Forward().Dot(in) < -0.8 && c.Pos.Sub(j.Pos).Len() > 30 && c.Speed() > 5
			})
			t.Logf("junction %d (%d arms) %.0f m ahead: %s", j.ID, len(j.Arms), dist, r)
			require.True(t, ok, "turned round and drove back")
			assert.Equal(t, 1, d.TurnArounds)
			assert.Zero(t, r.offRoad, "never off the carriageway")
			assert.Zero(t, r.contacts)
			assert.Zero(t, r.stuck)
			assert.False(t, r.wet)
		})
	}
}

// At a junction, an arm remembered as having led to a blockage is not
// taken while there is another way on; with every other arm remembered the
// route turns back rather than take one.
func TestRouteAvoidsAnArmThatLedToABlockage(t *testing.T) {
	for _, seed := range recoverSeeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g, r := start(t, seed)
			j, in, _ := r.NextJunction()
			for i := 0; len(j.Arms) < 3 && i < 50; i++ { // a junction with a choice
				r.Advance(r.segLen() - r.t + 1e-9)
				for r.edge.JunctionAt(r.forward) == j {
					r.Advance(1)
				}
				j, in, _ = r.NextJunction()
				g.EnsureJunctionArms(j)
			}
			require.GreaterOrEqual(t, len(j.Arms), 3, "a junction with a choice")
			taken := func(memo *ArmMemory) map[uint64]int {
				n := map[uint64]int{}
				for s := range uint64(200) {
					c := *r
					c.pcg = rand.NewPCG(s, 1)
					c.rng = rand.New(c.pcg)
					c.avoid = memo
					_, _, dist := c.NextJunction()
					c.Advance(dist + 1e-9)
					if c.turnedBack(in, r.forward) {
						n[0]++
					} else {
						n[c.edge.ID]++
					}
				}
				return n
			}
			before := taken(nil)
			var most uint64
			for id, k := range before {
				if most == 0 || k > before[most] {
					most = id
				}
			}
			require.NotZero(t, most)
			var memo ArmMemory
			memo.Add(g.Edge(most), j, 0)
			after := taken(&memo)
			t.Logf("junction %d: %d arms, taken %v, with %d avoided %v", j.ID, len(j.Arms), before, most, after)
			assert.Zero(t, after[most], "the blocked arm is not taken")
			assert.Zero(t, after[0], "nor does it turn back")
			for _, a := range j.Arms {
				if a != in {
					memo.Add(a, j, 0)
				}
			}
			assert.Equal(t, map[uint64]int{0: 200}, taken(&memo), "every way on blocked: it turns back")
		})
	}
}

// The memory of blocked arms is small and bounded: the oldest goes first,
// and Forget drops what is stale.
func TestArmMemoryIsBounded(t *testing.T) {
	var edges []*roadgraph.Edge
	var from, to []*roadgraph.Junction
	for i := range uint64(armMemory + 2) {
		edges = append(edges, &roadgraph.Edge{ID: i + 1})
		from = append(from, &roadgraph.Junction{ID: 2*i + 1})
		to = append(to, &roadgraph.Junction{ID: 2*i + 2})
	}
	var m ArmMemory
	for i, e := range edges {
		m.Add(e, from[i], float64(i))
	}
	m.Add(edges[5], from[5], 5) // again: no second place
	assert.Equal(t, armMemory, m.Len())
	assert.False(t, m.Has(edges[0], from[0]), "the oldest is forgotten")
	assert.False(t, m.Has(edges[1], from[1]))
	assert.True(t, m.Has(edges[armMemory+1], from[armMemory+1]))
	assert.False(t, m.Has(edges[armMemory+1], to[armMemory+1]), "an arm is an edge from one junction")
	m.Forget(float64(armMemory))
	assert.Equal(t, 2, m.Len())
	assert.True(t, m.Has(edges[armMemory], from[armMemory]))
	var none *ArmMemory
	assert.False(t, none.Has(edges[0], from[0]), "no memory remembers nothing")
}

// Backspace: the car goes back to the lane point nearest it, facing along
// the lane the way it faced — unless that spot is taken (a parked car,
// a wall of blocks across the lane), then to the nearest spot along the
// lane that is clear, where standing touches nothing.
func TestResetPoseIsClearOfObstacles(t *testing.T) {
	for _, seed := range recoverSeeds {
		for _, what := range []string{"nothing", "parked car", "blocks"} {
			t.Run(fmt.Sprintf("%d/%s", seed, what), func(t *testing.T) {
				g, r := start(t, seed)
				r.Advance(30)
				lane, dir := r.Pose()
				env := newBlocked(seed)
				switch what {
				case "parked car":
					env.box(lane, dir, car.Length/2, car.Width/2, slots.ObstacleParkedCar)
				case "blocks":
					env.wall(lane.Sub(roadgraph.Left(dir).Scale(laneOffset)), dir, 5)
				}
				at := lane.Sub(roadgraph.Left(dir).Scale(3)) // off the road beside the lane
				p, d, ok := ResetPose(g, env, at, dir.Add(roadgraph.Left(dir).Scale(0.3)))
				require.True(t, ok)
				assert.Greater(t, d.Dot(dir), 0.99, "facing along the lane")
				h, ok := g.Nearest(p)
				require.True(t, ok)
				assert.InDelta(t, laneOffset, h.Dist, 0.05, "in the lane")
				if what == "nothing" {
					assert.Less(t, p.Sub(lane).Len(), 0.5, "the nearest lane point")
				} else {
					assert.Less(t, p.Sub(lane).Len(), 15.0, "near it")
				}
				c := car.New(p, d, env)
				c.Step(step, car.Input{}, env)
				assert.Zero(t, c.Contacts, "standing there touches nothing (at %.1f, %.1f)", p.X, p.Z)
				assert.False(t, c.Surface.Water)
			})
		}
	}
}
