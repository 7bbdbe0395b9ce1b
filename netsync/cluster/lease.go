package cluster

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// Region ownership. Two kinds of key in the edit bucket:
//
//	live.<slot>      each server's heartbeat, written every Heartbeat: its
//	                 address and its players per region
//	own.<rx>.<rz>    a region's lease: the slot of the server holding it,
//	                 changed only by compare-and-set (take, hand over,
//	                 release, refence)
//
// A lease is good while its holder's heartbeat is alive: every server
// times the heartbeats it sees by its own clock and counts a server dead
// once its heartbeat has not changed for TTL. One heartbeat per server
// keeps a server's leases however many it holds, so the write rate does
// not grow with the world. A dead server's regions are taken by
// compare-and-set on their lease key (one server wins).
//
// Fencing: every chunk write of an owner carries the lease key's revision
// as its expected last sequence (Nats-Expected-Last-Subject-Sequence with
// -Subject naming the lease key), so JetStream stores it only while the
// lease is as the owner last saw it; a server paused past its TTL that
// wakes up mid-write is refused, whatever its clock says. The owner also
// stops writing by its own clock once its last stored heartbeat is
// TTL − TTL/4 old (others can count it dead at TTL): in a NATS outage it
// refuses at once instead of being fenced.

// LeaseOptions tune region ownership; zero values take the defaults shown.
type LeaseOptions struct {
	TTL          time.Duration // a server whose heartbeat is this old has lost its regions (2 s)
	Heartbeat    time.Duration // how often a server writes its heartbeat (TTL/4)
	ReleaseAfter time.Duration // an owned region without players or edits this long is let go (30 s)
}

func (o *LeaseOptions) defaults() {
	if o.TTL <= 0 {
		o.TTL = 2 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = o.TTL / 4
	}
	if o.ReleaseAfter <= 0 {
		o.ReleaseAfter = 30 * time.Second
	}
}

// leaser keeps this server's heartbeat and leases.
type leaser struct {
	kv     jetstream.KeyValue
	dir    *Directory
	w      *World
	slot   uint32
	opt    LeaseOptions
	log    *slog.Logger
	now    func() time.Time
	counts func() map[Region]int // this server's players per region

	mu        sync.Mutex
	addr      string
	okAt      time.Time // when the last stored heartbeat was sent
	busy      map[Region]time.Time
	stopBeats bool      // set by Close: the heartbeat key is gone
	rewatched time.Time // when unstall last made the watch again (run's)

	// testHookBeat, if set, runs before each heartbeat (tests pause a
	// server there).
	testHookBeat func()

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	ownedGauge prometheus.GaugeFunc
}

func newLeaser(kv jetstream.KeyValue, dir *Directory, w *World, slot uint32, addr string, opt LeaseOptions, log *slog.Logger, counts func() map[Region]int) *leaser {
	ctx, cancel := context.WithCancel(context.Background())
	l := &leaser{kv: kv, dir: dir, w: w, slot: slot, opt: opt, log: log, now: time.Now, counts: counts,
		addr: addr, busy: map[Region]time.Time{}, ctx: ctx, cancel: cancel}
	l.ownedGauge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "citydrive_cluster_owned_regions", Help: "Regions whose lease this server holds.",
	}, func() float64 { return float64(len(dir.owned())) })
	return l
}

// fresh reports whether this server may write as an owner: its last
// stored heartbeat is younger than the TTL less a quarter.
func (l *leaser) fresh() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.okAt.IsZero() && l.now().Sub(l.okAt) < l.opt.TTL-l.opt.TTL/4
}

func (l *leaser) setAddr(a string) {
	l.mu.Lock()
	l.addr = a
	l.mu.Unlock()
}

// beat writes the heartbeat.
func (l *leaser) beat(ctx context.Context) error {
	if h := l.testHookBeat; h != nil {
		h()
	}
	l.mu.Lock()
	b := beat{Addr: l.addr}
	l.mu.Unlock()
	for r, n := range l.counts() {
		if n > 0 {
			b.Regions = append(b.Regions, [3]int32{r.X, r.Z, int32(n)})
		}
	}
	v, err := encodeBeat(b)
	if err != nil {
		return err
	}
	sent := l.now()
	ctx, cancel := context.WithTimeout(ctx, l.opt.Heartbeat)
	defer cancel()
	if _, err := l.kv.Put(ctx, liveKey(l.slot), v); err != nil {
		return err
	}
	l.mu.Lock()
	if !l.stopBeats {
		l.okAt = sent
	}
	l.mu.Unlock()
	return nil
}

func (l *leaser) start() {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.run()
	}()
}

func (l *leaser) run() {
	t := time.NewTicker(l.opt.Heartbeat / 2)
	defer t.Stop()
	next := l.now().Add(l.opt.Heartbeat)
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		if now := l.now(); !now.Before(next) {
			next = now.Add(l.opt.Heartbeat)
			if err := l.beat(l.ctx); err != nil && l.ctx.Err() == nil {
				l.log.Warn("writing the heartbeat failed", "err", err)
			}
		}
		l.unstall()
		l.dir.expire()
		l.dir.mu.RLock()
		loaded := l.dir.loaded
		l.dir.mu.RUnlock()
		if loaded && l.fresh() {
			l.place()
		}
	}
}

// unstall makes the watch again when NATS stores our heartbeats but the
// watch has not shown one for a TTL: after a lost quorum or a stalled node
// the client library's ordered consumer can sit silent for many seconds
// before it notices (its idle heartbeat), and meanwhile this server acks
// late, judges nobody and broadcasts nothing. At most once a TTL.
func (l *leaser) unstall() {
	now := l.now()
	if !l.fresh() || l.dir.echoAge() < l.opt.TTL || now.Sub(l.rewatched) < l.opt.TTL {
		return
	}
	l.rewatched = now
	l.log.Warn("the edit watch shows none of our stored heartbeats; making it again", "silent", l.dir.echoAge())
	l.w.stale.Store(true)
	l.w.poke()
}

// place applies the placement policy's moves.
func (l *leaser) place() {
	now := l.now()
	v := l.dir.view(l.slot, l.counts())
	v.quiet = map[Region]bool{}
	l.w.mu.Lock()
	used := make(map[Region]time.Time, len(l.w.used))
	for r, t := range l.w.used {
		used[r] = t
	}
	l.w.mu.Unlock()
	for r, o := range v.owner {
		if o != l.slot {
			delete(l.busy, r)
			continue
		}
		n := 0
		for _, c := range v.players[r] {
			n += c
		}
		last, seen := l.busy[r]
		if n > 0 || !seen {
			last = now
		}
		last = maxTime(last, used[r])
		l.busy[r] = last
		if n == 0 && now.Sub(l.busy[r]) >= l.opt.ReleaseAfter {
			v.quiet[r] = true
		}
	}
	for _, m := range plan(v) {
		e := l.dir.lease(m.r)
		key := ownKey(m.r)
		ctx, cancel := context.WithTimeout(l.ctx, l.opt.Heartbeat)
		var err error
		switch m.to {
		case l.slot:
			err = l.claim(ctx, m.r)
		case 0:
			err = l.kv.Delete(ctx, key, jetstream.LastRevision(e.rev))
			l.log.Info("releasing a quiet region", "region", m.r)
		default:
			_, err = l.kv.Update(ctx, key, slotValue(m.to), e.rev)
			l.log.Info("handing a region over to balance players", "region", m.r, "to", m.to)
		}
		cancel()
		if err != nil && !conflict(err) && l.ctx.Err() == nil {
			l.log.Warn("changing a region's lease failed", "region", m.r, "to", m.to, "err", err)
		}
	}
}

func slotValue(slot uint32) []byte { return []byte(strconv.FormatUint(uint64(slot), 10)) }

// conflict: a compare-and-set lost to another writer (nothing stored).
func conflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// claim takes region r if no live server holds it (compare-and-set on the
// lease as this server's watch last saw it: losing the race is no error).
func (l *leaser) claim(ctx context.Context, r Region) error {
	if _, ok := l.dir.OwnerSlot(r); ok {
		return nil
	}
	e := l.dir.lease(r)
	ctx, cancel := context.WithTimeout(ctx, l.opt.Heartbeat)
	defer cancel()
	var err error
	if e.rev == 0 {
		_, err = l.kv.Create(ctx, ownKey(r), slotValue(l.slot))
	} else {
		_, err = l.kv.Update(ctx, ownKey(r), slotValue(l.slot), e.rev)
	}
	if err == nil {
		l.log.Info("took a region", "region", r, "from", e.holder)
	}
	if err != nil && conflict(err) {
		return nil
	}
	return err
}

// refence moves our own lease of r on by one revision (compare-and-set
// from token), so a write sent under token whose fate is unknown can no
// longer be stored after it. Losing the race means another server holds r.
func (l *leaser) refence(ctx context.Context, r Region, token uint64) error {
	ctx, cancel := context.WithTimeout(ctx, l.opt.Heartbeat)
	defer cancel()
	_, err := l.kv.Update(ctx, ownKey(r), slotValue(l.slot), token)
	if err != nil && conflict(err) {
		return nil
	}
	return err
}

// close stops the heartbeat and hands everything back at once: the leases
// deleted (compare-and-set, so one taken meanwhile stays taken) and the
// heartbeat removed, so the others take the regions without waiting out
// the TTL. Call it once the committers have stopped.
func (l *leaser) close() {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	l.stopBeats, l.okAt = true, time.Time{}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, r := range l.dir.owned() {
		e := l.dir.lease(r)
		if err := l.kv.Delete(ctx, ownKey(r), jetstream.LastRevision(e.rev)); err != nil && !conflict(err) {
			l.log.Warn("releasing a region on close failed; it lapses in the TTL", "region", r, "err", err)
		}
	}
	if err := l.kv.Delete(ctx, liveKey(l.slot)); err != nil {
		l.log.Debug("removing the heartbeat on close failed", "err", err)
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
