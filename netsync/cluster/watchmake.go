package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Watches are made off the watch goroutine: WatchFiltered asks JetStream
// for a consumer and, while JetStream elects its leaders (after a lost
// quorum), the answer comes only at the client library's API timeout (5 s)
// or as an error. A context given to it cannot shorten that alone: the
// library also ends the watch when that context is done. So each make has
// its own context, the watch's for as long as it lives: cancelling it
// abandons a make in flight, or stops the watch it made.

// minWatchBackoff is the first wait before a failed make is tried again
// (doubling to 1 s).
const minWatchBackoff = 50 * time.Millisecond

// watches is the watch goroutine's state.
type watches struct {
	main, catch      *liveWatch
	making, catching *attempt // makes in flight, at most one of each
	last             uint64   // the newest revision a main watch delivered
	filters          map[Region]bool
	remake           bool // the main watch is to be made again (stalled)
	needCatch        bool // look for unready regions (a main watch was put in place)
	retry            <-chan time.Time
	backoff          time.Duration
	makeFor          time.Duration // a make in flight this long is replaced (the TTL)
	made             chan made
	wg               *sync.WaitGroup // the world's: its close waits for every stop
}

// liveWatch is a watch in place.
type liveWatch struct {
	kw     jetstream.KeyWatcher
	cancel context.CancelFunc
	at     time.Time // made or last delivered (catch-ups are timed by it)
}

// attempt is a make in flight.
type attempt struct {
	cancel  context.CancelFunc
	since   time.Time
	catch   bool
	filters map[Region]bool // a main watch's regions
}

// made is a make's outcome.
type made struct {
	a      *attempt
	kw     jetstream.KeyWatcher
	err    error
	cancel context.CancelFunc
}

func (m made) watch() *liveWatch {
	if m.kw == nil {
		m.cancel()
		return nil
	}
	return &liveWatch{kw: m.kw, cancel: m.cancel, at: time.Now()}
}

func newWatches(ttl time.Duration, wg *sync.WaitGroup) *watches {
	return &watches{backoff: minWatchBackoff, makeFor: ttl, made: make(chan made), wg: wg}
}

func (s *watches) mainC() <-chan jetstream.KeyValueEntry {
	if s.main == nil {
		return nil
	}
	return s.main.kw.Updates()
}

func (s *watches) catchC() <-chan jetstream.KeyValueEntry {
	if s.catch == nil {
		return nil
	}
	return s.catch.kw.Updates()
}

// startMake makes a watch of keys on a goroutine of its own; its outcome
// comes on s.made, or, once the attempt is abandoned or the world closes
// (its context done either way), the watch it made is stopped there.
func (w *World) startMake(s *watches, keys []string, opts []jetstream.WatchOpt, catch bool) *attempt {
	ctx, cancel := context.WithCancel(w.ctx)
	a := &attempt{cancel: cancel, since: time.Now(), catch: catch}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		kw, err := w.kv.WatchFiltered(ctx, keys, opts...)
		select {
		case s.made <- made{a: a, kw: kw, err: err, cancel: cancel}:
		case <-ctx.Done():
			if kw != nil {
				stopWatch(kw)
			}
		}
	}()
	return a
}

// abandon cancels a make in flight (nil: none); its watch, if it is made
// anyway, is stopped.
func (s *watches) abandon(a *attempt) {
	if a == nil {
		return
	}
	a.cancel()
	if s.making == a {
		s.making = nil
	}
	if s.catching == a {
		s.catching = nil
	}
}

// retire stops a watch no longer wanted (nil: none), off the watch
// goroutine: stopping takes what the library still delivers, which can
// wait on the library's own timeouts.
func (s *watches) retire(lw *liveWatch) {
	if lw == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		lw.cancel()
		stopWatch(lw.kw)
	}()
}

// close stops the watches in place and abandons the makes in flight (the
// world's close waits for them all).
func (s *watches) close() {
	s.abandon(s.making)
	s.abandon(s.catching)
	s.retire(s.main)
	s.retire(s.catch)
	s.main, s.catch = nil, nil
}
