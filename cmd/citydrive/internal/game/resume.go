package game

import (
	"math"

	"citydrive/cmd/citydrive/internal/settings"
	"citydrive/roadgraph/world"
)

// Resume: the car's pose and the camera are saved when the game ends
// (Session.Place) and given back at the next start (Options.Resume). The
// car is put exactly where it was: offline, and in solo play, where the
// command made the server spawn the car there; on another server, which
// chooses where cars start, the place is asked for with a Reset and the
// server's rules decide (a refusal is in the HUD like any other).

// resumeNear: a resumed place this close to the start is where the
// server spawned the car: it is taken without asking.
const resumeNear = 1.0

// startResume puts the car where opt.Resume says, or notes that the
// server is to be asked once the world is loaded.
func (s *Session) startResume() {
	r := s.opt.Resume
	if r == nil {
		return
	}
	s.topView = r.Camera == settings.Top
	at := world.Vec2{X: r.X, Z: r.Z}
	if s.link != nil && at.Sub(s.opt.Start).Len() > resumeNear {
		s.resumeAsk = true
		return
	}
	s.placeCar(at, headingDir(r.Heading))
}

// askResume asks the server for the resumed place (Load calls it once
// the world is built).
func (s *Session) askResume() {
	if !s.resumeAsk || s.link == nil {
		return
	}
	s.resumeAsk = false
	r := s.opt.Resume
	s.link.reset(r.X, s.carEnv().Surface(r.X, r.Z).Y, r.Z, r.Heading)
}

func headingDir(h float64) world.Vec2 { return world.Vec2{X: math.Cos(h), Z: -math.Sin(h)} } // car.Forward's convention

// Place is where the car is now and the camera, for the resume file (the
// caller fills in the server, seed and time).
func (s *Session) Place() settings.Place {
	cam := settings.Chase
	if s.topView {
		cam = settings.Top
	}
	return settings.Place{X: s.car.Pos.X, Z: s.car.Pos.Z, Heading: s.car.Heading, Camera: cam}
}
