package netsync

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// IPv4 addresses are keys of their own; IPv6 ones are grouped by /64.
func TestAddrKeyGroupsIPv6By64(t *testing.T) {
	udp := func(s string) net.Addr { return &net.UDPAddr{IP: net.ParseIP(s), Port: 4000} }
	assert.Equal(t, "10.1.2.3", addrKey(udp("10.1.2.3")))
	assert.Equal(t, "10.1.2.3", addrKey(udp("::ffff:10.1.2.3")), "IPv4-mapped")
	a := addrKey(udp("2001:db8:1:2::1"))
	assert.Equal(t, "2001:db8:1:2::/64", a)
	assert.Equal(t, a, addrKey(udp("2001:db8:1:2:ffff:ffff:ffff:ffff")), "same /64")
	assert.NotEqual(t, a, addrKey(udp("2001:db8:1:3::1")), "the next /64")
	assert.Equal(t, "2001:db8:1:2::/64", addrKey(&net.TCPAddr{IP: net.ParseIP("2001:db8:1:2::9")}), "any net.Addr")
}

// The pool holds at most perAddr per address and max in all; full, it
// gives a newcomer the oldest slot of the greediest address while that
// one would still hold more, and refuses when shares are even.
func TestHandshakePoolFairShare(t *testing.T) {
	p := newHandshakePool(4, 3)
	var evicted []string
	take := func(key, name string) (*halfOpen, busyLimit) {
		return p.acquire(key, func() { evicted = append(evicted, name) })
	}
	a1, _ := take("a", "a1")
	a2, _ := take("a", "a2")
	_, _ = take("a", "a3")
	_, lim := take("a", "a4")
	assert.Equal(t, limitAddr, lim, "a fourth from one address")
	b1, lim := take("b", "b1")
	require.Equal(t, limitNone, lim)
	assert.Equal(t, 4, p.total())

	c1, lim := take("c", "c1") // full: a holds 3 > 0+1
	require.Equal(t, limitNone, lim)
	assert.Equal(t, []string{"a1"}, evicted, "the greediest address's oldest")
	assert.Equal(t, 2, p.held("a"))
	p.release(a1) // its handshake ends afterwards: nothing more is freed
	assert.Equal(t, 4, p.total())

	_, lim = take("d", "d1") // a holds 2 > 0+1
	require.Equal(t, limitNone, lim)
	assert.Equal(t, []string{"a1", "a2"}, evicted)
	_, lim = take("e", "e1") // everyone holds 1: even shares
	assert.Equal(t, limitServer, lim)
	_, lim = take("b", "b2") // b would hold 2 for another's 1: no gain
	assert.Equal(t, limitServer, lim)

	p.release(b1)
	p.release(b1) // twice: counted once
	p.release(a2)
	p.release(c1)
	assert.Equal(t, 2, p.total(), "a3 and d1")
	assert.Zero(t, p.held("b"))
	assert.Len(t, p.by, 2, "no entries kept for addresses holding none")
}

func TestSeatsPerAddress(t *testing.T) {
	s := newSeats(2)
	assert.True(t, s.take("a"))
	assert.True(t, s.take("a"))
	assert.False(t, s.take("a"), "a third from one address")
	assert.True(t, s.take("b"), "another address is not locked out")
	s.give("a")
	assert.True(t, s.take("a"), "a seat given back is reusable")
	s.give("a")
	s.give("a")
	s.give("b")
	assert.Zero(t, s.held("a"))
	assert.Empty(t, s.n)
}
