package lazyfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	RunIfHelper()
	os.Exit(m.Run())
}

func start(t *testing.T) *Mount {
	if err := Available(); err != nil {
		t.Skipf("no FUSE here, so no power-cut file system: %v", err)
	}
	return Start(t, filepath.Join(t.TempDir(), "mnt"))
}

func writeFile(t *testing.T, path string, data []byte, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.WriteAt(data, 0)
	require.NoError(t, err)
	if sync {
		require.NoError(t, f.Sync())
	}
	require.NoError(t, f.Close())
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	require.NoError(t, err)
	require.NoError(t, d.Sync())
	require.NoError(t, d.Close())
}

// What survives a power cut is what was fsynced: a file's contents by its
// own fsync, its name by the directory's.
func TestOnlyWhatWasSyncedSurvives(t *testing.T) {
	m := start(t)
	a, b := filepath.Join(m.Dir, "a"), filepath.Join(m.Dir, "b")
	writeFile(t, a, []byte("one"), true)
	m.Remount()
	_, err := os.Stat(a)
	assert.ErrorIs(t, err, os.ErrNotExist, "the name was never made durable")

	writeFile(t, a, []byte("one"), true)
	syncDir(t, m.Dir)
	writeFile(t, a, []byte("two"), false)
	writeFile(t, b, []byte("bee"), true)
	got, err := os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "two", string(got), "reads see the page cache")
	require.NoError(t, os.Rename(a, filepath.Join(m.Dir, "c")))
	m.Remount()
	got, err = os.ReadFile(a)
	require.NoError(t, err)
	assert.Contains(t, []string{"one", "two"}, string(got), "an unsynced write may or may not survive")
	_, err = os.Stat(b)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(filepath.Join(m.Dir, "c"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the rename was not synced")

	// An armed cut fails the change it lands in and everything after.
	m.CutAfter(2, 1)
	f, err := os.OpenFile(a, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("x"), 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("y"), 1)
	assert.ErrorIs(t, err, syscall.EIO)
	assert.ErrorIs(t, f.Sync(), syscall.EIO)
	_ = f.Close()
	cut, _, cuts := m.State()
	assert.True(t, cut)
	assert.Equal(t, 3, cuts, "the two remounts cut it too")
	m.Remount()
	got, err = os.ReadFile(a)
	require.NoError(t, err)
	assert.Len(t, got, 3)
}

func TestFullAndReadOnly(t *testing.T) {
	m := start(t)
	a := filepath.Join(m.Dir, "a")
	writeFile(t, a, []byte("one"), true)
	m.Full(true)
	f, err := os.OpenFile(a, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("two"), 0)
	assert.ErrorIs(t, err, syscall.ENOSPC)
	require.NoError(t, f.Close())
	m.Full(false)
	m.ReadOnly(true)
	_, err = os.OpenFile(a, os.O_RDWR, 0)
	assert.ErrorIs(t, err, syscall.EROFS)
	_, err = os.Create(filepath.Join(m.Dir, "b"))
	assert.ErrorIs(t, err, syscall.EROFS)
	got, err := os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "one", string(got))
}
