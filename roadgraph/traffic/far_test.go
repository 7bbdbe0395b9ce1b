package traffic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/roadgraph/world"
)

const (
	farTestNear = 120.0
	farTestFar  = 1000.0
	farSlackM   = 30.0
	// interpolation error allowed against the schedule: a tight turn
	// (or a U-turn) bends by up to ~13 cm from the chord in FarStep
	farTolerance = 0.15
)

// farPlan plans the far traffic of downtown at rush hour from t0 on.
func farPlan(t *testing.T, s *Schedule, t0 float64) *Plan { return farPlanAt(t, s, t0, downtown412) }

func farPlanAt(t *testing.T, s *Schedule, t0 float64, centre world.Vec2) *Plan {
	p := NewPlan()
	s.PlanInto(p, t0, t0+MaxPlanSpan, centre, farTestFar, farTestNear, farSlackM)
	require.True(t, p.ok)
	return p
}

// Beyond the near radius the far traffic is the schedule: every vehicle
// drawn stands where the schedule has it (within centimetres), beyond
// near and within far, and none of them is one the flow placed; together
// the two are every scheduled vehicle within far, but for those entering
// or leaving the road within a sample step.
func TestFarTrafficIsTheScheduleBeyondTheFlow(t *testing.T) {
	bothModels(t, func(t *testing.T, queues bool) {
		w := world.New(412)
		planner, ref := newSchedule(w, 17.5, queues), newSchedule(w, 17.5, queues)
		const t0 = 100000.0
		p := farPlan(t, planner, t0)
		f := NewFlow(newSchedule(w, 17.5, queues))
		f.UsePlan(p)
		far := make([]FarVehicle, 0, 4096)
		drawn := 0
		for _, d := range []world.Vec2{{}, {X: 29}, {X: -20, Z: 20}} {
			c := downtown412.Add(d)
			car := Blocker{Pos: c, Dir: world.Vec2{X: 1}, Length: VehicleLength, Width: VehicleWidth}
			for i := range 9 {
				tt := t0 + 0.013 + MaxPlanSpan*float64(i)/9
				near := f.Update(tt, 1.0/60, c, farTestNear, car)
				far = f.AppendFar(tt, c, farTestNear, farTestFar, nil, far[:0])
				drawn += len(far)
				placed := map[Key]bool{}
				for _, v := range near {
					placed[v.Key] = true
				}
				shown := map[Key]bool{}
				for _, v := range far {
					require.False(t, placed[v.Key], "%+v is the flow's", v.Key)
					require.False(t, shown[v.Key], "%+v drawn twice", v.Key)
					shown[v.Key] = true
					s, ok := ref.At(v.Key, tt, 0)
					require.True(t, ok, "%+v on the road", v.Key)
					require.InDelta(t, s.Pos.X, v.Pos.X, farTolerance, "%+v", v.Key)
					require.InDelta(t, s.Pos.Z, v.Pos.Z, farTolerance, "%+v", v.Key)
					// a junction's surface is level: the height steps where a lane meets it
					require.InDelta(t, s.Y, float64(v.Y), 0.5, "%+v", v.Key)
					dir := world.Vec2{X: float64(v.Dir[0]), Z: float64(v.Dir[1])}
					require.InDelta(t, 1, dir.Len(), 0.01)
					// within 25°: a U-turn at a dead end swings 60° in a step
					require.Greater(t, s.Dir.Dot(dir), 0.9, "%+v heads its way", v.Key)
					dist := s.Pos.Sub(c).Len()
					require.Greater(t, dist, farTestNear, "%+v beyond near", v.Key)
					require.LessOrEqual(t, dist, farTestFar+farTolerance, "%+v within far", v.Key)
				}
				missing := 0
				for _, v := range ref.Vehicles(tt, c, farTestFar-farTolerance, nil) {
					if placed[v.Key] || shown[v.Key] || f.lagIndex(v.Key) >= 0 {
						continue // held off the road by the car: the flow's
					}
					_, before := ref.At(v.Key, tt-FarStep, 0)
					_, after := ref.At(v.Key, tt+FarStep, 0)
					require.False(t, before && after, "%+v, %.1f m away, neither simulated nor drawn", v.Key, v.Pos.Sub(c).Len())
					missing++
				}
				require.Less(t, missing, 20, "few enter or leave the road within a step")
			}
		}
		assert.Greater(t, drawn/27, 900, "a kilometre of busy streets")
	})
}

// Two players whose plans were made at different times, for centres
// apart, draw the same far traffic at the same world time to the bit:
// both interpolate the schedule's samples at the same instants.
func TestTwoPlayersDrawTheSameFarTraffic(t *testing.T) {
	w := world.New(412)
	const t0 = 100000.0
	pa := NewPlan()
	NewSchedule(w, 17.5).PlanInto(pa, t0, t0+MaxPlanSpan, downtown412, farTestFar, farTestNear, farSlackM)
	pb := NewPlan()
	other := downtown412.Add(world.Vec2{X: 20})
	NewSchedule(w, 17.5).PlanInto(pb, t0+0.55, t0+0.55+MaxPlanSpan, other, farTestFar, farTestNear, farSlackM)
	a, b := NewFlow(NewSchedule(w, 17.5)), NewFlow(NewSchedule(w, 17.5))
	a.UsePlan(pa)
	b.UsePlan(pb)
	c := downtown412.Add(world.Vec2{X: 10})
	for _, tt := range []float64{t0 + 0.6, t0 + 0.87, t0 + 1.2} {
		va := a.AppendFar(tt, c, farTestNear, farTestFar, nil, nil)
		vb := b.AppendFar(tt, c, farTestNear, farTestFar, nil, nil)
		require.NotEmpty(t, va)
		byKey := map[Key]FarVehicle{}
		for _, v := range vb {
			byKey[v.Key] = v
		}
		same := 0
		for _, v := range va {
			if o, ok := byKey[v.Key]; ok {
				assert.InDelta(t, v.Pos.X, o.Pos.X, 1e-3)
				assert.InDelta(t, v.Pos.Z, o.Pos.Z, 1e-3)
				same++
			}
		}
		assert.Greater(t, same, len(va)*95/100, "the same vehicles (a plan's edge may hold a few the other's misses)")
	}
}

// A view keeps the far vehicles it may see and drops the rest: with the
// half-plane x ≥ eye.x, exactly those of the unculled set a body's
// radius or more on its side.
func TestAViewCullsFarTraffic(t *testing.T) {
	w := world.New(412)
	const t0 = 100000.0
	p := farPlan(t, NewSchedule(w, 17.5), t0)
	f := NewFlow(NewSchedule(w, 17.5))
	f.UsePlan(p)
	tt := t0 + 0.7
	all := f.AppendFar(tt, downtown412, farTestNear, farTestFar, nil, nil)
	v := View{Eye: downtown412}
	v.AddPlane(1, 0.2, 0, 0, -50, 50) // x ≥ eye.x − 0.2·y for y in ±50: x ≥ eye.x − 10
	seen := f.AppendFar(tt, downtown412, farTestNear, farTestFar, &v, nil)
	want := 0
	for _, o := range all {
		if o.Pos.X-downtown412.X >= -10-bodyRadius+1e-3 {
			want++
		}
	}
	assert.InDelta(t, want, len(seen), 2, "the float32 test may differ at the edge")
	for _, o := range seen {
		assert.GreaterOrEqual(t, o.Pos.X-downtown412.X, -10-bodyRadius-1e-3)
	}
	assert.Less(t, len(seen), len(all)*3/4)
	assert.Greater(t, len(seen), len(all)/4)

	// A plane the heights make no bound of is no bound; one that leaves
	// nothing on the ground culls everything.
	var none, everything View
	none.AddPlane(0, 1, 0, 100, -50, 50)
	assert.Len(t, f.AppendFar(tt, downtown412, farTestNear, farTestFar, &none, nil), len(all))
	everything.AddPlane(0, 1, 0, -100, -50, 50)
	assert.Empty(t, f.AppendFar(tt, downtown412, farTestNear, farTestFar, &everything, nil))
}

// A vehicle held up by the car is the flow's wherever it is: never drawn
// as far traffic at its scheduled place.
func TestHeldUpVehiclesAreNotFarTraffic(t *testing.T) {
	w := world.New(412)
	const t0 = 100000.0
	s := NewSchedule(w, 17.5)
	// the car stands in a busy lane, ahead of a vehicle: it brakes
	var ahead Vehicle
	for _, v := range NewSchedule(w, 17.5).Vehicles(t0, downtown412, 60, nil) {
		if v.U > v.Start+5 && v.U < v.Stop-40 {
			ahead = v
			break
		}
	}
	require.NotZero(t, ahead.Speed, "a vehicle on a straight lane")
	car := Blocker{Pos: ahead.Pos.Add(ahead.Dir.Scale(12)), Dir: ahead.Dir, Length: VehicleLength, Width: VehicleWidth}
	f := NewFlow(NewSchedule(w, 17.5))
	f.UsePlan(farPlanAt(t, s, t0, car.Pos))
	tt := t0
	for range 80 {
		tt += 1.0 / 60
		f.Update(tt, 1.0/60, car.Pos, farTestNear, car)
	}
	require.Positive(t, f.Lagging(), "held up")
	// asked for a small near radius, the lagging vehicles lie beyond it
	f.Update(tt, 1.0/60, car.Pos, 5, car)
	far := f.AppendFar(tt, car.Pos, 5, farTestFar, nil, nil)
	require.NotEmpty(t, far)
	for _, v := range far {
		assert.Zero(t, f.Lag(v.Key), "%+v lags: the flow's", v.Key)
		assert.False(t, f.WaitsForCar(v.Key))
	}
}

// No plan, or one that does not cover the frame: no far traffic (the
// frame shows the flow's alone); and drawing it allocates nothing.
func TestFarTrafficNeedsACoveringPlan(t *testing.T) {
	w := world.New(412)
	const t0 = 100000.0
	f := NewFlow(NewSchedule(w, 17.5))
	assert.Empty(t, f.AppendFar(t0, downtown412, farTestNear, farTestFar, nil, nil))
	p := farPlan(t, NewSchedule(w, 17.5), t0)
	f.UsePlan(p)
	assert.Empty(t, f.AppendFar(t0+MaxPlanSpan+0.01, downtown412, farTestNear, farTestFar, nil, nil), "after its window")
	assert.Empty(t, f.AppendFar(t0+0.5, downtown412.Add(world.Vec2{X: farSlackM + 1}), farTestNear, farTestFar, nil, nil), "beyond its slack")
	assert.Empty(t, f.AppendFar(t0+0.5, downtown412, farTestNear, farTestFar+1, nil, nil), "beyond its radius")
	dst := make([]FarVehicle, 0, 4096)
	tt := t0
	allocs := testing.AllocsPerRun(20, func() {
		tt += 0.05
		dst = f.AppendFar(tt, downtown412, farTestNear, farTestFar, nil, dst[:0])
	})
	assert.Zero(t, allocs)
	assert.NotEmpty(t, dst)
}

// BenchmarkAppendFar is the far traffic of downtown at rush hour for a
// chase camera looking along +X (a view like the game's: half-planes
// ±46° about the heading).
func BenchmarkAppendFar(b *testing.B) {
	w := world.New(412)
	const t0 = 100000.0
	p := NewPlan()
	NewSchedule(w, 17.5).PlanInto(p, t0, t0+MaxPlanSpan, downtown412, farTestFar, farTestNear, farSlackM)
	f := NewFlow(NewSchedule(w, 17.5))
	f.UsePlan(p)
	v := View{Eye: downtown412.Add(world.Vec2{X: -9})}
	v.AddPlane(0.7, 0, 0.7, 0, 0, 0)  // left side
	v.AddPlane(0.7, 0, -0.7, 0, 0, 0) // right side
	dst := make([]FarVehicle, 0, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		dst = f.AppendFar(t0+float64(i%80)/60, downtown412, farTestNear, farTestFar, &v, dst[:0])
	}
	b.ReportMetric(float64(len(dst)), "drawn")
	b.ReportMetric(float64(len(p.keys)), "sampled")
}
