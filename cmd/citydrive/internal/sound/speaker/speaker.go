// Package speaker plays the car's sound (sound.Synth) on the machine's
// audio device through oto. Where there is no device (a server, CI, a
// virtual display) it stays silent: opening never fails the game, and it
// says so in one log line.
package speaker

import (
	"io"
	"log/slog"

	"citydrive/cmd/citydrive/internal/sound"
)

// Device pulls an endless PCM stream (sound.Stream's format: float32 LE,
// mono, sound.SampleRate) on its own goroutine until stop is called.
type Device interface {
	Play(src io.Reader) (stop func(), err error)
}

// Speaker is the car's sound on a device, or silence.
type Speaker struct {
	synth *sound.Synth
	stop  func()
}

// Open starts the synthesiser on dev (nil: the machine's audio device
// through oto). mute, or a device that cannot play, gives a silent
// Speaker; neither is an error.
func Open(dev Device, mute bool, log *slog.Logger) *Speaker {
	s := &Speaker{synth: sound.New()}
	if mute {
		return s
	}
	if dev == nil {
		dev = Oto{}
	}
	stop, err := dev.Play(sound.NewStream(s.synth))
	if err != nil {
		if log != nil {
			log.Info("no sound", "reason", err)
		}
		return s
	}
	s.stop = stop
	return s
}

// Playing reports whether a device is pulling the sound.
func (s *Speaker) Playing() bool { return s.stop != nil }

// Set gives the car's state for the coming samples; it allocates nothing.
func (s *Speaker) Set(p sound.Params) { s.synth.Set(p) }

// Close stops the device. Safe to call twice.
func (s *Speaker) Close() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}
