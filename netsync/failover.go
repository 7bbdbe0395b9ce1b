package netsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// FailoverIdle is the idle timeout of a client that fails over: a server
// silent this long counts as lost (keep-alives every quarter of it keep a
// live one talking), so its players are on another within about this
// long plus a dial.
const FailoverIdle = 2 * time.Second

// Failover dials one of several servers of one world (a cluster), the
// same player (Identity) on each: a lost connection is replaced by
// dialling the next server in the list, and the edits it left unanswered
// are sent again there.
type Failover struct {
	cfg   ClientConfig
	addrs []string
	pins  []string
	try   time.Duration

	mu   sync.Mutex
	next int
}

// NewFailover prepares dialling addrs with cfg (Addr and Fingerprint are
// taken from the lists). pins holds one fingerprint per address, or one for
// all of them (servers sharing an identity). start picks the first server
// tried (bots spread themselves with it). cfg.IdleTimeout defaults to
// FailoverIdle.
func NewFailover(cfg ClientConfig, addrs, pins []string, start int) (*Failover, error) {
	if len(addrs) == 0 {
		return nil, errors.New("netsync: no server address")
	}
	if len(pins) != 1 && len(pins) != len(addrs) {
		return nil, fmt.Errorf("netsync: %d fingerprints for %d servers: give one for all or one per server", len(pins), len(addrs))
	}
	if cfg.Identity == nil {
		cfg.Identity = NewIdentity()
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = FailoverIdle
	}
	n := len(addrs)
	return &Failover{cfg: cfg, addrs: addrs, pins: pins, try: 5 * time.Second, next: ((start % n) + n) % n}, nil
}

// Identity is the player every connection of f speaks for.
func (f *Failover) Identity() *Identity { return f.cfg.Identity }

// Dial connects to the next server in turn, trying each once (a refused
// handshake is final: the world does not match); the one after it is
// tried first next time, since a second Dial means this one was lost.
func (f *Failover) Dial(ctx context.Context) (*Client, error) {
	f.mu.Lock()
	start := f.next
	f.mu.Unlock()
	var errs []error
	for k := range len(f.addrs) {
		i := (start + k) % len(f.addrs)
		cfg := f.cfg
		cfg.Addr = f.addrs[i]
		cfg.Fingerprint = f.pins[min(i, len(f.pins)-1)]
		dctx, cancel := context.WithTimeout(ctx, f.try)
		c, err := Dial(dctx, cfg)
		cancel()
		if err == nil {
			f.mu.Lock()
			f.next = (i + 1) % len(f.addrs)
			f.mu.Unlock()
			return c, nil
		}
		var re *RefusedError
		if errors.As(err, &re) || ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("netsync: no server answered: %w", errors.Join(errs...))
}
