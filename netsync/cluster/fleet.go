package cluster

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"citydrive/netsync/wire"
)

// Fleet is every other server's cars, for the operator's map: one
// wildcard subscription to the car subjects the servers already publish
// on (every region's), kept as the latest snapshot of each player. A
// server's Cars subscribes only to the regions near its own players; the
// map wants the whole world. The node's car connection has no echo, so
// this server's own cars are not in it (the map has them first hand).
type Fleet struct {
	sub *nats.Subscription
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex
	cars map[uint32]remoteCar
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
	f := &Fleet{ttl: fleetTTL, now: time.Now, cars: map[uint32]remoteCar{}}
	subj := n.carsX.prefix + ".cars.>"
	sub, err := n.cars.Subscribe(subj, f.received)
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribing to %s: %w", subj, err)
	}
	f.sub = sub
	return f, nil
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
		old, ok := f.cars[s.Player]
		if ok && !wire.SeqNewer(s.Seq, old.c.Seq) {
			continue
		}
		if !ok && len(f.cars) >= maxFleet {
			f.prune(now)
			if len(f.cars) >= maxFleet {
				continue
			}
		}
		f.cars[s.Player] = remoteCar{c: s, at: now}
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

// Close ends the subscription.
func (f *Fleet) Close() error { return f.sub.Unsubscribe() }

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
