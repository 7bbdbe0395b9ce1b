package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/cluster"
)

// commitLog records, as JetStream stores them, region r's lease changes and
// chunk writes, from before the test's first edit. The bucket keeps one
// value per key, so its history alone would not show a write later
// overwritten: the recorder sees each as it is stored.
type commitLog struct {
	t      *testing.T
	r      cluster.Region
	cons   jetstream.ConsumeContext
	info   func() (*jetstream.ConsumerInfo, error)
	mu     sync.Mutex
	holder string   // the lease's slot at this point of the history ("": nobody)
	writes []string // every chunk write: who wrote it, who held the lease
	bad    []string // writes by a server not holding the lease then
}

func recordCommits(t *testing.T, url string, r cluster.Region) *commitLog {
	t.Helper()
	return recordCommitsOff(t, url, r, "")
}

// recordCommitsOff is recordCommits with the recorder's consumer on a NATS
// node other than avoid (a node the test will stall): a consumer there
// would fall behind, and a chunk written again meanwhile keeps only its
// last value, so the recorder would miss writes.
func recordCommitsOff(t *testing.T, url string, r cluster.Region, avoid string) *commitLog {
	t.Helper()
	conn, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	js, err := jetstream.New(conn)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	bucket := fmt.Sprintf("citydrive-%d", seed)
	var stream jetstream.Stream
	require.Eventually(t, func() bool { stream, err = js.Stream(ctx, "KV_"+bucket); return err == nil },
		deadline, 10*time.Millisecond, "the bucket")
	prefix := "$KV." + bucket + "."
	own := prefix + cluster.OwnKey(r)
	for {
		l := startRecorder(ctx, t, stream, prefix, own, r)
		info, err := l.info()
		require.NoError(t, err)
		if avoid == "" || info.Cluster == nil || info.Cluster.Leader != avoid {
			t.Cleanup(l.cons.Stop)
			return l
		}
		l.cons.Stop() // JetStream placed it on avoid: once more
		require.NoError(t, ctx.Err(), "a recorder off %s", avoid)
	}
}

func startRecorder(ctx context.Context, t *testing.T, stream jetstream.Stream, prefix, own string, r cluster.Region) *commitLog {
	t.Helper()
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{own, prefix + cluster.RegionFilter(r)},
	})
	require.NoError(t, err)
	l := &commitLog{t: t, r: r, info: func() (*jetstream.ConsumerInfo, error) {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		return cons.Info(ctx)
	}}
	l.cons, err = cons.Consume(func(m jetstream.Msg) {
		meta, err := m.Metadata()
		if err != nil {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		switch {
		case m.Subject() == own:
			switch m.Headers().Get("KV-Operation") {
			case "DEL", "PURGE":
				l.holder = ""
			default:
				l.holder = string(m.Data())
			}
		case len(m.Data()) > 0:
			writer := m.Headers().Get(cluster.WriterHeader)
			line := fmt.Sprintf("seq %d %s: writer %q, lease holder %q", meta.Sequence.Stream,
				strings.TrimPrefix(m.Subject(), prefix), writer, l.holder)
			l.writes = append(l.writes, line)
			if writer == "" || writer != l.holder {
				l.bad = append(l.bad, line)
			}
		}
	})
	require.NoError(t, err)
	return l
}

// requireOneCommitter fails the test unless every chunk write of the
// region stored so far was made by the server holding its lease at that
// point of the history (at most one committer at any time), and each of
// writers committed some.
func (l *commitLog) requireOneCommitter(writers ...uint32) {
	t := l.t
	t.Helper()
	require.Eventually(t, func() bool {
		info, err := l.info()
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	}, deadline, 10*time.Millisecond, "the recorder has every stored write")
	l.mu.Lock()
	defer l.mu.Unlock()
	all := strings.Join(l.writes, "\n")
	require.Empty(t, l.bad, "chunk writes by a server not holding the lease then:\n%s\nall writes:\n%s",
		strings.Join(l.bad, "\n"), all)
	for _, s := range writers {
		require.Contains(t, all, "writer \""+strconv.FormatUint(uint64(s), 10)+"\"", "server %d committed", s)
	}
	t.Logf("%d chunk writes of region %v, each by the lease holder of its moment", len(l.writes), l.r)
}

// requireWrites fails the test unless the recorder saw at least n chunk
// writes (one per acked edit at least: a retry writes again, never less).
func (l *commitLog) requireWrites(n int) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	require.GreaterOrEqual(l.t, len(l.writes), n, "the recorder saw every write:\n%s", strings.Join(l.writes, "\n"))
}
