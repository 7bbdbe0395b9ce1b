package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"citydrive/netsync/wire"
	"citydrive/voxel"
	"citydrive/voxel/backup"
)

// ErrNotEmpty is Import into a bucket that holds edited chunks: a restore
// never merges two worlds.
var ErrNotEmpty = errors.New("cluster: the world's bucket already holds edits")

// ErrNoWorld is Export of a seed that has no bucket.
var ErrNoWorld = errors.New("cluster: no such world")

// bucketName is the world's edit bucket.
func bucketName(seed uint64) string { return "citydrive-" + strconv.FormatUint(seed, 10) }

// bucketConfig is the edit bucket as Join (and an Import into a cluster
// no server has joined yet) makes it.
func bucketConfig(seed uint64, replicas int) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket: bucketName(seed), Description: "citydrive edited chunks", History: 1,
		Replicas: replicas, Storage: jetstream.FileStorage,
	}
}

// toolConn connects a one-off tool (export, import) to the cluster: no
// retrying a cluster that is not there, unlike a server's connections.
func toolConn(ctx context.Context, opt Options, name string) (*nats.Conn, jetstream.JetStream, error) {
	if len(opt.URLs) == 0 {
		return nil, nil, errors.New("cluster: no NATS URL")
	}
	url := strings.Join(opt.URLs, ",")
	timeout := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(d), time.Millisecond))
	}
	sec, err := securityOptions(opt)
	if err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect(url, append([]nats.Option{nats.Name(name), nats.Timeout(timeout)}, sec...)...)
	if err != nil {
		if rerr := refusal(err, url, opt); rerr != nil {
			return nil, nil, rerr
		}
		return nil, nil, fmt.Errorf("cluster: connecting to %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// Export reads every edited chunk of the world's bucket as the bucket
// stood at one revision, and returns them in backup order with that
// revision (0 for an empty bucket).
//
// An ordered watch delivers the bucket's messages in stream order, each
// key's value overwriting its earlier ones. Once it has delivered
// revision R and the stream's last revision is still R, what it delivered
// is exactly the bucket at R: a key's newest message is at most R, was
// stored before the watch passed its place, and was not replaced since, so
// the watch delivered it. If the stream has grown meanwhile, the watch
// reads on to the new end and asks again. (The pending counts the watch
// reports are no substitute: under concurrent writes one was seen at 0
// while a replaced key's new value was still to come.) Every key is
// watched, not just the chunks, so the stream's last message is always
// one the watch delivers.
//
// The chunks are held in memory to be sorted: the bucket's values,
// decoded, as a server watching the whole world would hold them.
func Export(ctx context.Context, opt Options) ([]backup.Chunk, uint64, error) {
	nc, js, err := toolConn(ctx, opt, "citydrive-export")
	if err != nil {
		return nil, 0, err
	}
	defer nc.Close()
	bucket := bucketName(opt.Seed)
	kv, err := js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, 0, fmt.Errorf("%w: the cluster has no bucket %s (no server has run seed %d's world on it)", ErrNoWorld, bucket, opt.Seed)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: opening bucket %s: %w", bucket, err)
	}
	stream, err := js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: the stream of bucket %s: %w", bucket, err)
	}
	// end is the stream's last revision now (0: it holds nothing).
	end := func() (uint64, error) {
		info, err := stream.Info(ctx)
		if err != nil {
			return 0, fmt.Errorf("cluster: the state of bucket %s: %w", bucket, err)
		}
		if info.State.Msgs == 0 {
			return 0, nil
		}
		return info.State.LastSeq, nil
	}
	target, err := end()
	if err != nil || target == 0 {
		return nil, 0, err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	kw, err := kv.WatchAll(wctx, jetstream.IncludeHistory())
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: watching bucket %s: %w", bucket, err)
	}
	defer stopWatch(kw)
	chunks := map[voxel.ChunkPos]backup.Chunk{}
	var rev uint64 // the newest revision applied
	idle := time.NewTimer(time.Second)
	defer idle.Stop()
	for {
		for rev < target {
			var e jetstream.KeyValueEntry
			select {
			case <-ctx.Done():
				return nil, 0, fmt.Errorf("cluster: reading bucket %s: %w", bucket, ctx.Err())
			case <-idle.C:
				// Nothing for a second below the end: messages at the
				// end were removed (not by a write); the end tells.
				if target, err = end(); err != nil {
					return nil, 0, err
				}
				idle.Reset(time.Second)
				continue
			case v, ok := <-kw.Updates():
				if !ok {
					return nil, 0, fmt.Errorf("cluster: the watch of bucket %s ended early", bucket)
				}
				e = v
			}
			if e == nil {
				continue // the library's "initial values done"; see above
			}
			idle.Reset(time.Second)
			rev = max(rev, e.Revision())
			if err := apply(chunks, e, bucket); err != nil {
				return nil, 0, err
			}
		}
		now, err := end()
		if err != nil {
			return nil, 0, err
		}
		if now <= rev {
			break
		}
		target = now
	}
	out := make([]backup.Chunk, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b backup.Chunk) int { return backup.Compare(a.Pos, b.Pos) })
	return out, rev, nil
}

// apply is one watched message: a chunk's new value, or its removal
// (keys other than chunks are not the world's edits).
func apply(chunks map[voxel.ChunkPos]backup.Chunk, e jetstream.KeyValueEntry, bucket string) error {
	if !strings.HasPrefix(e.Key(), chunkPrefix+".") {
		return nil
	}
	pos, err := parseKey(e.Key())
	if err != nil {
		return err
	}
	if e.Operation() != jetstream.KeyValuePut {
		delete(chunks, pos)
		return nil
	}
	v, err := decodeValue(e.Value(), pos, wire.DefaultLimits)
	if err != nil {
		return fmt.Errorf("cluster: bucket %s, key %s, revision %d: %w", bucket, e.Key(), e.Revision(), err)
	}
	if len(v.overlay) == 0 {
		delete(chunks, pos)
		return nil
	}
	c := backup.Chunk{Pos: pos, Overlay: v.overlay}
	// A backup (format 1) keeps each player's newest request, not the
	// window: a restored stamp refuses older requests (stamps.go).
	for _, s := range v.stamps {
		c.Stamps = append(c.Stamps, backup.Stamp{Player: s.player, Seq: s.newest()})
	}
	chunks[pos] = c
	return nil
}

// importWriters bounds the key writes in flight (each waits for JetStream's
// quorum; one at a time, a large world would take minutes).
const importWriters = 16

// Import writes every chunk of r into the world's bucket, made as Join
// makes it (with opt.Replicas) if no server has made it yet. It refuses a
// bucket that holds any edited chunk (ErrNotEmpty). Each chunk is one
// create, which fails if a server wrote that chunk meanwhile: import with
// the servers stopped. Keys are written as r yields them, so r should be
// a backup already checked (backup.Verify): one that fails midway leaves
// the bucket with what was written, and the error says how much.
func Import(ctx context.Context, opt Options, r *backup.Reader) (written int, err error) {
	if opt.Replicas <= 0 {
		opt.Replicas = 3
	}
	h := r.Header()
	if h.Seed != opt.Seed {
		return 0, fmt.Errorf("cluster: the backup is of seed %d's world, not %d's", h.Seed, opt.Seed)
	}
	nc, js, err := toolConn(ctx, opt, "citydrive-import")
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	bucket := bucketName(opt.Seed)
	kv, err := js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, bucketConfig(opt.Seed, opt.Replicas))
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: opening bucket %s (R=%d): %w", bucket, opt.Replicas, err)
	}
	if err := checkEmpty(ctx, kv, bucket); err != nil {
		return 0, err
	}

	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		n      atomic.Int64
		once   sync.Once
		first  error
		wg     sync.WaitGroup
		chunks = make(chan backup.Chunk)
	)
	fail := func(err error) {
		once.Do(func() { first = err; cancel() })
	}
	for range importWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc := wire.NewEncoder()
			for c := range chunks {
				v := chunkValue{pos: c.Pos, overlay: c.Overlay}
				for _, s := range c.Stamps {
					// A backup keeps each player's newest request only:
					// older ones are refused, not guessed (stamps.go).
					v.stamps = append(v.stamps, legacyStamp(s.Player, s.Seq))
				}
				b, err := v.encode(enc)
				if err == nil {
					_, err = kv.Create(ictx, chunkKey(c.Pos), b)
				}
				if err != nil {
					fail(fmt.Errorf("cluster: writing chunk %v: %w", c.Pos, err))
					return
				}
				n.Add(1)
			}
		}()
	}
	var readErr error
	for ictx.Err() == nil {
		c, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				// The writers finish the chunks they hold: what was read
				// is written, so the count below says what is there.
				readErr = err
			}
			break
		}
		select {
		case chunks <- c:
		case <-ictx.Done():
		}
	}
	close(chunks)
	wg.Wait()
	written = int(n.Load())
	if first == nil {
		first = readErr
	}
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	if first != nil {
		if written > 0 {
			return written, fmt.Errorf("%w (bucket %s is partly restored: %d of %d chunks; delete it with `nats kv del %s` and import again)", first, bucket, written, h.Chunks, bucket)
		}
		return 0, first
	}
	return written, nil
}

// checkEmpty refuses a bucket with any chunk key (other keys, such as the
// server counter, are not the world's edits).
func checkEmpty(ctx context.Context, kv jetstream.KeyValue, bucket string) error {
	kw, err := kv.Watch(ctx, chunkPrefix+".>", jetstream.MetaOnly(), jetstream.IgnoreDeletes())
	if err != nil {
		return fmt.Errorf("cluster: listing bucket %s: %w", bucket, err)
	}
	defer stopWatch(kw)
	select {
	case <-ctx.Done():
		return fmt.Errorf("cluster: listing bucket %s: %w", bucket, ctx.Err())
	case e, ok := <-kw.Updates():
		switch {
		case !ok:
			return fmt.Errorf("cluster: the watch of bucket %s ended early", bucket)
		case e != nil:
			return fmt.Errorf("%w: bucket %s holds chunk %s (and maybe more)", ErrNotEmpty, bucket, e.Key())
		}
		return nil // nothing before the "initial values done" marker
	}
}

// stopWatch stops kw and takes what it still delivers until it closes its
// channel: the library's callback blocks on a full channel, and, blocked,
// would never see the stop (a goroutine and a subscription left behind).
func stopWatch(kw jetstream.KeyWatcher) {
	_ = kw.Stop()
	timeout := time.NewTimer(5 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case _, ok := <-kw.Updates():
			if !ok {
				return
			}
		case <-timeout.C:
			return
		}
	}
}
