package cluster

import (
	"errors"
	"fmt"
	"time"

	"citydrive/voxel"
)

// Commit queues: one per region with edits waiting, each worked by its own
// goroutine while it has any, so a region whose commit waits (on its
// owner's answer to a forward, on its values still loading, on a lease
// being taken) holds up only its own edits. The 2026-12 scale run showed
// why: with regions hashed over four committers, each waiting out a
// forward's 3 s timeout whenever the owner's committer was itself stuck
// behind a forward back, a server wrote a few edits a second and refused
// most as busy.
//
// A region's worker takes every edit queued for it at once and writes each
// chunk they touch once, all of that chunk's edits applied to its value in
// order: when the store is slow, edits pile up per chunk and the writes
// per second stay what the store can take instead of the queue growing.
// One write of a region is in flight at a time (the fence's suspect
// handling assumes it), and one chunk's edits keep their order.

// regionQueue holds the edits waiting for one region's worker.
type regionQueue struct {
	reqs []request
}

// enqueue hands r to its region's worker, starting one if none runs.
// ErrBusy once CommitQueue edits wait or are being committed on this
// server (the bound on memory, whatever the number of regions).
func (w *World) enqueue(r request) error {
	reg := RegionOf(r.e.Pos)
	w.qmu.Lock()
	defer w.qmu.Unlock()
	if w.qclosed {
		return voxel.ErrClosed
	}
	if w.queued >= w.opt.CommitQueue {
		return voxel.ErrBusy
	}
	w.queued++
	q := w.queues[reg]
	if q != nil {
		q.reqs = append(q.reqs, r)
		return nil
	}
	q = &regionQueue{reqs: []request{r}}
	w.queues[reg] = q
	w.wg.Add(1) // under qmu, before close's Wait (qclosed)
	go func() {
		defer w.wg.Done()
		w.drain(reg, q)
	}()
	return nil
}

// drain commits region reg's queued edits, a batch at a time, until none
// are left (or the world closes: the rest are dropped unacknowledged).
func (w *World) drain(reg Region, q *regionQueue) {
	for {
		w.qmu.Lock()
		batch := q.reqs
		q.reqs = nil
		if len(batch) == 0 || w.ctx.Err() != nil {
			w.queued -= len(batch)
			delete(w.queues, reg)
			w.qmu.Unlock()
			return
		}
		w.qmu.Unlock()
		for _, group := range byChunk(batch) {
			start := time.Now()
			for _, p := range w.commitChunk(group) {
				w.commitSeconds.Observe(time.Since(start).Seconds())
				w.settle(p.request, p.rev, p.err)
			}
		}
		w.qmu.Lock()
		w.queued -= len(batch)
		w.qmu.Unlock()
	}
}

// byChunk splits a region's batch into one group per chunk, each in the
// order its edits came, the groups in the order of their first edit.
func byChunk(batch []request) [][]request {
	var groups [][]request
	at := map[voxel.ChunkPos]int{}
	for _, r := range batch {
		i, ok := at[r.e.Pos]
		if !ok {
			i = len(groups)
			at[r.e.Pos] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// pending is one request of a chunk's group and, once done, its outcome:
// rev 0 with no error is a request applied before (a retry).
type pending struct {
	request
	deadline time.Time
	done     bool
	rev      uint64
	err      error
}

func (p *pending) finish(rev uint64, err error) { p.done, p.rev, p.err = true, rev, err }

// commitChunk stores a group of edits of one chunk: by one fenced write if
// this server owns the region, through the owner (one by one, in order) if
// another does, after taking the region if nobody alive does. A request is
// retried through outages and owner changes until its deadline: CommitFor,
// or for a forwarded one the time its sender stops waiting.
func (w *World) commitChunk(group []request) []*pending {
	reg := RegionOf(group[0].e.Pos)
	now := time.Now()
	ps := make([]*pending, len(group))
	for i, r := range group {
		ps[i] = &pending{request: r, deadline: now.Add(w.opt.CommitFor)}
		if !r.until.IsZero() && r.until.Before(ps[i].deadline) {
			ps[i].deadline = r.until
		}
	}
	backoff := 20 * time.Millisecond
	for {
		if w.ctx.Err() != nil {
			for _, p := range unfinished(ps) {
				p.finish(0, voxel.ErrClosed)
			}
			return ps
		}
		now := time.Now()
		for _, p := range unfinished(ps) {
			if !p.until.IsZero() && now.After(p.until) {
				// Nobody waits for this answer: the sender has sent the
				// edit again (or given up). Working on it would hold the
				// region's other edits behind copies of one edit while
				// the store is slow.
				p.finish(0, errSenderGone)
			}
		}
		rest := unfinished(ps)
		if len(rest) == 0 {
			return ps
		}
		moved := w.movedChan()
		var err error
		switch slot, alive := w.dir.OwnerSlot(reg); {
		case !alive:
			err = fmt.Errorf("no server owns region %d,%d right now", reg.X, reg.Z)
			claim := false
			for _, p := range rest {
				if p.reply != nil {
					p.finish(0, errNotOwner) // forwarded to us: the sender takes it
				} else {
					claim = true
				}
			}
			if claim && w.lease != nil && w.lease.fresh() {
				if cerr := w.lease.claim(w.ctx, reg); cerr != nil {
					err = cerr
				}
			}
		case slot == w.self:
			err = w.commitOwned(rest, reg)
		default:
			err = w.forwardInOrder(slot, rest)
		}
		rest = unfinished(ps)
		if len(rest) == 0 {
			return ps
		}
		if err == nil { // cannot happen: a nil error means all were finished
			err = errors.New("cluster: commit left unfinished")
		}
		now = time.Now()
		for _, p := range rest {
			if now.After(p.deadline) {
				if storeDown(err) {
					// The player reads this: say what is wrong, not
					// which call timed out.
					p.finish(0, fmt.Errorf("%w (%v)", ErrStoreDown, err))
				} else {
					p.finish(0, err)
				}
			}
		}
		if len(unfinished(ps)) == 0 {
			return ps
		}
		w.casRetries.Inc()
		w.waitMoved(moved, &backoff)
	}
}

// forwardInOrder sends the group's requests to their owner one at a time,
// stopping at the first to be tried again (its error is returned) so that
// none overtakes an earlier one of the same chunk.
func (w *World) forwardInOrder(slot uint32, rest []*pending) error {
	for _, p := range rest {
		rev, err, again := w.fwd.forward(w.ctx, slot, p.request)
		if again {
			return err
		}
		if p.reply == nil {
			w.forwarded.Inc()
		}
		p.finish(rev, err)
	}
	return nil
}

func unfinished(ps []*pending) []*pending {
	var out []*pending
	for _, p := range ps {
		if !p.done {
			out = append(out, p)
		}
	}
	return out
}
