package traffic

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

// downtown412 is a busy district of seed 412 (the bench's start).
var downtown412 = world.Vec2{X: 1200, Z: 1200}

// A plan answers Vehicles to the bit at every time of its window, for
// every centre within its slack, whatever the frame's schedule was asked
// before; and it says so when it does not cover a frame.
func TestPlanAnswersAsTheScheduleDoes(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(412)
		planner, frame, ref := newSchedule(w, 17.5, queues), newSchedule(w, 17.5, queues), newSchedule(w, 17.5, queues)
		frame.Vehicles(50, world.Vec2{X: -3000, Z: 700}, 400, nil) // other places in its caches
		p := NewPlan()
		const t0, span, radius, slack = 100000.0, 0.5, 400.0, 30.0
		planner.PlanInto(p, t0, t0+span, downtown412, radius, radius, slack)
		require.True(t, p.ok)
		seen, fromPlan, frames := 0, 0, 0
		for _, d := range []world.Vec2{{}, {X: 29}, {X: -20, Z: 20}, {Z: -29.9}} {
			c := downtown412.Add(d)
			for f := range 8 {
				tt := t0 + span*float64(f)/7
				frames++
				want := ref.Vehicles(tt, c, radius, nil)
				got, ok := p.Vehicles(frame, tt, c, radius, nil)
				require.True(t, ok, "centre %+v t %v", c, tt)
				require.Equal(t, want, got, "centre %+v t %v", c, tt)
				seen += len(got)
				for i := range p.recs {
					if _, _, covered := p.recs[i].at(tt); covered {
						fromPlan++
					}
				}
			}
		}
		assert.Greater(t, seen/frames, 180, "a busy downtown at rush hour")
		assert.Equal(t, p.Len()*frames, fromPlan, "the plan places them all itself")
		// Outside its window, slack or radius: not covered.
		for _, q := range []struct {
			t float64
			c world.Vec2
			r float64
		}{{t0 - 0.01, downtown412, radius}, {t0 + span + 0.01, downtown412, radius},
			{t0, downtown412.Add(world.Vec2{X: 31}), radius}, {t0, downtown412, radius + 1}} {
			_, ok := p.Vehicles(frame, q.t, q.c, q.r, nil)
			assert.False(t, ok, "%+v", q)
		}
		assert.False(t, NewPlan().Covers(t0, downtown412, radius), "an empty plan covers nothing")
	})
}

// A flow with a plan shows what one without shows.
func TestFlowWithAPlanShowsTheSame(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(412)
		planner := newSchedule(w, 17.5, queues)
		a, b := NewFlow(newSchedule(w, 17.5, queues)), NewFlow(newSchedule(w, 17.5, queues))
		p := NewPlan()
		const t0 = 5000.0
		planner.PlanInto(p, t0, t0+1, downtown412, 400, 400, 40)
		b.UsePlan(p)
		car := Blocker{Pos: downtown412, Dir: world.Vec2{X: 1}, Length: VehicleLength, Width: VehicleWidth}
		for f := range 60 {
			tt := t0 + float64(f)/60
			car.Pos.X += 0.5
			va := a.Update(tt, 1.0/60, car.Pos, 400, car)
			vb := b.Update(tt, 1.0/60, car.Pos, 400, car)
			require.Equal(t, va, vb, "frame %d", f)
		}
	})
}

func TestPlanningDoesNotAllocateOnceWarm(t *testing.T) {
	w := world.New(412)
	s, frame := NewSchedule(w, 17.5), NewSchedule(w, 17.5)
	p := NewPlan()
	dst := make([]Vehicle, 0, 1024)
	tt := 100.0
	s.PlanInto(p, tt, tt+1, downtown412, 400, 400, 40)
	dst, _ = p.Vehicles(frame, tt, downtown412, 400, dst[:0])
	allocs := testing.AllocsPerRun(50, func() {
		tt += 0.5
		c := downtown412.Add(world.Vec2{X: tt - 100})
		s.PlanInto(p, tt, tt+1, c, 400, 400, 40)
		dst, _ = p.Vehicles(frame, tt+0.3, c, 400, dst[:0])
	})
	assert.Zero(t, allocs)
}

func BenchmarkPlanVehicles(b *testing.B) {
	w := world.New(412)
	s, frame := NewSchedule(w, 17.5), NewSchedule(w, 17.5)
	p := NewPlan()
	s.PlanInto(p, 100, 101, downtown412, 400, 400, 40)
	dst := make([]Vehicle, 0, 1024)
	dst, _ = p.Vehicles(frame, 100.5, downtown412, 400, dst[:0])
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		dst, _ = p.Vehicles(frame, 100+float64(i%60)/60, downtown412, 400, dst[:0])
	}
	b.ReportMetric(float64(len(dst)), "vehicles")
	b.ReportMetric(float64(p.Len()), "planned")
}

func BenchmarkScheduleVehicles(b *testing.B) {
	w := world.New(412)
	s := NewSchedule(w, 17.5)
	dst := make([]Vehicle, 0, 1024)
	dst = s.Vehicles(100.5, downtown412, 400, dst[:0])
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		dst = s.Vehicles(100+float64(i%60)/60, downtown412, 400, dst[:0])
	}
	b.ReportMetric(float64(len(dst)), "vehicles")
}

func BenchmarkPlanInto(b *testing.B) {
	w := world.New(412)
	s := NewSchedule(w, 17.5)
	p := NewPlan()
	s.PlanInto(p, 100, 101, downtown412, 400, 400, 40)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.PlanInto(p, 100+float64(i%60)/2, 101.5+float64(i%60)/2, downtown412, 1000, 150, 40)
	}
	b.ReportMetric(float64(p.Len()), "planned")
}

// The longest plan's records still place every vehicle themselves.
func TestLongPlansHoldTheirGeometry(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(412)
		s := newSchedule(w, 17.5, queues)
		p := NewPlan()
		const t0, span = 7000.0, MaxPlanSpan
		s.PlanInto(p, t0, t0+span, downtown412, 400, 400, 30)
		require.Greater(t, p.Len(), 250)
		for i := range p.recs {
			for f := range 16 {
				_, _, covered := p.recs[i].at(t0 + span*float64(f)/15)
				require.True(t, covered, "%+v", p.recs[i].key)
			}
		}
	})
}

// A plan made out to a kilometre answers Vehicles within its near radius
// to the bit from the records that may come that near, for every centre
// within its slack.
func TestAFarPlanAnswersWithinItsNearRadius(t *testing.T) {
	w := world.New(412)
	planner, frame, ref := NewSchedule(w, 17.5), NewSchedule(w, 17.5), NewSchedule(w, 17.5)
	p := NewPlan()
	const t0, near, slack = 100000.0, 120.0, 30.0
	planner.PlanInto(p, t0, t0+MaxPlanSpan, downtown412, 1000, near, slack)
	require.True(t, p.ok)
	require.Less(t, len(p.nearIdx), p.Len()/10, "few records come that near")
	for a := range 9 {
		// the plan's centre, then eight at the edge of its slack
		c := downtown412
		if a > 0 {
			ang := float64(a) * math.Pi / 4
			c = c.Add(world.Vec2{X: math.Cos(ang), Z: math.Sin(ang)}.Scale(slack - 0.1))
		}
		for f := range 6 {
			tt := t0 + MaxPlanSpan*float64(f)/5
			got, ok := p.Vehicles(frame, tt, c, near, nil)
			require.True(t, ok)
			require.Equal(t, ref.Vehicles(tt, c, near, nil), got, "centre %+v t %v", c, tt)
		}
	}
}
