package netsync

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"citydrive/netsync/wire"
)

// queue is a bounded outbound frame queue drained by one writer goroutine.
// Push never blocks: when the queue is past its frame or byte bound it
// reports false and the caller cuts the peer off.
type queue struct {
	ch       chan *[]byte
	bytes    atomic.Int64
	maxBytes int64
}

func newQueue(frames int, maxBytes int64) *queue {
	return &queue{ch: make(chan *[]byte, frames), maxBytes: maxBytes}
}

var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

func getFrame() *[]byte { return framePool.Get().(*[]byte) }

func putFrame(b *[]byte) {
	if cap(*b) > 64<<10 { // do not keep chunk-sized buffers around
		return
	}
	*b = (*b)[:0]
	framePool.Put(b)
}

func (q *queue) push(f *[]byte) bool {
	n := int64(len(*f))
	if q.bytes.Add(n) > q.maxBytes {
		q.bytes.Add(-n)
		putFrame(f)
		return false
	}
	select {
	case q.ch <- f:
		return true
	default:
		q.bytes.Add(-n)
		putFrame(f)
		return false
	}
}

// run writes queued frames to w until ctx ends or a write fails.
func (q *queue) run(ctx context.Context, w io.Writer) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case f := <-q.ch:
			_, err := w.Write(*f)
			q.bytes.Add(-int64(len(*f)))
			putFrame(f)
			if err != nil {
				return err
			}
		}
	}
}

// carSlot is a latest-only mailbox: Put replaces whatever was not yet
// taken, and never blocks.
type carSlot struct {
	mu     sync.Mutex
	cars   []wire.CarSnapshot
	full   bool
	signal chan struct{}
}

func newCarSlot() *carSlot { return &carSlot{signal: make(chan struct{}, 1)} }

func (s *carSlot) put(cars []wire.CarSnapshot) {
	s.mu.Lock()
	s.cars = append(s.cars[:0], cars...)
	s.full = true
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *carSlot) take(dst []wire.CarSnapshot) ([]wire.CarSnapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.full {
		return dst, false
	}
	s.full = false
	return append(dst[:0], s.cars...), true
}

// datagramSender is a connection that sends datagrams (*quic.Conn,
// peerConn).
type datagramSender interface{ SendDatagram([]byte) error }

// run sends what the slot holds as datagrams. SendDatagram may block while
// quic-go's queue is full; meanwhile newer snapshots replace older ones in
// the slot, so only the latest is ever sent.
func (s *carSlot) run(ctx context.Context, conn datagramSender, dropped *atomic.Uint64) {
	var cars []wire.CarSnapshot
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.signal:
		}
		var ok bool
		if cars, ok = s.take(cars); !ok {
			continue
		}
		for len(cars) > 0 {
			n := min(len(cars), wire.MaxCarsPerDatagram)
			buf, _ = wire.AppendCarDatagram(buf[:0], cars[:n])
			cars = cars[n:]
			if err := conn.SendDatagram(buf); err != nil {
				var tooLarge *quic.DatagramTooLargeError
				if !errors.As(err, &tooLarge) {
					return
				}
				dropped.Add(1)
			}
		}
	}
}

// readDeadliner is a stream with a read deadline (*quic.Stream).
type readDeadliner interface{ SetReadDeadline(time.Time) error }

// readFrames decodes frames from r and hands each message to deliver, which
// may block (that is backpressure onto the peer, never onto a tick). With
// frameTimeout > 0 and r a readDeadliner, a frame must complete within
// frameTimeout of its first byte (waiting between frames is unbounded);
// a stalled one fails with an error wrapping os.ErrDeadlineExceeded.
func readFrames(r io.Reader, maxFrame int, frameTimeout time.Duration, lim wire.Limits, deliver func(wire.Message) error) error {
	fr := wire.NewFrameReader(r, maxFrame)
	d, timed := r.(readDeadliner)
	timed = timed && frameTimeout > 0
	if timed {
		fr.OnFrameStart = func() { _ = d.SetReadDeadline(time.Now().Add(frameTimeout)) }
	}
	dec := wire.NewDecoder(lim)
	for {
		p, err := fr.Next()
		if err != nil {
			return err
		}
		if timed {
			_ = d.SetReadDeadline(time.Time{})
		}
		m, err := dec.Decode(p)
		if err != nil {
			return err
		}
		if err := deliver(m); err != nil {
			return err
		}
	}
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
