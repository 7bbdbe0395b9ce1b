package game

import (
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"os"
	"sync"
)

// pngWriter encodes and writes screenshots on a goroutine of its own: PNG
// encoding a 1280×720 frame takes longer than a frame, and a screenshot
// must not stall the drive (under software GL it used to cost a second of
// game time each).
type pngWriter struct {
	jobs chan pngJob
	wg   sync.WaitGroup
	log  *slog.Logger
}

type pngJob struct {
	path string
	img  *image.RGBA
}

// pngQueue bounds screenshots waiting to be written; more are dropped
// (and logged) rather than held in memory.
const pngQueue = 4

func newPNGWriter(log *slog.Logger) *pngWriter {
	w := &pngWriter{jobs: make(chan pngJob, pngQueue), log: log}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for j := range w.jobs {
			if err := writePNG(j.path, j.img); err != nil {
				w.log.Error("screenshot failed", "path", j.path, "err", err)
			}
		}
	}()
	return w
}

// write queues img for path; false when the queue is full.
func (w *pngWriter) write(path string, img *image.RGBA) bool {
	select {
	case w.jobs <- pngJob{path, img}:
		return true
	default:
		return false
	}
}

// close writes what is queued and stops.
func (w *pngWriter) close() {
	close(w.jobs)
	w.wg.Wait()
}

func writePNG(path string, img *image.RGBA) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return f.Close()
}
