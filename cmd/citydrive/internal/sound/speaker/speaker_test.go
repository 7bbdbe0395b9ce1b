package speaker

import (
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/cmd/citydrive/internal/sound"
)

// nullDevice is a device in the test's hands: it keeps the stream, and
// the test pulls samples from it as a sound card would.
type nullDevice struct {
	src     io.Reader
	stopped int
	err     error
}

func (d *nullDevice) Play(src io.Reader) (func(), error) {
	if d.err != nil {
		return nil, d.err
	}
	d.src = src
	return func() { d.stopped++ }, nil
}

// pull reads secs seconds of samples from the device's stream.
func (d *nullDevice) pull(t *testing.T, secs float64) []float32 {
	raw := make([]byte, int(secs*sound.SampleRate)*sound.BytesPerSample)
	_, err := io.ReadFull(d.src, raw)
	require.NoError(t, err)
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// zeroCrossHz estimates the pitch from upward zero crossings of a
// signal low-passed twice (the engine's harmonics, buzz and rumble
// smoothed away).
func zeroCrossHz(x []float32) float64 {
	var lp1, lp, prev float64
	ups, first, last := 0, -1, -1
	for i, v := range x {
		lp1 += (float64(v) - lp1) * 0.02
		lp += (lp1 - lp) * 0.02
		if prev < 0 && lp >= 0 {
			if first < 0 {
				first = i
			} else {
				ups++
			}
			last = i
		}
		prev = lp
	}
	if ups == 0 {
		return 0
	}
	return float64(ups) * sound.SampleRate / float64(last-first)
}

func TestSoundPathOnANullDevice(t *testing.T) {
	dev := &nullDevice{}
	s := Open(dev, false, nil)
	require.True(t, s.Playing())
	var hz [2]float64
	for i, speed := range []float64{3, 10} {
		s.Set(sound.Params{Speed: speed, Throttle: 0.6, Volume: 1})
		dev.pull(t, 0.3) // the glide
		hz[i] = zeroCrossHz(dev.pull(t, 0.5))
		assert.InEpsilon(t, sound.EngineHz(sound.RPM(speed, 0.6, sound.Gear(speed, 0))), hz[i], 0.08, "at %g m/s", speed)
	}
	assert.Greater(t, hz[1], hz[0]*1.3, "faster sounds higher: %v", hz)
	s.Close()
	s.Close()
	assert.Equal(t, 1, dev.stopped)
}

func TestNoDeviceIsSilentNotAnError(t *testing.T) {
	var log strings.Builder
	s := Open(&nullDevice{err: errors.New("no card")}, false, slog.New(slog.NewTextHandler(&log, nil)))
	assert.False(t, s.Playing())
	s.Set(sound.Params{Speed: 10, Volume: 1}) // still fine to feed
	s.Close()
	assert.Equal(t, 1, strings.Count(log.String(), "\n"), "one log line: %s", log.String())
	assert.Contains(t, log.String(), "no card")
}

func TestMuteOpensNoDevice(t *testing.T) {
	dev := &nullDevice{}
	s := Open(dev, true, nil)
	assert.False(t, s.Playing())
	assert.Nil(t, dev.src)
	s.Close()
}

// pulledDevice wraps a device and signals the first read of its stream.
type pulledDevice struct {
	Device
	pulled chan struct{}
	once   sync.Once
}

func (d *pulledDevice) Play(src io.Reader) (func(), error) {
	return d.Device.Play(readFunc(func(p []byte) (int, error) {
		d.once.Do(func() { close(d.pulled) })
		return src.Read(p)
	}))
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// The machine's own device: wherever the tests run (with or without a
// sound card) opening it never fails; where it plays, oto pulls the
// stream; a second open in the process is refused quietly. (Without a
// card, an ALSA null device exercises the playing half:
// HOME=/tmp/x with /tmp/x/.asoundrc holding "pcm.!default { type null }".)
func TestMachineDevice(t *testing.T) {
	dev := &pulledDevice{Device: Oto{}, pulled: make(chan struct{})}
	s := Open(dev, false, slog.New(slog.DiscardHandler))
	s.Set(sound.Params{Speed: 10, Volume: 0.01})
	t.Logf("machine audio device playing: %v", s.Playing())
	if s.Playing() {
		select {
		case <-dev.pulled:
		case <-time.After(10 * time.Second):
			t.Fatal("oto never read the stream")
		}
	}
	second := Open(nil, false, slog.New(slog.DiscardHandler))
	assert.False(t, second.Playing())
	second.Close()
	s.Close()
}
