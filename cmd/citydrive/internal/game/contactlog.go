package game

import (
	"fmt"
	"math"

	"citydrive/roadgraph"
	"citydrive/roadgraph/traffic"
)

// trafficContact describes a contact with traffic for the log: the
// vehicle nearest the car (the one touched), where it is and where it is
// going relative to the car, how far it runs behind its schedule, the
// light on its lane, and what the autopilot made of it all.
func (s *Session) trafficContact() []any {
	tr := s.carEnv().traffic
	if tr == nil {
		return nil
	}
	c := s.car
	fwd := c.Forward()
	var near *traffic.Vehicle
	best := math.Inf(1)
	vs := tr.Vehicles()
	for i := range vs {
		if d2 := vs[i].Pos.Dist2(c.Pos); d2 < best {
			near, best = &vs[i], d2
		}
	}
	if near == nil {
		return nil
	}
	rel := near.Pos.Sub(c.Pos)
	v := near
	light := tr.Light(v.Key.Edge, v.Key.Lane == 0)
	attrs := []any{
		"car_speed", round2(c.Speed()), "car_heading_deg", math.Round(c.Heading * 180 / math.Pi),
		"vehicle", fmt.Sprintf("%d/%d/%d/%d", v.Key.Edge, v.Key.Cycle, v.Key.Lane, v.Key.K),
		"vehicle_x", round2(v.Pos.X), "vehicle_z", round2(v.Pos.Z),
		"ahead_m", round2(rel.Dot(fwd)), "left_m", round2(rel.Dot(roadgraph.Left(fwd))),
		"rel_heading_deg", math.Round(math.Atan2(v.Dir.Dot(roadgraph.Left(fwd)), v.Dir.Dot(fwd)) * 180 / math.Pi),
		"vehicle_speed", round2(v.Speed), "vehicle_u", round2(v.U - v.Start), "to_stop", round2(v.Stop - v.U),
		"vehicle_lag", round2(tr.Lag(v.Key)), "vehicle_light", light.String(),
	}
	if s.opt.Autopilot {
		a := s.driver.Situation()
		attrs = append(attrs, "ap_waiting", a.Waiting, "ap_traffic_limit", round2(a.TrafficLimit), "ap_swerve_limit", round2(a.SwerveLimit),
			"ap_blocked", round2(a.Blocked), "ap_light", a.Light.String(), "ap_to_junction", round2(a.ToJunction))
	}
	return attrs
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
