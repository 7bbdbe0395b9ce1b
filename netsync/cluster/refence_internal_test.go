package cluster

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// lostRace is a bucket whose every compare-and-set loses (another server
// moved the key on first).
type lostRace struct{ bucketOnly }

func (lostRace) Update(context.Context, string, []byte, uint64) (uint64, error) {
	return 0, jetstream.ErrKeyRevisionMismatch
}

// An owner whose last write's fate is unknown moves its lease on before
// writing again. If CommitFor runs out right after such a refence (a
// quorum coming back, the watch not yet showing the new lease), the edit
// was never written: it must be refused, not acked. It was acked (commit
// returned no revision and no error, which settle reads as "stored
// before"), and the quorum test's edit was then missing on every server.
func TestAnEditOutOfTimeAfterARefenceIsRefusedNotAcked(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	dir := newDirectory(1, 2*time.Second, time.Now)
	w := newWorld(nil, lostRace{}, dir, 1, log, WorldOptions{CommitFor: 30 * time.Millisecond})
	w.lease = newLeaser(lostRace{}, dir, w, 1, "a:1",
		LeaseOptions{TTL: 2 * time.Second, Heartbeat: 500 * time.Millisecond, ReleaseAfter: time.Minute}, log, nil)
	w.lease.okAt = time.Now() // fresh
	pos := voxel.ChunkPos{X: 0, Y: 1, Z: 0}
	reg := RegionOf(pos)
	dir.own[reg] = ownEntry{holder: 1, rev: 5, seen: time.Now()}
	dir.live[1] = &liveEntry{rev: 1, seen: time.Now()}
	w.watched[reg] = &watch{r: reg, ready: true, chunks: map[voxel.ChunkPos]known{}}
	w.suspect[reg] = 5 // a write under lease revision 5 timed out

	ps := w.commitChunk([]request{{tag: 1, player: 42, seq: 1, e: voxel.BlockEdit{Pos: pos, Index: 3, Block: voxel.Stone}}})
	require.Len(t, ps, 1)
	require.True(t, ps[0].done)
	require.Error(t, ps[0].err, "not stored (revision %d): refused", ps[0].rev)
	require.ErrorIs(t, ps[0].err, ErrStoreDown, "the player reads that the store did not answer in time")
	require.Zero(t, ps[0].rev)
}
