package traffic

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"citydrive/roadgraph/world"
)

// The geometry behind the local reaction, checked on a vehicle heading
// 3-4-5 (no axis), so a sign slip in a cross product shows.
var (
	geomDir = world.Vec2{X: 0.6, Z: 0.8}
	geomPos = world.Vec2{X: 100, Z: -40}
)

// geomVehicle is a vehicle at geomPos heading geomDir.
func geomVehicle() Vehicle { return Vehicle{Pos: geomPos, Dir: geomDir, Speed: 10} }

// geomCar is a car ahead metres along the vehicle's heading and side
// metres to its right, turned by turn radians from the vehicle's heading.
func geomCar(ahead, side, turn float64) Blocker {
	c, s := math.Cos(turn), math.Sin(turn)
	dir := geomDir.Scale(c).Add(right(geomDir).Scale(s))
	pos := geomPos.Add(geomDir.Scale(ahead)).Add(right(geomDir).Scale(side))
	return Blocker{Pos: pos, Dir: dir, Length: 4.2, Width: 1.8}
}

// gapTo: how far a vehicle can drive before it must stop for a car, or
// +Inf when the car is not in its way.
func TestGapToACar(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name              string
		ahead, side, turn float64
		want              float64
	}{
		{"in line ahead", 10, 0, 0, 10 - 2.1 - 2.1 - stopGap},
		{"facing it ahead", 10, 0, math.Pi, 10 - 2.1 - 2.1 - stopGap},
		{"across its lane ahead", 10, 0, math.Pi / 2, 10 - 2.1 - 0.9 - stopGap},
		{"at 45 degrees ahead", 10, 0, math.Pi / 4, 10 - 2.1 - (2.1+0.9)/math.Sqrt2 - stopGap},
		{"close: it must stop at once", 5, 0, 0, 5 - 4.2 - stopGap},
		{"behind", -10, 0, 0, inf},
		{"level with it in the next lane", 0, 3.5, 0, inf},
		{"just within the side margin", 10, 2.0, 0, 10 - 4.2 - stopGap},
		{"just beside the side margin", 10, 2.2, 0, inf},
		{"just beside, on the left", 10, -2.2, 0, inf},
		{"across, its length within the margin", 10, 3.2, math.Pi / 2, 10 - 2.1 - 0.9 - stopGap},
		{"across, beside the margin", 10, 3.4, math.Pi / 2, inf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := geomVehicle()
			got := gapTo(&v, geomCar(tc.ahead, tc.side, tc.turn))
			if math.IsInf(tc.want, 1) {
				assert.True(t, math.IsInf(got, 1), "got %v", got)
				return
			}
			assert.InDelta(t, tc.want, got, 1e-9)
		})
	}
}

// under: the car has appeared on (or within stopGap of) the vehicle.
func TestACarUnderAVehicle(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ahead, side, turn float64
		want              bool
	}{
		{"on it", 0, 0, 0, true},
		{"just ahead, within stopGap", 6.0, 0, 0, true},
		{"ahead, clear", 6.4, 0, 0, false},
		{"just behind, within stopGap", -6.0, 0, 0, true},
		{"behind, clear", -6.4, 0, 0, false},
		{"across it, just ahead", 4.9, 0, math.Pi / 2, true},
		{"across it, clear ahead", 5.1, 0, math.Pi / 2, false},
		{"beside, within the margin", 0, 2.0, 0, true},
		{"beside, clear", 0, 2.2, 0, false},
		{"beside on the left, clear", 0, -2.2, 0, false},
		{"across, beside within the margin", 0, 3.2, math.Pi / 2, true},
		{"across, beside clear", 0, 3.4, math.Pi / 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := geomVehicle()
			assert.Equal(t, tc.want, under(&v, geomCar(tc.ahead, tc.side, tc.turn)))
		})
	}
}

// entryBlocked: a vehicle at its lane's entry waits for a car within
// entryClear of it, or up to spawnBehind metres on in its lane.
func TestACarBlocksALanesEntry(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ahead, side, turn float64
		want              bool
	}{
		{"on the entry", 0, 0, 0, true},
		{"beside the entry, within entryClear", 0, 10, 0, true},
		{"beside the entry, beyond entryClear", 0, 21, 0, false},
		{"in the lane 40 m on", 40, 0, 0, false},
		{"in the lane 40 m on, facing", 40, 0, math.Pi, false},
		{"in the lane, coming up from 40 m", -40, 0, 0, true},
		{"coming up from 59 m", -59, 0, 0, true},
		{"61 m off", -61, 0, 0, false},
		{"40 m off, beside the lane within entrySide", -40, 3.2, 0, true},
		{"40 m off, beside the lane beyond entrySide", -40, 3.4, 0, false},
		{"40 m off on the left, beyond entrySide", -40, -3.4, 0, false},
		{"40 m off across the lane, within entrySide", -40, 4.4, math.Pi / 2, true},
		{"40 m off across the lane, beyond entrySide", -40, 4.6, math.Pi / 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := geomVehicle()
			assert.Equal(t, tc.want, entryBlocked(&v, geomCar(tc.ahead, tc.side, tc.turn)))
		})
	}
}

// facing: the vehicle stands in front of the car (the car may wait for
// it), in its way or nearly; here the car is the one at geomPos.
func TestAVehicleFacingTheCar(t *testing.T) {
	car := Blocker{Pos: geomPos, Dir: geomDir, Length: 4.2, Width: 1.8}
	side := car.Width/2 + VehicleWidth/2 + standoffSide
	for _, tc := range []struct {
		name        string
		ahead, side float64
		want        bool
	}{
		{"in front", 10, 0, true},
		{"behind", -10, 0, false},
		{"in front, nearly in its way", 10, side - 0.2, true},
		{"in front, off to the right", 10, side + 0.2, false},
		{"in front, off to the left", 10, -side - 0.2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Vehicle{Pos: geomPos.Add(geomDir.Scale(tc.ahead)).Add(right(geomDir).Scale(tc.side)), Dir: geomDir.Scale(-1)}
			assert.Equal(t, tc.want, facing(&v, car))
		})
	}
}
