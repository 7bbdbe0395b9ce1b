package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// A crash while creating leaves edits.db.creating behind: the next Open
// starts over and ends with a working store and no leftover.
func TestLeftoverFromACrashedCreateIsReplaced(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, tmpName), []byte("half a database"), 0o644))
	s, err := Open(dir, testSeed, testGen)
	require.NoError(t, err)
	require.NoError(t, s.Apply(voxel.ChunkPos{X: 1}, 5, voxel.Sand))
	require.NoError(t, s.Close())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, fileName, entries[0].Name())
	s, err = Open(dir, testSeed, testGen)
	require.NoError(t, err)
	defer s.Close()
	ok, err := s.Edited(voxel.ChunkPos{X: 1})
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestDefaultDirFallsBackToHome(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/someone")
	d, err := DefaultDir()
	require.NoError(t, err)
	assert.Equal(t, "/home/someone/.local/share/citydrive", d)
	t.Setenv("HOME", "")
	_, err = DefaultDir()
	assert.Error(t, err, "no home, no default")
}

// A database path that cannot be examined (here a symlink loop) is an
// error, not a reason to create a new database.
func TestUnreadableDatabasePathIsAnError(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink(fileName, filepath.Join(dir, fileName)))
	_, err := Open(dir, testSeed, testGen)
	require.Error(t, err)
	assert.NotErrorIs(t, err, os.ErrNotExist)
	fi, err := os.Lstat(filepath.Join(dir, fileName))
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink, "left untouched")
}
