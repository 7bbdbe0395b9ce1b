package netsync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// Gate is the operator's rule for who may join: bans, an allow-list, a
// join password (citydrive's admin keeps them; see
// cmd/citydrive/internal/webmap). Admit is called from handshake
// goroutines, after the versions matched and before the Welcome, with
// what the client's Join says; it returns the sentence the player is
// refused with, or "" to let them in. It must be safe for concurrent use
// and must not block on the network.
type Gate interface {
	Admit(key uint64, name, password string) string
}

// NoticeSink is told about the operator's notices (broadcasts, shutdown
// countdowns). A ClientSink that is also a NoticeSink gets them from
// Dispatch.
type NoticeSink interface {
	Notice(n wire.Notice)
}

// PlayerInfo is one connected player as the operator sees it.
type PlayerInfo struct {
	ID     uint32
	Key    uint64 // the player key from the Join
	Name   string
	Remote string
	Joined time.Time
	// The server's last accepted car (HasCar false: none yet).
	HasCar         bool
	X, Y, Z        float64 // metres
	Heading, Speed float64 // radians, m/s
	// Bytes on the connection so far (QUIC's count, headers included).
	BytesIn, BytesOut uint64
}

// TickStats is the server's pace, for the operator's panel.
type TickStats struct {
	Hz, NominalHz int
	// P99 is the 99th percentile of the tick's work over the last
	// tickWindow ticks (at most); Ticks is how many that was.
	P99   time.Duration
	Ticks int
}

// EditMark is one committed edit's chunk, numbered in commit order on
// this server (remote edits of a cluster included).
type EditMark struct {
	Seq uint64
	Pos voxel.ChunkPos
	At  time.Time
}

// Snapshot is what the operator's map shows of the server at one moment.
type Snapshot struct {
	At      time.Time
	Tick    TickStats
	Players []PlayerInfo // by ID
	// Edits are the edits after the asked sequence, oldest first (at most
	// editLogSize; Dropped says how many newer than it had to be left out).
	Edits   []EditMark
	Dropped uint64
}

// ErrNotRunning is returned by the admin calls when the server's tick is
// not running (not started, or stopped).
var ErrNotRunning = errors.New("netsync: server not running")

const (
	// tickWindow is how many recent tick durations TickStats.P99 is over.
	tickWindow = 1024
	// editLogSize bounds the edits kept for Snapshot.
	editLogSize = 1024
	// requestQueue bounds admin requests waiting for the tick.
	requestQueue = 16
)

// adminState is the tick goroutine's record for the admin calls.
type adminState struct {
	ticks  [tickWindow]time.Duration
	nTicks int
	edits  [editLogSize]EditMark
	// editSeq numbers the edits committed so far.
	editSeq uint64
	scratch []time.Duration
}

func (a *adminState) observeTick(d time.Duration) {
	a.ticks[a.nTicks%tickWindow] = d
	a.nTicks++
}

func (a *adminState) noteEdit(pos voxel.ChunkPos, at time.Time) {
	a.editSeq++
	a.edits[a.editSeq%editLogSize] = EditMark{Seq: a.editSeq, Pos: pos, At: at}
}

func (a *adminState) p99() (time.Duration, int) {
	n := min(a.nTicks, tickWindow)
	if n == 0 {
		return 0, 0
	}
	a.scratch = append(a.scratch[:0], a.ticks[:n]...)
	slices.Sort(a.scratch)
	return a.scratch[(n*99-1)/100], n
}

// on runs f on the tick goroutine between two ticks and waits for it; it
// is how the admin calls read and change tick state without a lock.
func (s *Server) on(ctx context.Context, f func()) error {
	if s.ctx.Err() != nil {
		// Closed: a select would pick at random between the closed
		// context and a tick goroutine still taking requests.
		return ErrNotRunning
	}
	done := make(chan struct{})
	select {
	case s.requests <- func() { f(); close(done) }:
	case <-s.runDone:
		return ErrNotRunning
	case <-s.ctx.Done():
		return ErrNotRunning
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-s.runDone:
		// Run may have stopped before taking it.
		select {
		case <-done:
			return nil
		default:
			return ErrNotRunning
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Snapshot reports the players, the tick's pace and the edits committed
// after edit sequence since (0: all still kept).
func (s *Server) Snapshot(ctx context.Context, since uint64) (Snapshot, error) {
	var snap Snapshot
	err := s.on(ctx, func() {
		a := &s.adminState
		snap.At = time.Now()
		snap.Tick.Hz, snap.Tick.NominalHz = s.hz, s.cfg.TickHz
		snap.Tick.P99, snap.Tick.Ticks = a.p99()
		snap.Players = make([]PlayerInfo, 0, len(s.order))
		for _, p := range s.order {
			snap.Players = append(snap.Players, s.playerInfo(p))
		}
		slices.SortFunc(snap.Players, func(a, b PlayerInfo) int { return int(a.ID) - int(b.ID) })
		snap.Edits, snap.Dropped = a.editsSince(since)
	})
	if err != nil {
		// A cancelled call may still run on the tick goroutine later:
		// snap is its, not ours.
		return Snapshot{}, err
	}
	return snap, nil
}

// editsSince returns the kept edits after sequence since, oldest first,
// and how many after since are no longer kept.
func (a *adminState) editsSince(since uint64) (marks []EditMark, dropped uint64) {
	first := since + 1
	if oldest := a.editSeq - min(a.editSeq, editLogSize) + 1; first < oldest {
		dropped, first = oldest-first, oldest
	}
	for q := first; q <= a.editSeq; q++ {
		marks = append(marks, a.edits[q%editLogSize])
	}
	return marks, dropped
}

func (s *Server) playerInfo(p *serverPeer) PlayerInfo {
	st := p.conn.ConnectionStats()
	in := PlayerInfo{ID: p.id, Key: p.playerKey, Name: p.name, Remote: p.conn.RemoteAddr().String(),
		Joined: p.joinedAt, HasCar: p.hasCar, BytesIn: st.BytesReceived, BytesOut: st.BytesSent}
	if p.hasCar {
		in.X, in.Y, in.Z = p.lastCar.Position()
		in.Heading = float64(p.lastCar.Heading) / 65536 * 2 * 3.141592653589793
		in.Speed = float64(p.lastCar.Speed) / 100
	}
	return in
}

// Kick disconnects the players whose player key is key (a key may be
// connected more than once) with reason, and reports how many there were.
// The connection closes at once; the tick forgets them on its next pass.
func (s *Server) Kick(key uint64, reason string) int {
	s.liveMu.Lock()
	var ps []*serverPeer
	for _, p := range s.live {
		if p.playerKey == key {
			ps = append(ps, p)
		}
	}
	s.liveMu.Unlock()
	for _, p := range ps {
		p.fail(CodeKicked, reason)
	}
	return len(ps)
}

// KickPlayer disconnects player id with reason; false if no such player.
func (s *Server) KickPlayer(id uint32, reason string) bool {
	s.liveMu.Lock()
	p := s.live[id]
	s.liveMu.Unlock()
	if p == nil {
		return false
	}
	p.fail(CodeKicked, reason)
	return true
}

// Notify sends every connected player a Notice, in order with the rest of
// its stream, and reports how many it went to.
func (s *Server) Notify(ctx context.Context, n wire.Notice) (int, error) {
	if n.Shutdown > wire.MaxShutdownSeconds {
		return 0, fmt.Errorf("netsync: a shutdown countdown of %d s is past the %d s limit", n.Shutdown, wire.MaxShutdownSeconds)
	}
	sent := 0
	err := s.on(ctx, func() {
		for _, p := range s.order {
			if s.send(p, &n) {
				sent++
			}
		}
	})
	if err != nil {
		return 0, err // sent belongs to a call that may still run (see Snapshot)
	}
	return sent, nil
}

// serveRequests runs the admin requests waiting, at most requestQueue, so
// a burst of them cannot hold the tick back.
func (s *Server) serveRequests() {
	for range requestQueue {
		select {
		case f := <-s.requests:
			f()
		default:
			return
		}
	}
}

// Players is how many players are connected (or have a seat reserved by a
// handshake in progress); MaxPlayers is the limit.
func (s *Server) Players() int    { return int(s.players.Load()) }
func (s *Server) MaxPlayers() int { return s.cfg.MaxPlayers }
