package cluster

import (
	"context"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"

	"citydrive/netsync"
)

// A player handed to another server keeps the car id its first server
// gave it (so observers see one car across the handover) once that server
// vouches for it: the new server asks, on core NATS, whether the id is a
// player of its with the player's key. The request names the id and the
// key (12 bytes), the answer is one byte (1: yes).

// whoisSubject is where the server of slot answers for its players.
func whoisSubject(prefix string, slot uint32) string {
	return prefix + ".whois." + strconv.FormatUint(uint64(slot), 10)
}

// vouchTimeout bounds a vouch; a server that does not answer in time (it
// died) vouches for nothing, and the car is shown under its new id.
const vouchTimeout = time.Second

const whoisLen = 12

var _ netsync.CarVoucher = (*Cars)(nil)

// Vouch asks the server that numbered player whether it is its player
// with key (netsync.CarVoucher); answer is called once, from a goroutine
// the exchange waits for when it closes.
func (c *Cars) Vouch(player uint32, key uint64, answer func(bool)) {
	var b [whoisLen]byte
	binary.BigEndian.PutUint32(b[:4], player)
	binary.BigEndian.PutUint64(b[4:], key)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, vouchTimeout)
		defer cancel()
		m, err := c.nc.RequestWithContext(ctx, whoisSubject(c.prefix, player>>PlayerBits), b[:])
		answer(err == nil && len(m.Data) == 1 && m.Data[0] == 1)
	}()
}

// AnswerWhois has this node answer the other servers' vouches for its
// players: has reports whether id is a player here with key
// (netsync.Server.HasPlayerKey). Call it once the server exists.
func (n *Node) AnswerWhois(has func(id uint32, key uint64) bool) error {
	sub, err := n.cars.Subscribe(whoisSubject(n.carsX.prefix, n.Slot()), func(m *nats.Msg) {
		if len(m.Data) != whoisLen { // hostile or broken: no answer
			return
		}
		yes := has(binary.BigEndian.Uint32(m.Data[:4]), binary.BigEndian.Uint64(m.Data[4:]))
		b := byte(0)
		if yes {
			b = 1
		}
		_ = m.Respond([]byte{b})
	})
	if err != nil {
		return err
	}
	n.whois = sub
	return nil
}
