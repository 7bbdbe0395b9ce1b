package netsync

import (
	"net"
	"sync"
)

// ipv6GroupBits is the prefix by which IPv6 addresses are grouped for
// per-address limits: one customer or host is handed a whole /64, so
// counting single addresses would give it 2^64 of them.
const ipv6GroupBits = 64

// addrKey is the per-address key of a remote address: the IPv4 address,
// or the IPv6 /64 it lies in.
func addrKey(a net.Addr) string {
	var ip net.IP
	if u, ok := a.(*net.UDPAddr); ok {
		ip = u.IP
	} else if host, _, err := net.SplitHostPort(a.String()); err == nil {
		ip = net.ParseIP(host)
		if ip == nil {
			return host
		}
	} else {
		return a.String()
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	n := net.IPNet{IP: ip.Mask(net.CIDRMask(ipv6GroupBits, 128)), Mask: net.CIDRMask(ipv6GroupBits, 128)}
	return n.String()
}

// halfOpen is one handshake holding a pool slot: from the accept until its
// Hello is in (or it ends without one).
type halfOpen struct {
	key   string
	evict func() // closes the connection: its slot was given to another address
	freed bool
}

// handshakePool is the server's half-open handshakes: at most max in all
// and perAddr from one address key. When it is full, a newcomer takes the
// slot of the oldest handshake of the address holding the most, as long
// as that address would still hold more than the newcomer's: so a few
// addresses renewing stalled handshakes cannot keep the others out, and
// under contention every address tends to a fair share. Safe for
// concurrent use (the accept loop acquires, handshakes release).
type handshakePool struct {
	max, perAddr int
	mu           sync.Mutex
	n            int
	by           map[string][]*halfOpen // oldest first
}

func newHandshakePool(max, perAddr int) *handshakePool {
	return &handshakePool{max: max, perAddr: perAddr, by: map[string][]*halfOpen{}}
}

// busyLimit says which limit refused a slot: the metric label.
type busyLimit string

const (
	limitNone    busyLimit = ""
	limitAddr    busyLimit = "addr"
	limitServer  busyLimit = "server"
	limitEvicted busyLimit = "evicted" // a held slot given to another address
)

// acquire takes a slot for key; evict is called (outside the lock) if the
// slot is later given to another address. It returns the slot, or the
// limit that refused it.
func (p *handshakePool) acquire(key string, evict func()) (*halfOpen, busyLimit) {
	p.mu.Lock()
	mine := len(p.by[key])
	if mine >= p.perAddr {
		p.mu.Unlock()
		return nil, limitAddr
	}
	var victim *halfOpen
	if p.n >= p.max {
		top := ""
		for k, hs := range p.by {
			if len(hs) > len(p.by[top]) {
				top = k
			}
		}
		// After the swap the greediest still holds at least as many as
		// the newcomer: taking from an equal would only trade places.
		if len(p.by[top]) <= mine+1 {
			p.mu.Unlock()
			return nil, limitServer
		}
		victim = p.by[top][0]
		p.removeLocked(victim)
	}
	h := &halfOpen{key: key, evict: evict}
	p.by[key] = append(p.by[key], h)
	p.n++
	p.mu.Unlock()
	if victim != nil {
		victim.evict()
	}
	return h, limitNone
}

// release gives h's slot back; only the first call counts.
func (p *handshakePool) release(h *halfOpen) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removeLocked(h)
}

func (p *handshakePool) removeLocked(h *halfOpen) {
	if h.freed {
		return
	}
	h.freed = true
	p.n--
	hs := p.by[h.key]
	for i, x := range hs {
		if x == h {
			hs = append(hs[:i], hs[i+1:]...)
			break
		}
	}
	if len(hs) == 0 {
		delete(p.by, h.key)
	} else {
		p.by[h.key] = hs
	}
}

// held is how many slots key holds (tests, metrics).
func (p *handshakePool) held(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.by[key])
}

// total is how many slots are held.
func (p *handshakePool) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// seats counts connected (or joining) players per address key, for
// MaxPlayersPerAddr. Safe for concurrent use.
type seats struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newSeats(max int) *seats { return &seats{max: max, n: map[string]int{}} }

// take reserves a seat for key, reporting false when key holds max.
func (s *seats) take(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key] >= s.max {
		return false
	}
	s.n[key]++
	return true
}

// give returns a seat take reserved.
func (s *seats) give(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key]--; s.n[key] <= 0 {
		delete(s.n, key)
	}
}

// held is how many seats key holds.
func (s *seats) held(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[key]
}
