package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/sound"
)

// CarSound is what the frame loop needs of the audio: the car's state,
// once a frame (sound/speaker implements it; nil: no sound).
type CarSound interface {
	Set(p sound.Params)
}

// engineVolume is the master volume while driving.
const engineVolume = 0.8

// Tyre squeal: it starts at the first of each pair and is full at the
// second. Cornering is the sideways acceleration v·ω (m/s²), sliding the
// sideways speed of the car (m/s), skidding is braking hard at speed.
const (
	squealAccel0, squealAccel1 = 5.0, 9.0
	squealSlide0, squealSlide1 = 0.8, 3.0
	skidSpeed                  = 8.0 // m/s: harder braking below this does not skid
	skidSlip                   = 0.5 // the squeal of a full-brake skid
)

// tyreSlip is how hard the tyres scrub, 0..1, from the car's speed (m/s),
// yaw rate (rad/s), sideways speed (m/s) and brake (0..1).
func tyreSlip(speed, yawRate, sideways, brake float64) float64 {
	ramp := func(x, a, b float64) float64 { return math.Max(0, math.Min(1, (x-a)/(b-a))) }
	v := math.Abs(speed)
	slip := math.Max(ramp(math.Abs(v*yawRate), squealAccel0, squealAccel1), ramp(math.Abs(sideways), squealSlide0, squealSlide1))
	if speed > skidSpeed {
		slip = math.Max(slip, skidSlip*brake)
	}
	return slip
}

// feedSound hands the car's state to the sound (silence while paused).
func (s *Session) feedSound(paused bool) {
	if s.opt.Sound == nil {
		return
	}
	if paused {
		s.opt.Sound.Set(sound.Params{})
		return
	}
	c := s.car
	f := c.Forward()
	sideways := c.Vel.X*-f.Z + c.Vel.Z*f.X
	yaw := math.Remainder(c.Heading-s.prev.heading, 2*math.Pi) / physicsStep
	s.opt.Sound.Set(sound.Params{
		Speed: c.Speed(), Throttle: s.hands.Throttle, Volume: engineVolume * s.volume(),
		Slip: tyreSlip(c.Speed(), yaw, sideways, s.hands.Brake),
	})
}

// volume is the settings' master volume (0 muted).
func (s *Session) volume() float64 {
	if s.settings.Mute {
		return 0
	}
	return s.settings.Volume
}
