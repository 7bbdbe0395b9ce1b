package car

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// onlyEnv gives a step exactly the obstacles and block columns a step of
// another car touched, as a replay does.
type onlyEnv struct {
	obst   []slots.Obstacle
	blocks [][2]int64
}

func (e *onlyEnv) Surface(x, z float64) world.Surface { return flat.Surface(x, z) }
func (e *onlyEnv) AppendObstacles(dst []slots.Obstacle, _, _, _ float64) []slots.Obstacle {
	return append(dst, e.obst...)
}
func (e *onlyEnv) Solid(x, _, z int64) bool {
	for _, b := range e.blocks {
		if b == [2]int64{x, z} {
			return true
		}
	}
	return false
}

// A car driving wild through a field of boxes and built blocks, against a
// twin given only what the first one's step touched (Touched): the two
// are the same to the bit after every step, contacts and all.
func TestAStepGivenOnlyWhatItTouchedRunsTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	env := &fakeEnv{y: 2, solid: map[[3]int64]bool{}}
	for range 400 {
		h := rng.Float64() * math.Pi
		kind := []slots.ObstacleKind{slots.ObstacleBuilding, slots.ObstacleParkedCar, slots.ObstacleFurniture, slots.ObstacleRail}[rng.IntN(4)]
		env.obst = append(env.obst, slots.BoxObstacle([2]float64{rng.Float64()*200 - 100, rng.Float64()*200 - 100}, h,
			0.1+rng.Float64()*3, 0.1+rng.Float64()*2, 2, 4, kind))
	}
	for range 150 {
		env.solid[[3]int64{rng.Int64N(200) - 100, 3, rng.Int64N(200) - 100}] = true
	}
	a := New(world.Vec2{}, world.Vec2{X: 1}, env)
	b := New(world.Vec2{}, world.Vec2{X: 1}, env)
	only := &onlyEnv{}
	contacts, blocks := 0, 0
	for i := range 120 * 60 {
		in := Input{Throttle: 1, Steer: math.Sin(float64(i) / 90)}
		if i%1500 > 1200 {
			in = Input{Brake: 1, Steer: -0.7} // back out of what it ran into
		}
		a.Step(step, in, env)
		only.obst, only.blocks = a.Touched(only.obst[:0], only.blocks[:0])
		b.Step(step, in, only)
		require.Equal(t, a.Pos, b.Pos, "step %d", i)
		require.Equal(t, a.Vel, b.Vel, "step %d", i)
		require.Equal(t, a.Heading, b.Heading, "step %d", i)
		require.Equal(t, a.Contacts, b.Contacts, "step %d", i)
		require.Equal(t, a.Impact, b.Impact, "step %d", i)
		if a.Contacts != 0 {
			contacts++
		}
		if a.Contacts.Has(TouchVoxel) {
			blocks++
		}
		if a.Contacts == 0 {
			assert.Empty(t, only.obst, "step %d: nothing touched, nothing given", i)
		}
	}
	assert.Greater(t, contacts, 100, "the drive met obstacles")
	assert.Greater(t, blocks, 5, "and built blocks")
}

// Touched allocates nothing once its scratch has grown.
func TestTouchedDoesNotAllocate(t *testing.T) {
	o := slots.BoxObstacle([2]float64{3.2, 0}, 0, 1, 1, 2, 3.5, slots.ObstacleBuilding) // just ahead
	env := &fakeEnv{y: 2, obst: []slots.Obstacle{o}}
	c := New(world.Vec2{}, world.Vec2{X: 1}, env)
	obst := make([]slots.Obstacle, 0, 8)
	blocks := make([][2]int64, 0, 8)
	c.Step(step, Input{Throttle: 1}, env)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		c.Step(step, Input{Throttle: 1}, env)
		obst, blocks = c.Touched(obst[:0], blocks[:0])
	}))
	assert.NotEmpty(t, obst, "pressed against the parked car")
}
