package natstest

import (
	"fmt"
	"net"
	"sync"
	"testing"
)

// A stall stands in for a node stopped by SIGSTOP, which an in-process
// node cannot be: every byte to and from the node, clients' and routes',
// passes through a proxy, and while the node is stalled the proxies
// forward nothing either way and connect nothing new, keeping every
// connection open. The kernel buffers fill and the peers' writes block, as
// they would against a stopped process.

// gate is one node's stall switch, shared by its proxies.
type gate struct {
	mu   sync.Mutex
	open chan struct{} // closed while the node runs
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) wait() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

func (g *gate) stall() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open = make(chan struct{})
	default: // already stalled
	}
}

func (g *gate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// proxy forwards connections on l to target while all its gates are open.
type proxy struct {
	l      net.Listener
	target string
	gates  []*gate
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
}

func startProxy(t testing.TB, target string, gates ...*gate) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("natstest: proxy: %v", err)
	}
	p := &proxy{l: l, target: target, gates: gates, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	return p
}

func (p *proxy) addr() string { return p.l.Addr().String() }

func (p *proxy) port() int { return p.l.Addr().(*net.TCPAddr).Port }

// pass waits until every gate is open.
func (p *proxy) pass() {
	for _, g := range p.gates {
		<-g.wait()
	}
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.conns[c] = true
	return true
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.pass() // a stopped node accepts nothing
			up, err := net.Dial("tcp", p.target)
			if err != nil || !p.track(up) {
				_ = c.Close()
				return
			}
			var both sync.WaitGroup
			both.Add(2)
			go func() { defer both.Done(); p.copy(up, c) }()
			go func() { defer both.Done(); p.copy(c, up) }()
			both.Wait()
		}()
	}
}

// copy forwards src to dst, holding each read while a gate is shut.
func (p *proxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.pass()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break // closed by either side or by close
		}
	}
	_ = dst.Close()
	_ = src.Close()
}

func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.l.Close()
	p.wg.Wait()
}

// StartStallable runs an n-node cluster like Start whose nodes Stall can
// stop: clients dial node i through a proxy (URL and URLs name the
// proxies), and node i dials node j's routes through a proxy of its own,
// so stalling a node holds its clients' and both directions of its routes.
// Resume every stalled node before the test ends.
func StartStallable(t testing.TB, n int) *Cluster {
	t.Helper()
	c := Start(t, n) // for the options; stopped and rebuilt below
	for i := range c.nodes {
		c.Stop(i)
	}
	c.gates = make([]*gate, n)
	for i := range c.gates {
		c.gates[i] = newGate()
	}
	var proxies []*proxy
	for i, o := range c.opts {
		cp := startProxy(t, fmt.Sprintf("127.0.0.1:%d", o.Port), c.gates[i])
		proxies = append(proxies, cp)
		c.clientAddr = append(c.clientAddr, cp.port())
		// Clients learn no other address than the proxies'.
		o.Cluster.NoAdvertise = true
		// Gossiped route addresses lead nowhere: every route is one of
		// the explicit ones, through the proxies.
		o.Cluster.Advertise = "127.0.0.1:1"
		o.Routes = nil
		for j, oj := range c.opts {
			if j == i {
				continue
			}
			rp := startProxy(t, fmt.Sprintf("127.0.0.1:%d", oj.Cluster.Port), c.gates[i], c.gates[j])
			proxies = append(proxies, rp)
			o.Routes = append(o.Routes, mustURL(t, "nats://"+rp.addr()))
		}
	}
	for i := range c.nodes {
		c.Restart(i)
	}
	t.Cleanup(func() {
		for _, g := range c.gates {
			g.resume()
		}
		for _, p := range proxies {
			p.close()
		}
	})
	return c
}

// Stall stops node i as SIGSTOP would (see StartStallable); Resume lets it
// go on.
func (c *Cluster) Stall(i int) { c.gates[i].stall() }

// Resume undoes Stall.
func (c *Cluster) Resume(i int) { c.gates[i].resume() }
