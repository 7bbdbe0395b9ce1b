package store

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"citydrive/voxel"
	"citydrive/voxel/store/lazyfs"
)

const (
	childDirEnv = "VOXEL_STORE_CRASH_DIR"
	childRunEnv = "VOXEL_STORE_CRASH_RUN"
	testSeed    = 42
	testGen     = 3
	crashRuns   = 20
)

// TestMain doubles as the crash test's child: with childDirEnv set, the
// test binary writes edits forever, printing "i" after each commit.
func TestMain(m *testing.M) {
	lazyfs.RunIfHelper() // the power-cut file system's helper process
	if dir := os.Getenv(childDirEnv); dir != "" {
		run, _ := strconv.Atoi(os.Getenv(childRunEnv))
		os.Exit(child(dir, run))
	}
	os.Exit(m.Run())
}

// crashEdit is edit i of run: a unique (chunk, index) per (run, i).
func crashEdit(run, i int) (voxel.ChunkPos, uint16, voxel.Block) {
	return voxel.ChunkPos{X: int32(run), Y: -1, Z: int32(i % 5)}, uint16(i), voxel.Block(1 + (run+i)%int(voxel.NumBlocks-1))
}

func child(dir string, run int) int {
	s, err := Open(dir, testSeed, testGen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if run%2 == 1 {
		// Odd runs commit in groups (ApplyBatch): a batch's edits are
		// acknowledged together, only after its commit.
		for i := 0; i < voxel.ChunkVolume; {
			n := 1 + i%7
			batch := make([]voxel.BlockEdit, 0, n)
			for j := i; j < min(i+n, voxel.ChunkVolume); j++ {
				p, idx, b := crashEdit(run, j)
				batch = append(batch, voxel.BlockEdit{Pos: p, Index: idx, Block: b})
			}
			if err := s.ApplyBatch(batch); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 3
			}
			for range batch {
				fmt.Println(i) // acknowledgement: committed
				i++
			}
		}
		return 0
	}
	for i := 0; i < voxel.ChunkVolume; i++ {
		p, idx, b := crashEdit(run, i)
		if err := s.Apply(p, idx, b); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		fmt.Println(i) // acknowledgement: committed
	}
	return 0
}

func TestCrashKeepsEveryAcknowledgedEdit(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen) // create it up front
	require.NoError(t, err)
	require.NoError(t, s.Close())
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 5))
	acked := map[int]int{} // run → acknowledged count
	for run := range crashRuns {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childDirEnv+"="+dir, childRunEnv+"="+strconv.Itoa(run))
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		killAfter := 1 + r.IntN(40) // random moment: after this many acks, mid-write
		sc := bufio.NewScanner(out)
		n := 0
		for sc.Scan() {
			i, err := strconv.Atoi(sc.Text())
			require.NoError(t, err)
			require.Equal(t, n, i)
			n++
			if n == killAfter {
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			}
		}
		err = cmd.Wait() // acks printed before the kill landed still count
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		ws := exit.Sys().(syscall.WaitStatus)
		require.True(t, ws.Signaled(), "child must die by SIGKILL, not %v", err)
		require.GreaterOrEqual(t, n, killAfter)
		acked[run] = n

		s, err := Open(dir, testSeed, testGen)
		require.NoError(t, err, "reopen after crash %d", run)
		for rr := 0; rr <= run; rr++ {
			for i := range acked[rr] {
				p, idx, b := crashEdit(rr, i)
				o, err := s.Overlay(p)
				require.NoError(t, err)
				got, ok := o.Get(uint16(idx))
				require.True(t, ok, "run %d edit %d lost", rr, i)
				require.Equal(t, b, got)
			}
		}
		require.NoError(t, s.Close())
	}
}

func TestApplyOverlayEditedAndReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	p := voxel.ChunkPos{X: -3, Y: 1, Z: 1 << 30}
	ok, err := s.Edited(p)
	require.NoError(t, err)
	assert.False(t, ok, "procedural default")
	require.NoError(t, s.Apply(p, 100, voxel.Stone))
	require.NoError(t, s.Apply(p, 7, voxel.Air))
	require.NoError(t, s.Apply(p, 100, voxel.Sand))
	assert.ErrorIs(t, s.Apply(p, voxel.ChunkVolume, voxel.Stone), ErrBadEdit)
	assert.ErrorIs(t, s.Apply(p, 0, voxel.NumBlocks), ErrBadEdit)
	require.NoError(t, s.Close())

	s, err = Open(dir, testSeed, testGen)
	require.NoError(t, err)
	defer s.Close()
	ok, err = s.Edited(p)
	require.NoError(t, err)
	assert.True(t, ok)
	o, err := s.Overlay(p)
	require.NoError(t, err)
	assert.Equal(t, voxel.Overlay{{Index: 7, Block: voxel.Air}, {Index: 100, Block: voxel.Sand}}, o)
	o, err = s.Overlay(p.Add(1, 0, 0))
	require.NoError(t, err)
	assert.Nil(t, o)
}

func TestMismatchedWorldIsAClearError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	require.NoError(t, s.Apply(voxel.ChunkPos{}, 1, voxel.Stone))
	require.NoError(t, s.Close())
	before := readAll(t, dir)

	_, err = Open(dir, testSeed+1, testGen)
	assert.ErrorIs(t, err, ErrMismatch)
	assert.ErrorContains(t, err, "seed")
	_, err = Open(dir, testSeed, testGen+1)
	assert.ErrorIs(t, err, ErrMismatch)
	assert.ErrorContains(t, err, "generator version")
	assert.Equal(t, before, readAll(t, dir), "a refused directory is not modified")
}

func TestForeignOrCorruptDirectoryIsRefusedAndUntouched(t *testing.T) {
	cases := map[string]func(dir string){
		"foreign files": func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
		},
		"garbage database": func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, fileName), []byte("this is not a bbolt file, not at all, no"), 0o644))
		},
		"empty database file": func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, fileName), nil, 0o644))
		},
		"database is a directory": func(dir string) {
			require.NoError(t, os.Mkdir(filepath.Join(dir, fileName), 0o755))
		},
		"someone else's bbolt": func(dir string) {
			s, err := Open(dir, testSeed, testGen)
			require.NoError(t, err)
			require.NoError(t, s.db.Update(func(tx *boltTx) error { return tx.DeleteBucket(bucketMeta) }))
			require.NoError(t, s.Close())
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			setup(dir)
			before := readAll(t, dir)
			_, err := Open(dir, testSeed, testGen)
			require.Error(t, err)
			assert.True(t, errorsIsAny(err, ErrForeign, ErrCorrupt), "%v", err)
			assert.Equal(t, before, readAll(t, dir))
		})
	}
}

func TestKeyOrderAndDefaultDir(t *testing.T) {
	a, b, c := Key(voxel.ChunkPos{X: -1}), Key(voxel.ChunkPos{X: 0}), Key(voxel.ChunkPos{X: 0, Y: 1})
	assert.Less(t, string(a[:]), string(b[:]), "negative X sorts first")
	assert.Less(t, string(b[:]), string(c[:]))
	t.Setenv("XDG_DATA_HOME", "/x/data")
	d, err := DefaultDir()
	require.NoError(t, err)
	assert.Equal(t, "/x/data/citydrive", d)
}

type boltTx = bolt.Tx

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// readAll snapshots every file under dir (name → bytes).
func readAll(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

func TestApplyBatchOneTransactionAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	a, b := voxel.ChunkPos{X: 1}, voxel.ChunkPos{X: -2, Y: 3, Z: -4}
	require.NoError(t, s.Apply(a, 9, voxel.Sand))
	require.NoError(t, s.ApplyBatch(nil))
	require.NoError(t, s.ApplyBatch([]voxel.BlockEdit{
		{Pos: a, Index: 5, Block: voxel.Stone},
		{Pos: b, Index: 7, Block: voxel.Sand},
		{Pos: a, Index: 5, Block: voxel.Air}, // later edit of the same block wins
	}))
	o, err := s.Overlay(a)
	require.NoError(t, err)
	assert.Equal(t, voxel.Overlay{{Index: 5, Block: voxel.Air}, {Index: 9, Block: voxel.Sand}}, o,
		"merged with what was already there")
	o, err = s.Overlay(b)
	require.NoError(t, err)
	assert.Equal(t, voxel.Overlay{{Index: 7, Block: voxel.Sand}}, o)

	// One invalid edit: nothing of the batch is written.
	c := voxel.ChunkPos{Z: 8}
	err = s.ApplyBatch([]voxel.BlockEdit{{Pos: c, Index: 1, Block: voxel.Stone}, {Pos: c, Index: voxel.ChunkVolume, Block: voxel.Stone}})
	require.ErrorIs(t, err, ErrBadEdit)
	ok, err := s.Edited(c)
	require.NoError(t, err)
	assert.False(t, ok)

	var edited []voxel.ChunkPos
	require.NoError(t, s.EditedChunks(func(p voxel.ChunkPos) { edited = append(edited, p) }))
	assert.ElementsMatch(t, []voxel.ChunkPos{a, b}, edited)
	require.NoError(t, s.Close())

	s, err = Open(dir, testSeed, testGen)
	require.NoError(t, err)
	defer s.Close()
	edited = edited[:0]
	require.NoError(t, s.EditedChunks(func(p voxel.ChunkPos) { edited = append(edited, p) }))
	assert.ElementsMatch(t, []voxel.ChunkPos{a, b}, edited, "the index survives a reopen")
}

func TestPosOfKeyInvertsKey(t *testing.T) {
	for _, p := range []voxel.ChunkPos{{}, {X: -1, Y: 2, Z: -3}, {X: math.MaxInt32, Y: math.MinInt32, Z: 7}} {
		k := Key(p)
		got, ok := posOfKey(k[:])
		require.True(t, ok)
		assert.Equal(t, p, got)
	}
	_, ok := posOfKey([]byte{1, 2})
	assert.False(t, ok)
}

// A store made by a compatible generator version opens, keeps its edits,
// and is re-stamped with the current version; an incompatible one does not.
func TestOpenAcceptsCompatibleGeneratorVersions(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 5, 1)
	require.NoError(t, err)
	p := voxel.ChunkPos{X: 1, Y: 2, Z: 3}
	require.NoError(t, s.Apply(p, 7, voxel.Stone))
	require.NoError(t, s.Close())

	_, err = Open(dir, 5, 2)
	require.ErrorIs(t, err, ErrMismatch, "not listed as compatible")
	s, err = Open(dir, 5, 2, 1)
	require.NoError(t, err)
	o, err := s.Overlay(p)
	require.NoError(t, err)
	b, ok := o.Get(7)
	assert.True(t, ok)
	assert.Equal(t, voxel.Stone, b)
	require.NoError(t, s.Close())
	s, err = Open(dir, 5, 2)
	require.NoError(t, err, "re-stamped with version 2")
	require.NoError(t, s.Close())
}
