package cluster

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"citydrive/netsync"
	"citydrive/netsync/wire"
)

// Fleet is every other server's cars, for the operator's map: one
// wildcard subscription to the car subjects the servers already publish
// on (every region's), kept as the latest snapshot of each player. A
// server's Cars subscribes only to the regions near its own players; the
// map wants the whole world. The node's car connection has no echo, so
// this server's own cars are not in it (the map has them first hand).
type Fleet struct {
	sub, roster *nats.Subscription
	prefix      string
	ttl         time.Duration
	now         func() time.Time
	rule        netsync.CarRule // the node's: the map shows what players are shown

	mu      sync.Mutex
	cars    map[uint32]remoteCar
	rosters map[uint32]roster // by server slot
}

// roster is one server's players' names, as it last published them.
type roster struct {
	names map[uint32]string
	at    time.Time
}

// RosterEntry is one player of a server's roster: what the car subjects
// do not say (a car has an id, not a name).
type RosterEntry struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
}

// RosterEvery is how often a cluster server publishes its roster
// (PublishRoster; the host does); a roster is forgotten after three
// missed.
const (
	RosterEvery = 2 * time.Second
	rosterTTL   = 3 * RosterEvery
)

// rosterSubject is where the server of slot publishes its roster.
func rosterSubject(prefix string, slot uint32) string {
	return prefix + ".roster." + strconv.FormatUint(uint64(slot), 10)
}

// PublishRoster tells the other servers' maps the names of this server's
// players (at most maxFleet, names cut to wire.MaxNameLen).
func (n *Node) PublishRoster(ps []RosterEntry) error {
	if len(ps) > maxFleet {
		ps = ps[:maxFleet]
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	return n.cars.Publish(rosterSubject(n.carsX.prefix, n.Slot()), b)
}

// maxFleet bounds the players a Fleet keeps (a hostile publisher must not
// grow it without limit); snapshots of more are dropped.
const maxFleet = 1 << 16

// fleetTTL is how long a player stays on the map after its last snapshot:
// servers publish every tick, so a few seconds is a player gone.
const fleetTTL = 3 * time.Second

// WatchFleet subscribes to every server's cars. Close it when the map
// stops (the node's Close ends it too).
func (n *Node) WatchFleet() (*Fleet, error) {
	f := &Fleet{prefix: n.carsX.prefix, ttl: fleetTTL, now: time.Now, rule: n.carsX.rule, cars: map[uint32]remoteCar{}, rosters: map[uint32]roster{}}
	subj := f.prefix + ".cars.>"
	sub, err := n.cars.Subscribe(subj, f.received)
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribing to %s: %w", subj, err)
	}
	rsubj := f.prefix + ".roster.*"
	rsub, err := n.cars.Subscribe(rsubj, f.receivedRoster)
	if err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("cluster: subscribing to %s: %w", rsubj, err)
	}
	f.sub, f.roster = sub, rsub
	return f, nil
}

// receivedRoster takes one server's roster: only ids of the slot its
// subject names, and none of this server's (no echo: never).
func (f *Fleet) receivedRoster(m *nats.Msg) {
	tail, ok := strings.CutPrefix(m.Subject, f.prefix+".roster.")
	if !ok {
		return
	}
	slot, err := strconv.ParseUint(tail, 10, 32)
	if err != nil || slot > maxServerSlot {
		return
	}
	var ps []RosterEntry
	if err := json.Unmarshal(m.Data, &ps); err != nil || len(ps) > maxFleet {
		return // hostile until decoded
	}
	names := make(map[uint32]string, len(ps))
	for _, p := range ps {
		if ServerSlot(p.ID) != uint32(slot) {
			continue
		}
		if len(p.Name) > wire.MaxNameLen {
			p.Name = p.Name[:wire.MaxNameLen]
		}
		names[p.ID] = strings.ToValidUTF8(p.Name, "?")
	}
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rosters[uint32(slot)] = roster{names: names, at: now}
}

// Name is the name another server's roster gives player id ("": none
// heard within the roster's TTL).
func (f *Fleet) Name(id uint32) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.rosters[ServerSlot(id)]
	if !ok || f.now().Sub(r.at) > rosterTTL {
		return ""
	}
	return r.names[id]
}

func (f *Fleet) received(m *nats.Msg) {
	cars, err := wire.DecodeCarDatagram(m.Data, nil)
	if err != nil {
		return // hostile until decoded
	}
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range cars {
		if _, ok := f.cars[s.Player]; !ok && len(f.cars) >= maxFleet {
			f.prune(now)
			if len(f.cars) >= maxFleet {
				continue
			}
		}
		admitCar(f.cars, f.rule, f.ttl, s, now)
	}
}

// prune forgets the players not heard from within the TTL (f.mu held).
func (f *Fleet) prune(now time.Time) {
	for id, r := range f.cars {
		if now.Sub(r.at) > f.ttl {
			delete(f.cars, id)
		}
	}
}

// Cars appends the latest car of every other server's player heard from
// within the TTL.
func (f *Fleet) Cars(dst []wire.CarSnapshot) []wire.CarSnapshot {
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prune(now)
	for _, r := range f.cars {
		dst = append(dst, r.c)
	}
	return dst
}

// Close ends the subscriptions.
func (f *Fleet) Close() error {
	err := f.sub.Unsubscribe()
	if rerr := f.roster.Unsubscribe(); err == nil {
		err = rerr
	}
	return err
}

// ServerSlot is the slot of the server a player id was handed out by
// (PlayerBits); 0 outside a cluster.
func ServerSlot(player uint32) uint32 { return player >> PlayerBits }

// ServerName is how the operator's tools name the server a player is on:
// "s" and its slot ("s3").
func ServerName(player uint32) string {
	return "s" + strconv.FormatUint(uint64(ServerSlot(player)), 10)
}

// Slot is this server's slot.
func (n *Node) Slot() uint32 { return n.first >> PlayerBits }
