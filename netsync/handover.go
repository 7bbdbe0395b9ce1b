package netsync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/plan"
)

// HandoverConfig configures DialHandover.
type HandoverConfig struct {
	// Client dials the first server (Addr, Fingerprint); every connection
	// shares the rest, its Identity included (made if nil).
	Client ClientConfig
	// Pin is the fingerprint to pin for an owner's address ("": that
	// server is not dialled). nil: Client.Fingerprint for every server,
	// a cluster whose servers share one identity (cmd/cluster.sh).
	Pin func(addr string) string
	// Rules are the handover's distances; zero: DefaultHandoverRules.
	Rules HandoverRules
	// DialTimeout bounds one spare's dial (5 s); a failed one is not
	// tried again for RedialAfter (2 s).
	DialTimeout, RedialAfter time.Duration
}

// Handover is one player on a cluster, handed between the servers that
// own the regions it drives through: it drives on its primary
// connection and, near a border, holds a spare to the next region's
// owner (told by wire.Owners), switching to it well inside (the rules'
// hysteresis). The frame loop calls Step with the car's position once a
// frame and uses Poll, Cars, SendCar, RequestEdit and Subscribe as it
// would a Client's; nothing blocks. Used from one goroutine.
type Handover struct {
	cfg HandoverConfig
	log *slog.Logger

	primary, spare *link
	dialing        string // the spare being dialled ("" none)
	unwanted       bool   // that dial was called off: close what it brings
	dialed         chan dialResult
	stopDial       context.CancelFunc
	failed         map[string]time.Time

	owners     wire.Owners
	haveOwners bool

	centre voxel.ChunkPos
	radius uint32

	out      []wire.Message // for the game, before the primary's: the switch's catch-up, the spare's answers
	answered answeredSeqs
	switches int
	resent   int
	// carID is the id the world knows the car by: its first server's,
	// which the others show it under once that server vouched for it.
	carID  uint32
	carSeq uint32 // the car's snapshots, numbered across connections
	carIdx map[uint32]int
	cars   []wire.CarSnapshot
	// shown is what Cars returned last for each car, so a car never steps
	// back when the connection that had its newest snapshot closes.
	shown, shownNext map[uint32]wire.CarSnapshot
	// lingerUntil: after a switch, the old primary (the spare now) is
	// kept until then, or until the new one delivers every car it did.
	lingerUntil time.Time
	lingerCars  []wire.CarSnapshot
	// overlap: after a switch, the old primary still drives the car (its
	// snapshots go to both) until standbyAt, when it is told to stand by.
	overlap   *link
	standbyAt time.Time
	lingered  bool // the last Step kept the old primary past the rules' drop

	closing sync.WaitGroup // connections closing off the frame
	gone    Traffic        // the bytes of the connections closed
}

// link is one connection and the chunks its server has delivered on it
// (what the game holds, for the primary), so a switch can hand the game
// only what differs.
type link struct {
	c      *Client
	addr   string
	chunks map[voxel.ChunkPos]voxel.Overlay
	hz     uint32 // its server's tick rate, latest
}

type dialResult struct {
	addr string
	c    *Client
	err  error
}

// carFresh is how many of the primary's car snapshots (about a second at
// 30 Hz) the spare's server may be behind and still count as having heard
// the car: it places the car from what it heard at the switch.
const carFresh = 30

// drainSpare bounds the spare's messages taken per Step.
const drainSpare = 4096

// After a switch the old primary is kept (the rules' drop waits) while
// it shows a car moving (a newer snapshot within lingerFresh) that the
// new one has not shown moving within lingerFresh, for at most lingerMax
// (the game forgets a car no longer relayed after CarForget anyway): the
// new server may relay a car only after the switch (its cluster feed,
// its area catching up, the car's own handover), and until then only
// the old connection shows it move.
const (
	lingerFresh = 250 * time.Millisecond
	lingerMax   = CarForget
)

// driveOverlap is how long the old server still drives the car after a
// switch (make before break): the new one drives it only from the tick
// that takes its Handover, which comes on a stream that the car's
// datagrams can overtake, and both servers ignore a standby connection's
// snapshots. Told to stand by at once, the old server dropped what the car
// sent in between (1,000-bot traces: the car's next 1-5 snapshots, 100-170
// ms, seen by no one).
const driveOverlap = 500 * time.Millisecond

// DialHandover connects to cfg.Client.Addr, the first primary.
func DialHandover(ctx context.Context, cfg HandoverConfig) (*Handover, error) {
	if cfg.Client.Identity == nil {
		cfg.Client.Identity = NewIdentity()
	}
	if cfg.Client.IdleTimeout <= 0 {
		cfg.Client.IdleTimeout = FailoverIdle
	}
	if cfg.Rules == (HandoverRules{}) {
		cfg.Rules = DefaultHandoverRules()
	}
	if !(cfg.Rules.Approach < cfg.Rules.Drop && cfg.Rules.Switch > 0) {
		return nil, fmt.Errorf("netsync: handover rules %+v: Approach must be below Drop and Switch positive (hysteresis)", cfg.Rules)
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	if cfg.RedialAfter <= 0 {
		cfg.RedialAfter = 2 * time.Second
	}
	c, err := Dial(ctx, cfg.Client)
	if err != nil {
		return nil, err
	}
	return newHandover(c, cfg), nil
}

func newHandover(c *Client, cfg HandoverConfig) *Handover {
	h := &Handover{cfg: cfg, log: logger(cfg.Client.Logger), dialed: make(chan dialResult, 1), failed: map[string]time.Time{},
		centre: cfg.Client.Centre, radius: cfg.Client.Radius, answered: newAnsweredSeqs(1024), carIdx: map[uint32]int{},
		shown: map[uint32]wire.CarSnapshot{}, shownNext: map[uint32]wire.CarSnapshot{}}
	h.primary = newLink(c, cfg.Client.Addr)
	h.carID = c.Player()
	return h
}

// AdoptHandover makes c, a connection the game already drives on, the
// first primary of a Handover: a frame loop learns that its server is
// one of a cluster's only from its first wire.Owners, and a plain server
// never sends one, so the single-server path stays a bare Client. owners
// is that message; later are the messages the game took from c after it
// (the rest of its Poll), which the handover learns from as from its own
// Poll. The chunks delivered before owners are unknown to it (a cluster
// server tells the owners in the tick before it delivers any): at a
// switch the game is handed them again. cfg.Client's Centre and Radius
// are the area c is subscribed to now; the rest of it is c's (its
// Identity: the edits left unanswered are the same); Rules and the
// timeouts default as DialHandover's. c's car sequence goes on.
func AdoptHandover(c *Client, cfg HandoverConfig, owners *wire.Owners, later []wire.Message) (*Handover, error) {
	if c.cfg.WebTransport != nil {
		// The owners are native QUIC addresses; a spare would dial the
		// page's one session URL, which is this same server.
		return nil, errors.New("netsync: a client joined over WebTransport stays on its server: regions' owners are not handed to it")
	}
	if cfg.Rules == (HandoverRules{}) {
		cfg.Rules = DefaultHandoverRules()
	}
	if !(cfg.Rules.Approach < cfg.Rules.Drop && cfg.Rules.Switch > 0) {
		return nil, fmt.Errorf("netsync: handover rules %+v: Approach must be below Drop and Switch positive (hysteresis)", cfg.Rules)
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	if cfg.RedialAfter <= 0 {
		cfg.RedialAfter = 2 * time.Second
	}
	centre, radius := cfg.Client.Centre, cfg.Client.Radius
	cfg.Client = c.cfg
	cfg.Client.Centre, cfg.Client.Radius = centre, radius
	h := newHandover(c, cfg)
	h.owners, h.haveOwners = *owners, true
	h.carSeq = c.carSeq.Load()
	for _, m := range later {
		h.primary.track(m)
		switch m := m.(type) {
		case *wire.Owners:
			h.owners = *m
		case *wire.EditAck:
			h.answered.first(m.Seq)
		case *wire.EditReject:
			h.answered.first(m.Seq)
		}
	}
	return h, nil
}

func newLink(c *Client, addr string) *link {
	return &link{c: c, addr: addr, chunks: map[voxel.ChunkPos]voxel.Overlay{}, hz: c.welcome.TickHz}
}

// Primary is the connection the car drives on now (its Welcome, clock
// samples, traffic).
func (h *Handover) Primary() *Client { return h.primary.c }

// PrimaryAddr is the address of the server the car drives on.
func (h *Handover) PrimaryAddr() string { return h.primary.addr }

// Switches counts the switches so far.
func (h *Handover) Switches() int { return h.switches }

// Resent counts edits sent again to the new server at a switch.
func (h *Handover) Resent() int { return h.resent }

// Traffic is the bytes moved by every connection of the handover: the
// primary, the spare and those closed before.
func (h *Handover) Traffic() Traffic {
	t := h.gone
	for _, l := range [2]*link{h.primary, h.spare} {
		if l != nil {
			lt := l.c.Traffic()
			t.BytesIn, t.BytesOut = t.BytesIn+lt.BytesIn, t.BytesOut+lt.BytesOut
		}
	}
	return t
}

// Spare is the spare connection's server and whether it is ready to
// switch to ("" while none is connected).
func (h *Handover) Spare() (addr string, ready bool) {
	if h.spare == nil {
		return "", false
	}
	return h.spare.addr, h.spareReady()
}

// SpareClient is the spare connection (nil while none is connected):
// for diagnostics (HeardLog); the handover alone drives it.
func (h *Handover) SpareClient() *Client {
	if h.spare == nil {
		return nil
	}
	return h.spare.c
}

// Lingered reports whether the last Step kept the spare, the old primary
// of a switch, only because it still shows cars moving that the new
// primary does not (lingering): the rules would have dropped it.
func (h *Handover) Lingered() bool { return h.lingered }

// Dialling reports whether a spare's dial is under way.
func (h *Handover) Dialling() bool { return h.dialing != "" }

// Identity is the player every connection speaks for.
func (h *Handover) Identity() *Identity { return h.cfg.Client.Identity }

// Done is closed when the primary's connection has ended with no spare
// ready to take over; Err then says why.
func (h *Handover) Done() <-chan struct{} { return h.primary.c.Done() }

// Err is why the primary's connection ended, or nil.
func (h *Handover) Err() error { return h.primary.c.Err() }

// Step is one frame of the handover, for the car at (x, z) metres: it
// takes a finished dial, the spare's messages, and does what the rules
// ask (open a spare, switch, drop the spare). It never blocks.
func (h *Handover) Step(now time.Time, x, z float64) {
	h.lingered = false
	select {
	case r := <-h.dialed:
		h.took(r, now)
	default:
	}
	h.drainSpare()
	h.endOverlap(now)
	if h.spare != nil && h.spare.c.Err() != nil {
		h.log.Info("handover spare lost", "server", h.spare.addr, "err", h.spare.c.Err())
		h.dropSpare()
	}
	if h.primary.c.Err() != nil && h.spare != nil {
		h.swap(now, "the primary's connection ended")
	}
	st := handoverState{x: x, z: z, owners: h.owners, ok: h.haveOwners, primary: h.primary.addr}
	switch {
	case h.spare != nil:
		st.spare, st.spareReady = h.spare.addr, h.spareReady()
	case h.dialing != "" && !h.unwanted:
		st.spare = h.dialing
	}
	step := h.cfg.Rules.decide(st)
	if h.unwanted && step.open != "" { // one dial at a time: wait for the called-off one
		return
	}
	switch {
	case step.swap:
		h.swap(now, step.reason)
	case step.drop && h.overlap != nil: // it still drives the car: dropped once it stands by
	case step.drop && h.lingering(now): // dropped once the new primary shows its cars
		h.lingered = true
	case step.drop:
		h.log.Debug("handover: dropping the spare", "server", st.spare, "why", step.reason)
		h.dropSpare()
	case step.open != "":
		h.open(step.open, now)
	}
}

// WaitDial waits for a spare's dial under way to finish and takes its
// result: for tools and tests that drive the handover synchronously.
func (h *Handover) WaitDial(ctx context.Context) error {
	if h.dialing == "" {
		return nil
	}
	select {
	case r := <-h.dialed:
		h.took(r, time.Now())
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Handover) open(addr string, now time.Time) {
	if t, ok := h.failed[addr]; ok && now.Sub(t) < h.cfg.RedialAfter {
		return
	}
	cfg := h.cfg.Client
	cfg.Addr, cfg.SpareOf, cfg.Centre, cfg.Radius = addr, h.carID, h.centre, h.radius
	if h.cfg.Pin != nil {
		cfg.Fingerprint = h.cfg.Pin(addr)
	}
	if cfg.Fingerprint == "" {
		h.failed[addr] = now
		h.log.Warn("handover: no fingerprint to pin for the next region's server", "server", addr)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.DialTimeout)
	h.dialing, h.stopDial = addr, cancel
	go func() {
		c, err := Dial(ctx, cfg)
		h.dialed <- dialResult{addr: addr, c: c, err: err} // capacity 1, one dial at a time
	}()
}

// took applies a finished dial.
func (h *Handover) took(r dialResult, now time.Time) {
	h.stopDial()
	unwanted := h.unwanted
	h.dialing, h.stopDial, h.unwanted = "", nil, false
	if unwanted {
		if r.err == nil {
			h.closeLater(r.c)
		}
		return
	}
	if r.err != nil {
		h.failed[r.addr] = now
		h.log.Warn("handover: the next region's server did not answer", "server", r.addr, "err", r.err)
		return
	}
	delete(h.failed, r.addr)
	h.spare = newLink(r.c, r.addr)
	if c := r.c.cfg.Centre; c != h.centre || r.c.cfg.Radius != h.radius { // moved meanwhile
		_ = r.c.Subscribe(h.centre, h.radius)
		h.spare.evict(h.centre, h.radius)
	}
}

// spareReady: the spare is connected and its server has heard the
// primary's car lately (its cluster feed), so it can place it.
func (h *Handover) spareReady() bool {
	if h.spare == nil || h.spare.c.Err() != nil {
		return false
	}
	for _, id := range [2]uint32{h.carID, h.primary.c.Player()} { // vouched for, or not (yet)
		if s, ok := h.spare.c.heard(id); ok && h.carSeq-s.Seq <= carFresh {
			return true
		}
	}
	return false
}

// swap makes the spare the primary: the new server drives the car from
// where the old one had it, the old goes on standby (kept as the spare
// until the rules drop it), edits still unanswered are sent again to the
// new server (applied once: key and sequence), and the game is handed
// the chunks the new server holds differently.
func (h *Handover) swap(now time.Time, why string) {
	old, nw := h.primary, h.spare
	_ = nw.c.queue(&wire.Handover{Drive: true, From: h.carID})
	// The spare (nw) is the only connection an overlap under way can be
	// on, and it drives now: the old one takes the overlap's place.
	h.overlap, h.standbyAt = old, now.Add(driveOverlap)
	for _, r := range h.Identity().retry() {
		if _, ok := nw.chunks[r.Pos]; ok { // else the old server answers it
			if nw.c.queue(&r) == nil {
				h.resent++
			}
		}
	}
	h.out = catchUp(h.out, old.chunks, nw.chunks, h.centre)
	if nw.hz != old.hz {
		h.out = append(h.out, &wire.TickRate{Hz: nw.hz})
	}
	h.primary, h.spare = nw, old
	h.lingerUntil = now.Add(lingerMax)
	h.switches++
	h.log.Info("handed over", "from", old.addr, "to", nw.addr, "why", why, "player", nw.c.Player())
}

// lingering reports whether the spare is the old primary of a switch
// still showing cars the new primary has not delivered yet.
func (h *Handover) lingering(now time.Time) bool {
	if h.spare == nil || !now.Before(h.lingerUntil) {
		return false
	}
	own := [3]uint32{h.carID, h.primary.c.Player(), h.spare.c.Player()}
	// Moving, not merely relayed: a server relays a remote car's last
	// snapshot again until it forgets it (its feed of that region not yet
	// there, or gone), and the game shows it held still meanwhile.
	h.lingerCars = h.spare.c.advancedWithin(h.lingerCars[:0], lingerFresh)
	for _, s := range h.lingerCars {
		if !h.primary.c.advancedLately(s.Player, lingerFresh) && !slices.Contains(own[:], s.Player) {
			return true
		}
	}
	h.lingerUntil = time.Time{} // the new one delivers them all: done
	return false
}

// endOverlap tells the old primary (the spare: dropSpare ends an
// overlap with it) to stand by once its overlap is over.
func (h *Handover) endOverlap(now time.Time) {
	if h.overlap != nil && !now.Before(h.standbyAt) {
		_ = h.overlap.c.queue(&wire.Handover{})
		h.overlap = nil
	}
}

func (h *Handover) dropSpare() {
	if h.dialing != "" {
		h.stopDial() // took closes what it brings
		h.unwanted = true
		return
	}
	if h.spare == nil {
		return
	}
	c := h.spare.c
	h.spare, h.overlap = nil, nil // an overlap is only ever on the spare
	h.closeLater(c)
}

// closeLater closes c on its own goroutine (Close waits for c's
// goroutines: not on the frame); Handover.Close waits for it.
func (h *Handover) closeLater(c *Client) {
	t := c.Traffic()
	h.gone.BytesIn, h.gone.BytesOut = h.gone.BytesIn+t.BytesIn, h.gone.BytesOut+t.BytesOut
	h.closing.Add(1)
	go func() {
		defer h.closing.Done()
		_ = c.Close()
	}()
}

// drainSpare takes the spare's messages: its chunks into its model, the
// owners, and answers to edits (the game hears each answer once).
func (h *Handover) drainSpare() {
	if h.spare == nil {
		return
	}
	for range drainSpare {
		select {
		case m := <-h.spare.c.Messages():
			h.spare.track(m)
			switch m := m.(type) {
			case *wire.Owners:
				h.owners, h.haveOwners = *m, true
			case *wire.EditAck:
				if h.answered.first(m.Seq) {
					h.out = append(h.out, m)
				}
			case *wire.EditReject:
				if h.answered.first(m.Seq) {
					h.out = append(h.out, m)
				}
			}
		default:
			return
		}
	}
}

// Poll appends up to max messages for the game to dst without blocking:
// what a switch owes it first, then the primary's.
func (h *Handover) Poll(dst []wire.Message, max int) []wire.Message {
	n := min(max, len(h.out))
	dst = append(dst, h.out[:n]...)
	h.out = slices.Delete(h.out, 0, n)
	for len(dst) < max {
		var m wire.Message
		select {
		case m = <-h.primary.c.Messages():
		default:
			return dst
		}
		h.primary.track(m)
		switch m := m.(type) {
		case *wire.Owners:
			h.owners, h.haveOwners = *m, true
			continue
		case *wire.EditAck:
			if !h.answered.first(m.Seq) {
				continue
			}
		case *wire.EditReject:
			if !h.answered.first(m.Seq) {
				continue
			}
		}
		dst = append(dst, m)
	}
	return dst
}

// catchUp appends what the game, holding held, must be given to hold
// what the new server delivered (next): the chunks it holds differently
// or not at all (in next's sorted order, so the game's work is the same
// each time). A chunk only the game holds stays: the new server delivers
// it when it gets there. base is the ChunkDefaults' base (the area's
// centre).
func catchUp(dst []wire.Message, held, next map[voxel.ChunkPos]voxel.Overlay, base voxel.ChunkPos) []wire.Message {
	var fresh []voxel.ChunkPos
	for _, pos := range slices.SortedFunc(maps.Keys(next), comparePos) {
		o := next[pos]
		had, ok := held[pos]
		switch {
		case !ok && len(o) == 0:
			fresh = append(fresh, pos)
		case !ok || !slices.Equal(had, o):
			dst = append(dst, &wire.ChunkEdits{Pos: pos, Edits: o})
		}
	}
	if len(fresh) > 0 {
		dst = append(dst, &wire.ChunkDefaults{Base: base, Pos: fresh})
	}
	return dst
}

func comparePos(a, b voxel.ChunkPos) int {
	return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y), cmp.Compare(a.Z, b.Z))
}

// track applies a message to the link's chunk model.
func (l *link) track(m wire.Message) {
	switch m := m.(type) {
	case *wire.ChunkDefaults:
		for _, p := range m.Pos {
			l.chunks[p] = nil
		}
	case *wire.ChunkEdits:
		l.chunks[m.Pos] = m.Edits
	case *wire.ChunkDrop:
		delete(l.chunks, m.Pos)
	case *wire.EditBroadcast:
		if o, ok := l.chunks[m.Pos]; ok {
			l.chunks[m.Pos] = o.With(m.Index, m.Block)
		}
	case *wire.TickRate:
		l.hz = m.Hz
	}
}

// evict forgets the chunks outside the area, as the game does (the drop
// rule: a client evicts what leaves its own Subscribe).
func (l *link) evict(centre voxel.ChunkPos, radius uint32) {
	r := int32(min(radius, l.c.welcome.MaxRadius))
	for p := range l.chunks {
		if !plan.InCylinder(centre, r, p) {
			delete(l.chunks, p)
		}
	}
}

// SendCar sends the car to the primary, and for driveOverlap after a
// switch to the old primary too (a spare's server does not show it).
func (h *Handover) SendCar(s wire.CarSnapshot) {
	h.carSeq++
	h.primary.c.sendCar(s, h.carSeq)
	if h.overlap != nil {
		h.overlap.c.sendCar(s, h.carSeq)
	}
}

// CarSeq is the Seq SendCar gave the latest snapshot (0: none yet).
func (h *Handover) CarSeq() uint32 { return h.carSeq }

// CarID is the id the world knows the car by (its first server's).
func (h *Handover) CarID() uint32 { return h.carID }

// RequestEdit asks the primary's server to set one block.
func (h *Handover) RequestEdit(pos voxel.ChunkPos, index uint16, block voxel.Block) (uint32, error) {
	return h.primary.c.RequestEdit(pos, index, block)
}

// Reset asks the primary's server to put the car elsewhere.
func (h *Handover) Reset(x, y, z, heading float64) (uint32, error) {
	return h.primary.c.Reset(x, y, z, heading)
}

// Subscribe moves the area on every connection.
func (h *Handover) Subscribe(centre voxel.ChunkPos, radius uint32) error {
	h.centre, h.radius = centre, radius
	err := h.primary.c.Subscribe(centre, radius)
	h.primary.evict(centre, radius)
	if h.spare != nil {
		_ = h.spare.c.Subscribe(centre, radius) // a full spare fails on its own
		h.spare.evict(centre, radius)
	}
	return err
}

// Cars appends the other cars both connections were told of, each player
// once (its newest snapshot, never older than the one it returned last),
// and never this player's own.
func (h *Handover) Cars(dst []wire.CarSnapshot) []wire.CarSnapshot {
	h.cars = h.primary.c.Cars(h.cars[:0])
	own := [3]uint32{h.carID, h.primary.c.Player()}
	if h.spare != nil {
		h.cars = h.spare.c.Cars(h.cars)
		own[2] = h.spare.c.Player()
	}
	clear(h.carIdx)
	for _, s := range h.cars {
		if slices.Contains(own[:], s.Player) {
			continue
		}
		if i, ok := h.carIdx[s.Player]; ok {
			if wire.SeqNewer(s.Seq, dst[i].Seq) {
				dst[i] = s
			}
			continue
		}
		h.carIdx[s.Player] = len(dst)
		dst = append(dst, s)
	}
	clear(h.shownNext)
	for p, i := range h.carIdx {
		if last, ok := h.shown[p]; ok && wire.SeqNewer(last.Seq, dst[i].Seq) {
			dst[i] = last
		}
		h.shownNext[p] = dst[i]
	}
	h.shown, h.shownNext = h.shownNext, h.shown
	return dst
}

// Close ends every connection and waits for them.
func (h *Handover) Close() error {
	if h.dialing != "" {
		h.stopDial()
		if r := <-h.dialed; r.err == nil {
			_ = r.c.Close()
		}
		h.dialing = ""
	}
	var errs []error
	if h.spare != nil {
		errs = append(errs, h.spare.c.Close())
		h.spare = nil
	}
	errs = append(errs, h.primary.c.Close())
	h.closing.Wait()
	return errors.Join(errs...)
}

// answeredSeqs remembers the latest edit answers given to the game, so an
// edit answered by both servers (sent again at a switch) is answered once.
type answeredSeqs struct {
	set  map[uint32]struct{}
	ring []uint32
	next int
}

func newAnsweredSeqs(n int) answeredSeqs {
	return answeredSeqs{set: make(map[uint32]struct{}, n), ring: make([]uint32, 0, n)}
}

// first reports whether seq is answered for the first time, and
// remembers it (forgetting the oldest past the ring's size).
func (a *answeredSeqs) first(seq uint32) bool {
	if _, ok := a.set[seq]; ok {
		return false
	}
	if len(a.ring) < cap(a.ring) {
		a.ring = append(a.ring, seq)
	} else {
		delete(a.set, a.ring[a.next])
		a.ring[a.next] = seq
		a.next = (a.next + 1) % len(a.ring)
	}
	a.set[seq] = struct{}{}
	return true
}
