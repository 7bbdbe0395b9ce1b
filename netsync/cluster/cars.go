package cluster

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// Cars exchanges car snapshots with the other servers (a
// netsync.CarExchange): this server's accepted cars are published on the
// core NATS subject of their region (latest wins, nothing stored), and it
// subscribes to the regions its players' areas touch. Its connection has
// no echo, so its own cars never come back.
//
// Another server's cars pass this server's car rule before its players
// are shown them (the rule its own players' cars pass, netsync.CarRule,
// timed on arrival here): a snapshot that jumps further than the car
// could drive is dropped and the car held at its last accepted position.
// A car not accepted within the relay's TTL (a second) is forgotten, and
// its next snapshot starts it afresh, as a car driving into a watched
// region does: a jump, a granted Reset on its own server included, shows
// after that second at the soonest.
type Cars struct {
	nc     *nats.Conn
	prefix string
	log    *slog.Logger
	ttl    time.Duration
	now    func() time.Time
	rule   netsync.CarRule
	// rejected counts remote snapshots the rule dropped
	rejected prometheus.Counter

	// tick → publisher: the latest batch only
	pubMu   sync.Mutex
	pending []wire.CarSnapshot
	pubWake chan struct{}

	// tick → subscriber: region changes
	subMu  sync.Mutex
	subOps []regionOp
	subsWk chan struct{}

	mu     sync.Mutex
	remote map[uint32]remoteCar
	counts map[Region]int // this server's cars per region, as last published

	stop chan struct{}
	wg   sync.WaitGroup
	// ctx ends with stop (vouches in flight, whois.go).
	ctx    context.Context
	cancel context.CancelFunc
}

type regionOp struct {
	r     Region
	enter bool
}

type remoteCar struct {
	c     wire.CarSnapshot
	at    time.Time // when c was accepted
	track netsync.CarTrack
}

// admitCar judges another server's snapshot s arriving at now against
// the car's entry in cars (the latest accepted snapshot of each player,
// forgotten ttl after it was accepted) and keeps it if it is newer and
// the rule accepts it. It reports false for a snapshot the rule dropped.
func admitCar(cars map[uint32]remoteCar, rule netsync.CarRule, ttl time.Duration, s wire.CarSnapshot, now time.Time) bool {
	old, ok := cars[s.Player]
	if ok && now.Sub(old.at) > ttl {
		ok, old = false, remoteCar{} // not accepted within the TTL: afresh
	}
	if ok && !wire.SeqNewer(s.Seq, old.c.Seq) {
		return true
	}
	x, y, z := s.Position()
	if !rule.Judge(&old.track, x, y, z, now) {
		return false // held where it was last accepted (Judge left the track as it was)
	}
	old.c, old.at = s, now
	cars[s.Player] = old
	return true
}

// carTTL is how long a remote car is relayed after its last snapshot
// (its player left or drove out of every region watched here).
const carTTL = time.Second

var _ netsync.CarExchange = (*Cars)(nil)

func newCars(nc *nats.Conn, prefix string, rule netsync.CarRule, log *slog.Logger) *Cars {
	c := &Cars{nc: nc, prefix: prefix, log: log, ttl: carTTL, now: time.Now, rule: rule,
		rejected: prometheus.NewCounter(prometheus.CounterOpts{Name: "citydrive_cluster_remote_cars_rejected_total",
			Help: "Other servers' car snapshots dropped by this server's car rule (an implausible jump) instead of relayed"}),
		pubWake: make(chan struct{}, 1), subsWk: make(chan struct{}, 1),
		remote: map[uint32]remoteCar{}, stop: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		c.publisher()
	}()
	go func() {
		defer c.wg.Done()
		c.subscriber()
	}()
	return c
}

// Publish hands this tick's cars to the publisher goroutine (only the
// newest batch is kept).
func (c *Cars) Publish(cars []wire.CarSnapshot) {
	c.pubMu.Lock()
	c.pending = append(c.pending[:0], cars...)
	c.pubMu.Unlock()
	select {
	case c.pubWake <- struct{}{}:
	default:
	}
}

// Remote appends every remote car heard from within the last second and
// forgets older ones.
func (c *Cars) Remote(dst []wire.CarSnapshot) []wire.CarSnapshot {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, r := range c.remote {
		if now.Sub(r.at) > c.ttl {
			delete(c.remote, id)
			continue
		}
		dst = append(dst, r.c)
	}
	return dst
}

// regionCounts is how many of this server's cars drive in each region (a
// copy: placement balances by it).
func (c *Cars) regionCounts() map[Region]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[Region]int, len(c.counts))
	for r, n := range c.counts {
		out[r] = n
	}
	return out
}

// follow is told which regions the union entered and left (tick
// goroutine); the subscriber goroutine acts on it.
func (c *Cars) follow(entered, left []Region) {
	c.subMu.Lock()
	for _, r := range left {
		c.subOps = append(c.subOps, regionOp{r: r})
	}
	for _, r := range entered {
		c.subOps = append(c.subOps, regionOp{r: r, enter: true})
	}
	c.subMu.Unlock()
	select {
	case c.subsWk <- struct{}{}:
	default:
	}
}

func (c *Cars) publisher() {
	var batch []wire.CarSnapshot
	byRegion := map[Region][]wire.CarSnapshot{}
	var buf []byte
	for {
		select {
		case <-c.stop:
			return
		case <-c.pubWake:
		}
		c.pubMu.Lock()
		batch = append(batch[:0], c.pending...)
		c.pubMu.Unlock()
		for r, cs := range byRegion {
			byRegion[r] = cs[:0]
		}
		for _, s := range batch {
			r := RegionOf(voxelChunk(s))
			byRegion[r] = append(byRegion[r], s)
		}
		counts := make(map[Region]int, len(byRegion))
		for r, cs := range byRegion {
			if len(cs) > 0 {
				counts[r] = len(cs)
			}
		}
		c.mu.Lock()
		c.counts = counts
		c.mu.Unlock()
		for r, cs := range byRegion {
			if len(cs) == 0 {
				delete(byRegion, r)
				continue
			}
			subj := carSubject(c.prefix, r)
			for len(cs) > 0 {
				n := min(len(cs), wire.MaxCarsPerDatagram)
				var err error
				if buf, err = wire.AppendCarDatagram(buf[:0], cs[:n]); err == nil {
					err = c.nc.Publish(subj, buf)
				}
				if err != nil {
					c.log.Debug("publishing cars failed", "subject", subj, "err", err)
				}
				cs = cs[n:]
			}
		}
	}
}

func (c *Cars) subscriber() {
	subs := map[Region]*nats.Subscription{}
	defer func() {
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
	}()
	var ops []regionOp
	for {
		select {
		case <-c.stop:
			return
		case <-c.subsWk:
		}
		c.subMu.Lock()
		ops, c.subOps = c.subOps, ops[:0]
		c.subMu.Unlock()
		for _, op := range ops {
			if s, ok := subs[op.r]; ok && !op.enter {
				_ = s.Unsubscribe()
				delete(subs, op.r)
			}
			if _, ok := subs[op.r]; op.enter && !ok {
				s, err := c.nc.Subscribe(carSubject(c.prefix, op.r), c.received)
				if err != nil {
					c.log.Warn("subscribing to a region's cars failed", "region", op.r, "err", err)
					continue
				}
				subs[op.r] = s
			}
		}
	}
}

// received takes one message of another server's cars (hostile until
// decoded: a bad one is dropped).
func (c *Cars) received(m *nats.Msg) {
	cars, err := wire.DecodeCarDatagram(m.Data, nil)
	if err != nil {
		c.log.Debug("dropping a bad car message", "subject", m.Subject, "err", err)
		return
	}
	now := c.now()
	dropped := 0
	c.mu.Lock()
	for _, s := range cars {
		if !admitCar(c.remote, c.rule, c.ttl, s, now) {
			dropped++
		}
	}
	c.mu.Unlock()
	if dropped > 0 {
		c.rejected.Add(float64(dropped))
		c.log.Debug("dropping other servers' cars that moved faster than the car rule", "subject", m.Subject, "cars", dropped)
	}
}

func (c *Cars) close() {
	c.cancel()
	close(c.stop)
	c.wg.Wait()
}

func voxelChunk(s wire.CarSnapshot) voxel.ChunkPos { return voxel.ChunkAt(s.Position()) }
