package store

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"citydrive/voxel"
	"citydrive/voxel/store/lazyfs"
)

const (
	powerCuts   = 200
	maxCutAfter = 80 // changes (writes, fsyncs, …) before a cut: a few commits
	maxBatch    = 8
	cutPlayers  = 3
)

// cutEdit is edit k of the power-cut test: a unique (chunk, index) per k,
// asked for by one of cutPlayers players with a sequence rising per
// player.
func cutEdit(k int) Edit {
	return Edit{
		BlockEdit: voxel.BlockEdit{
			Pos:   voxel.ChunkPos{X: int32(k / 512), Y: -1, Z: int32(k % 3)},
			Index: uint16(k%512) * 64,
			Block: voxel.Block(1 + k%int(voxel.NumBlocks-1)),
		},
		Player: uint64(1 + k%cutPlayers),
		Seq:    uint32(1 + k),
	}
}

// TestPowerCutKeepsEveryAcknowledgedEdit runs the store on a file system
// that loses power (lazyfs: what was not fsynced is dropped, or only partly
// kept, in any order) at a random change, powerCuts times: every edit
// acknowledged before a cut is there after it, the file always opens and
// passes bbolt's consistency check, and an edit resent after the cut (its
// acknowledgement lost with the power) is applied once.
func TestPowerCutKeepsEveryAcknowledgedEdit(t *testing.T) {
	if err := lazyfs.Available(); err != nil {
		t.Skipf("skipping the power-cut test: %v", err)
	}
	m := lazyfs.Start(t, filepath.Join(t.TempDir(), "mnt"))
	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 23))
	acked, tried := 0, 0 // edits [0, acked) acknowledged; [0, tried) sent
	openFailed, resent := 0, 0
	for cut := range powerCuts {
		m.CutAfter(1+r.IntN(maxCutAfter), r.Uint64())
		s, err := Open(m.Dir, testSeed, testGen)
		if err != nil {
			off, _, _ := m.State()
			require.True(t, off, "cut %d: open failed with the power on: %v", cut, err)
			openFailed++
		} else {
			checkAcked(t, s, acked, cut)
			// Edit until the power goes: from the first edit not
			// acknowledged, as a client resends what it has no answer for.
			for k := acked; ; {
				n := 1 + r.IntN(maxBatch)
				batch := make([]Edit, n)
				for i := range batch {
					batch[i] = cutEdit(k + i)
				}
				sent := tried
				tried = max(tried, k+n)
				dup, err := s.ApplyEdits(batch)
				if err != nil {
					break
				}
				for i, d := range dup {
					if d {
						require.Less(t, k+i, sent, "cut %d: edit %d reported applied before it was ever sent", cut, k+i)
						resent++
					}
				}
				k += n
				acked = k
			}
			_ = s.Close() // the power is off: closing may fail
		}
		m.Remount()
		checkOpens(t, filepath.Join(m.Dir, fileName), cut)
	}
	s, err := Open(m.Dir, testSeed, testGen)
	require.NoError(t, err)
	checkAcked(t, s, acked, powerCuts)
	require.NoError(t, s.Close())
	_, ops, cuts := m.State()
	t.Logf("%d power cuts over %d changes: %d edits acknowledged, 0 lost, every file opened; %d cuts landed in Open, %d resent edits applied once",
		cuts, ops, acked, openFailed, resent)
}

// checkAcked fails unless every edit in [0, acked) is in s.
func checkAcked(t *testing.T, s *Store, acked, cut int) {
	t.Helper()
	for k := range acked {
		e := cutEdit(k)
		o, err := s.Overlay(e.Pos)
		require.NoError(t, err)
		b, ok := o.Get(e.Index)
		require.True(t, ok && b == e.Block, "after cut %d: acknowledged edit %d lost", cut, k)
	}
}

// checkOpens fails unless the database at path, if it exists, passes the
// store's page check and bbolt's own consistency check, and opens.
func checkOpens(t *testing.T, path string, cut int) {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return // the power went before the database was first created
	}
	require.NoError(t, verifyFile(path), "after cut %d", cut)
	db, err := bolt.Open(path, filePerm, &bolt.Options{ReadOnly: true, Timeout: lockWait})
	require.NoError(t, err, "after cut %d the database does not open", cut)
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}), "after cut %d", cut)
	require.NoError(t, db.Close())
}
