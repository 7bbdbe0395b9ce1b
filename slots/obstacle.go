package slots

import "math"

// ObstacleKind says what an obstacle is, so that contacts can be counted
// by kind (the soak counts how often the car touches parked cars).
type ObstacleKind uint8

const (
	ObstacleNone      ObstacleKind = iota
	ObstacleBuilding               // houses, towers, barns
	ObstacleParkedCar              // cars at the kerb and in yards
	ObstacleFurniture              // lamps, traffic lights, benches, bins, bollards, hydrants, shelters
	ObstacleRail                   // bridge rails
	ObstacleTraffic                // moving traffic vehicles (roadgraph/traffic)
)

func (k ObstacleKind) String() string {
	switch k {
	case ObstacleBuilding:
		return "building"
	case ObstacleParkedCar:
		return "parked car"
	case ObstacleFurniture:
		return "street furniture"
	case ObstacleRail:
		return "rail"
	case ObstacleTraffic:
		return "traffic"
	}
	return "none"
}

// Obstacle is an oriented box in world metres: what the car collides with.
// The city builder emits one per solid thing it draws, turned as drawn, so
// a parked car on a street 10° off the axes is still 1.8 m wide across it
// (an axis-aligned box around it would reach into the lane).
type Obstacle struct {
	Centre [2]float64 // X, Z
	Axis   [2]float64 // unit X, Z direction of the first half extent
	Half   [2]float64 // half extents along Axis and along its perpendicular
	Y0, Y1 float64    // vertical range
	Kind   ObstacleKind
}

// BoxObstacle is the oriented box with centre c, first axis along heading
// (radians from +X towards +Z), half extents hu along it and hv across it.
func BoxObstacle(c [2]float64, heading, hu, hv, y0, y1 float64, kind ObstacleKind) Obstacle {
	return Obstacle{Centre: c, Axis: [2]float64{math.Cos(heading), math.Sin(heading)}, Half: [2]float64{hu, hv}, Y0: y0, Y1: y1, Kind: kind}
}

// Radius is the radius of the obstacle's bounding circle.
func (o Obstacle) Radius() float64 { return math.Hypot(o.Half[0], o.Half[1]) }

// Across is the obstacle's second axis, perpendicular to Axis.
func (o Obstacle) Across() [2]float64 { return [2]float64{-o.Axis[1], o.Axis[0]} }

// Extent is the obstacle's half extent along unit direction d: how far it
// reaches from its centre that way.
func (o Obstacle) Extent(d [2]float64) float64 {
	a, b := o.Axis, o.Across()
	return o.Half[0]*math.Abs(a[0]*d[0]+a[1]*d[1]) + o.Half[1]*math.Abs(b[0]*d[0]+b[1]*d[1])
}
