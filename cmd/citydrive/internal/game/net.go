package game

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"citydrive/cmd/citydrive/internal/remote"
	"citydrive/netsync"
	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/ground"
)

// carSendHz is how often the car's state goes to the server (its tick).
const carSendHz = 30

// maxInboundPerFrame bounds server messages handled per frame; the rest
// wait in the client's queue for the next frame.
const maxInboundPerFrame = 512

// maxRemoteCars bounds the other cars drawn (the dynamic region is fixed).
const maxRemoteCars = 40

// editReach is how far ahead of the car the edit keys act (metres).
const editReach = 5.0

// Dialer connects to the server again after the connection was lost.
type Dialer func(ctx context.Context) (*netsync.Client, error)

// redialEvery is the pause between reconnection attempts.
const redialEvery = 2 * time.Second

// link is the game's connection to a server: the solo server goroutine or
// a remote one. Every call is non-blocking. It owns its client: a lost
// connection is redialled in the background (when it has a Dialer) while
// the game drives on, and the new client resubscribes.
type link struct {
	c       *netsync.Client // nil while reconnecting; with h, its primary
	h       *netsync.Handover
	x, z    float64 // the car, as update last had it (for the handover)
	world   *ground.Client
	cars    *remote.Cars
	snaps   []wire.CarSnapshot
	msgs    []wire.Message // the handover's, polled each frame
	area    voxel.ChunkPos // the area last subscribed to
	radius  uint32
	sendT   float64
	status  string // last edit result or connection state, for the developer's HUD
	news    string // the last status the player should read (tell)
	newsSeq uint64 // counts tell's calls: the notice area shows each once
	pending int    // edit requests not yet answered
	edits   int    // edit broadcasts received (anyone's, ours included)
	sent    LinkState

	dial     Dialer
	ctx      context.Context
	cancel   context.CancelFunc
	redialed chan *netsync.Client
	wg       sync.WaitGroup
	player   uint32

	resetSeq uint32     // the Reset waiting for its Pose (0: none)
	pose     *wire.Pose // a Pose the car is to be put at, not yet taken
	poseSeq  uint32     // its Seq

	// The server's tick rate now and at full speed (Welcome, TickRate):
	// its world clock runs at hz/fullHz (worldtime.go follows it).
	hz, fullHz uint32
	slowedHz   uint32 // the rate slowedLine was written for (notice.go)
	slowedLine string
}

func newLink(c *netsync.Client, t *ground.Client, dial Dialer) *link {
	ctx, cancel := context.WithCancel(context.Background())
	l := &link{c: c, world: t, cars: remote.New(), dial: dial, ctx: ctx, cancel: cancel,
		redialed: make(chan *netsync.Client, 1), player: c.Player()}
	l.welcomed(c)
	return l
}

// welcomed takes a new connection's rates (a TickRate follows when they
// change).
func (l *link) welcomed(c *netsync.Client) {
	w := c.Welcome()
	l.hz, l.fullHz = w.TickHz, max(w.FullHz, w.TickHz)
}

// rate is the server's time per real time: 1, or below while it is slowed.
func (l *link) rate() float64 {
	if l.fullHz == 0 || l.hz >= l.fullHz {
		return 1
	}
	return float64(l.hz) / float64(l.fullHz)
}

// tell sets the status and has the notice area show it.
func (l *link) tell(text string) {
	l.status, l.news = text, text
	l.newsSeq++
}

// slowed reports whether the server runs slower than its full rate.
func (l *link) slowed() bool { return l.rate() < 1 }

// check notices a lost connection. Without a Dialer the loss is the
// session's end (the error); with one, redialling starts and the game goes
// on without the server until it is back.
func (l *link) check() error {
	if l.c == nil {
		select {
		case c := <-l.redialed:
			l.c, l.player = c, c.Player()
			l.welcomed(c)
			l.tell("RECONNECTED: BACK AT THE SPAWN")
			sp := c.Spawn() // a new connection's car starts where the server puts it
			l.pose, l.poseSeq, l.resetSeq = &sp, 0, 0
			l.pending = c.Unanswered() // sent again on the new connection
			l.world.Resubscribe()
		default:
		}
		return nil
	}
	if l.h != nil {
		select {
		case <-l.h.Done():
		default:
			return nil
		}
		l.h.Step(time.Now(), l.x, l.z) // a spare ready takes over
		if l.h.Err() == nil {
			l.c = l.h.Primary()
			return nil
		}
	} else {
		select {
		case <-l.c.Done():
		default:
			return nil
		}
	}
	err := l.c.Err()
	if l.dial == nil {
		return err
	}
	if err != nil {
		l.sent.Lost = err.Error()
	}
	l.closeConn()
	l.status = "SERVER LOST: RECONNECTING"
	l.wg.Add(1)
	go l.redial()
	return nil
}

func (l *link) redial() {
	defer l.wg.Done()
	for {
		c, err := l.dial(l.ctx)
		if err == nil {
			l.redialed <- c
			return
		}
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(redialEvery):
		}
	}
}

// close ends the connection (and any redialling) and waits.
func (l *link) close() {
	l.cancel()
	l.wg.Wait()
	select {
	case c := <-l.redialed:
		_ = c.Close()
	default:
	}
	if l.c != nil {
		l.closeConn()
	}
}

// closeConn closes the connection: the handover's, all of them.
func (l *link) closeConn() {
	if l.h != nil {
		_ = l.h.Close()
	} else {
		_ = l.c.Close()
	}
	l.c, l.h = nil, nil
}

// adopt hands the connection to a Handover: its server told the region
// owners (a cluster's), so the car is handed between them as it drives.
// A spare is pinned to the first server's fingerprint (a cluster's
// servers share one identity, as cmd/cluster.sh runs them).
func (l *link) adopt(o *wire.Owners) {
	cfg := netsync.HandoverConfig{}
	cfg.Client.Centre, cfg.Client.Radius = l.area, l.radius
	h, err := netsync.AdoptHandover(l.c, cfg, o, nil)
	if err != nil {
		l.status = "NO HANDOVER: " + err.Error()
		return
	}
	l.h, l.player = h, h.CarID()
}

// sink adapts server messages to the terrain client.
type sink struct{ l *link }

func (s sink) ChunkDefault(p voxel.ChunkPos)                { s.l.world.ChunkDefault(p) }
func (s sink) ChunkDrop(p voxel.ChunkPos)                   { s.l.world.ChunkDrop(p) }
func (s sink) ChunkEdits(p voxel.ChunkPos, o voxel.Overlay) { s.l.world.ChunkEdits(p, o) }
func (s sink) EditBroadcast(p voxel.ChunkPos, idx uint16, b voxel.Block) {
	s.l.edits++
	s.l.world.EditBroadcast(p, idx, b)
}
func (s sink) EditResult(seq uint32, applied bool, reason string) {
	s.l.pending--
	if applied {
		s.l.sent.EditsApplied++
		s.l.status = fmt.Sprintf("EDIT %d APPLIED", seq)
	} else {
		s.l.sent.EditsRefused++
		s.l.tell(fmt.Sprintf("EDIT %d REFUSED: %s", seq, reason))
	}
}

// Pose takes a server Pose: the answer to our Reset, or where the server
// holds the car; answers to an earlier Reset are stale.
func (s sink) Pose(p wire.Pose) {
	l := s.l
	if p.Seq != 0 && p.Seq != l.resetSeq {
		return
	}
	if p.Seq != 0 {
		l.resetSeq = 0
		if p.Reason != "" {
			l.tell("RESET REFUSED: " + p.Reason)
		}
	} else if p.Reason != "" {
		l.tell("CAR HELD: " + p.Reason)
	}
	l.pose, l.poseSeq = &p, p.Seq
}

// TickRate takes the server's new tick rate.
func (s sink) TickRate(hz uint32) { s.l.hz = hz }

// reset asks the server to put the car at x, y, z facing heading; false
// when there is no server to ask (reconnecting: the car is reset here).
func (l *link) reset(x, y, z, heading float64) bool {
	if l.c == nil {
		return false
	}
	var seq uint32
	var err error
	if l.h != nil {
		seq, err = l.h.Reset(x, y, z, heading)
	} else {
		seq, err = l.c.Reset(x, y, z, heading)
	}
	if err != nil {
		l.tell("RESET NOT SENT: " + err.Error())
		return false
	}
	l.resetSeq = seq
	return true
}

// takePose returns the Pose the car is to be put at, if one came, and
// whether it answers a Reset.
func (l *link) takePose() (wire.Pose, bool, bool) {
	if l.pose == nil {
		return wire.Pose{}, false, false
	}
	p := *l.pose
	l.pose = nil
	return p, p.Seq != 0, true
}

// subscribe is the terrain client's Subscriber; it returns the radius the
// server serves (ours clamped to its maximum), where the terrain evicts.
func (l *link) subscribe(centre voxel.ChunkPos, radius int32) int32 {
	if l.c == nil {
		return radius // reconnecting: Resubscribe asks again once connected
	}
	r := min(uint32(radius), l.c.Welcome().MaxRadius)
	l.area, l.radius = centre, r
	sub := l.c.Subscribe
	if l.h != nil {
		sub = l.h.Subscribe
	}
	if err := sub(centre, r); err != nil {
		l.tell("SUBSCRIBE FAILED: " + err.Error())
	}
	return int32(r)
}

// update drains the server, sends the car on its clock and tracks others.
func (l *link) update(clock, dt float64, x, y, z, heading, speed float64) {
	if l.c == nil {
		return
	}
	l.x, l.z = x, z
	if l.h != nil {
		l.handedOver(dt, x, y, z, heading, speed)
	} else {
		l.drain()
		if l.sendT -= dt; l.sendT <= 0 {
			l.sendT = max(0, l.sendT+1.0/carSendHz)
			l.sendCar(x, y, z, heading, speed)
		}
		l.snaps = l.c.Cars(l.snaps[:0])
	}
	l.cars.Observe(clock, l.snaps)
}

// edit asks the server to set the block editReach ahead of the car, at
// ground level (dig) or just above it (build).
func (l *link) edit(x, z, groundY float64, forward [2]float64, build bool) {
	bx := math.Floor(x + forward[0]*editReach)
	bz := math.Floor(z + forward[1]*editReach)
	by := math.Floor(groundY) - 1
	b := voxel.Air
	if build {
		by++
		b = voxel.Stone
	}
	l.editAt(int64(bx), int64(by), int64(bz), b)
}

// editAt asks the server to set the block at x, y, z (world blocks): the
// edit keys' request, and a page's (Session.QueueEdit).
func (l *link) editAt(x, y, z int64, b voxel.Block) {
	if l.c == nil {
		l.tell("EDIT NOT SENT: RECONNECTING")
		return
	}
	p, idx := voxel.ChunkOf(x, y, z)
	request := l.c.RequestEdit
	if l.h != nil {
		request = l.h.RequestEdit
	}
	seq, err := request(p, uint16(idx), b)
	if err != nil {
		l.tell("EDIT FAILED: " + err.Error())
		return
	}
	l.pending++
	l.sent.EditsSent++
	l.status = fmt.Sprintf("EDIT %d SENT", seq)
}

// LinkState is the connection as a page shows it (Session.Link).
type LinkState struct {
	Connected bool
	Player    uint32
	// The latest car snapshot sent, as the server got it (quantised):
	// its Seq and where it was, in metres.
	CarSeq           uint32
	X, Y, Z, Heading float64 // Heading in radians, car.HeadingOf's
	// Cars is how many other cars the server relays now.
	Cars int
	// Lost is why the last connection ended ("" while the first lasts).
	Lost string
	// Edits requested, and answered: applied or refused.
	EditsSent, EditsApplied, EditsRefused int
	Status                                string
}

// state is the link's LinkState now.
func (l *link) state() LinkState {
	st := l.sent
	st.Connected = l.c != nil
	st.Player, st.Status = l.player, l.status
	if st.Connected {
		st.Cars = len(l.snaps)
	}
	return st
}

// sendCar sends the car (the handover's, when there is one) and keeps
// what was sent.
func (l *link) sendCar(x, y, z, heading, speed float64) {
	q := wire.QuantiseCar(0, 0, x, y, z, heading, speed)
	if l.h != nil {
		l.h.SendCar(q)
		l.sent.CarSeq = l.h.CarSeq()
	} else {
		l.c.SendCar(q)
		l.sent.CarSeq = l.c.CarSeq()
	}
	l.sent.X, l.sent.Y, l.sent.Z = q.Position()
	l.sent.Heading = q.HeadingRad()
}

// drain takes the server's messages, as Client.Drain would, and adopts a
// handover at the first Owners (a cluster server's): what follows it
// this frame waits for the handover's Poll.
func (l *link) drain() {
	for range maxInboundPerFrame {
		select {
		case m := <-l.c.Messages():
			if o, ok := m.(*wire.Owners); ok {
				l.adopt(o)
				return
			}
			netsync.Dispatch(sink{l}, m)
		default:
			return
		}
	}
}

// handedOver is update's network part on a handover: its frame, the
// messages, the car, the others' cars.
func (l *link) handedOver(dt, x, y, z, heading, speed float64) {
	l.h.Step(time.Now(), x, z)
	l.c = l.h.Primary()
	l.msgs = l.h.Poll(l.msgs[:0], maxInboundPerFrame)
	for _, m := range l.msgs {
		netsync.Dispatch(sink{l}, m)
	}
	clear(l.msgs)
	if l.sendT -= dt; l.sendT <= 0 {
		l.sendT = max(0, l.sendT+1.0/carSendHz)
		l.sendCar(x, y, z, heading, speed)
	}
	l.snaps = l.h.Cars(l.snaps[:0])
}

// maxQueuedEdits bounds the edits QueueEdit holds for the next frame.
const maxQueuedEdits = 64

// queuedEdit is one QueueEdit.
type queuedEdit struct {
	x, y, z int64
	b       voxel.Block
}

// QueueEdit asks for the block at x, y, z (world blocks) to be set to b:
// the next frame requests it as the edit keys do. Safe from any goroutine
// (a page's script calls it). Offline or with a full queue it is an
// error; the server judges the edit itself (reach, area, rate).
func (s *Session) QueueEdit(x, y, z int64, b voxel.Block) error {
	if s.link == nil {
		return errors.New("game: edits need a server (this session is offline)")
	}
	select {
	case s.queued <- queuedEdit{x: x, y: y, z: z, b: b}:
		return nil
	default:
		return fmt.Errorf("game: %d edits already wait for the next frame", maxQueuedEdits)
	}
}

// Link is the connection's state now (zero offline). From the frame's
// goroutine (a Display's Present, between frames).
func (s *Session) Link() LinkState {
	if s.link == nil {
		return LinkState{}
	}
	return s.link.state()
}
