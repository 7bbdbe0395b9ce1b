package cluster

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"citydrive/netsync"
	"citydrive/voxel"
)

// One watch per server: a single ordered consumer on the bucket filtered
// to the ownership keys, the heartbeats and the chunk keys of every region
// this server watches (the regions its players' areas touch and the ones
// it owns). When that set changes the consumer is made again with the new
// filters, resuming just after the last revision it delivered, so nothing
// it watched before is missed; a region new to it gets its current values
// from a catch-up watch of just the new regions, made after the resumed
// one (so whatever the catch-up's snapshot lacks, the resumed one
// delivers), and stopped once its initial values are in. Entries are
// applied by revision, so the two overlapping deliver nothing twice.

// UnionChanged starts watching regions the union entered and stops those
// it left (the watch goroutine acts on it; the tick never waits).
func (w *World) UnionChanged(added, removed []voxel.ChunkPos) {
	w.entered, w.left = w.regions.update(added, removed, w.entered[:0], w.left[:0])
	if len(w.entered) == 0 && len(w.left) == 0 {
		return
	}
	w.mu.Lock()
	for _, r := range w.left {
		delete(w.want, r)
	}
	for _, r := range w.entered {
		w.want[r] = true
	}
	w.mu.Unlock()
	w.poke()
	if w.follow != nil {
		w.follow(w.entered, w.left)
	}
}

// poke wakes the watch goroutine to compare what it watches with what it
// should.
func (w *World) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// changedLocked wakes whoever waits for the world's state to move on
// (committers waiting for a region or an owner). w.mu held.
func (w *World) changedLocked() {
	close(w.moved)
	w.moved = make(chan struct{})
}

// watchLoop runs the server's watch until the world closes. It only
// delivers and decides: watches are made off it (watchmake.go), so a
// create blocked while JetStream elects its leaders (the client library
// waits 5 s for an answer) holds up neither the watch in place nor the
// leaser's heartbeats and judgements.
func (w *World) watchLoop() {
	s := newWatches(w.dir.ttl, &w.wg)
	defer s.close()
	check := time.NewTicker(s.makeFor / 4)
	defer check.Stop()
	dirty := true // the watched set or a watch needs looking at
	for w.ctx.Err() == nil {
		if dirty && s.retry == nil {
			dirty = false
			w.rewatch(s)
		}
		select {
		case <-w.ctx.Done():
			return
		case <-w.wake:
			dirty = true
		case <-s.retry:
			s.retry, dirty = nil, true
		case m := <-s.made:
			dirty = w.install(s, m) || dirty
		case now := <-check.C:
			dirty = w.overdue(s, now) || dirty
		case e, ok := <-s.mainC():
			if !ok {
				s.retire(s.main)          // the library ended it: its context freed
				s.main, dirty = nil, true // resumed by rewatch
				continue
			}
			if e == nil {
				w.dir.setLoaded()
				continue
			}
			s.last = max(s.last, e.Revision())
			w.onEntry(e)
		case e, ok := <-s.catchC():
			if !ok {
				s.retire(s.catch)
				s.catch, dirty = nil, true // made again for what is still unready
				continue
			}
			s.catch.at = time.Now()
			if e == nil {
				s.retire(s.catch)
				s.catch = nil
				w.caughtUp()
				dirty = true // regions entered meanwhile want theirs
				continue
			}
			w.onEntry(e)
		}
	}
}

// rewatch brings the watches to the regions wanted: the main watch
// resumed with new filters, a catch-up for the regions without values
// once a main watch covering them is in place. It starts makes; install
// puts what they made in place.
func (w *World) rewatch(s *watches) {
	want, fresh := w.reconcile(time.Now())
	if w.stale.Swap(false) {
		s.remake = true // until a new main watch is in place
	}
	if s.main == nil || s.remake || !covers(s.filters, want) || len(s.filters) > 2*len(want)+minExtraFilters {
		// One make at a time: one covering want is left to finish (or to
		// be replaced once overdue); one that does not is replaced now.
		if s.making == nil || !covers(s.making.filters, want) {
			s.abandon(s.making)
			keys := []string{ownPrefix + ".>", livePrefix + ".>"}
			for r := range want {
				keys = append(keys, regionFilter(r))
			}
			// Its first start takes the directory's current values; a
			// remake resumes just after the last revision delivered, so
			// it replays whatever the old one missed (the values of every
			// ready region stay whole: no catch-up needed for them).
			var opts []jetstream.WatchOpt
			if s.last > 0 {
				opts = append(opts, jetstream.ResumeFromRevision(s.last+1))
			}
			s.making = w.startMake(s, keys, opts, false)
			s.making.filters = want
		}
		if s.main == nil || !covers(s.filters, want) {
			return // the catch-up waits for a main watch covering its regions
		}
	}
	if !fresh && !s.needCatch && (s.catch != nil || s.catching != nil) {
		return
	}
	s.needCatch = false
	// A catch-up for every region still without its values, made after
	// the main watch that covers them (what its snapshot lacks, the main
	// watch delivers).
	if keys := w.unreadyFilters(); len(keys) > 0 {
		s.abandon(s.catching)
		s.retire(s.catch)
		s.catch = nil
		s.catching = w.startMake(s, keys, nil, true)
	}
}

// install puts a made watch in place (the one it replaces stopped), or
// stops it if a newer make superseded it; a failed make is retried after
// a backoff. It reports whether rewatch should look again.
func (w *World) install(s *watches, m made) bool {
	switch {
	case m.a != s.making && m.a != s.catching:
		s.retire(m.watch())
		return false
	case m.err != nil:
		what := "main"
		if m.a.catch {
			what = "catch-up"
			s.catching = nil
			w.uncatch()
		} else {
			s.making = nil
		}
		if w.ctx.Err() == nil {
			w.log.Warn("the edit watch failed; retrying", "what", what, "err", m.err)
		}
		s.retry = time.After(s.backoff)
		s.backoff = min(2*s.backoff, time.Second)
		return false
	case m.a.catch:
		s.retire(s.catch)
		s.catch, s.catching = m.watch(), nil
		return false
	default:
		s.retire(s.main)
		s.main, s.filters, s.making, s.remake = m.watch(), m.a.filters, nil, false
		s.backoff, s.needCatch = minWatchBackoff, true
		w.consumerStarts.Inc()
		w.log.Debug("the edit watch made", "took", time.Since(m.a.since), "regions", len(s.filters), "from", s.last+1)
		return true
	}
}

// overdue replaces a make in flight for makeFor (its answer may come only
// at the client library's timeout, or never arrive) and a catch-up that
// delivered nothing for as long: either bounds a silent watch at about
// the TTL. It reports whether rewatch should look again.
func (w *World) overdue(s *watches, now time.Time) bool {
	again := false
	for _, a := range []*attempt{s.making, s.catching} {
		if a != nil && now.Sub(a.since) >= s.makeFor {
			w.log.Warn("making the edit watch takes too long; making it again", "catch_up", a.catch, "waited", now.Sub(a.since))
			if a.catch {
				w.uncatch()
			}
			s.abandon(a)
			again = true
		}
	}
	if s.catch != nil && now.Sub(s.catch.at) >= s.makeFor {
		w.log.Warn("the catch-up watch delivers nothing; making it again", "silent", now.Sub(s.catch.at))
		s.retire(s.catch)
		s.catch = nil
		w.uncatch()
		again = true
	}
	if again {
		s.needCatch = true
	}
	return again
}

// reconcile brings the watched set to the regions wanted (the union's and
// the owned ones): a region left is forgotten (its parked acks answered),
// a region entered starts unready. fresh: some region was entered.
//
// A region left stays watched (and deliverable) for watchLinger: with
// hundreds of players, areas cross region borders every few hundred
// milliseconds, often back and forth, and each change of the set made the
// watch again and each region entered needed a catch-up, restarted by
// the next entry (under that churn a region could stay loading for many
// seconds, its edits waiting). With it, a region entered again soon is
// still ready, and one left costs nothing until it is dropped.
func (w *World) reconcile(now time.Time) (map[Region]bool, bool) {
	owned := w.dir.owned()
	w.mu.Lock()
	defer w.mu.Unlock()
	want := make(map[Region]bool, len(w.want)+len(owned))
	for r := range w.want {
		want[r] = true
	}
	for _, r := range owned {
		want[r] = true
	}
	for r := range want {
		delete(w.linger, r)
	}
	for r := range w.watched {
		if want[r] {
			continue
		}
		until, ok := w.linger[r]
		if !ok {
			until = now.Add(watchLinger)
			w.linger[r] = until
		}
		if now.Before(until) {
			want[r] = true
		}
	}
	fresh := false
	for r := range w.watched {
		if want[r] {
			continue
		}
		delete(w.linger, r)
		delete(w.watched, r)
		for pos, ps := range w.parked { // nobody here holds them any more
			if RegionOf(pos) == r {
				for _, p := range ps {
					w.done.Add(voxel.Committed{Tag: p.tag, Edit: p.e})
				}
				delete(w.parked, pos)
			}
		}
		for pos := range w.written {
			if RegionOf(pos) == r {
				delete(w.written, pos)
			}
		}
	}
	for r := range want {
		if w.watched[r] == nil {
			w.watched[r] = &watch{r: r, chunks: map[voxel.ChunkPos]known{}}
			fresh = true
		}
	}
	if fresh {
		w.changedLocked()
	}
	return want, fresh
}

// watchLinger is how long a region no longer wanted stays watched.
const watchLinger = 10 * time.Second

// minExtraFilters: the main watch is made again to drop regions no longer
// watched only once they outnumber the watched ones (2×, plus this):
// until then their entries cost less than making the watch again.
const minExtraFilters = 16

// covers reports whether filters holds every region of want.
func covers(filters, want map[Region]bool) bool {
	for r := range want {
		if !filters[r] {
			return false
		}
	}
	return true
}

// unreadyFilters marks every region still without its values as being
// caught up and returns their filters (every watched region is in the
// main watch's filters when it is called).
func (w *World) unreadyFilters() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var keys []string
	for r, wt := range w.watched {
		wt.catching = false
		if !wt.ready {
			wt.catching = true
			keys = append(keys, regionFilter(r))
		}
	}
	return keys
}

func (w *World) uncatch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wt := range w.watched {
		wt.catching = false
	}
}

// caughtUp makes deliverable every region the finished catch-up covered.
func (w *World) caughtUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wt := range w.watched {
		if wt.catching {
			wt.ready, wt.catching = true, false
		}
	}
	w.changedLocked()
}

// onEntry applies one watched entry: an ownership key or heartbeat to the
// directory, a chunk's value to its region.
func (w *World) onEntry(e jetstream.KeyValueEntry) {
	if isDir, err := w.dir.apply(e); isDir {
		if err != nil {
			w.log.Error("ignoring a key in the edit bucket", "key", e.Key(), "err", err)
		}
		w.poke() // an owned region may want watching
		w.mu.Lock()
		w.changedLocked()
		w.mu.Unlock()
		return
	}
	pos, err := parseKey(e.Key())
	if err != nil {
		w.log.Error("ignoring a key in the edit bucket", "key", e.Key(), "err", err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	wt := w.watched[RegionOf(pos)]
	if wt == nil {
		return // the region was left meanwhile
	}
	old := wt.chunks[pos]
	if e.Revision() <= old.rev {
		return // seen (the main and a catch-up watch overlap)
	}
	v := chunkValue{pos: pos}
	if e.Operation() == jetstream.KeyValuePut {
		if v, err = decodeValue(e.Value(), pos, w.lim); err != nil {
			w.log.Error("ignoring a bad value in the edit bucket", "key", e.Key(), "revision", e.Revision(), "err", err)
			return
		}
	}
	wt.chunks[pos] = known{v: v, rev: e.Revision()}
	if k, ok := w.written[pos]; ok && k.rev <= e.Revision() {
		delete(w.written, pos)
	}
	w.changedLocked()
	if !wt.ready {
		return // nobody holds a chunk of a region still loading
	}
	changed := diff(old.v.overlay, v.overlay, nil)
	// Own commits up to this revision first, then whatever else changed:
	// the last word on each block is the new value.
	keep := w.parked[pos][:0]
	for _, p := range w.parked[pos] {
		if p.rev > e.Revision() {
			keep = append(keep, p)
			continue
		}
		w.done.Add(voxel.Committed{Tag: p.tag, Edit: p.e})
		for i, c := range changed {
			if c.Index == p.e.Index && c.Block == p.e.Block {
				changed = append(changed[:i], changed[i+1:]...)
				break
			}
		}
	}
	if len(keep) == 0 {
		delete(w.parked, pos)
	} else {
		w.parked[pos] = keep
	}
	for _, c := range changed {
		w.done.Add(voxel.Committed{Tag: netsync.RemoteEdit, Edit: voxel.BlockEdit{Pos: pos, Index: c.Index, Block: c.Block}})
	}
}
