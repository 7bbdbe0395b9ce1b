package netsync

import (
	"time"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// OwnerDirectory says which server of a cluster owns a region (netsync/
// cluster's leases): addr is the QUIC address clients dial. Regions are
// wire.RegionChunks chunks on a side, numbered by chunk coordinates
// divided by it, rounded down. Called from the tick goroutine: it must
// answer from memory, without blocking.
type OwnerDirectory interface {
	Owner(rx, rz int32) (addr string, ok bool)
}

// ownersEvery is how often a client's owners are looked up again while
// its region stays the same (an owner may change under it: a lease lapses,
// a server takes it over).
const ownersEvery = 500 * time.Millisecond

// regionOf is the region holding chunk coordinate c (floor division).
func regionOf(c int32) int32 {
	q := c / wire.RegionChunks
	if c%wire.RegionChunks < 0 {
		q--
	}
	return q
}

// ownersAround is the 3 × 3 block of owners around the region of chunk p.
func ownersAround(d OwnerDirectory, p voxel.ChunkPos) wire.Owners {
	m := wire.Owners{RX: regionOf(p.X), RZ: regionOf(p.Z)}
	for dz := -1; dz <= 1; dz++ {
		for dx := -1; dx <= 1; dx++ {
			// RX±1 stays in int32: a region is an i32 chunk / 16.
			if a, ok := d.Owner(m.RX+int32(dx), m.RZ+int32(dz)); ok {
				m.Addrs[wire.OwnerIndex(dx, dz)] = a
			}
		}
	}
	return m
}

// ownersSeen is what a peer was last told about its owners.
type ownersSeen struct {
	sent   bool
	last   wire.Owners
	at     time.Time
	rx, rz int32
}

// tellOwners sends p the owners around its area's centre when they
// changed: looked up when its region changes and every ownersEvery.
func (s *Server) tellOwners(p *serverPeer, now time.Time) {
	d := s.cfg.Owners
	if d == nil || !p.area.subscribed {
		return
	}
	o := &p.owners
	rx, rz := regionOf(p.area.centre.X), regionOf(p.area.centre.Z)
	if o.sent && rx == o.rx && rz == o.rz && now.Sub(o.at) < ownersEvery {
		return
	}
	o.rx, o.rz, o.at = rx, rz, now
	m := ownersAround(d, p.area.centre)
	if o.sent && m == o.last {
		return
	}
	if s.send(p, &m) {
		o.sent, o.last = true, m
	}
}

// CarVoucher is a car exchange that can ask the server that numbered a
// player whether it is the player with a key (netsync/cluster: a NATS
// request to that server). answer is called once, from any goroutine, and
// must not block.
type CarVoucher interface {
	Vouch(player uint32, key uint64, answer func(ok bool))
}

// vouchAnswer is a voucher's answer, handed to the tick goroutine.
type vouchAnswer struct {
	peer, claim uint32
	ok          bool
}

// vouchRetry is how long an unanswered vouch blocks asking again.
const vouchRetry = 5 * time.Second

// vouchHold bounds how long a spare is not told of its own car while its
// claim's vouch is unanswered (the cluster's vouch times out within a
// second; an answer lost to a full channel is not waited for longer).
const vouchHold = 2 * time.Second

// awaitingVouch reports whether p, a spare, claims a car id whose vouch
// is still unanswered. Its own car (relayed by another server) is kept
// from it meanwhile: that car is how its client knows this server can
// take the car over, and driving here before the answer would show the
// car under this server's id until it came, to everyone watching it a
// car gone and another one come.
func (p *serverPeer) awaitingVouch(now time.Time) bool {
	return p.standby && p.vouching && p.claim != 0 && now.Sub(p.vouchAt) < vouchHold
}

// handover applies a client's word on which connection its car drives on
// (wire.Handover). A spare (Drive false) is on standby: its car is
// neither relayed nor published and its snapshots are ignored, so the
// player is not seen twice. From is the id the world knows the car by (the
// player's id on its first server): once that server vouches for it (the
// player key matches), this server shows the car under that id too, so
// observers see one car across the handover. Driving (Drive true), the car
// is placed where the cluster last saw it, so its next snapshot is
// accepted there (the car rule measures from it) and edits resent at the
// switch have their reach; with a voucher, only once the id is vouched for
// (else anyone could be put beside any car).
func (s *Server) handover(p *serverPeer, m *wire.Handover, now time.Time) {
	p.standby = !m.Drive
	if m.From != 0 && m.From != p.id && m.From != p.claim {
		p.claim, p.alias = m.From, 0 // vouchAt stays: a new claim is asked no sooner
	}
	s.vouch(p, now)
	p.placeAt = 0
	if p.standby {
		return
	}
	p.active = now
	if m.From == 0 {
		return
	}
	if _, ok := s.cfg.Cars.(CarVoucher); ok && m.From != p.id && p.alias != m.From {
		p.placeAt = m.From // placed once vouched for: no one is put beside another's car
		return
	}
	s.placeFrom(p, m.From, now)
}

// placeFrom puts p's car where the cluster last saw car from (this
// tick's remote cars) and reports whether it had.
func (s *Server) placeFrom(p *serverPeer, from uint32, now time.Time) bool {
	for _, c := range s.remoteCars {
		if c.Player != from {
			continue
		}
		c.Player = p.carID()
		x, y, z := c.Position()
		p.track.adopt(x, y, z, s.cars.Slack, now)
		p.lastCar, p.hasCar = c, true
		p.heldSince = time.Time{}
		p.handedOver = true
		return true
	}
	p.log.Debug("handover from a car this server has not heard of", "from", from)
	return false
}

// vouch asks the car's first server about p's claim, once at a time.
func (s *Server) vouch(p *serverPeer, now time.Time) {
	v, ok := s.cfg.Cars.(CarVoucher)
	if !ok || p.claim == 0 || p.alias != 0 || !p.vouchAt.IsZero() && now.Sub(p.vouchAt) < vouchRetry {
		return
	}
	p.vouchAt, p.vouching = now, true
	// A car back on its first server is vouched for here: its cluster
	// connection does not hear its own requests.
	if s.HasPlayerKey(p.claim, p.playerKey) {
		s.vouchedFor(p, vouchAnswer{peer: p.id, claim: p.claim, ok: true})
		return
	}
	peer, claim, out := p.id, p.claim, s.vouched
	v.Vouch(claim, p.playerKey, func(ok bool) {
		select {
		case out <- vouchAnswer{peer: peer, claim: claim, ok: ok}:
		default: // full: asked again after vouchRetry
		}
	})
}

// takeVouches applies the vouchers' answers (tick goroutine).
func (s *Server) takeVouches() {
	for {
		select {
		case a := <-s.vouched:
			if p := s.peers[a.peer]; p != nil {
				s.vouchedFor(p, a)
			}
		default:
			return
		}
	}
}

// vouchedFor applies an answer to p's vouch.
func (s *Server) vouchedFor(p *serverPeer, a vouchAnswer) {
	if p.claim != a.claim {
		return // claims another since
	}
	p.vouching = false
	if !a.ok {
		p.log.Info("a handover's car id was not vouched for: the car keeps this server's id", "claimed", a.claim)
		return // vouchAt stays: not asked again for vouchRetry
	}
	p.alias, p.vouchAt = a.claim, time.Time{}
	if p.hasCar {
		p.lastCar.Player = a.claim
	}
	if p.placeAt == a.claim && !p.standby { // it drove here before the answer came
		s.placeFrom(p, a.claim, s.lastTick)
		p.placeAt = 0
	}
}

// carID is the id p's car is shown under: the vouched id it had on its
// first server, else its id here.
func (p *serverPeer) carID() uint32 {
	if p.alias != 0 {
		return p.alias
	}
	return p.id
}

// HasPlayerKey reports whether player id is, or was, a player here with
// key: a cluster's answer to another server's Vouch. A player who left is
// still vouched for (ids are never handed out twice): a handover closes
// the connection to the car's first server once the car drives far from
// it, and the car keeps its first id on the servers after. Safe from any
// goroutine.
func (s *Server) HasPlayerKey(id uint32, key uint64) bool {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	if p := s.live[id]; p != nil {
		return p.playerKey == key
	}
	k, ok := s.pastKeys.key(id)
	return ok && k == key
}

// pastKeys remembers the keys of the latest players who left, up to max,
// for HasPlayerKey.
type pastKeys struct {
	max  int
	keys map[uint32]uint64
	ring []uint32 // the ids in keys, oldest at next once full
	next int
}

// keepPastKeys is how many players who left are still vouched for
// (about 30 bytes each).
const keepPastKeys = 1 << 16

// add remembers player id's key, forgetting the oldest past max.
func (k *pastKeys) add(id uint32, key uint64) {
	if k.max <= 0 {
		return
	}
	if k.keys == nil {
		k.keys = map[uint32]uint64{}
	}
	if _, ok := k.keys[id]; ok {
		return
	}
	if len(k.ring) < k.max {
		k.ring = append(k.ring, id)
	} else {
		delete(k.keys, k.ring[k.next])
		k.ring[k.next] = id
		k.next = (k.next + 1) % len(k.ring)
	}
	k.keys[id] = key
}

func (k *pastKeys) key(id uint32) (uint64, bool) {
	key, ok := k.keys[id]
	return key, ok
}
