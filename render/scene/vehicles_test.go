package scene

import (
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/frustum"
)

// Vehicles behind the camera are culled, the rest come out grouped by
// model, camera-relative, with their heading as cosine and sine.
func TestAppendVehiclesCullsAndGroupsByModel(t *testing.T) {
	cam := Camera{Position: mgl64.Vec3{1000, 10, 2000}, Yaw: 0, Far: 500}
	vp := cam.ViewProj(16.0 / 9)
	fr := frustum.FromViewProj(vp)
	ahead := cam.Forward()
	var vs []Vehicle
	for i := range 30 {
		d := 20.0 + float64(i)*5
		sign := 1.0
		if i%3 == 2 {
			sign = -1 // behind
		}
		p := cam.Position.Add(ahead.Mul(sign * d))
		vs = append(vs, Vehicle{X: p[0], Y: 0, Z: p[2], Dir: [2]float32{1, 0}, Model: uint8(i % 2), Colour: [3]float32{1, 0, 0}})
	}
	var counts [VehicleModels]int32
	dst, dropped := AppendVehicles(make([]float32, 0, 1024), &counts, vs, cam.Position, &fr, 1000)
	assert.Zero(t, dropped)
	n := len(dst) / VehicleFloats
	assert.Equal(t, 20, n, "the 10 behind are culled")
	assert.Equal(t, int32(n), counts[0]+counts[1]+counts[2])
	assert.Equal(t, [VehicleModels]int32{10, 10, 0}, counts)
	assert.InDelta(t, 1, dst[3], 1e-6, "cos 0")
	assert.InDelta(t, -10, dst[1], 1e-4, "camera-relative height")
	allocs := testing.AllocsPerRun(50, func() { dst, _ = AppendVehicles(dst[:0], &counts, vs, cam.Position, &fr, 1000) })
	assert.Zero(t, allocs)
	_, dropped = AppendVehicles(dst[:0], &counts, vs, cam.Position, &fr, 5)
	assert.Equal(t, 15, dropped)
}

// Vehicles handed over grouped by model (one pass) come out as the same
// vehicles interleaved (a pass a model) do.
func TestAppendVehiclesGroupedTakesTheSameInstances(t *testing.T) {
	cam := Camera{Position: mgl64.Vec3{0, 5, 0}, Far: 500}
	fr := frustum.FromViewProj(cam.ViewProj(16.0 / 9))
	ahead := cam.Forward()
	var mixed []Vehicle
	for i := range 60 {
		p := cam.Position.Add(ahead.Mul(float64(i%20)*7 - 30)).Add(mgl64.Vec3{float64(i%7) * 9, 0, 0})
		mixed = append(mixed, Vehicle{X: p[0], Z: p[2], Dir: [2]float32{0, 1}, Model: uint8(i * 7 % 3), Colour: [3]float32{float32(i), 0, 0}})
	}
	grouped := slices.Clone(mixed)
	slices.SortStableFunc(grouped, func(a, b Vehicle) int { return int(a.Model) - int(b.Model) })
	var ca, cb [VehicleModels]int32
	a, da := AppendVehicles(nil, &ca, mixed, cam.Position, &fr, 25)
	b, db := AppendVehicles(nil, &cb, grouped, cam.Position, &fr, 25)
	require.NotZero(t, da, "some dropped at the cap")
	assert.Equal(t, ca, cb)
	assert.Equal(t, da, db)
	assert.Equal(t, a, b)
}

func TestVehicleMeshModels(t *testing.T) {
	mesh, first, count := VehicleMesh()
	require.Zero(t, len(mesh)%VehicleMeshFloats)
	total := int32(0)
	for m := range VehicleModels {
		assert.Equal(t, total, first[m])
		assert.Zero(t, count[m]%3)
		total += count[m]
	}
	assert.Equal(t, total, int32(len(mesh)/VehicleMeshFloats))
	for i := 0; i < len(mesh); i += VehicleMeshFloats {
		assert.LessOrEqual(t, mesh[i]*mesh[i]+mesh[i+2]*mesh[i+2], float32(VehicleRadius*VehicleRadius))
	}
}

// Each model's coarse prefix is its body, cabin and roof and the lights'
// outward faces; what follows, the lights' other faces and the tyres,
// reaches less than a 0.45 m detail (the size slots.DetailBeyond takes to
// span 3 pixels) past the prefix's box.
func TestVehicleMeshCoarsePrefixHoldsTheBody(t *testing.T) {
	const detail = 0.45
	mesh, first, count := VehicleMesh()
	for m := range VehicleModels {
		require.Greater(t, count[m], int32(VehicleCoarseVerts))
		assert.Equal(t, int32(11*6*faceVerts), count[m], "eleven whole boxes, only reordered")
		lo, hi := [3]float32{1e9, 1e9, 1e9}, [3]float32{-1e9, -1e9, -1e9}
		wlo, whi := lo, hi
		for i := first[m]; i < first[m]+count[m]; i++ {
			v := mesh[int(i)*VehicleMeshFloats:]
			part := int(v[6])
			coarse := i < first[m]+VehicleCoarseVerts
			if coarse {
				assert.Contains(t, []int{PartBody, PartGlass, PartHeadlight, PartTaillight}, part, "model %d vertex %d", m, i-first[m])
				switch part {
				case PartHeadlight:
					assert.Equal(t, float32(1), v[3], "a headlight's face in the prefix faces forward")
				case PartTaillight:
					assert.Equal(t, float32(-1), v[3], "a taillight's face in the prefix faces back")
				}
			} else {
				assert.Contains(t, []int{PartHeadlight, PartTaillight, PartTyre}, part, "model %d vertex %d", m, i-first[m])
			}
			for k := range 3 {
				if coarse {
					lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
				}
				wlo[k], whi[k] = min(wlo[k], v[k]), max(whi[k], v[k])
			}
		}
		for k := range 3 {
			assert.Less(t, lo[k]-wlo[k], float32(detail), "model %d axis %d", m, k)
			assert.Less(t, whi[k]-hi[k], float32(detail), "model %d axis %d", m, k)
		}
	}
}

// SplitVehiclesByDistance puts each model's instances wholly beyond the
// distance after its near ones, keeping the instances and the counts.
func TestSplitVehiclesByDistance(t *testing.T) {
	cam := Camera{Position: mgl64.Vec3{100, 3, -50}, Far: 2000}
	fr := frustum.FromViewProj(cam.ViewProj(16.0 / 9))
	ahead := cam.Forward()
	const beyond = 50.0
	var vs []Vehicle
	wantCoarse := [VehicleModels]int32{}
	for i := range 40 {
		d := 10.0 + float64(i)*3 // 10 to 127 m
		m := uint8(i % VehicleModels)
		p := cam.Position.Add(ahead.Mul(d))
		vs = append(vs, Vehicle{X: p[0], Y: 0, Z: p[2], Dir: [2]float32{1, 0}, Model: m, Colour: [3]float32{float32(i), 0, 0}})
		if (mgl64.Vec3{p[0], 0, p[2]}).Sub(cam.Position).Len()-VehicleRadius > beyond {
			wantCoarse[m]++
		}
	}
	var counts [VehicleModels]int32
	dst, _ := AppendVehicles(nil, &counts, vs, cam.Position, &fr, 1000)
	before := slices.Clone(dst)
	coarse := SplitVehiclesByDistance(dst, &counts, beyond)
	assert.Equal(t, wantCoarse, coarse)
	require.NotZero(t, coarse[0])
	require.Less(t, coarse[0], counts[0])
	at := 0
	for m := range VehicleModels {
		for i := at; i < at+int(counts[m]); i++ {
			x, y, z := dst[i*VehicleFloats], dst[i*VehicleFloats+1], dst[i*VehicleFloats+2]
			far := math.Sqrt(float64(x*x+y*y+z*z)) > beyond+VehicleRadius
			assert.Equal(t, i >= at+int(counts[m]-coarse[m]), far, "model %d instance %d", m, i-at)
		}
		at += int(counts[m])
	}
	instances := func(d []float32) [][]float32 {
		var out [][]float32
		for i := 0; i < len(d); i += VehicleFloats {
			out = append(out, d[i:i+VehicleFloats])
		}
		return out
	}
	assert.ElementsMatch(t, instances(before), instances(dst), "the same instances")
	assert.Zero(t, SplitVehiclesByDistance(dst, &counts, 0), "0: none coarse")
	assert.Zero(t, testing.AllocsPerRun(20, func() { SplitVehiclesByDistance(dst, &counts, beyond) }))
}

// A chase camera 9 m behind and 3.6 m above a car heading +X (the game's
// chase camera): only a vehicle whose bounding sphere holds the eye or
// meets the line from it to the car blocks the view.
func TestBlocksChaseView(t *testing.T) {
	car := mgl64.Vec3{100, 5, -40}
	eye := car.Add(mgl64.Vec3{-9, 3.6, 0})
	for _, c := range []struct {
		name   string
		foot   mgl64.Vec3 // relative to the car
		blocks bool
	}{
		{"queued 2 m behind the car", mgl64.Vec3{-2.1 - 2 - 2.3, 0, 0}, true},
		{"right under the camera", mgl64.Vec3{-9, 0, 0}, true},
		{"beside the line, within its sphere", mgl64.Vec3{-4, 0, 2.5}, true},
		{"3 m behind the camera", mgl64.Vec3{-12, 0, 0}, false},
		{"far behind", mgl64.Vec3{-30, 0, 0}, false},
		{"queued 2 m ahead of the car", mgl64.Vec3{2.1 + 2 + 2.3, 0, 0}, false},
		{"oncoming, level with the car", mgl64.Vec3{0, 0, 4.2}, false},
		{"oncoming, under the camera's side", mgl64.Vec3{-7, 0, 4.2}, false},
		{"parked beside the road", mgl64.Vec3{-5, 0, 7}, false},
	} {
		assert.Equal(t, c.blocks, BlocksChaseView(eye, car, car.Add(c.foot)), c.name)
	}
}

// The vehicles left out are those that block the view; the rest keep
// their order (grouped by model stays grouped).
func TestVehiclesClearOfChaseView(t *testing.T) {
	car := mgl64.Vec3{0, 0, 0}
	eye := mgl64.Vec3{0, 3.6, 9} // behind a car heading -Z
	at := func(x, z float64, m uint8) Vehicle { return Vehicle{X: x, Z: z, Model: m} }
	vs := []Vehicle{at(0, -6.4, 0), at(0, 6.4, 1), at(4.2, 0, 1), at(0, 9, 2), at(0, 30, 2)}
	dst := make([]Vehicle, 0, len(vs))
	got := VehiclesClearOfChaseView(dst, vs, eye, car)
	assert.Equal(t, []Vehicle{vs[0], vs[2], vs[4]}, got, "the van queued behind and the one under the camera are left out")
	assert.Zero(t, testing.AllocsPerRun(20, func() { got = VehiclesClearOfChaseView(dst[:0], vs, eye, car) }))
}
