package cluster

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Directory is who owns which region, as this server's watch last saw the
// bucket's ownership keys and heartbeats. A region's owner is the server
// its own.<rx>.<rz> key names, while that server's heartbeat is alive:
// its revision changed within the lease TTL, timed by this server's own
// clock (no two machines' clocks are compared). Answers come from memory.
type Directory struct {
	self uint32
	ttl  time.Duration
	now  func() time.Time

	mu      sync.RWMutex
	loaded  bool
	own     map[Region]ownEntry
	live    map[uint32]*liveEntry
	echo    time.Time // our own heartbeat last came back through the watch
	dead    map[uint32]bool
	changed chan struct{}
}

type ownEntry struct {
	holder uint32 // 0: released
	rev    uint64
	seen   time.Time // when this server's watch showed it, by our clock
}

type liveEntry struct {
	rev  uint64
	seen time.Time // when rev last changed, by our clock
	beat beat
}

func newDirectory(self uint32, ttl time.Duration, now func() time.Time) *Directory {
	return &Directory{self: self, ttl: ttl, now: now, own: map[Region]ownEntry{}, live: map[uint32]*liveEntry{},
		dead: map[uint32]bool{}, changed: make(chan struct{})}
}

// Owner is the address players dial for region r's owner; false while r
// has no live owner (never taken, released, or its owner's lease lapsed).
func (d *Directory) Owner(r Region) (addr string, ok bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	slot, ok := d.ownerLocked(r)
	if !ok {
		return "", false
	}
	addr = d.live[slot].beat.Addr
	return addr, addr != ""
}

// OwnerSlot is the server slot owning r (false: none alive).
func (d *Directory) OwnerSlot(r Region) (uint32, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.ownerLocked(r)
}

// Changed is closed at the next change of any owner or liveness.
func (d *Directory) Changed() <-chan struct{} {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.changed
}

// Coords answers by region coordinates (netsync.OwnerDirectory's shape).
func (d *Directory) Coords() Coords { return Coords{d} }

// Coords is a Directory asked by region coordinates.
type Coords struct{ d *Directory }

// Owner is the address of region (rx, rz)'s owner.
func (c Coords) Owner(rx, rz int32) (string, bool) { return c.d.Owner(Region{rx, rz}) }

func (d *Directory) ownerLocked(r Region) (uint32, bool) {
	e, ok := d.own[r]
	if !ok || e.holder == 0 || d.dead[e.holder] || d.live[e.holder] == nil {
		return 0, false
	}
	return e.holder, true
}

// lease is r's ownership entry as stored, the holder's liveness aside
// (rev 0: never written).
func (d *Directory) lease(r Region) ownEntry {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.own[r]
}

func (d *Directory) notifyLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// apply takes one watched ownership or heartbeat entry; it reports
// whether it was one (other keys are the caller's).
func (d *Directory) apply(e jetstream.KeyValueEntry) (bool, error) {
	k := e.Key()
	switch {
	case len(k) > len(ownPrefix) && k[:len(ownPrefix)+1] == ownPrefix+".":
		r, err := parseOwnKey(k)
		if err != nil {
			return true, err
		}
		var holder uint32
		if e.Operation() == jetstream.KeyValuePut {
			n, err := strconv.ParseUint(string(e.Value()), 10, 32)
			if err != nil || n == 0 || n > maxServerSlot {
				return true, fmt.Errorf("cluster: ownership key %s holds %q, not a server slot", k, e.Value())
			}
			holder = uint32(n)
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if old := d.own[r]; e.Revision() <= old.rev {
			return true, nil
		}
		d.own[r] = ownEntry{holder: holder, rev: e.Revision(), seen: d.now()}
		d.notifyLocked()
		return true, nil
	case len(k) > len(livePrefix) && k[:len(livePrefix)+1] == livePrefix+".":
		slot, err := parseLiveKey(k)
		if err != nil {
			return true, err
		}
		now := d.now()
		d.mu.Lock()
		defer d.mu.Unlock()
		if e.Operation() != jetstream.KeyValuePut {
			if l := d.live[slot]; l != nil && e.Revision() > l.rev {
				delete(d.live, slot) // a server leaving says so
				delete(d.dead, slot)
				d.notifyLocked()
			}
			return true, nil
		}
		l := d.live[slot]
		if l != nil && e.Revision() <= l.rev {
			return true, nil
		}
		b, err := decodeBeat(e.Value())
		if err != nil {
			return true, fmt.Errorf("cluster: heartbeat %s: %w", k, err)
		}
		if l == nil {
			l = &liveEntry{}
			d.live[slot] = l
		}
		addrChanged := l.beat.Addr != b.Addr
		l.rev, l.seen, l.beat = e.Revision(), now, b
		if slot == d.self {
			d.echo = now
		}
		if d.dead[slot] || addrChanged {
			delete(d.dead, slot)
			d.notifyLocked()
		}
		return true, nil
	}
	return false, nil
}

// setLoaded marks the first values all in.
func (d *Directory) setLoaded() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.loaded {
		d.loaded = true
		d.notifyLocked()
	}
}

// echoAge is how long ago our own heartbeat last came back through the
// watch (0 before the first).
func (d *Directory) echoAge() time.Duration {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.echo.IsZero() {
		return 0
	}
	return d.now().Sub(d.echo)
}

// expire judges every server's heartbeat against the TTL. It judges only
// while our own heartbeat came back within half the TTL: a watch that has
// stalled would see every other server silent.
func (d *Directory) expire() {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if now.Sub(d.echo) >= d.ttl/2 {
		return
	}
	changed := false
	for slot, l := range d.live {
		dead := now.Sub(l.seen) >= d.ttl
		if dead != d.dead[slot] {
			changed = true
			if dead {
				d.dead[slot] = true
			} else {
				delete(d.dead, slot)
			}
		}
	}
	if changed {
		d.notifyLocked()
	}
}

// view is what placement decides from: live servers, live owners, and
// every live server's players per region.
func (d *Directory) view(self uint32, mine map[Region]int) placementView {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v := placementView{self: self, owner: map[Region]uint32{}, players: map[Region]map[uint32]int{}}
	for slot, l := range d.live {
		if d.dead[slot] || l.beat.Addr == "" {
			continue
		}
		v.live = append(v.live, slot)
		if slot == self {
			continue // ours are fresher from the tick
		}
		for _, rc := range l.beat.Regions {
			r := Region{rc[0], rc[1]}
			if v.players[r] == nil {
				v.players[r] = map[uint32]int{}
			}
			v.players[r][slot] += int(rc[2])
		}
	}
	slices.Sort(v.live)
	for r, n := range mine {
		if v.players[r] == nil {
			v.players[r] = map[uint32]int{}
		}
		v.players[r][self] += n
	}
	now := d.now()
	for r, e := range d.own {
		if slot, ok := d.ownerLocked(r); ok {
			v.owner[r] = slot
			if now.Sub(e.seen) < giveCooldown(d.ttl) {
				if v.settling == nil {
					v.settling = map[Region]bool{}
				}
				v.settling[r] = true
			}
		}
	}
	return v
}

// giveCooldown is how long a region whose owner changed is not handed on
// for balance: its players' handovers and the heartbeats that count them
// where they now are take about a TTL, and every server judges loads from
// heartbeats up to a TTL old, so a region moved on sooner is moved on
// views that disagree (seen at scale: a region passed 4 → 1 → 4 → 2 within
// 0.6 s, every player in it handed over each time). With it, balance moves
// a region's players at most once per cooldown.
func giveCooldown(ttl time.Duration) time.Duration { return 4 * ttl }

// owned lists the regions the stored leases name us for, alive or not.
func (d *Directory) owned() []Region {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var rs []Region
	for r, e := range d.own {
		if e.holder == d.self {
			rs = append(rs, r)
		}
	}
	return rs
}

// beat is a heartbeat's value: where players dial this server and how
// many of its players drive in which regions (placement balances by it).
type beat struct {
	Addr    string     `json:"addr"`
	Regions [][3]int32 `json:"regions,omitempty"` // rx, rz, players
}

// Bounds of a heartbeat (the bucket is shared: a value is checked before
// it is trusted).
const (
	maxBeatBytes   = 64 << 10
	maxBeatRegions = 4096
	maxAddrLen     = 256
)

func encodeBeat(b beat) ([]byte, error) {
	if len(b.Regions) > maxBeatRegions {
		b.Regions = b.Regions[:maxBeatRegions]
	}
	if len(b.Addr) > maxAddrLen {
		return nil, fmt.Errorf("cluster: advertised address of %d bytes, at most %d", len(b.Addr), maxAddrLen)
	}
	return json.Marshal(b)
}

func decodeBeat(v []byte) (beat, error) {
	var b beat
	if len(v) > maxBeatBytes {
		return b, fmt.Errorf("%d bytes, at most %d", len(v), maxBeatBytes)
	}
	if err := json.Unmarshal(v, &b); err != nil {
		return beat{}, err
	}
	if len(b.Addr) > maxAddrLen || len(b.Regions) > maxBeatRegions {
		return beat{}, fmt.Errorf("address of %d bytes or %d regions: out of bounds", len(b.Addr), len(b.Regions))
	}
	for _, rc := range b.Regions {
		if rc[2] < 0 || rc[2] > 1<<PlayerBits {
			return beat{}, fmt.Errorf("%d players in a region", rc[2])
		}
	}
	return b, nil
}
