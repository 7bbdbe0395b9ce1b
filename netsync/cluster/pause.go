package cluster

import "sync"

// Pause stands in for a process stopped by the scheduler, a debugger or
// SIGSTOP (tests only: Options.pause is unexported): while frozen, the
// heartbeat and the owner's next fenced write wait where they are, after
// every check a live server makes, and go on when thawed.
type Pause struct {
	mu   sync.Mutex
	gate chan struct{} // nil: running
	hit  chan struct{}
}

func newPause() *Pause { return &Pause{hit: make(chan struct{}, 16)} }

// Freeze stops the server at its next heartbeat and fenced write.
func (p *Pause) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate == nil {
		p.gate = make(chan struct{})
	}
}

// Thaw lets it go on.
func (p *Pause) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate != nil {
		close(p.gate)
		p.gate = nil
	}
}

// Writing is told each time a write stops at the gate.
func (p *Pause) Writing() <-chan struct{} { return p.hit }

func (p *Pause) wait() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gate
}

func (p *Pause) beat() {
	if g := p.wait(); g != nil {
		<-g
	}
}

func (p *Pause) write() {
	if g := p.wait(); g != nil {
		select {
		case p.hit <- struct{}{}:
		default:
		}
		<-g
	}
}
