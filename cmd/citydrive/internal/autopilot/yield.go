package autopilot

import (
	"math"

	"citydrive/cmd/citydrive/internal/car"
	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
	"citydrive/roadgraph/world"
	"citydrive/slots"
)

// Traffic is what the driver knows of the city's traffic: this frame's
// vehicles and the signals at the world clock.
type Traffic interface {
	Vehicles() []traffic.Vehicle
	// Light is the signal shown to traffic on edge arriving at its
	// junction B (atB) or A.
	Light(edge uint64, atB bool) traffic.Light
	Lights // and the same light later (the route chooses by it)
	// WaitsForCar: vehicle k is braking for the car (traffic.Flow).
	WaitsForCar(k traffic.Key) bool
	// Ahead is vehicle k s metres further along its path, turns included.
	Ahead(k traffic.Key, s float64) (traffic.Vehicle, bool)
}

// Yielding, as a careful driver: it stops at the stop line of a red
// signal (and of an amber one it can stop for comfortably; one it cannot
// it drives through, committed), and follows a vehicle in its way at a
// distance it can always stop in, crossing and turning vehicles included
// (projected a little ahead along their own paths). Traffic vehicles are
// not steered around (avoid ignores them, except those that wait for the
// car): overtaking would take the car into the oncoming lane.
const (
	followGap    = 3.0  // metres to a stopped vehicle ahead
	followTime   = 1.2  // seconds of headway behind a moving one
	followBrake  = 4.0  // m/s² planned for traffic and signals
	corridorSide = 0.6  // metres beside both widths: a vehicle nearer the line is in the way
	stopMargin   = 1.0  // metres short of the stop line the nose stops
	yieldLook    = 90.0 // metres along the line it looks
	amberBrake   = 5.0  // m/s²: at amber it stops if that braking suffices
	predictTime  = 2.0  // seconds a moving vehicle is projected ahead at most
	sweepTime    = 2.0  // seconds of a crossing vehicle's path that are in its way
	sweepStep    = 1.0  // metres between the places looked at along it
	sweepAccel   = 5.0  // m/s²: the car could be there as soon as this takes it
	sweepSlack   = 0.5  // seconds the vehicle is still counted on after it is gone
	waitSpeed    = 1.0  // m/s: slower than this while held up is waiting
	// MaxWait is how long waiting counts as waiting: held up longer, the
	// car is stuck (and the watchdog backs out).
	MaxWait = 60.0
)

// Waiting reports whether the car is held up by a signal or a vehicle
// (not stuck), for at most MaxWait seconds.
func (d *Driver) Waiting() bool { return d.waiting && d.waited <= MaxWait }

// yield returns the speed limit traffic and signals set (+Inf: none),
// and notes whether the car is held up; curv is the curvature the car is
// driving now (its wheel angle).
func (d *Driver) yield(pos, fwd world.Vec2, v, curv, dt float64) float64 {
	if d.Traffic == nil || len(d.ahead) == 0 {
		d.waiting = false
		return math.Inf(1)
	}
	limit := d.signalLimit(v)
	d.toStop = math.Inf(-1)
	if j, _, dist := d.route.NextJunction(); j != nil {
		d.toStop = stopDistance(j, dist)
	}
	end := min(d.here+int(yieldLook/pathStep), len(d.ahead)-1)
	for _, o := range d.Traffic.Vehicles() {
		rel := o.Pos.Sub(pos)
		if rel.Dot(rel) > (yieldLook+5)*(yieldLook+5) || rel.Dot(fwd) < -car.Length {
			continue
		}
		// whatever the line says, never into one in front of the bumper
		limit = min(limit, bumperLimit(&o, pos, fwd, curv, v))
		if d.waitsForCar(&o, pos) {
			continue // it stands still for the car: avoid steers round it
		}
		limit = min(limit, d.followLimit(&o, end, v))
	}
	d.waiting = limit < waitSpeed
	if d.waiting && v < waitSpeed {
		d.waited += dt
	} else if !d.waiting {
		d.waited = 0
	}
	return limit
}

// signalLimit is the speed from which the car stops at the next
// junction's stop line when its light says so.
func (d *Driver) signalLimit(v float64) float64 {
	j, e, dist := d.route.NextJunction()
	if j == nil {
		return math.Inf(1)
	}
	light := d.Traffic.Light(e.ID, d.route.forward)
	if light == traffic.Green {
		d.committed = 0
		return math.Inf(1)
	}
	if d.committed == j.ID {
		return math.Inf(1)
	}
	stop := stopDistance(j, dist)
	if stop < -1 { // already over the line
		return math.Inf(1)
	}
	if light == traffic.AmberLight && v*v > 2*amberBrake*max(stop, 0) {
		d.committed = j.ID // too close to stop: go on through
		return math.Inf(1)
	}
	return math.Sqrt(2 * followBrake * max(0, stop))
}

// stopDistance is how far the car's centre is from where it stops at
// junction j's stop line, dist centre-line metres ahead (negative: over
// it).
func stopDistance(j *roadgraph.Junction, dist float64) float64 {
	hw := 0.0
	for _, a := range j.Arms {
		hw = max(hw, a.HalfWidth)
	}
	return dist - traffic.StopLine(hw) - stopMargin - car.Length/2
}

// followLimit is the speed from which the car keeps its distance to
// vehicle o if o is in its way on the line up to index end.
func (d *Driver) followLimit(o *traffic.Vehicle, end int, v float64) float64 {
	s, lat, t, ok := d.onLine(o.Pos, end)
	cos := o.Dir.Dot(t)
	sin := math.Abs(o.Dir.X*t.Z - o.Dir.Z*t.X)
	half := func(cos, sin float64) (along, across float64) {
		cos = math.Abs(cos)
		return cos*traffic.VehicleLength/2 + sin*traffic.VehicleWidth/2, sin*traffic.VehicleLength/2 + cos*traffic.VehicleWidth/2
	}
	along, across := half(cos, sin)
	inWay := ok && math.Abs(lat) < car.Width/2+across+corridorSide
	vs := max(0, o.Speed*cos)
	if !inWay && o.Speed > 0 && !d.behindInLane(o) &&
		!(o.U < o.Stop && d.Traffic.WaitsForCar(o.Key)) {
		// Short of its stop line, the car holds there while a vehicle
		// crosses its way in the junction: wherever the vehicle will be
		// within sweepTime along its own path (not only where it will be
		// when the car gets there: it is in the way all the while it
		// crosses). Over the line, it holds short of where their ways
		// meet (an oncoming vehicle turning into the road it turns into).
		// One still short of its own stop line that waits for the car is
		// not waited for (it waits for the car).
		for u := 0.0; u <= o.Speed*sweepTime; u += sweepStep {
			p, dir := o.Pos, o.Dir
			if u > 0 {
				a, ok := d.Traffic.Ahead(o.Key, u)
				if !ok {
					break
				}
				p, dir = a.Pos, a.Dir
			}
			ps, plat, pt, pok := d.onLine(p, end)
			if !pok {
				continue
			}
			pa, across := half(dir.Dot(pt), math.Abs(dir.X*pt.Z-dir.Z*pt.X))
			over := d.toStop < -1
			if math.Abs(plat) >= car.Width/2+across+corridorSide || ps <= d.toStop || over && ps <= car.Length/2+pa {
				continue
			}
			// in the way there unless gone by the time the car, speeding
			// up hard, could get there
			reach := max(0, ps-car.Length/2-pa)
			arrive := (math.Sqrt(max(0, v)*max(0, v)+2*sweepAccel*reach) - max(0, v)) / sweepAccel
			if gone := (u+traffic.VehicleLength+car.Width)/o.Speed + sweepSlack; arrive < gone {
				if over {
					return math.Sqrt(2 * followBrake * max(0, reach-stopMargin))
				}
				return math.Sqrt(2 * followBrake * max(0, d.toStop))
			}
		}
	}
	if !inWay && o.Speed > 0 {
		// a vehicle crossing or turning: where it will be by the time the
		// car gets there, along its own path
		ahead := min(predictTime, max(s, 0)/max(v, 3))
		p := o.Pos.Add(o.Dir.Scale(o.Speed * ahead))
		if a, ok := d.Traffic.Ahead(o.Key, o.Speed*ahead); ok {
			p = a.Pos
		}
		s, lat, t, ok = d.onLine(p, end)
		cos = o.Dir.Dot(t)
		sin = math.Abs(o.Dir.X*t.Z - o.Dir.Z*t.X)
		along, across = half(cos, sin)
		inWay = ok && math.Abs(lat) < car.Width/2+across+corridorSide
		vs = 0
	}
	if !inWay {
		return math.Inf(1)
	}
	free := s - car.Length/2 - along - followGap - followTime*vs
	return math.Sqrt(max(0, vs*vs+2*followBrake*free))
}

// behindInLane: vehicle o comes up behind the car, going its way (it
// brakes for the car: its path ahead runs through the car, not across
// its way).
func (d *Driver) behindInLane(o *traffic.Vehicle) bool {
	back := d.ahead[max(d.here-2, 0)]
	t := d.ahead[min(d.here+2, len(d.ahead)-1)].Sub(back).Norm()
	return o.Dir.Dot(t) > 0.5 && o.Pos.Sub(d.ahead[d.here]).Dot(t) < 0
}

// The bumper: the line is where the car should be, but in a tight turn it
// swings wide of it, and a vehicle beside the line can be in front of the
// car. So the car also stops short of a vehicle on the arc it is driving
// now (its heading and wheel angle), as far as it needs to stop at low
// speed (at speed the line is followed closely, and the arc of a small
// steering correction would reach across into the oncoming lane).
const (
	bumperExtra = 3.0  // metres looked beyond the stopping distance
	bumperMax   = 15.0 // metres looked along the arc at most
	bumperStep  = 1.0
	bumperGap   = 1.0 // metres kept ahead of the car's nose
	bumperSide  = 0.3 // metres beside both widths
)

// bumperLimit is the speed from which the car, driving on along its arc
// of curvature curv (+: left) from pos facing fwd, stops short of o.
func bumperLimit(o *traffic.Vehicle, pos, fwd world.Vec2, curv, v float64) float64 {
	reach := min(max(0, v)*max(0, v)/(2*followBrake)+bumperExtra, bumperMax)
	if rel := o.Pos.Sub(pos); rel.Dot(rel) > (reach+car.Length+traffic.VehicleLength)*(reach+car.Length+traffic.VehicleLength) {
		return math.Inf(1)
	}
	left := roadgraph.Left(fwd)
	for s := 0.0; s <= reach; s += bumperStep {
		p, dir := pos.Add(fwd.Scale(s)), fwd
		if a := curv * s; math.Abs(curv) > 1e-6 {
			p = pos.Add(fwd.Scale(math.Sin(a) / curv)).Add(left.Scale((1 - math.Cos(a)) / curv))
			dir = fwd.Scale(math.Cos(a)).Add(left.Scale(math.Sin(a)))
		}
		d := o.Pos.Sub(p)
		ahead := d.Dot(dir)
		if ahead <= 0 {
			continue
		}
		cos := o.Dir.Dot(dir)
		sin := math.Abs(o.Dir.X*dir.Z - o.Dir.Z*dir.X)
		along := math.Abs(cos)*traffic.VehicleLength/2 + sin*traffic.VehicleWidth/2
		across := sin*traffic.VehicleLength/2 + math.Abs(cos)*traffic.VehicleWidth/2
		if ahead < car.Length/2+along+bumperGap && math.Abs(d.Dot(roadgraph.Left(dir))) < car.Width/2+across+bumperSide {
			vs := max(0, o.Speed*cos)
			return math.Sqrt(vs*vs + 2*followBrake*s)
		}
	}
	return math.Inf(1)
}

// onLine finds the point of the line from the car to index end nearest p:
// the metres along the line to it, p's offset from the line (+: left)
// and the line's direction there; ok is false when p is nearest the
// line's ends (behind the car or beyond the look-ahead).
func (d *Driver) onLine(p world.Vec2, end int) (s, lat float64, t world.Vec2, ok bool) {
	best, bi := math.Inf(1), -1
	for i := d.here; i <= end; i += 2 {
		if d2 := d.ahead[i].Dist2(p); d2 < best {
			best, bi = d2, i
		}
	}
	if bi < 0 {
		return 0, 0, world.Vec2{X: 1}, false
	}
	for i := max(d.here, bi-1); i <= min(end, bi+1); i++ {
		if d2 := d.ahead[i].Dist2(p); d2 < best {
			best, bi = d2, i
		}
	}
	t = d.ahead[min(bi+1, len(d.ahead)-1)].Sub(d.ahead[max(bi-1, 0)]).Norm()
	rel := p.Sub(d.ahead[bi])
	s = float64(bi-d.here)*pathStep + rel.Dot(t)
	lat = rel.Dot(roadgraph.Left(t))
	ok = (bi > d.here || rel.Dot(t) > -car.Length) && bi < end-1
	return s, lat, t, ok
}

// waitsForCar: a traffic vehicle standing still because of the car
// (vehicles brake for the car and wait for it, roadgraph/traffic.Flow,
// which says so), with the car in front of it, waits for as long as the
// car stays there: the car must not wait for it in turn (they would wait
// for each other for ever, face to face), so avoid treats it as a standing
// obstacle to steer round, and yield does not follow it. One that waits
// beside the car's line (in a junction, for the car across its turn) is
// waited for: there is no room to pass it, and it goes once the car holds
// back.
const (
	waitsForReach = 25.0 // metres
	waitsForSpeed = 0.5  // m/s
)

func (d *Driver) waitsForCar(o *traffic.Vehicle, pos world.Vec2) bool {
	if o.Speed > waitsForSpeed || !d.Traffic.WaitsForCar(o.Key) {
		return false
	}
	rel := pos.Sub(o.Pos)
	ahead := rel.Dot(o.Dir)
	return ahead > 0 && ahead < waitsForReach &&
		math.Abs(rel.Dot(roadgraph.Left(o.Dir))) < traffic.VehicleWidth/2+car.Width/2+corridorSide+0.5
}

// appendWaiting appends, as obstacles, the traffic vehicles near pos that
// wait for the car (waitsForCar).
func (d *Driver) appendWaiting(dst []slots.Obstacle, pos world.Vec2) []slots.Obstacle {
	for _, o := range d.Traffic.Vehicles() {
		if d.waitsForCar(&o, pos) {
			dst = append(dst, slots.BoxObstacle([2]float64{o.Pos.X, o.Pos.Z}, math.Atan2(o.Dir.Z, o.Dir.X),
				traffic.VehicleLength/2, traffic.VehicleWidth/2, o.Y, o.Y+traffic.VehicleHeight, slots.ObstacleTraffic))
		}
	}
	return dst
}

// Situation is what the driver made of traffic and signals at its last
// plan, for a contact's log line.
type Situation struct {
	Waiting      bool
	TrafficLimit float64 // m/s (+Inf: none)
	SwerveLimit  float64
	Blocked      float64       // metres to an obstacle it cannot pass (+Inf: none)
	Light        traffic.Light // at the next junction
	ToJunction   float64       // centre-line metres to it
}

// Situation returns the driver's view at its last plan.
func (d *Driver) Situation() Situation {
	s := Situation{Waiting: d.waiting, TrafficLimit: d.trafficLimit, SwerveLimit: d.swerveLimit, Blocked: d.blocked}
	if j, e, dist := d.route.NextJunction(); j != nil && d.Traffic != nil {
		s.Light, s.ToJunction = d.Traffic.Light(e.ID, d.route.forward), dist
	}
	return s
}
