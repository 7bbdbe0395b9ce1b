package trafficframe

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// drive runs frames of a car crossing downtown at 30 m/s, jumping a
// kilometre half way (a respawn), on planned and on reference (which
// computes every frame itself), and requires the two to simulate the same
// traffic every frame, and planned to draw it too (beside its far
// traffic: reference, without plans, has none). between runs after each
// frame's Update.
func drive(t *testing.T, planned, reference *Frame, frames int, between func()) {
	t.Helper()
	car := traffic.Blocker{Pos: downtown, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	tt := 100000.0
	for i := range frames {
		tt += 1.0 / 60
		car.Pos.X += 0.5
		if i == frames/2 {
			car.Pos.Z += 1000
		}
		planned.Update(tt, 1.0/60, car)
		reference.Update(tt, 1.0/60, car)
		require.Equal(t, reference.Vehicles(), planned.Vehicles(), "frame %d", i)
		require.Zero(t, reference.Far(), "frame %d", i)
		require.Len(t, planned.Draw(), len(planned.Vehicles())+planned.Far(), "frame %d", i)
		drawn := map[scene.Vehicle]int{}
		for _, d := range planned.Draw() {
			drawn[d]++
		}
		for _, d := range reference.Draw() {
			require.Positive(t, drawn[d], "frame %d: %+v drawn", i, d)
			drawn[d]--
		}
		between()
	}
}

func reference(t *testing.T) *Frame {
	f := New(world.New(412), rushHour)
	f.Close() // computes every frame itself
	return f
}

// Planned on the caller's goroutine, the traffic is the same frame by
// frame as computed in the frame, through the car's jump; the plans take
// turns and are used.
func TestPlannedTrafficIsTheFramesOwn(t *testing.T) {
	f := newFrame(world.New(412), rushHour, true)
	defer f.Close()
	drive(t, f, reference(t), 240, func() {})
	// a plan every half span, and one more after the jump
	assert.GreaterOrEqual(t, f.plans.plans, 8)
	assert.True(t, f.plans.cur.Covers(f.Now(), f.plans.last, Radius), "the last frame was planned")
}

// The same with the planning goroutine, waiting for each plan it was
// asked for; Close stops it.
func TestPlanningGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := New(world.New(412), rushHour)
	planned := 0
	drive(t, f, reference(t), 240, func() {
		f.plans.await(f.flow)
		if f.plans.cur != nil && f.plans.cur.Covers(f.Now(), f.plans.last, Radius) {
			planned++
		}
	})
	assert.Greater(t, planned, 200, "frames the plan covered")
	f.Close()
	f.Close()
	f.Update(f.Now()+1, 1, traffic.Blocker{Pos: downtown, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8})
	assert.NotEmpty(t, f.Vehicles(), "a closed frame computes its own")
}

// The first frame plans at once, on the caller's goroutine (the frames
// before a first answer would each search the schedule); a frame the
// plan does not cover (the car moved a kilometre) searches it itself.
func TestTheFirstFramePlansAtOnce(t *testing.T) {
	f := New(world.New(412), rushHour)
	defer f.Close()
	car := traffic.Blocker{Pos: downtown, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	f.Update(100000, 1.0/60, car)
	assert.True(t, f.Planned())
	assert.Greater(t, len(f.Vehicles()), 20, "simulated within Radius")
	assert.Greater(t, f.Far(), 800, "drawn out to DrawRadius (no view: all of them)")
	car.Pos.X += 1000
	f.Update(100000+1.0/60, 1.0/60, car)
	assert.False(t, f.Planned())
	assert.NotEmpty(t, f.Vehicles())
	assert.True(t, f.plans.pending, "and asks for a plan where the car is now")
}
