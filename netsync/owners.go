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

// handover applies a client's word on which connection its car drives on
// (wire.Handover). A spare (Drive false) is on standby: its car is
// neither relayed nor published and its snapshots are ignored, so the
// player is not seen twice. Driving again from another server's car
// (From), the car is placed where the cluster last saw that one, so its
// next snapshot is accepted there (the car rule measures from it) and
// edits resent at the switch have their reach.
func (s *Server) handover(p *serverPeer, m *wire.Handover, now time.Time) {
	if !m.Drive {
		p.standby = true
		return
	}
	p.standby = false
	p.active = now
	if m.From == 0 || m.From == p.id {
		return
	}
	for _, c := range s.remoteCars { // this tick's, from the exchange
		if c.Player != m.From {
			continue
		}
		c.Player = p.id
		x, y, z := c.Position()
		p.track.adopt(x, y, z, s.cars.slack, now)
		p.lastCar, p.hasCar = c, true
		p.heldSince = time.Time{}
		p.handedOver = true
		return
	}
	p.log.Debug("handover from a car this server has not heard of", "from", m.From)
}
