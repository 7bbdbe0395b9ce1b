//go:build cgo

package main

import (
	"citydrive/cmd/citydrive/internal/game"
	"citydrive/cmd/citydrive/internal/sound/speaker"
)

// replayWindow plays o.Replay in a window, with the engine's sound.
func replayWindow(wo windowOptions, o game.Options) error {
	vf := viewFlags{width: &wo.width, height: &wo.height, fullscreen: &wo.fullscreen, profile: &wo.profile,
		weather: new(string), timeOfDay: new(float64), renderScale: new(float64)}
	*vf.weather = "dry" // the replay's own: replayOptions sets it
	ropt, _, err := vf.options()
	if err != nil {
		return err
	}
	win, err := openWindow(ropt, o.Streaming, o.Log)
	if err != nil {
		return withDisplayHint(err)
	}
	sp := speaker.Open(nil, wo.mute, o.Log)
	defer sp.Close()
	o.Display, o.Sound = win, sp
	s, err := game.New(o)
	if err != nil {
		return err // New closed the window
	}
	defer s.Close()
	return s.Run()
}
