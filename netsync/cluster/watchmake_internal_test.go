package cluster

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// fakeWatcher is a watch the test feeds.
type fakeWatcher struct {
	c    chan jetstream.KeyValueEntry
	once sync.Once
	done chan struct{} // closed by Stop
}

func newFakeWatcher() *fakeWatcher {
	return &fakeWatcher{c: make(chan jetstream.KeyValueEntry, 4), done: make(chan struct{})}
}

func (f *fakeWatcher) Updates() <-chan jetstream.KeyValueEntry { return f.c }
func (f *fakeWatcher) Stop() error {
	f.once.Do(func() { close(f.done); close(f.c) })
	return nil
}

// makeCall is one WatchFiltered call; the test answers it.
type makeCall struct {
	ctx    context.Context
	answer chan *fakeWatcher // nil: block until ctx is done
}

// scriptedKV hands every WatchFiltered call to the test.
type scriptedKV struct {
	bucketOnly
	calls chan makeCall
}

func (k scriptedKV) WatchFiltered(ctx context.Context, _ []string, _ ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	c := makeCall{ctx: ctx, answer: make(chan *fakeWatcher, 1)}
	select {
	case k.calls <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case f := <-c.answer:
		return f, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (k scriptedKV) next(t *testing.T, within time.Duration) makeCall {
	t.Helper()
	select {
	case c := <-k.calls:
		return c
	case <-time.After(within):
		t.Fatalf("no watch made within %v", within)
		return makeCall{}
	}
}

func heartbeat(t *testing.T, slot uint32, rev uint64) entry {
	t.Helper()
	b, err := encodeBeat(beat{Addr: "x:1"})
	require.NoError(t, err)
	return entry{key: liveKey(slot), val: b, rev: rev}
}

func recv(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: not within 5 s", what)
	}
}

// Making the watch again (as the leaser asks when it has gone silent)
// can block while JetStream elects leaders: the client library answers
// only at its API timeout, or never. Meanwhile the watch in place goes on
// delivering; a make blocked for the TTL is abandoned (its context ended)
// and made again; once the new watch is in place the old one is stopped;
// closing the world stops the rest. Before, the one watch goroutine made
// the watch itself, so nothing was delivered until the make returned.
func TestABlockedWatchMakeNeitherStallsDeliveryNorLasts(t *testing.T) {
	const ttl = 200 * time.Millisecond
	kv := scriptedKV{calls: make(chan makeCall)}
	dir := newDirectory(1, ttl, time.Now)
	w := newWorld(nil, kv, dir, 1, slog.New(slog.DiscardHandler), WorldOptions{})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.watchLoop()
	}()

	first := newFakeWatcher()
	kv.next(t, time.Second).answer <- first
	first.c <- heartbeat(t, 2, 1)
	first.c <- nil // the initial values are in
	changed := dir.Changed()
	recv(t, changed, "the first watch's heartbeat applied")

	w.stale.Store(true) // the leaser: our heartbeats are stored but not shown
	w.poke()
	blocked := kv.next(t, time.Second) // never answered
	// The watch in place still delivers while the make is blocked.
	changed = dir.Changed()
	select {
	case <-first.done:
		t.Fatal("the watch in place was stopped before a new one was made")
	default:
	}
	first.c <- entry{key: ownKey(Region{0, 0}), val: []byte("2"), rev: 2}
	recv(t, changed, "an entry of the old watch applied during the blocked make")

	start := time.Now()
	again := kv.next(t, 5*time.Second)
	require.GreaterOrEqual(t, time.Since(start), ttl/2, "made again once the first make was overdue, not at once")
	recv(t, blocked.ctx.Done(), "the blocked make abandoned")
	second := newFakeWatcher()
	again.answer <- second
	recv(t, first.done, "the old watch stopped once the new one is in place")
	changed = dir.Changed()
	second.c <- entry{key: ownKey(Region{0, 0}), val: []byte("2"), rev: 3}
	recv(t, changed, "the new watch delivers")

	w.cancel()
	w.wg.Wait()
	recv(t, second.done, "the watch stopped on close")
}
