package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Rules is a small key-value map every server of a cluster shares: the
// operator's access rules (bans, the allow-list, the join password; the
// keys' meaning is cmd/citydrive/internal/webmap's). It lives in its own
// replicated bucket, citydrive-access-<seed>, beside the edit bucket, so a
// backup of the edits does not carry it and a ban outlives every server.
//
// Reads are local: each server keeps a copy, current through a watch of
// the bucket, so a handshake never waits on NATS. Writes go to the bucket
// and return once this server's copy has them. A removed rule is written
// as an empty value (not a delete), so every change has a revision that
// Sync can wait for.
type Rules struct {
	kv     jetstream.KeyValue
	stream jetstream.Stream
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	vals    map[string][]byte // empty values are removed rules, not kept
	rev     uint64            // the newest revision applied
	moved   chan struct{}     // closed (and replaced) when rev moves
	watcher func(key string, value []byte)
}

// Bounds on the rules (a bucket anyone with NATS access could write to
// must not make a server hold without limit).
const (
	MaxRules          = 250_000
	MaxRuleKeyLen     = 128
	MaxRuleValueLen   = 4096
	rulesWriteTimeout = 10 * time.Second
)

// rulesBucketName is the access rules' bucket of seed's cluster.
func rulesBucketName(seed uint64) string {
	return "citydrive-access-" + strconv.FormatUint(seed, 10)
}

func rulesConfig(seed uint64, replicas int) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket: rulesBucketName(seed), Description: "citydrive access rules: bans, allow-list, join password",
		History: 1, Replicas: replicas, Storage: jetstream.FileStorage, MaxValueSize: MaxRuleValueLen,
	}
}

// createBucket creates (or opens) a bucket, retrying while JetStream
// elects its leaders, until ctx ends.
func createBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		kv, err := js.CreateOrUpdateKeyValue(cctx, cfg)
		cancel()
		if err == nil {
			return kv, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: creating bucket %s (R=%d): %w", cfg.Bucket, cfg.Replicas, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// openRules opens seed's rules bucket and waits, within ctx, until this
// server's copy holds every rule (a server must not admit anyone before
// it knows the bans).
func openRules(ctx context.Context, js jetstream.JetStream, seed uint64, replicas int, log *slog.Logger) (*Rules, error) {
	cfg := rulesConfig(seed, replicas)
	kv, err := createBucket(ctx, js, cfg)
	if err != nil {
		return nil, err
	}
	stream, err := js.Stream(ctx, "KV_"+cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("cluster: the stream of bucket %s: %w", cfg.Bucket, err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	r := &Rules{kv: kv, stream: stream, log: log, cancel: cancel, done: make(chan struct{}),
		vals: map[string][]byte{}, moved: make(chan struct{})}
	loaded := make(chan struct{})
	go r.watch(wctx, loaded)
	select {
	case <-loaded:
		return r, nil
	case <-ctx.Done():
		r.close()
		return nil, fmt.Errorf("cluster: loading the access rules of bucket %s: %w", cfg.Bucket, ctx.Err())
	}
}

// watch keeps the copy current until ctx ends, starting the watch again
// if it fails; loaded is closed once the first one has every rule.
func (r *Rules) watch(ctx context.Context, loaded chan struct{}) {
	defer close(r.done)
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		kw, err := r.kv.WatchAll(ctx)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("watching the access rules failed; retrying", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		// A (re)started watch delivers every rule again, then nil: what
		// it did not deliver was removed meanwhile.
		fresh := map[string]bool{}
		initial := true
		for open := true; open; {
			select {
			case <-ctx.Done():
				open = false
			case e, ok := <-kw.Updates():
				switch {
				case !ok:
					open = false
				case e == nil:
					if initial {
						r.dropMissing(fresh)
						initial = false
						if loaded != nil {
							close(loaded)
							loaded = nil
						}
					}
				default:
					if initial {
						fresh[e.Key()] = true
					}
					r.apply(e)
				}
			}
		}
		stopWatch(kw)
	}
}

// apply takes one entry into the copy and tells the watcher.
func (r *Rules) apply(e jetstream.KeyValueEntry) {
	k, v := e.Key(), e.Value()
	if e.Operation() != jetstream.KeyValuePut {
		v = nil // deleted or purged by hand: removed
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case len(k) > MaxRuleKeyLen || len(v) > MaxRuleValueLen:
		r.log.Warn("an access rule over the bounds is ignored", "key", clip(k), "bytes", len(v))
	case len(v) == 0:
		if _, ok := r.vals[k]; ok {
			delete(r.vals, k)
			r.tell(k, nil)
		}
	case len(r.vals) >= MaxRules && r.vals[k] == nil:
		r.log.Warn("more access rules than a server keeps; ignored", "key", k, "max", MaxRules)
	default:
		r.vals[k] = v
		r.tell(k, v)
	}
	if rev := e.Revision(); rev > r.rev {
		r.rev = rev
		close(r.moved)
		r.moved = make(chan struct{})
	}
}

// dropMissing removes the rules a restarted watch did not deliver.
func (r *Rules) dropMissing(fresh map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.vals {
		if !fresh[k] {
			delete(r.vals, k)
			r.tell(k, nil)
		}
	}
}

func (r *Rules) tell(k string, v []byte) {
	if r.watcher != nil {
		r.watcher(k, v)
	}
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// Watch calls f with every rule now, then with every change as this
// server's copy takes it (value nil: removed), one call at a time, until
// the node closes. f must not block nor call back into r. There is one
// watcher; Watch replaces it.
func (r *Rules) Watch(f func(key string, value []byte)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watcher = f
	for k, v := range r.vals {
		f(k, v)
	}
}

// Snapshot is a copy of the rules.
func (r *Rules) Snapshot() map[string][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.vals)
}

// Put writes a rule (value empty: removes it) and returns once this
// server's copy has it; within rulesWriteTimeout.
func (r *Rules) Put(ctx context.Context, key string, value []byte) error {
	if key == "" || len(key) > MaxRuleKeyLen {
		return fmt.Errorf("cluster: a rule's key is 1..%d bytes, got %d", MaxRuleKeyLen, len(key))
	}
	if len(value) > MaxRuleValueLen {
		return fmt.Errorf("cluster: a rule's value is at most %d bytes, got %d", MaxRuleValueLen, len(value))
	}
	ctx, cancel := context.WithTimeout(ctx, rulesWriteTimeout)
	defer cancel()
	rev, err := r.kv.Put(ctx, key, value)
	if err != nil {
		return fmt.Errorf("cluster: writing the access rule %s: %w", key, err)
	}
	return r.wait(ctx, rev)
}

// Sync returns once this server's copy has every change the bucket had
// when it was called (another server's ban, say).
func (r *Rules) Sync(ctx context.Context) error {
	info, err := r.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("cluster: the state of the access rules: %w", err)
	}
	if info.State.Msgs == 0 {
		return nil
	}
	return r.wait(ctx, info.State.LastSeq)
}

// wait returns once the copy is at revision rev or later.
func (r *Rules) wait(ctx context.Context, rev uint64) error {
	for {
		r.mu.Lock()
		at, moved := r.rev, r.moved
		r.mu.Unlock()
		if at >= rev {
			return nil
		}
		select {
		case <-moved:
		case <-r.done:
			return errors.New("cluster: the access rules are closed")
		case <-ctx.Done():
			return fmt.Errorf("cluster: waiting for the access rules' watch to reach revision %d (at %d): %w", rev, at, ctx.Err())
		}
	}
}

// close stops the watch.
func (r *Rules) close() {
	r.cancel()
	<-r.done
}
