package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel/store/lazyfs"
)

func lazyMount(t *testing.T) *lazyfs.Mount {
	t.Helper()
	if err := lazyfs.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	return lazyfs.Start(t, filepath.Join(t.TempDir(), "mnt"))
}

// TestFullDiskRefusesEditsAndRecovers: on a full disk an edit fails with
// ErrDiskFull naming the file and what to do, reads go on, a store opens
// (nothing is written at open), and once there is space again edits
// commit and nothing acknowledged is lost.
func TestFullDiskRefusesEditsAndRecovers(t *testing.T) {
	m := lazyMount(t)
	s, err := Open(m.Dir, testSeed, testGen)
	require.NoError(t, err)
	_, err = s.ApplyEdits([]Edit{cutEdit(0), cutEdit(1)})
	require.NoError(t, err)

	m.Full(true)
	_, err = s.ApplyEdits([]Edit{cutEdit(2)})
	require.ErrorIs(t, err, ErrDiskFull)
	assert.Contains(t, err.Error(), filepath.Join(m.Dir, fileName))
	assert.Contains(t, err.Error(), "free space on its volume")
	t.Logf("operator sees: %v", err)
	checkAcked(t, s, 2, 0)
	require.NoError(t, s.Close())
	s, err = Open(m.Dir, testSeed, testGen)
	require.NoError(t, err, "a store on a full disk opens and serves what it has")
	checkAcked(t, s, 2, 0)

	m.Full(false)
	_, err = s.ApplyEdits([]Edit{cutEdit(2), cutEdit(3)})
	require.NoError(t, err, "space is back: edits commit again")
	require.NoError(t, s.Close())
	m.Remount() // and it was all on disk
	s, err = Open(m.Dir, testSeed, testGen)
	require.NoError(t, err)
	checkAcked(t, s, 4, 0)
	require.NoError(t, s.Close())
}

// TestReadOnlyDataDirectoryIsAClearError: a read-only data directory,
// empty or holding a store, is refused at open with ErrUnwritable naming
// it and saying what to do. (Mode bits would not do: root writes anyway.)
func TestReadOnlyDataDirectoryIsAClearError(t *testing.T) {
	m := lazyMount(t)
	m.ReadOnly(true)
	_, err := Open(m.Dir, testSeed, testGen)
	require.ErrorIs(t, err, ErrUnwritable)
	assert.Contains(t, err.Error(), m.Dir)
	assert.Contains(t, err.Error(), "make it writable")
	t.Logf("operator sees (empty directory): %v", err)

	m.ReadOnly(false)
	s, err := Open(m.Dir, testSeed, testGen)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	m.ReadOnly(true)
	_, err = Open(m.Dir, testSeed, testGen)
	require.ErrorIs(t, err, ErrUnwritable)
	assert.Contains(t, err.Error(), filepath.Join(m.Dir, fileName))
	t.Logf("operator sees (a store): %v", err)

	_, err = Open(filepath.Join(m.Dir, "worlds", "42"), testSeed, testGen)
	require.ErrorIs(t, err, ErrUnwritable, "a world directory that cannot be made")
	t.Logf("operator sees (cannot make the world's directory): %v", err)
}
