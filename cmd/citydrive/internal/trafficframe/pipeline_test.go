package trafficframe

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/frustum"
	"citydrive/render/scene"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
)

// inputs is one frame's traffic inputs.
type inputs struct {
	t, dt  float64
	car    traffic.Blocker
	others []traffic.Blocker
	cam    scene.Camera
}

func (in inputs) apply(f *Frame) {
	f.SetCamera(in.cam)
	f.SetOthers(in.others)
	f.Update(in.t, in.dt, in.car)
}

// standingCar is a car stopped in a busy lane downtown, 15 m ahead of a
// moving vehicle: the traffic behind it brakes for it.
func standingCar(t *testing.T, w world.World) traffic.Blocker {
	f := newFrame(w, rushHour, true)
	defer f.Close()
	f.Update(100000, 1.0/60, traffic.Blocker{Pos: downtown, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8})
	for _, v := range f.Vehicles() {
		if v.Speed > 5 && v.Pos.Dist2(downtown) > 30*30 && v.Stop-v.U > 40 {
			return traffic.Blocker{Pos: v.Pos.Add(v.Dir.Scale(15)), Dir: v.Dir, Length: 4.2, Width: 1.8}
		}
	}
	require.Fail(t, "no moving vehicle downtown")
	return traffic.Blocker{}
}

// chaseCamera is the camera behind car, looking at target (set here).
func chaseCamera(w world.World, car traffic.Blocker, target *mgl64.Vec3) scene.Camera {
	y := w.Height(car.Pos.X, car.Pos.Z)
	*target = mgl64.Vec3{car.Pos.X, y + 1, car.Pos.Z}
	return scene.Camera{Position: mgl64.Vec3{car.Pos.X - car.Dir.X*9, y + 3.6, car.Pos.Z - car.Dir.Z*9}, Target: target, Far: 3000}
}

// The pipeline's traffic is a Frame's fed the same inputs a frame late:
// at each frame the traffic in hand is, to the bit, what a Frame computes
// for that frame's world time with the last frame's car, other players
// and camera, whichever goroutine computed it. The first frame, a frame
// whose car jumped and one whose clock jumped get their own inputs at
// once.
func TestThePipelineIsAFrameOneFrameBehind(t *testing.T) {
	t.Run("goroutine", func(t *testing.T) { pipelineOneFrameBehind(t, true) })
	t.Run("main goroutine", func(t *testing.T) { // every answer taken on by the main goroutine
		p := pipelineOneFrameBehind(t, false)
		assert.Equal(t, 90+3-1, p.Stolen(), "every request (a frame each, three of their own) but the last frame's, never taken")
		assert.Zero(t, p.Waits())
	})
}

func pipelineOneFrameBehind(t *testing.T, run bool) *Pipeline {
	w := world.New(412)
	ref := newFrame(w, rushHour, true)
	defer ref.Close()
	p := newPipeline(newFrame(w, rushHour, true), run)
	defer p.Close()
	car := standingCar(t, w)
	const dt = 1.0 / 60
	const jumpAt, skewAt = 60, 75
	tt := 100000.0
	var last inputs
	var lagged, waited bool
	for i := range 90 {
		tt += dt
		switch i {
		case jumpAt: // a reset: the car is put elsewhere
			car.Pos = car.Pos.Add(world.Vec2{X: 300})
		case skewAt: // the world clock jumps
			tt += 5
		}
		other := traffic.Blocker{Pos: car.Pos.Add(car.Dir.Scale(-30)), Dir: car.Dir, Length: 4.2, Width: 1.8}
		in := inputs{t: tt, dt: dt, car: car, others: []traffic.Blocker{other}, cam: chaseCamera(w, car, new(mgl64.Vec3))}
		p.SetCamera(in.cam)
		p.SetOthers(in.others)
		p.Update(in.t, in.dt, in.car)
		switch i {
		case 0:
			in.apply(ref)
		case jumpAt, skewAt:
			// the answer to the last frame's request, then this frame's own
			ask := last
			ask.t = last.t + dt
			ask.apply(ref)
			in.apply(ref)
		default:
			ask := last
			ask.t = tt // the last frame's inputs, for this frame's time
			ask.apply(ref)
		}
		last = in
		require.Equal(t, ref.Now(), p.Now(), "frame %d", i)
		require.Equal(t, ref.Vehicles(), p.Vehicles(), "frame %d", i)
		require.Equal(t, ref.Draw(), p.Draw(), "frame %d", i)
		require.Equal(t, ref.Far(), p.Far(), "frame %d", i)
		require.Equal(t, ref.Planned(), p.Planned(), "frame %d", i)
		require.Equal(t, ref.Flow().Lagging(), p.Lagging(), "frame %d", i)
		require.Equal(t, signals(ref.Now()), p.Signals(), "frame %d", i)
		for _, v := range ref.Vehicles() {
			require.Equal(t, ref.Flow().Lag(v.Key), p.Lag(v.Key), "frame %d vehicle %v", i, v.Key)
			require.Equal(t, ref.Flow().WaitsForCar(v.Key), p.WaitsForCar(v.Key), "frame %d vehicle %v", i, v.Key)
			want, wok := ref.Flow().Ahead(v.Key, ref.Now(), 12)
			got, ok := p.Ahead(v.Key, 12)
			require.Equal(t, wok, ok)
			require.Equal(t, want, got, "frame %d vehicle %v", i, v.Key)
			require.Equal(t, ref.Flow().Schedule().Light(v.Key.Edge, v.Key.Lane == 0, ref.Now()), p.Light(v.Key.Edge, v.Key.Lane == 0))
			lagged = lagged || ref.Flow().Lag(v.Key) > 0
			waited = waited || ref.Flow().WaitsForCar(v.Key)
		}
	}
	assert.Equal(t, 3, p.Own(), "the first frame, the jump and the clock's")
	assert.True(t, lagged, "some vehicle was held up")
	assert.True(t, waited, "some vehicle braked for the car")
	return p
}

// In steady state a frame of the pipeline allocates nothing, on either
// goroutine; closing it stops its goroutine, and twice is harmless.
func TestThePipelineAllocatesNothingAndCloses(t *testing.T) {
	w := world.New(412)
	p := NewPipeline(newFrame(w, rushHour, true))
	car := traffic.Blocker{Pos: downtown, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	tt := 100000.0
	var target mgl64.Vec3
	step := func() {
		tt += 1.0 / 60
		car.Pos.X += 0.25
		p.SetCamera(chaseCamera(w, car, &target))
		p.Update(tt, 1.0/60, car)
		p.Settle() // the goroutine's work inside the run
	}
	for range 120 {
		step()
	}
	assert.Zero(t, testing.AllocsPerRun(200, step))
	assert.NotEmpty(t, p.Vehicles())
	p.Close()
	p.Close()
	select {
	case <-p.done:
	default:
		assert.Fail(t, "the goroutine still runs")
	}
}

// BenchmarkPipeline is the main goroutine's share of a frame of traffic
// driving at 30 m/s downtown (take the answer, ask for the next, cull and
// pack the instances), the goroutine's work waited for off the clock as a
// paced frame gives it time to finish. The car turns every 300 m.
func BenchmarkPipeline(b *testing.B) {
	w := world.New(412)
	p := NewPipeline(newFrame(w, rushHour, false))
	defer p.Close()
	car := traffic.Blocker{Pos: downtown, Dir: world.Vec2{X: 1}, Length: 4.2, Width: 1.8}
	tt := 100000.0
	var target mgl64.Vec3
	var counts [scene.VehicleModels]int32
	data := make([]float32, 0, 4096*scene.VehicleFloats)
	step := func() {
		tt += 1.0 / 60
		if d := car.Pos.X - downtown.X; d > 300 && car.Dir.X > 0 || d < 0 && car.Dir.X < 0 {
			car.Dir.X = -car.Dir.X // back and forth downtown
		}
		car.Pos.X += car.Dir.X * 30.0 / 60
		cam := chaseCamera(w, car, &target)
		p.SetCamera(cam)
		p.Update(tt, 1.0/60, car)
		fr := frustum.FromViewProj(cam.ViewProj(16.0 / 9))
		data, _ = scene.AppendVehicles(data[:0], &counts, p.Draw(), cam.Position, &fr, 4096)
	}
	for range 120 {
		step()
		p.Settle()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		step()
		b.StopTimer()
		p.Settle()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(data)/scene.VehicleFloats), "in-view")
}
