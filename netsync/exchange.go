package netsync

import (
	"errors"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// What the server does differently when its world is shared with other
// servers (ServerConfig.Cars, a World that is a OnceWorld). Without them
// these are no-ops and the server behaves as a single process.

// exchangeCars publishes this tick's accepted cars (when any changed) and
// takes the other servers' latest ones; it reports whether cars must be
// relayed this tick.
func (s *Server) exchangeCars(changed bool) bool {
	x := s.cfg.Cars
	if x == nil {
		return changed
	}
	if changed {
		own := s.remoteCars[:0]
		for _, p := range s.peers {
			if p.hasCar && !p.standby {
				own = append(own, p.lastCar)
			}
		}
		x.Publish(own)
	}
	s.remoteCars = x.Remote(s.remoteCars[:0])
	return changed || len(s.remoteCars) > 0
}

// appendRemoteCars adds the other servers' cars that lie in to's area,
// from remoteGrid (built once a tick: a scan of every remote car for every
// player was a tenth of a loaded server's CPU).
func (s *Server) appendRemoteCars(to *serverPeer, dst []wire.CarSnapshot) []wire.CarSnapshot {
	// A handover's own car, shown by another server, is relayed too: the
	// spare learns from it that this server can place the car (once it
	// can show it under its id: awaitingVouch).
	hold := to.awaitingVouch(s.lastTick)
	return s.remoteGrid.appendIn(to.area, to.claim, hold, dst)
}

// indexRemoteCars rebuilds remoteGrid from this tick's remote cars.
func (s *Server) indexRemoteCars() {
	g := &s.remoteGrid
	g.reset()
	for _, c := range s.remoteCars {
		g.add(c)
	}
	g.build()
}

// submitEdit queues an admitted edit with the world, naming the request by
// the client's player key and sequence when the world applies retries once.
func (s *Server) submitEdit(tag uint64, m *wire.EditRequest, e voxel.BlockEdit) error {
	if w, ok := s.cfg.World.(OnceWorld); ok {
		return w.SubmitEditOnce(tag, m.Player, m.Seq, e)
	}
	return s.cfg.World.SubmitEdit(tag, e)
}

// answeredRetry acknowledges a retry of a request the world applied
// before (voxel.ErrAlreadyApplied) and reports true: nothing is broadcast,
// which would show others a block that may have been overwritten since.
// p is nil if the player left meanwhile.
func (s *Server) answeredRetry(p *serverPeer, seq uint32, err error) bool {
	if !errors.Is(err, voxel.ErrAlreadyApplied) {
		return false
	}
	if p != nil {
		s.send(p, &wire.EditAck{Seq: seq})
	}
	return true
}
