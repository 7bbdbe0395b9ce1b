package speaker

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ebitengine/oto/v3"

	"citydrive/cmd/citydrive/internal/sound"
)

// Oto is the machine's audio device (ALSA on Linux). oto allows one
// context per process: a second Play is an error, as is a device that is
// not ready within otoReady.
type Oto struct{}

const (
	otoReady = 2 * time.Second
	// otoBuffer is the player's buffer: short, so the sound follows the
	// car within a few frames.
	otoBuffer = 60 * time.Millisecond
)

var otoOnce struct {
	sync.Mutex
	used bool
}

// Play opens the device and starts pulling src.
func (Oto) Play(src io.Reader) (func(), error) {
	otoOnce.Lock()
	defer otoOnce.Unlock()
	if otoOnce.used {
		return nil, errors.New("the audio device is already in use by this process")
	}
	otoOnce.used = true
	quietDriver()
	ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
		SampleRate: sound.SampleRate, ChannelCount: 1, Format: oto.FormatFloat32LE, BufferSize: otoBuffer,
	})
	if err != nil {
		return nil, err
	}
	select {
	case <-ready:
	case <-time.After(otoReady):
		return nil, fmt.Errorf("the audio device was not ready within %v", otoReady)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := ctx.NewPlayer(src)
	p.SetBufferSize(int(otoBuffer.Seconds()*sound.SampleRate) * sound.BytesPerSample)
	p.Play()
	return func() {
		p.Pause()
		_ = p.Close()
		_ = ctx.Suspend()
	}, nil
}
